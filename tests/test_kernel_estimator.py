"""KernelSVMClassifier (stochsvm.kernel): scikit-learn's estimator checks,
k x partial_fit == fit, threads, C vs lambda, meta-estimators, model files."""

import warnings

import numpy as np
import pytest
import scipy.sparse as sp

pytest.importorskip("sklearn")

from sklearn.base import clone  # noqa: E402
from sklearn.exceptions import ConvergenceWarning  # noqa: E402
from sklearn.model_selection import GridSearchCV  # noqa: E402
from sklearn.pipeline import make_pipeline  # noqa: E402
from sklearn.preprocessing import StandardScaler  # noqa: E402
from sklearn.utils.estimator_checks import parametrize_with_checks  # noqa: E402

import stochsvm  # noqa: E402
from _helpers import unsorted_csr  # noqa: E402
from stochsvm import KernelSVMClassifier, load_model, save_model  # noqa: E402
from stochsvm.kernel import KERNEL_SOLVERS  # noqa: E402


_WEIGHT_REASON = (
    "a stochastic solver visits weighted and replicated data in different orders and is "
    "stopped after finitely many steps (SDCA at its duality gap tol=1e-3, the others after "
    "max_iter), so the two fits agree to that tolerance, not to the check's 1e-7; "
    "test_kernel_estimator_weights.py::test_integer_sample_weight_equals_repeated_rows "
    "checks the equivalence at a duality gap of 1e-10")
_SBP_REASON = (
    "SBP has no weighted formulation: it accepts equal weights (its unweighted problem) "
    "and refuses others with a ValueError (test_sbp_refuses_weights)")


def _expected_failures(estimator):
    failures = {
        "check_sample_weight_equivalence_on_dense_data": _WEIGHT_REASON,
        "check_sample_weight_equivalence_on_sparse_data": _WEIGHT_REASON,
    }
    # (check_class_weight_classifiers passes since gamma="scale" became the
    # default: with gamma = 1/n_features its blobs of standard deviation 20 made
    # the RBF kernel matrix nearly the identity, and the bias-free solvers
    # scored every test point near 0 whatever the class weights)
    if estimator.solver == "sbp":
        for check in ("check_sample_weights_not_overwritten", "check_class_weight_classifiers",
                      "check_sample_weight_equivalence_on_dense_data",
                      "check_sample_weight_equivalence_on_sparse_data"):
            failures[check] = _SBP_REASON
    return failures


@parametrize_with_checks([KernelSVMClassifier(solver=s) for s in KERNEL_SOLVERS],
                         expected_failed_checks=_expected_failures)
def test_sklearn_compatible(estimator, check):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        check(estimator)


def _rings(n, k, seed):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 2))
    r = np.hypot(X[:, 0], X[:, 1])
    y = np.minimum((r / 0.8).astype(int), k - 1)
    return X, y


@pytest.mark.parametrize("solver", KERNEL_SOLVERS)
@pytest.mark.parametrize("k", [2, 3])
def test_partial_fit_equals_fit(solver, k):
    X, y = _rings(120, k, 0)
    full = KernelSVMClassifier(solver=solver, tol=0, max_iter=3, random_state=5).fit(X, y)
    part = KernelSVMClassifier(solver=solver, random_state=5)
    for _ in range(3):
        part.partial_fit(X, y, classes=np.unique(y))
    np.testing.assert_array_equal(part.decision_function(X), full.decision_function(X))
    assert part.n_iter_ == 1 and full.n_iter_ == 3
    assert part.n_kernel_evaluations_ == full.n_kernel_evaluations_ > 0


@pytest.mark.parametrize("solver", KERNEL_SOLVERS)
def test_threads_equal_serial(solver):
    X, y = _rings(150, 4, 1)
    a = KernelSVMClassifier(solver=solver, tol=0, max_iter=2, n_jobs=1).fit(X, y)
    b = KernelSVMClassifier(solver=solver, tol=0, max_iter=2, n_jobs=2).fit(X, y)
    np.testing.assert_array_equal(a.decision_function(X), b.decision_function(X))
    assert a.decision_function(X).shape == (150, 4)


def test_C_is_lambda_over_n_and_matches_the_object():
    X, y = _rings(100, 2, 2)
    y_pm = np.where(y == 1, 1.0, -1.0)
    est = KernelSVMClassifier(solver="sdca", C=2.0, gamma=0.5, tol=0, max_iter=4).fit(X, y)
    svm = stochsvm.KernelSVM(X, y_pm, 1 / (2.0 * 100), solver="sdca", gamma=0.5, seed=0)
    svm.set_unregularized_bias(True)   # the estimator's default; the object's is off
    svm.set_max_num_iterations(400)
    svm.set_epsilon(0)
    svm.train()
    np.testing.assert_array_equal(est.decision_function(X), svm.decision_function(X))
    lam = KernelSVMClassifier(solver="sdca", lambda_=1 / 200, gamma=0.5, tol=0,
                              max_iter=4).fit(X, y)
    np.testing.assert_array_equal(lam.decision_function(X), est.decision_function(X))


def test_learns_a_nonlinear_rule_and_meta_estimators():
    X, y = _rings(300, 2, 3)
    assert KernelSVMClassifier(C=10, gamma=1.0, max_iter=30, tol=0).fit(X, y).score(X, y) > 0.9
    est = KernelSVMClassifier(gamma=1.0, tol=0, max_iter=5)
    assert clone(est).get_params() == est.get_params()
    grid = GridSearchCV(est, {"C": [0.1, 10.0], "solver": ["sdca", "sbp"]}, cv=3).fit(X, y)
    assert len(grid.cv_results_["mean_test_score"]) == 4
    pipe = make_pipeline(StandardScaler(), KernelSVMClassifier(tol=0, max_iter=5)).fit(X, y)
    assert pipe.score(X, y) > 0.7


@pytest.mark.parametrize("solver", ["sdca", "sbp", "pegasos", "bsgd", "bsca"])
def test_model_file_round_trip(solver, tmp_path):
    """A loaded estimator scores bit for bit as the saved one (the format's
    promise). It differed by up to 2e-14 for one-vs-rest (an output's vectors
    came back in the order of the file's shared expansion: another
    summation order) and for dense support vectors (the budget solvers'
    always are), which came back as CSR rows (other kernel arithmetic)."""
    X, y = _rings(150, 3, 4)
    labels = np.array(["in", "mid", "out"])[y]
    for data in (X, sp.csr_matrix(X)):
        for target in (labels, labels == "mid"):
            est = KernelSVMClassifier(solver=solver, tol=0, max_iter=3).fit(data, target)
            save_model(est, tmp_path / "k.ssvm")
            back = load_model(tmp_path / "k.ssvm")
            assert isinstance(back, KernelSVMClassifier) and back.get_params() == est.get_params()
            np.testing.assert_array_equal(back.decision_function(X), est.decision_function(X))
            np.testing.assert_array_equal(back.predict(X), est.predict(X))
            save_model(back, tmp_path / "again.ssvm")   # and again, from the loaded one
            again = load_model(tmp_path / "again.ssvm")
            np.testing.assert_array_equal(again.decision_function(X), est.decision_function(X))
            if target is labels:
                d = stochsvm.read_model(tmp_path / "k.ssvm")
                assert d["kind"] == "kernel" and d["task"] == "one_vs_rest"
                # one expansion shared by the outputs: at most the union of their vectors
                assert d["sv_indptr"].size - 1 <= est.n_support_.sum()


def test_errors():
    X, y = _rings(40, 2, 5)
    for params, match in [({"solver": "adam"}, "'solver' parameter .* must be a str among"),
                          ({"kernel": "cosine"}, "'kernel' parameter .* must be a str among"),
                          ({"kernel": "precomputed"}, "square n x n Gram matrix"),
                          ({"C": 1.0, "lambda_": 0.1}, "either C or lambda_"),
                          ({"gamma": -1.0}, "'gamma' parameter .* must be a float in the range"),
                          ({"degree": 0}, "'degree' parameter .* must be an int in the range"),
                          ({"unregularized_bias": True, "solver": "pegasos"},
                           "needs solver='sbp' or 'sdca' or 'bsca'"),
                          ({"n_jobs": 0}, "'n_jobs' parameter .* must be an int in the range"),
                          ({"verbose": "loud"}, "'verbose' parameter .* must be"),
                          ({"budget": 10}, "budget applies to the budgeted solvers"),
                          ({"solver": "bsca", "kernel": "poly", "budget_maintenance": "merge"},
                           "'merge' needs kernel='rbf'")]:
        with pytest.raises(ValueError, match=match):
            KernelSVMClassifier(**params).fit(X, y)
    with pytest.raises(ValueError, match="classes must be given"):
        KernelSVMClassifier().partial_fit(X, y)


def test_partial_fit_refuses_other_classes_and_warm_start_names_them():
    # A later partial_fit's classes were ignored when y stayed inside the first
    # call's classes (LinearSVMClassifier refuses them, as scikit-learn's
    # SGDClassifier does); warm_start's refusal did not name the classes.
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 3))
    y = (X[:, 0] > 0).astype(int)
    clf = KernelSVMClassifier().partial_fit(X, y, classes=[0, 1])
    with pytest.raises(ValueError, match=r"classes \[0, 1, 2\] differ from those of the first "
                                         r"partial_fit call \[0, 1\]"):
        clf.partial_fit(X, y, classes=[0, 1, 2])
    clf.partial_fit(X, y, classes=[1, 0])          # the same classes, in another order: accepted
    warm = KernelSVMClassifier(warm_start=True).fit(X, y)
    with pytest.raises(ValueError, match=r"classes \[0, 1, 2\] differ from those of the "
                                         r"previous fit \[0, 1\]"):
        warm.fit(X, np.where(X[:, 1] > 1, 2, y))


def _bundled(name):
    """A bundled scikit-learn set, 70/30 stratified split, standardised for
    breast_cancer; digits as even vs odd."""
    from sklearn.datasets import load_breast_cancer, load_digits
    from sklearn.model_selection import train_test_split
    if name == "breast_cancer":
        X, y = load_breast_cancer(return_X_y=True)
    else:
        X, y = load_digits(return_X_y=True)
        y = y % 2
    Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=0.3, random_state=0, stratify=y)
    if name == "breast_cancer":
        scaler = StandardScaler().fit(Xtr)
        Xtr, Xte = scaler.transform(Xtr), scaler.transform(Xte)
    return Xtr, ytr, Xte, yte


@pytest.mark.parametrize("name,C,gamma", [("breast_cancer", 1.0, 1 / 30), ("digits2", 10.0, 1e-3)])
def test_sbp_at_C_close_to_svc(name, C, gamma):
    """solver='sbp' given only C and gamma solves SVC's problem (nu derived
    from C, with the bias): test accuracy within 1 pp of SVC's at the same C
    and gamma (measured: equal on both). nu = 1e-2, the old default, is 1.1 pp
    below SVC on digits."""
    from sklearn.svm import SVC
    Xtr, ytr, Xte, yte = _bundled(name)
    ref = np.mean(SVC(C=C, gamma=gamma).fit(Xtr, ytr).predict(Xte) == yte)
    est = KernelSVMClassifier(solver="sbp", C=C, gamma=gamma).fit(Xtr, ytr)
    assert np.mean(est.predict(Xte) == yte) >= ref - 0.01
    svm = est._svms[0]
    assert svm.get_unregularized_bias() and svm.get_bias() != 0


def test_nu_map_is_monotone_and_explicit_nu_is_honoured():
    Xtr, ytr, _, _ = _bundled("breast_cancer")
    yb = np.where(ytr == 1, 1.0, -1.0)
    n = len(yb)
    nus = [stochsvm.KernelSVM(Xtr, yb, 1 / (C * n), solver="sbp", gamma=1 / 30).estimate_nu()
           for C in (0.1, 1.0, 10.0, 100.0)]
    assert all(a > b for a, b in zip(nus, nus[1:])), nus  # larger C, less slack
    assert 0 < nus[-1] and nus[0] < 1
    est = KernelSVMClassifier(solver="sbp", C=1.0, gamma=1 / 30, nu=0.05).fit(Xtr, ytr)
    assert est._svms[0].get_nu() == 0.05
    default = KernelSVMClassifier(solver="sbp", C=1.0, gamma=1 / 30).fit(Xtr, ytr)
    assert default._svms[0].get_nu() != 0.05
    assert not np.allclose(est.decision_function(Xtr), default.decision_function(Xtr))


@pytest.mark.parametrize("solver", ["sbp", "bsca"])
def test_bias_default_and_bias_free_option(solver):
    X, y = _bundled("breast_cancer")[:2]
    biased = KernelSVMClassifier(solver=solver, C=1.0, gamma=1 / 30, max_iter=2, tol=0).fit(X, y)
    free = KernelSVMClassifier(solver=solver, C=1.0, gamma=1 / 30, max_iter=2, tol=0,
                               unregularized_bias=False).fit(X, y)
    assert biased._svms[0].get_bias() != 0 and free._svms[0].get_bias() == 0
    assert np.mean(free.predict(X) == y) > 0.9
    with pytest.raises(ValueError, match="'unregularized_bias' parameter .* an instance of 'bool'"):
        KernelSVMClassifier(solver=solver, unregularized_bias="yes").fit(X, y)


def test_default_gamma_is_scale_and_unit_free():
    """gamma="scale" (the default) is scikit-learn SVC's 1 / (n_features
    X.var()): the same model whatever the units of the features, where
    gamma = 1/n_features ("auto") makes the kernel matrix the identity on
    large values and all ones on small ones."""
    from sklearn.svm import SVC

    rng = np.random.default_rng(3)
    X = rng.normal(size=(150, 4))
    y = (X[:, 0] * X[:, 1] > 0).astype(int)
    est = KernelSVMClassifier().fit(X, y)
    assert est.gamma_ == pytest.approx(SVC().fit(X, y)._gamma, rel=1e-12)
    assert KernelSVMClassifier(gamma="auto").fit(X, y).gamma_ == 0.25
    assert KernelSVMClassifier(gamma=None).fit(X, y).gamma_ == 0.25
    assert KernelSVMClassifier(gamma=0.7).fit(X, y).gamma_ == 0.7
    base = est.decision_function(X)
    for s in (1e-3, 1e3):
        scaled = KernelSVMClassifier().fit(s * X, y)
        np.testing.assert_allclose(scaled.decision_function(s * X), base, rtol=1e-6, atol=1e-8)
        auto = KernelSVMClassifier(gamma="auto").fit(s * X, y)
        assert auto.score(s * X, y) < est.score(X, y) - 0.1 or s > 1  # (large s: memorised)
    # sparse X: the same variance as dense
    sparse = KernelSVMClassifier().fit(sp.csr_matrix(X), y)
    assert sparse.gamma_ == pytest.approx(est.gamma_, rel=1e-12)
    # constant X: gamma 1, as SVC
    assert KernelSVMClassifier().fit(np.ones((10, 2)), [0, 1] * 5).gamma_ == 1.0
    # the resolved value is kept by a warm start and by the model file
    warm = KernelSVMClassifier(warm_start=True).fit(X, y)
    assert warm.fit(10 * X, y).gamma_ == est.gamma_


def test_gamma_scale_survives_the_model_file(tmp_path):
    rng = np.random.default_rng(4)
    X = 100 * rng.normal(size=(60, 3))
    y = (X[:, 0] > 0).astype(int)
    est = KernelSVMClassifier().fit(X, y)
    save_model(est, tmp_path / "m.ssvm")
    back = load_model(tmp_path / "m.ssvm")
    assert back.gamma == "scale" and back.gamma_ == est.gamma_
    np.testing.assert_allclose(back.decision_function(X), est.decision_function(X), rtol=1e-12, atol=1e-12)


def test_gamma_scale_refuses_values_whose_squares_overflow_or_underflow():
    """X * 1e200: 1 / (d X.var()) underflows to 0; X * 1e-300 (X.var()
    underflows to 0, which made gamma 1 and a constant kernel, silently): it
    overflows. A clear ValueError naming the fix, and no RuntimeWarning from
    numpy on the way (warnings are errors here). X * 1e-100 still works: the
    variance is taken of X / max|x|."""
    rng = np.random.default_rng(5)
    X = rng.normal(size=(30, 3))
    y = (X[:, 0] > 0).astype(int)
    for factor, word in ((1e200, "large"), (1e-300, "small"), (1e-310, "small")):
        for data in (factor * X, sp.csr_matrix(factor * X)):
            with pytest.raises(ValueError, match=f"X's values are too {word}.*StandardScaler"):
                KernelSVMClassifier().fit(data, y)
    # tol 1e-10: the exact solver's pairs, picked by the largest violation,
    # may differ by a rounding near its stop at the default tol
    base = KernelSVMClassifier(tol=1e-10).fit(X, y)
    tiny = KernelSVMClassifier(tol=1e-10).fit(1e-100 * X, y)
    assert tiny.gamma_ == pytest.approx(base.gamma_ * 1e200, rel=1e-12)
    np.testing.assert_allclose(tiny.decision_function(1e-100 * X), base.decision_function(X),
                               rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("form", ["unsorted csr", "bsr", "duplicates"])
def test_non_canonical_sparse_input_one_vs_rest(form):
    """Three classes, the exact solver: the problems share one store of
    kernel rows, which refused the per-problem sorted copies of an unsorted
    CSR matrix (and of BSR, whose tocsr leaves the indices unsorted) with a
    ValueError. One canonical copy now serves every class."""
    from sklearn.datasets import load_iris

    X, y = load_iris(return_X_y=True)
    X = np.where(np.abs(X - X.mean(0)) < 0.5, 0, X - X.mean(0))  # some zeros: sparse
    csr = sp.csr_matrix(X)
    if form == "unsorted csr":
        given = unsorted_csr(X)
    elif form == "bsr":
        given = sp.bsr_matrix(X, blocksize=(2, 2))
    else:  # every stored value split into two entries of its column
        counts = np.diff(csr.indptr)
        given = sp.csr_matrix((np.repeat(csr.data / 2, 2), np.repeat(csr.indices, 2),
                               np.concatenate([[0], np.cumsum(2 * counts)])), shape=X.shape)
    before = given.copy()
    dense = KernelSVMClassifier(gamma=0.5).fit(X, y)
    sparse = KernelSVMClassifier(gamma=0.5).fit(given, y)
    np.testing.assert_allclose(sparse.decision_function(given), dense.decision_function(X),
                               rtol=0, atol=1e-9)
    assert (abs(given - before)).nnz == 0 and np.array_equal(given.indices, before.indices)


@pytest.mark.parametrize("solver, budget", [("bsca", 100), ("bsca", 300), ("sbp", None)])
def test_n_iter_counts_a_warm_fit_at_a_new_C_that_restarted(solver, budget):
    # A warm fit at a new C restarts the iteration count of the SBP and of
    # BSCA with the bias inside train(): n_iter_ read the change of the
    # iteration number across the call, -94 (BSCA, B = 100), 0 (B = n) and
    # -81 (SBP) for calls that trained.
    rng = np.random.default_rng(3)
    X = rng.standard_normal((300, 4))
    y = np.where(X[:, 0] * X[:, 1] + 0.3 * rng.standard_normal(300) > 0, 1, -1)
    params = dict(solver=solver, C=100, gamma=0.5, random_state=0, warm_start=True)
    if budget is not None:
        params["budget"] = budget
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est = KernelSVMClassifier(**params).fit(X, y)
        est.set_params(C=1).fit(X, y)
    svm = est._svms[0]
    made = svm.get_last_train_iterations()
    assert made > 0 and made <= svm.get_iteration_number()
    assert est.n_iter_ == -(-made // 300) >= 1
