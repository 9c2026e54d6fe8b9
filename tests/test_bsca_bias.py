"""BSCA with an unregularized bias (``set_unregularized_bias(True)``): pair
steps that keep sum_i y_i alpha_i = 0, the bias set to the primal's minimiser.
Without a budget it solves LIBSVM's problem: the dual optimum, the bias and
the decision function of scikit-learn's SVC; the dual never decreases; the
equality constraint holds; the setting restarts the solver and is refused by
solvers without a bias."""

import os
import pickle

import numpy as np
import pytest

from _helpers import blobs as _blobs
from _helpers import rbf as _rbf
from stochsvm import KernelSVM


def _svc(X, y, C, gamma):
    from sklearn.svm import SVC

    return SVC(C=C, gamma=gamma, kernel="rbf", tol=1e-8).fit(X, y)


def test_bias_without_budget_matches_libsvm():
    X, y = _blobs(150, 4, seed=2, sep=0.5)
    n, lam, gamma = len(y), 1.0 / 150, 0.3
    C = 1 / (lam * n)
    svc = _svc(X, y, C, gamma)
    alpha_ref = np.zeros(n)
    alpha_ref[svc.support_] = np.abs(svc.dual_coef_[0])
    Q = (y[:, None] * y[None, :]) * _rbf(X, X, gamma)
    dual_ref = lam * (alpha_ref.sum() - 0.5 * alpha_ref @ Q @ alpha_ref)
    svm = KernelSVM(X, y, lam, solver="bsca", gamma=gamma, seed=1)
    svm.set_unregularized_bias(True)
    svm.set_budget(n)
    svm.set_max_num_iterations(400 * n)
    svm.set_diagnostic_frequency(400 * n)
    st = svm.train()
    assert svm.get_budget_statistics()["num_maintenance"] == 0
    alpha = svm.get_dual_variables()
    assert abs(alpha @ y) < 1e-9 * C * n
    assert st["dual_objective"] == pytest.approx(dual_ref, rel=1e-7)
    assert st["primal_objective"] == pytest.approx(dual_ref, rel=1e-5)
    np.testing.assert_allclose(alpha, alpha_ref, atol=1e-3 * C)
    assert svm.get_bias() == pytest.approx(svc.intercept_[0], abs=1e-3)
    np.testing.assert_allclose(svm.decision_function(X), svc.decision_function(X), atol=2e-3)


def test_weighted_bias_without_budget_matches_libsvm():
    """Per-example weights c_i make the box [0, c_i C] (SVC's sample_weight) and
    weight the hinge losses that place the bias."""
    X, y = _blobs(150, 4, seed=6, sep=0.5)
    n, lam, gamma = len(y), 1.0 / 150, 0.3
    C = 1 / (lam * n)
    c = np.random.default_rng(0).choice([0.0, 0.5, 1.0, 3.0], size=n)
    from sklearn.svm import SVC
    svc = SVC(C=C, gamma=gamma, kernel="rbf", tol=1e-8).fit(X, y, sample_weight=c)
    svm = KernelSVM(X, y, lam, solver="bsca", gamma=gamma, seed=1)
    svm.set_unregularized_bias(True)
    svm.set_budget(n)
    svm.set_weights(c)
    svm.set_max_num_iterations(400 * n)
    svm.set_diagnostic_frequency(400 * n)
    svm.train()
    alpha = svm.get_dual_variables()
    assert np.all(alpha <= c * C * (1 + 1e-12)) and abs(alpha @ y) < 1e-9 * C * n
    alpha_ref = np.zeros(n)   # SVC drops the weight-0 rows: support_ indexes the rest
    alpha_ref[np.flatnonzero(c > 0)[svc.support_]] = np.abs(svc.dual_coef_[0])
    np.testing.assert_allclose(alpha, alpha_ref, atol=1e-3 * C)
    assert svm.get_bias() == pytest.approx(svc.intercept_[0], abs=1e-3)
    np.testing.assert_allclose(svm.decision_function(X), svc.decision_function(X), atol=2e-3)


def test_bias_dual_increases_monotonically_without_budget():
    X, y = _blobs(120, 3, seed=4, sep=0.3)
    n = len(y)
    svm = KernelSVM(X, y, 1e-3, solver="bsca", gamma=0.5, seed=3)
    svm.set_unregularized_bias(True)
    svm.set_budget(n)
    svm.set_max_num_iterations(n // 3)
    svm.set_diagnostic_frequency(n // 3)
    duals = [svm.train()["dual_objective"] for _ in range(40)]
    assert all(b >= a - 1e-12 * abs(a) for a, b in zip(duals, duals[1:]))
    assert duals[-1] > duals[0]
    assert abs(svm.get_dual_variables() @ y) < 1e-9 * n / (1e-3 * n)


# The least mean training accuracy over the seeds of a working model: removal,
# the crudest maintenance, keeps 15 of 200 points badly (0.37 to 0.73 from one
# seed to the next, mean 0.59 over 12 seeds; chance is 0.5), merging and
# projection 0.77 to 0.87.
_WORKING_ACCURACY = {"merge": 0.75, "remove": 0.52, "project": 0.75}


@pytest.mark.parametrize("maintenance", ["merge", "remove", "project"])
def test_bias_with_budget_keeps_budget_and_constraint(maintenance):
    X, y = _blobs(200, 3, seed=5, sep=1.0)  # SVC: 0.89 training accuracy
    accuracies = []
    for seed in range(8):
        svm = KernelSVM(X, y, 1e-3, solver="bsca", gamma=0.5, seed=seed)
        svm.set_unregularized_bias(True)
        svm.set_budget(15)
        svm.set_budget_maintenance(maintenance)
        svm.set_max_num_iterations(3 * len(y))
        st = svm.train()
        bs = svm.get_budget_statistics()
        assert bs["num_points"] <= 15 and bs["num_maintenance"] > 0
        assert abs(svm.get_dual_variables() @ y) < 1e-9 * len(y) / (1e-3 * len(y))
        assert np.isfinite(svm.get_bias()) and np.isfinite(st["primal_objective"])
        accuracies.append(np.mean(svm.predict(X) == y))
    assert np.mean(accuracies) > _WORKING_ACCURACY[maintenance]


def test_bias_is_the_default_and_the_setting_restarts():
    X, y = _blobs(60, 3, seed=6, sep=0.5)
    svm = KernelSVM(X, y, 1e-2, solver="bsca", gamma=0.5, seed=1)
    assert svm.get_unregularized_bias()  # BSCA's default: LIBSVM's problem
    assert not KernelSVM(X, y, 1e-2, solver="sbp").get_unregularized_bias()
    svm.set_max_num_iterations(60)
    svm.train()
    assert svm.get_bias() != 0.0 and abs(svm.get_dual_variables() @ y) < 1e-9
    svm.set_unregularized_bias(False)  # the paper's bias-free form, kept as an option
    assert svm.get_iteration_number() == 0
    svm.train()
    assert svm.get_bias() == 0.0 and svm.get_iteration_number() == 60
    # a pickled bias-free BSCA stays bias-free (the default would be biased)
    assert not pickle.loads(pickle.dumps(svm)).get_unregularized_bias()
    svm.set_unregularized_bias(True)
    assert svm.get_unregularized_bias() and svm.get_iteration_number() == 0
    svm.train()
    assert abs(svm.get_dual_variables() @ y) < 1e-9
    clone = pickle.loads(pickle.dumps(svm))
    assert clone.get_unregularized_bias() and clone.get_bias() == svm.get_bias()
    np.testing.assert_array_equal(clone.decision_function(X), svm.decision_function(X))
    for solver in ("bsgd", "pegasos", "perceptron"):  # sdca: tests/test_kernel_exact.py
        other = KernelSVM(X, y, 1e-2, solver=solver, gamma=0.5)
        with pytest.raises(ValueError, match="unregularized_bias"):
            other.set_unregularized_bias(True)


@pytest.fixture(scope="module")
def a9a_subset():
    """6000 a9a training rows, 5000 test rows, C = 32, gamma = 2^-7, and SVC's
    test accuracy there."""
    if not os.environ.get("STOCHSVM_DATA"):
        pytest.skip("STOCHSVM_DATA not set")
    from stochsvm import _testing

    Xtr, ytr, Xte, yte = _testing.load_benchmark("a9a")
    Xtr, ytr, Xte, yte = Xtr[:6000], ytr[:6000], Xte[:5000], yte[:5000]
    C, gamma = 32.0, 2.0**-7
    ref = np.mean(_svc(Xtr, ytr, C, gamma).predict(Xte) == yte)
    return Xtr, ytr, Xte, yte, C, gamma, ref


@pytest.mark.slow
def test_bias_on_a9a_subset_close_to_libsvm(a9a_subset):
    """The a9a case that motivated the bias (bsca_bias.c): on 6000 rows, B = 200,
    6 epochs, within 1.5 points of SVC's test accuracy."""
    Xtr, ytr, Xte, yte, C, gamma, ref = a9a_subset
    n = Xtr.shape[0]
    svm = KernelSVM(Xtr, ytr, 1 / (C * n), solver="bsca", gamma=gamma, seed=0)
    svm.set_unregularized_bias(True)
    svm.set_budget(200)
    svm.set_max_num_iterations(6 * n)
    svm.set_diagnostic_frequency(6 * n)
    svm.train()
    acc = np.mean(svm.predict(Xte) == yte)
    assert acc > ref - 0.015


@pytest.mark.slow
def test_default_bsca_does_not_oscillate_on_a9a_subset(a9a_subset):
    """At its defaults BSCA learns the bias: from epoch 2 on, its test accuracy
    at every epoch end stays within 2.5 points of SVC's and within a 2-point
    band (measured: 0.829-0.840 at seed 0, rising); the bias-free form,
    set_unregularized_bias(False), swings here: 0.51-0.84 at seed 0, 0.76-0.83
    from epoch 2 at seed 1."""
    Xtr, ytr, Xte, yte, C, gamma, ref = a9a_subset
    n = Xtr.shape[0]
    svm = KernelSVM(Xtr, ytr, 1 / (C * n), solver="bsca", gamma=gamma, seed=0)
    svm.set_budget(200)
    svm.set_max_num_iterations(n)
    accuracies = []
    for epoch in range(6):
        svm.train()
        if epoch >= 1:
            accuracies.append(np.mean(svm.predict(Xte) == yte))
    assert min(accuracies) > ref - 0.025, (accuracies, ref)
    assert max(accuracies) - min(accuracies) < 0.02, accuracies
