"""The scikit-learn estimators (stochsvm.linear): scikit-learn's estimator
checks, the optimum against LIBLINEAR, partial_fit == fit, class weights,
threads, meta-estimators, and errors."""

import pickle
import subprocess
import sys
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

from liblinear_reference import liblinear, objective  # noqa: E402
from stochsvm import LinearSVMClassifier, LinearSVMRegressor  # noqa: E402
from stochsvm.linear import LINEAR_SOLVERS  # noqa: E402

# ---------------------------------------------------------------------------
#                      scikit-learn's estimator checks
# ---------------------------------------------------------------------------

_WEIGHT_REASON = (
    "a stochastic solver visits weighted and replicated data in different orders: "
    "stopped at tol (SDCA) or after finitely many steps (SGD, which converges only "
    "in the limit), the two fits agree to the tolerance, not to the check's 1e-7; "
    "test_sample_weight_equals_replication checks the equivalence with SDCA at a "
    "duality gap of 1e-12")



def _expected_failures(estimator):
    failures = {
        "check_sample_weight_equivalence_on_dense_data": _WEIGHT_REASON,
        "check_sample_weight_equivalence_on_sparse_data": _WEIGHT_REASON,
    }
    # (LRES failed check_class_weight_classifiers, diverging on its weighted
    # problem, until its step back-off: docs/stopping.rst)
    return failures


# Every solver, as classifier and regressor, plus the logistic loss (predict_proba).
@parametrize_with_checks([LinearSVMClassifier(solver=s) for s in LINEAR_SOLVERS]
                         + [LinearSVMRegressor(solver=s) for s in LINEAR_SOLVERS]
                         + [LinearSVMClassifier(loss="logistic")],
                         expected_failed_checks=_expected_failures)
def test_sklearn_compatible(estimator, check):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        check(estimator)


# ---------------------------------------------------------------------------
#                                helpers
# ---------------------------------------------------------------------------

def _blobs(n, d, k, seed, sep=1.0):
    rng = np.random.default_rng(seed)
    y = np.arange(n) % k
    centres = rng.normal(size=(k, d)) * sep
    X = centres[y] + rng.normal(size=(n, d))
    return X, y


def _c_objective(X, y_pm, w, b, C, loss):
    """1/2 (||w||^2 + b^2) + C sum_i loss_i, LIBLINEAR's -B 1 problem: the
    SVM object's objective at lambda = 1/(C n), times C n."""
    n = len(y_pm)
    return objective(X, y_pm, w, b, 1.0 / (C * n), loss) * (C * n)


# ---------------------------------------------------------------------------
#                     the optimum, against LIBLINEAR
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("loss,solver_id", [("hinge", 3), ("hinge2", 1), ("logistic", 7)])
def test_optimum_matches_liblinear(loss, solver_id):
    X, y = _blobs(300, 5, 2, 0)
    y_pm = np.where(y == 1, 1.0, -1.0)
    C = 0.5
    clf = LinearSVMClassifier(C=C, loss=loss, tol=1e-10, max_iter=20000).fit(X, y)
    assert clf.coef_.shape == (1, 5) and clf.intercept_.shape == (1,)
    lam = 1.0 / (C * len(y))
    wl, bl = liblinear(sp.csr_matrix(X), y_pm, solver_id, lam, 1e-10)
    ours = _c_objective(X, y_pm, clf.coef_[0], clf.intercept_[0], C, loss)
    ref = _c_objective(X, y_pm, wl, bl, C, loss)
    # At the reference's optimum (for the hinge the certified Newton oracle:
    # LIBLINEAR's own -s 3 stops on its iteration cap here, 2e-4 above), and
    # within our certified gap of it.
    gap = clf._stats[0]["duality_gap"] * C * len(y)
    assert -1e-12 * ours <= gap <= 1e-8 * ours  # rounding can make it -1e-15
    assert ours <= ref * (1 + 1e-9)
    assert ours == pytest.approx(ref, rel=1e-3)
    # the SVM object's own objective is that of LIBLINEAR's problem, scaled
    assert clf._stats[0]["objective"] == pytest.approx(ours / (C * len(y)), rel=1e-9)


def test_lambda_and_C_are_the_same_problem():
    X, y = _blobs(200, 4, 2, 1)
    a = LinearSVMClassifier(C=2.0, tol=0, max_iter=7).fit(X, y)
    b = LinearSVMClassifier(lambda_=1 / (2.0 * 200), tol=0, max_iter=7).fit(X, y)
    np.testing.assert_array_equal(a.coef_, b.coef_)
    np.testing.assert_array_equal(a.intercept_, b.intercept_)


def test_regressor_matches_least_squares():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(200, 3))
    y = X @ np.array([1.0, -2.0, 0.5]) + 0.3 + 0.1 * rng.normal(size=200)
    C = 10.0
    reg = LinearSVMRegressor(C=C, tol=1e-12, max_iter=100000).fit(X, y)
    # Ridge in closed form on the augmented rows (x, 1):
    # minimise 1/2 ||w~||^2 + C sum (y - x~ w~)^2.
    Xa = np.hstack([X, np.ones((200, 1))])
    wa = np.linalg.solve(np.eye(4) + 2 * C * Xa.T @ Xa, 2 * C * Xa.T @ y)
    np.testing.assert_allclose(reg.coef_, wa[:3], rtol=0, atol=1e-6)
    assert reg.intercept_ == pytest.approx(wa[3], abs=1e-6)
    assert reg.score(X, y) > 0.99


# ---------------------------------------------------------------------------
#                 repeated training: partial_fit and warm_start
# ---------------------------------------------------------------------------

# RES/LRES's first epochs can end above the zero model's objective on these
# blobs (a ConvergenceWarning); these tests compare runs, not their quality.
# Blobs on which no step back-off fires: it acts within a fit, never at the
# end of a partial_fit call (docs/stopping.rst), so where it fires the runs
# differ by design (seed 2 made RES and LRES back off, at 3 classes).
@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
@pytest.mark.parametrize("solver", LINEAR_SOLVERS)
@pytest.mark.parametrize("k_classes", [2, 3])
def test_partial_fit_equals_fit(solver, k_classes):
    X, y = _blobs(150, 4, k_classes, 4)
    k = 5
    full = LinearSVMClassifier(solver=solver, tol=0, max_iter=k, random_state=7).fit(X, y)
    part = LinearSVMClassifier(solver=solver, random_state=7)
    for _ in range(k):
        part.partial_fit(X, y, classes=np.unique(y))
    np.testing.assert_array_equal(part.coef_, full.coef_)
    np.testing.assert_array_equal(part.intercept_, full.intercept_)
    assert part.n_iter_ == 1 and full.n_iter_ == k


def test_partial_fit_regressor_equals_fit():
    rng = np.random.default_rng(5)
    X = rng.normal(size=(100, 3))
    y = X @ np.array([1.0, 2.0, -1.0])
    full = LinearSVMRegressor(solver="sgd", tol=0, max_iter=4).fit(X, y)
    part = LinearSVMRegressor(solver="sgd")
    for _ in range(4):
        part.partial_fit(X, y)
    np.testing.assert_array_equal(part.coef_, full.coef_)
    assert part.intercept_ == full.intercept_


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
@pytest.mark.parametrize("solver", LINEAR_SOLVERS)
def test_warm_start_continues(solver):
    X, y = _blobs(120, 3, 3, 5)  # no step back-off (seed 4: RES and LRES back off in the full fit)
    full = LinearSVMClassifier(solver=solver, tol=0, max_iter=6).fit(X, y)
    warm = LinearSVMClassifier(solver=solver, tol=0, max_iter=3, warm_start=True)
    warm.fit(X, y).fit(X, y)
    np.testing.assert_array_equal(warm.coef_, full.coef_)
    cold = LinearSVMClassifier(solver=solver, tol=0, max_iter=3)
    cold.fit(X, y).fit(X, y)
    assert not np.array_equal(cold.coef_, full.coef_)


def test_sgd_partial_fit_on_batches_learns():
    X, y = _blobs(2000, 5, 2, 6, sep=2.0)
    clf = LinearSVMClassifier(solver="sgd", C=1.0)
    for batch in np.array_split(np.arange(2000), 10):
        clf.partial_fit(X[batch], y[batch], classes=[0, 1])
    assert clf.score(X, y) > 0.9


def test_sdca_partial_fit_on_new_data_warns():
    X, y = _blobs(100, 3, 2, 8)
    clf = LinearSVMClassifier(solver="sdca").partial_fit(X, y, classes=[0, 1])
    with pytest.warns(UserWarning, match="restarts the dual variables"):
        clf.partial_fit(2 * X, y)   # new data (the same data as a copy continue: test_reliability)


def test_partial_fit_errors():
    X, y = _blobs(60, 3, 3, 9)
    clf = LinearSVMClassifier()
    with pytest.raises(ValueError, match="classes must be given"):
        clf.partial_fit(X, y)
    clf.partial_fit(X, y, classes=[0, 1, 2])
    with pytest.raises(ValueError, match="differ from those of the first"):
        clf.partial_fit(X, y, classes=[0, 1, 5])
    with pytest.raises(ValueError, match="not in classes"):
        clf.partial_fit(X, np.where(y == 2, 7, y))
    with pytest.raises(ValueError, match="features"):
        clf.partial_fit(X[:, :2], y)


def test_warm_start_refusal_names_the_classes_plainly():
    # The previous fit's classes printed as [np.int64(0), np.int64(1)].
    X, y = _blobs(60, 3, 2, 9)
    clf = LinearSVMClassifier(warm_start=True).fit(X, y)
    with pytest.raises(ValueError, match=r"differ from those of the previous fit \[0, 1\]$"):
        clf.fit(X, np.where(X[:, 0] > 1, 2, y))


# ---------------------------------------------------------------------------
#                        weights, classes and threads
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("solver", LINEAR_SOLVERS)
def test_class_weight_balanced_equals_sample_weights(solver):
    X, y = _blobs(130, 3, 3, 10)
    y[:40] = 0  # unbalanced
    counts = np.bincount(y)
    explicit = len(y) / (3 * counts[y])
    a = LinearSVMClassifier(solver=solver, class_weight="balanced", tol=0, max_iter=5).fit(X, y)
    b = LinearSVMClassifier(solver=solver, tol=0, max_iter=5).fit(X, y, sample_weight=explicit)
    np.testing.assert_array_equal(a.coef_, b.coef_)
    d = {c: len(y) / (3 * counts[c]) for c in range(3)}
    c = LinearSVMClassifier(solver=solver, class_weight=d, tol=0, max_iter=5).fit(X, y)
    np.testing.assert_allclose(c.coef_, a.coef_, rtol=1e-12)
    # partial_fit, given the classes, balances over what it has seen
    p = LinearSVMClassifier(solver=solver, class_weight="balanced")
    for _ in range(5):
        p.partial_fit(X, y, classes=[0, 1, 2])
    np.testing.assert_allclose(p.coef_, a.coef_, rtol=1e-12)


def test_sample_weight_equals_replication():
    X, y = _blobs(80, 3, 2, 11)
    w = np.random.default_rng(12).integers(1, 4, size=80)
    Xr, yr = np.repeat(X, w, axis=0), np.repeat(y, w)
    kw = dict(C=1.0, tol=1e-12, max_iter=200000)
    a = LinearSVMClassifier(loss="hinge2", **kw).fit(X, y, sample_weight=w.astype(float))
    b = LinearSVMClassifier(loss="hinge2", **kw).fit(Xr, yr)
    np.testing.assert_allclose(a.coef_, b.coef_, rtol=0, atol=1e-5)
    np.testing.assert_allclose(a.intercept_, b.intercept_, rtol=0, atol=1e-5)


# RES and LRES diverge on these blobs at their default step (issue 17): the
# fit warns, and this test is about threads, not about the step.
@pytest.mark.filterwarnings("ignore:LinearSVMClassifier diverged")
@pytest.mark.parametrize("solver", LINEAR_SOLVERS)
def test_ovr_threads_equal_serial(solver):
    X, y = _blobs(400, 6, 5, 13)
    a = LinearSVMClassifier(solver=solver, n_jobs=1, tol=0, max_iter=4).fit(X, y)
    b = LinearSVMClassifier(solver=solver, n_jobs=2, tol=0, max_iter=4).fit(X, y)
    c = LinearSVMClassifier(solver=solver, n_jobs=-1, tol=0, max_iter=4).fit(X, y)
    np.testing.assert_array_equal(a.coef_, b.coef_)
    np.testing.assert_array_equal(a.coef_, c.coef_)
    assert a.coef_.shape == (5, 6) and a.intercept_.shape == (5,)
    assert set(a.predict(X)) <= set(range(5))


def test_string_labels_and_sparse_float32():
    X, y = _blobs(200, 5, 3, 14, sep=3.0)
    labels = np.array(["ant", "bee", "cat"])[y]
    Xs = sp.csr_matrix(X.astype(np.float32))
    clf = LinearSVMClassifier(tol=0, max_iter=10).fit(Xs, labels)
    assert list(clf.classes_) == ["ant", "bee", "cat"]
    dense = LinearSVMClassifier(tol=0, max_iter=10).fit(X.astype(np.float32), labels)
    np.testing.assert_allclose(clf.coef_, dense.coef_, rtol=1e-12, atol=1e-12)
    assert clf.score(Xs, labels) > 0.9


def test_predict_proba_only_for_logistic():
    X, y = _blobs(150, 3, 3, 15)
    hinge = LinearSVMClassifier().fit(X, y)
    assert not hasattr(hinge, "predict_proba")
    logistic = LinearSVMClassifier(loss="logistic", tol=1e-8, max_iter=1000).fit(X, y)
    p = logistic.predict_proba(X)
    assert p.shape == (150, 3)
    np.testing.assert_allclose(p.sum(axis=1), 1.0)
    np.testing.assert_array_equal(logistic.classes_[p.argmax(axis=1)], logistic.predict(X))
    Xb, yb = _blobs(100, 3, 2, 16)
    binary = LinearSVMClassifier(loss="logistic").fit(Xb, yb)
    pb = binary.predict_proba(Xb)
    np.testing.assert_allclose(pb[:, 1], 1 / (1 + np.exp(-binary.decision_function(Xb))))


# ---------------------------------------------------------------------------
#                      meta-estimators, pickling, errors
# ---------------------------------------------------------------------------

def test_clone_gridsearch_pipeline():
    X, y = _blobs(240, 4, 2, 17)
    est = LinearSVMClassifier(C=0.1, random_state=3)
    assert clone(est).get_params() == est.get_params()
    # tol=3e-2: SGD's objective window (run.c) fires within max_iter at both C
    # (pytest turns the ConvergenceWarning it would give otherwise into an error)
    grid = GridSearchCV(LinearSVMClassifier(tol=3e-2), {"C": [0.01, 1.0], "solver": ["sgd", "sdca"]},
                        cv=3).fit(X, y)
    assert grid.best_params_["C"] in (0.01, 1.0)
    assert len(grid.cv_results_["mean_test_score"]) == 4
    best = clone(grid.best_estimator_).fit(X, y)
    np.testing.assert_array_equal(best.coef_, grid.best_estimator_.coef_)
    pipe = make_pipeline(StandardScaler(), LinearSVMClassifier()).fit(X, y)
    assert pipe.score(X, y) > 0.7


def test_pickle_round_trip_and_continue():
    X, y = _blobs(100, 3, 3, 18)
    clf = LinearSVMClassifier(solver="sgd", tol=0, max_iter=2).fit(X, y)
    again = pickle.loads(pickle.dumps(clf))
    np.testing.assert_array_equal(again.decision_function(X), clf.decision_function(X))
    assert not hasattr(again, "_last_data")
    # SGD continues from the pickled state exactly (model, bias, iteration)
    again.partial_fit(X, y)
    clf.partial_fit(X.copy(), y)
    np.testing.assert_array_equal(again.coef_, clf.coef_)


@pytest.mark.parametrize("params,match", [
    ({"solver": "adam"}, "'solver' parameter .* must be a str among"),
    ({"loss": "l2"}, "'loss' parameter .* must be a str among"),
    ({"C": 1.0, "lambda_": 0.1}, "either C or lambda_"),
    ({"C": -1.0}, "'C' parameter .* must be a float in the range"),
    ({"lambda_": 0.0}, "'lambda_' parameter .* must be a float in the range"),
    ({"max_iter": 0}, "'max_iter' parameter .* must be an int in the range"),
    ({"max_iter": True}, "'max_iter' parameter .* must be an int in the range"),
    ({"tol": -1.0}, "'tol' parameter .* must be a float in the range"),
    ({"tol": np.inf}, "'tol' parameter .* must be a float in the range"),
    ({"bias_multiplier": np.nan}, "'bias_multiplier' parameter .* must be a float"),
    ({"t0": 0.5}, "'t0' parameter .* must be a float in the range"),
    ({"class_weight": "even"}, "'class_weight' parameter .* must be"),
])
def test_bad_parameters(params, match):
    X, y = _blobs(30, 2, 2, 19)
    with pytest.raises(ValueError, match=match):
        LinearSVMClassifier(**params).fit(X, y)


def test_convergence_warning():
    X, y = _blobs(100, 3, 2, 20)
    with pytest.warns(ConvergenceWarning, match="max_iter=1"):
        LinearSVMClassifier(max_iter=1, tol=1e-12).fit(X, y)


def test_object_api_does_not_import_sklearn():
    """scikit-learn is a dependency, loaded by the estimators only: the object
    API trains with it blocked, and an estimator then fails to import naming it."""
    code = (
        "import sys; sys.modules['sklearn'] = None\n"
        "import numpy as np, stochsvm\n"
        "X = np.array([[1.0, 0.0], [0.0, 1.0], [-1.0, 0.0], [0.0, -1.0]])\n"
        "svm = stochsvm.SVM(X, np.array([1.0, 1.0, -1.0, -1.0]), 0.1)\n"
        "svm.train()\n"
        "try:\n"
        "    stochsvm.LinearSVMClassifier\n"
        "except ImportError as e:\n"
        "    print('ERR', e)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert "ERR" in out.stdout and "sklearn" in out.stdout


@pytest.mark.parametrize("solver,loss", [("res", "hinge2"), ("res", "logistic"),
                                         ("lres", "hinge2"), ("sdca", "logistic")])
def test_no_divergence_warning_where_the_zero_model_is_the_optimum(solver, loss, tmp_path):
    """Every point twice, once with each label: the optimum of the squared
    hinge and of the logistic loss is w = 0, b = 0. Runs that converged there
    (1e-9 to 3e-9 above the zero model's objective, rounding) warned that they
    "diverged or made no progress", with advice to scale the features; the
    estimator and ``stochsvm train`` now allow a converged run its tolerance."""
    import subprocess
    import sys
    import warnings

    from stochsvm.svm import _zero_model_slack

    objectives = []
    for seed in range(3):
        rng = np.random.default_rng(seed)
        X = np.repeat(rng.normal(size=(50, 5)), 2, axis=0)
        y = np.tile([1, -1], 50)
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # any warning fails
            est = LinearSVMClassifier(solver=solver, loss=loss).fit(X, y)
        stats = est._stats[0]
        assert stats["status"] == "converged"
        objectives.append(stats["objective"] / (1.0 if loss == "hinge2" else np.log(2)) - 1)
        path = tmp_path / f"t{seed}.svm"
        path.write_text("".join(f"{label} " + " ".join(f"{j + 1}:{float(v)!r}" for j, v in enumerate(row))
                                + "\n" for row, label in zip(X, y)))
        out = subprocess.run([sys.executable, "-m", "stochsvm", "train", "-q", "--solver", solver,
                              "--loss", loss, str(path)], capture_output=True, text=True, timeout=300)
        # (the step back-off's notice may appear: after an epoch the steps sit
        # a few percent above w = 0, the optimum, and the run shortens them)
        assert out.returncode == 0 and "that of the zero model" not in out.stderr, out.stderr
    assert max(objectives) > 1e-9  # above the zero model by more than rounding's old slack
    # a run that did not converge keeps the rounding slack only
    assert _zero_model_slack("max_iterations", 1e-3) == _zero_model_slack("converged", 0) == 1e-9
    assert _zero_model_slack("converged", 1e-3) == 1e-3
