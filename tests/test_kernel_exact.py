"""Exact kernel SDCA with a bias (src/core/kernel/kernel_sdca_pair.c): LIBSVM's
dual, checked against LIBSVM itself (scikit-learn's SVC) on small problems --
the dual objective recomputed from both solutions, the support set, the bias
-- and the cache and shrinking settings, which must not change the answer."""

import pickle

import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer, load_digits, make_classification
from sklearn.metrics.pairwise import pairwise_kernels
from sklearn.svm import SVC

from stochsvm import KernelSVM


def digits_binary():
    X, y = load_digits(return_X_y=True)
    return X / 16.0, np.where(y % 2 == 0, 1.0, -1.0), 10.0, 0.02


def breast_cancer_scaled():
    X, y = load_breast_cancer(return_X_y=True)
    X = (X - X.mean(axis=0)) / X.std(axis=0)
    return X, np.where(y == 1, 1.0, -1.0), 5.0, 0.05


def generated():
    X, y = make_classification(n_samples=300, n_features=8, n_informative=5, flip_y=0.1,
                               random_state=3)
    return X, np.where(y == 1, 1.0, -1.0), 2.0, 0.2


PROBLEMS = {"digits": digits_binary, "breast_cancer": breast_cancer_scaled,
            "generated": generated}


def exact_sdca(X, y, C, gamma, epsilon=1e-12, **settings):
    """Our solver at lambda = 1/(C n), so its alpha lives in [0, C]."""
    svm = KernelSVM(X, y, 1.0 / (C * X.shape[0]), solver="sdca", kernel="rbf", gamma=gamma)
    svm.set_unregularized_bias(True)
    svm.set_epsilon(epsilon)
    for key, value in settings.items():
        getattr(svm, "set_" + key)(value)
    svm.train()
    return svm


def libsvm_dual(K, y, alpha):
    """e^T a - 1/2 (a y)^T K (a y), LIBSVM's dual negated (larger is better)."""
    ay = alpha * y
    return alpha.sum() - 0.5 * ay @ K @ ay


@pytest.mark.parametrize("name", sorted(PROBLEMS))
def test_matches_svc_dual_support_set_and_bias(name):
    X, y, C, gamma = PROBLEMS[name]()
    svc = SVC(C=C, gamma=gamma, tol=1e-10).fit(X, y)
    alpha_svc = np.zeros(len(y))
    alpha_svc[svc.support_] = np.abs(svc.dual_coef_[0])
    svm = exact_sdca(X, y, C, gamma)
    alpha = np.asarray(svm.get_dual_variables())
    K = pairwise_kernels(X, metric="rbf", gamma=gamma)
    d_svc, d_ours = libsvm_dual(K, y, alpha_svc), libsvm_dual(K, y, alpha)
    assert abs(d_ours - d_svc) <= 1e-6 * abs(d_svc)
    assert svm.get_statistics()["status"] == "converged"
    # feasible: the box and the equality constraint
    assert alpha.min() >= 0 and alpha.max() <= C
    assert abs(alpha @ y) <= 1e-9 * C * len(y)
    np.testing.assert_array_equal(np.flatnonzero(alpha > 0), np.sort(svc.support_))
    assert svm.get_bias() == pytest.approx(svc.intercept_[0], abs=1e-5)
    # the object's dual objective is lambda times LIBSVM's
    lam = 1.0 / (C * len(y))
    assert svm.get_statistics()["dual_objective"] == pytest.approx(lam * d_ours, rel=1e-9)
    np.testing.assert_allclose(svm.decision_function(X), svc.decision_function(X), atol=1e-5)


def test_sample_weights_scale_the_boxes_like_svc():
    X, y, C, gamma = generated()
    w = np.random.default_rng(0).uniform(0.2, 2.0, size=len(y))
    svc = SVC(C=C, gamma=gamma, tol=1e-10).fit(X, y, sample_weight=w)
    svm = KernelSVM(X, y, 1.0 / (C * len(y)), solver="sdca", kernel="rbf", gamma=gamma)
    svm.set_unregularized_bias(True)
    svm.set_weights(w)
    svm.set_epsilon(1e-12)
    svm.train()
    alpha = np.asarray(svm.get_dual_variables())
    assert np.all(alpha <= C * w * (1 + 1e-15))
    alpha_svc = np.zeros(len(y))
    alpha_svc[svc.support_] = np.abs(svc.dual_coef_[0])
    K = pairwise_kernels(X, metric="rbf", gamma=gamma)
    d_svc, d_ours = libsvm_dual(K, y, alpha_svc), libsvm_dual(K, y, alpha)
    assert abs(d_ours - d_svc) <= 1e-6 * abs(d_svc)


def test_precomputed_kernel_matches_rbf():
    X, y, C, gamma = generated()
    K = pairwise_kernels(X, metric="rbf", gamma=gamma)
    svm = KernelSVM(K, y, 1.0 / (C * len(y)), solver="sdca", kernel="precomputed")
    svm.set_unregularized_bias(True)
    svm.set_epsilon(1e-12)
    svm.train()
    ref = exact_sdca(X, y, C, gamma)
    np.testing.assert_allclose(svm.get_dual_variables(), ref.get_dual_variables(), atol=1e-9)


@pytest.mark.parametrize("shrinking", [True, False])
def test_cache_size_never_changes_the_iterates(shrinking):
    # 1e-6 MB holds the minimum of two rows: every step evicts.
    X, y, C, gamma = breast_cancer_scaled()
    runs = [exact_sdca(X, y, C, gamma, epsilon=1e-6, cache_size=size, shrinking=shrinking)
            for size in (1e-6, 0.01, 1e5)]
    for svm in runs[1:]:
        assert np.array_equal(svm.get_dual_variables(), runs[0].get_dual_variables())
        assert svm.get_bias() == runs[0].get_bias()
        assert svm.get_iteration_number() == runs[0].get_iteration_number()
    evaluations = [svm.get_statistics()["num_kernel_evaluations"] for svm in runs]
    assert evaluations[0] > evaluations[-1]  # the tiny cache recomputes rows


@pytest.mark.parametrize("shrinking", [True, False])
def test_two_threads_give_the_same_iterates(shrinking):
    """The rows of the cache misses are split over the threads (rows longer
    than the core's 1024-entry threshold, threads.h): bit-identical."""
    X, y = make_classification(n_samples=2600, n_features=6, n_informative=4, flip_y=0.05,
                               random_state=5)
    y = np.where(y == 1, 1.0, -1.0)
    runs = [exact_sdca(X, y, 2.0, 0.3, epsilon=1e-3, shrinking=shrinking,
                       num_threads=threads) for threads in (1, 2)]
    assert runs[1].get_num_threads() == 2
    a, b = (svm.get_dual_variables() for svm in runs)
    assert np.count_nonzero(a) > 0 and a.tobytes() == b.tobytes()
    assert runs[0].get_bias() == runs[1].get_bias()
    assert runs[0].get_iteration_number() == runs[1].get_iteration_number()
    assert runs[0].decision_function(X).tobytes() == runs[1].decision_function(X).tobytes()


def test_cache_size_between_train_calls_keeps_the_iterates():
    X, y, C, gamma = generated()
    a = exact_sdca(X, y, C, gamma, epsilon=0, max_num_iterations=40)
    a.set_cache_size(1e-6)
    a.train()
    b = exact_sdca(X, y, C, gamma, epsilon=0, max_num_iterations=40)
    b.train()
    assert np.array_equal(a.get_dual_variables(), b.get_dual_variables())


def train_in_calls(svm, per_call, max_calls):
    """train() in a loop of calls of per_call iterations, until a call ends
    on something else than its cap (or max_calls of them)."""
    svm.set_max_num_iterations(per_call)
    for _ in range(max_calls):
        stats = svm.train()
        if stats["status"] != "max_iterations":
            break
    return stats


def relative_gap(stats):
    return (stats["primal_objective"] - stats["dual_objective"]) / stats["dual_objective"]


@pytest.mark.parametrize("C, per_call", [(100.0, None), (1000.0, 50)])
def test_short_train_calls_reach_the_gap_like_one_call(C, per_call):
    """A run made of short train calls stops "converged", within epsilon, as
    one call does: each further call keeps the violation tolerance that the
    gap tests tightened. (Restarted at epsilon, every call ended optimal at
    epsilon with the gap test failed: these runs never converged.)"""
    X, y, _, gamma = breast_cancer_scaled()
    n = X.shape[0]
    one = exact_sdca(X, y, C, gamma, epsilon=1e-3)
    one_stats = one.get_statistics()
    assert one_stats["status"] == "converged" and relative_gap(one_stats) <= 1e-3
    svm = KernelSVM(X, y, 1.0 / (C * n), solver="sdca", kernel="rbf", gamma=gamma)
    svm.set_unregularized_bias(True)
    svm.set_epsilon(1e-3)
    stats = train_in_calls(svm, per_call or n, max_calls=200)
    assert stats["status"] == "converged"
    assert relative_gap(stats) <= 1e-3
    assert svm.get_iteration_number() <= 3 * one.get_iteration_number()
    # A smaller epsilon set between calls is met as well; a larger one at once.
    svm.set_epsilon(1e-5)
    stats = train_in_calls(svm, per_call or n, max_calls=400)
    assert stats["status"] == "converged" and relative_gap(stats) <= 1e-5
    svm.set_epsilon(1e-2)
    before = svm.get_dual_variables()
    stats = svm.train()
    assert stats["status"] == "converged" and relative_gap(stats) <= 1e-2
    assert np.array_equal(svm.get_dual_variables(), before)


@pytest.mark.parametrize("name", sorted(PROBLEMS))
def test_shrinking_on_and_off_reach_the_same_optimum(name):
    X, y, C, gamma = PROBLEMS[name]()
    on = exact_sdca(X, y, C, gamma, shrinking=True)
    off = exact_sdca(X, y, C, gamma, shrinking=False)
    d_on = on.get_statistics()["dual_objective"]
    d_off = off.get_statistics()["dual_objective"]
    assert d_on == pytest.approx(d_off, rel=1e-10)
    np.testing.assert_array_equal(np.flatnonzero(on.get_dual_variables()),
                                  np.flatnonzero(off.get_dual_variables()))


def test_shrinking_saves_kernel_rows_when_the_cache_is_small():
    X, y = make_classification(n_samples=1500, n_features=8, n_informative=5, flip_y=0.1,
                               random_state=3)
    y = np.where(y == 1, 1.0, -1.0)
    runs = {sh: exact_sdca(X, y, 10.0, 0.2, epsilon=1e-9, shrinking=sh, cache_size=2.0)
            for sh in (True, False)}
    K = pairwise_kernels(X, metric="rbf", gamma=0.2)
    svc = SVC(C=10.0, gamma=0.2, tol=1e-10).fit(X, y)
    alpha_svc = np.zeros(len(y))
    alpha_svc[svc.support_] = np.abs(svc.dual_coef_[0])
    d_svc = libsvm_dual(K, y, alpha_svc)
    for run in runs.values():
        alpha = np.asarray(run.get_dual_variables())
        assert abs(libsvm_dual(K, y, alpha) - d_svc) <= 1e-6 * d_svc
        lam = 1.0 / (10.0 * len(y))
        assert run.get_statistics()["dual_objective"] == pytest.approx(
            lam * libsvm_dual(K, y, alpha), rel=1e-9)
    ev = {sh: run.get_statistics()["num_kernel_evaluations"] for sh, run in runs.items()}
    assert ev[True] < 0.8 * ev[False]


def test_default_tolerance_certifies_the_relative_gap():
    X, y, C, gamma = digits_binary()
    svm = KernelSVM(X, y, 1.0 / (C * len(y)), solver="sdca", kernel="rbf", gamma=gamma)
    svm.set_unregularized_bias(True)
    svm.train()
    st = svm.get_statistics()
    assert st["status"] == "converged"
    assert st["primal_objective"] - st["dual_objective"] <= 1e-3 * st["dual_objective"]


@pytest.mark.parametrize("bad", [0, -1.0, float("nan"), float("inf"), -float("inf")])
def test_bad_cache_size_is_refused(bad):
    X, y, C, gamma = generated()
    svm = KernelSVM(X, y, 0.01, solver="sdca", kernel="rbf", gamma=gamma)
    with pytest.raises(ValueError, match="cache_size"):
        svm.set_cache_size(bad)
    with pytest.raises(TypeError, match="cache_size"):
        svm.set_cache_size("200")
    assert svm.get_cache_size() == 200.0


def test_settings_defaults_pickle_and_the_bias_free_mode():
    X, y, C, gamma = generated()
    svm = KernelSVM(X, y, 1.0 / (C * len(y)), solver="sdca", kernel="rbf", gamma=gamma)
    assert svm.get_cache_size() == 200.0 and svm.get_shrinking() is True
    assert svm.get_unregularized_bias() is False
    svm.set_cache_size(12.5)
    svm.set_shrinking(False)
    svm.set_unregularized_bias(True)
    svm.set_max_num_iterations(30)
    svm.train()
    copy = pickle.loads(pickle.dumps(svm))
    assert copy.get_cache_size() == 12.5 and copy.get_shrinking() is False
    assert copy.get_unregularized_bias() is True
    # back to the bias-free SDCA: its old iterates, from zero
    svm.set_unregularized_bias(False)
    ref = KernelSVM(X, y, 1.0 / (C * len(y)), solver="sdca", kernel="rbf", gamma=gamma)
    svm.set_max_num_iterations(500)
    ref.set_max_num_iterations(500)
    svm.train()
    ref.train()
    assert np.array_equal(svm.get_dual_variables(), ref.get_dual_variables())
    assert svm.get_bias() == 0.0
    with pytest.raises(ValueError, match="unregularized_bias"):
        KernelSVM(X, y, 0.01, solver="pegasos", kernel="rbf", gamma=gamma).set_unregularized_bias(
            True)


def test_one_class_only():
    X, y, C, gamma = generated()
    svm = exact_sdca(X, np.ones(len(y)), C, gamma)
    assert np.all(np.asarray(svm.get_dual_variables()) == 0)
    assert np.all(svm.decision_function(X) > 0)


def test_zero_tolerance_stops_doing_work_at_the_rounding_floor():
    # epsilon = 0 disables the stopping rule: the run goes to the cap, but
    # once a pair step moves nothing the remaining iterations are empty.
    X, y, C, gamma = breast_cancer_scaled()
    svm = exact_sdca(X, y, C, gamma, epsilon=0, max_num_iterations=10**7)
    assert svm.get_iteration_number() == 10**7
    assert svm.get_statistics()["status"] == "max_iterations"
    tight = exact_sdca(X, y, C, gamma, epsilon=1e-12)
    assert svm.get_statistics()["dual_objective"] >= tight.get_statistics()["dual_objective"] * (
        1 - 1e-12)


def test_the_estimator_reaches_the_exact_solver():
    """KernelSVMClassifier(solver="sdca") is this solver by default (and with
    unregularized_bias=True): SVC's decision function at the same C and
    gamma, one-vs-rest included; unregularized_bias=False is the bias-free
    kernel SDCA."""
    from stochsvm import KernelSVMClassifier

    X, y, C, gamma = digits_binary()
    clf = KernelSVMClassifier(solver="sdca", unregularized_bias=True, C=C, gamma=gamma,
                              tol=1e-10).fit(X, y)
    svc = SVC(C=C, gamma=gamma, tol=1e-10).fit(X, y)
    np.testing.assert_allclose(clf.decision_function(X), svc.decision_function(X), atol=1e-5)
    assert clf.intercept_[0] == pytest.approx(svc.intercept_[0], abs=1e-5)
    default = KernelSVMClassifier(solver="sdca", C=C, gamma=gamma, tol=1e-10).fit(X, y)
    np.testing.assert_array_equal(default.decision_function(X), clf.decision_function(X))
    free = KernelSVMClassifier(solver="sdca", unregularized_bias=False, C=C, gamma=gamma,
                               max_iter=2, tol=0)
    free.fit(X[:200], y[:200])
    assert free.intercept_[0] == 0.0
    with pytest.raises(ValueError, match="unregularized_bias=True needs solver"):
        KernelSVMClassifier(solver="pegasos", unregularized_bias=True).fit(X[:50], y[:50])


def test_the_estimator_passes_cache_size_and_shrinking_on():
    """KernelSVMClassifier(cache_size=, shrinking=) as SVC's: they reach the
    exact solver (a tiny cache recomputes rows, so more kernel evaluations;
    shrinking off visits more) and change the running time, not the model."""
    from sklearn.utils._param_validation import InvalidParameterError

    from stochsvm import KernelSVMClassifier

    X, y, C, gamma = digits_binary()
    fits = {}
    for cache_size, shrinking in [(200, True), (0.05, True), (200, False)]:
        clf = KernelSVMClassifier(C=C, gamma=gamma, cache_size=cache_size, shrinking=shrinking,
                                  tol=1e-8).fit(X, y)
        assert clf._svms[0].get_cache_size() == cache_size
        assert clf._svms[0].get_shrinking() is shrinking
        fits[cache_size, shrinking] = clf
    default = fits[200, True]
    small = fits[0.05, True]
    np.testing.assert_array_equal(small.decision_function(X), default.decision_function(X))
    assert small.n_kernel_evaluations_ > default.n_kernel_evaluations_
    np.testing.assert_allclose(fits[200, False].decision_function(X),
                               default.decision_function(X), atol=1e-4)
    # a warm start with another size keeps going from the same state
    warm = KernelSVMClassifier(C=C, gamma=gamma, tol=1e-8, warm_start=True).fit(X, y)
    warm.set_params(cache_size=1).fit(X, y)
    assert warm._svms[0].get_cache_size() == 1
    np.testing.assert_allclose(warm.decision_function(X), default.decision_function(X),
                               atol=1e-6)
    for bad in (0, -1.0, float("nan"), float("inf"), "big"):
        with pytest.raises(InvalidParameterError, match="cache_size"):
            KernelSVMClassifier(cache_size=bad).fit(X[:20], y[:20])
    with pytest.raises(InvalidParameterError, match="shrinking"):
        KernelSVMClassifier(shrinking="yes").fit(X[:20], y[:20])
