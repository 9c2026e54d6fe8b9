"""Early stopping on held-out data in KernelSVMClassifier (docs/stopping.rst,
"Early stopping on held-out data"; src/stochsvm/_early_stopping.py): the
stratified seeded split, the rule that ends a run whose held-out accuracy
stopped improving (and not one that keeps improving), the best model kept,
the "validation" status without a warning, the cap's warning kept, bad
parameters, and early_stopping=False leaving fits unchanged."""

import re
import warnings

import numpy as np
import pytest
from _helpers import blobs
from sklearn.base import clone
from sklearn.exceptions import ConvergenceWarning

from stochsvm import KernelSVM, KernelSVMClassifier
from stochsvm._early_stopping import ValidationMonitor, validation_split

N, C, GAMMA = 400, 1.0, 0.1


@pytest.fixture(scope="module")
def data():
    """Overlapping classes (about 80 % separable): the held-out accuracy
    of BSCA with a budget of 20 levels off within the first epochs."""
    return blobs(N, 4, seed=11, sep=1.0)


def _bsca(**params):
    """BSCA; tol=0 unless given: no stopping rule of its own, no warnings."""
    base = dict(solver="bsca", C=C, gamma=GAMMA, budget=20, random_state=0, tol=0)
    return KernelSVMClassifier(**{**base, **params})


# -- the split ------------------------------------------------------------------


def test_split_is_stratified_and_seeded():
    y = np.repeat([0, 1, 2], [700, 200, 100])
    train, held = validation_split(y, 0.1, 3)
    assert np.intersect1d(train, held).size == 0
    assert np.union1d(train, held).size == y.size
    assert held.size == 100
    counts = np.bincount(y[held])
    assert np.all(np.abs(counts - np.array([70, 20, 10])) <= 1)
    again, _ = validation_split(y, 0.1, 3)
    other, _ = validation_split(y, 0.1, 4)
    assert np.array_equal(train, again)
    assert not np.array_equal(train, other)


def test_estimator_split_follows_random_state(data):
    X, y = data
    a = _bsca(early_stopping=True, max_iter=5).fit(X, y)
    b = _bsca(early_stopping=True, max_iter=5).fit(X, y)
    c = _bsca(early_stopping=True, max_iter=5, random_state=1).fit(X, y)
    assert np.array_equal(a._train_rows, b._train_rows)
    assert not np.array_equal(a._train_rows, c._train_rows)
    assert a._train_rows.size == N - 40
    assert np.array_equal(a.decision_function(X), b.decision_function(X))


def test_split_takes_every_random_state_the_estimators_take(data):
    """A RandomState, a Generator or a seed of 2^32 and more failed every fit
    (scikit-learn's splitter takes seeds below 2^32), and None split from the
    global generator, a new model each run, where the docs say seed 0."""
    X, y = data
    zero = _bsca(early_stopping=True, max_iter=3).fit(X, y)
    for random_state in (None, 0):
        again = _bsca(early_stopping=True, max_iter=3, random_state=random_state).fit(X, y)
        assert np.array_equal(again._train_rows, zero._train_rows)
        np.testing.assert_array_equal(again.decision_function(X), zero.decision_function(X))
    for random_state in (2**40, 2**63 - 1, np.random.RandomState(1), np.random.default_rng(1)):
        est = _bsca(early_stopping=True, max_iter=3, random_state=random_state).fit(X, y)
        assert est._train_rows.size == N - 40
    big = [validation_split(y, 0.1, 2**40 + k)[1] for k in range(2)]
    assert not np.array_equal(*big)                     # the high bits matter
    assert np.array_equal(validation_split(y, 0.1, 2**40)[1], big[0])


def test_one_split_for_all_one_vs_rest_classes():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 3))
    y = np.argmax(X, axis=1)
    est = _bsca(early_stopping=True, max_iter=30, budget=30).fit(X, y)
    assert len(est.validation_scores_) == 3
    held = np.setdiff1d(np.arange(300), est._train_rows)
    assert held.size == 30
    assert set(np.unique(y[held])) == {0, 1, 2}


# -- the rule -------------------------------------------------------------------


def test_rule_ends_a_run_that_stopped_improving(data):
    X, y = data
    # tol=0: no stopping rule of the solver's own; only early stopping can end
    # the run before its 200 epochs. With the default tol (the gap test in
    # force, here far from met), a validation stop gives no ConvergenceWarning.
    est = _bsca(early_stopping=True, max_iter=200).fit(X, y)
    stats = est._stats[0]
    assert stats["status"] == "validation"
    assert stats["iteration"] <= 20 * (N - 40)
    scores = est.validation_scores_[0]
    assert scores.size == est.n_iter_ and scores.size >= 4
    # the last three diagnostics did not beat the best before them by 1e-4
    assert np.max(scores[-3:]) <= np.max(scores[:-3]) + 1e-4
    assert stats["validation_score"] == scores.max()
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        quiet = _bsca(early_stopping=True, max_iter=200, tol=None, budget=None).fit(X, y)
    assert quiet._stats[0]["status"] == "validation"
    without = _bsca(max_iter=200).fit(X, y)
    assert without._stats[0]["status"] == "max_iterations"
    assert without.n_iter_ == 200


@pytest.mark.parametrize("solver, params", [("bsgd", {"budget": 20}), ("pegasos", {}),
                                            ("perceptron", {})])
def test_rule_ends_other_solvers_runs(data, solver, params):
    X, y = data
    est = KernelSVMClassifier(solver=solver, C=C, gamma=GAMMA, tol=0, max_iter=200,
                              early_stopping=True, **params).fit(X, y)
    assert est._stats[0]["status"] == "validation"
    assert est.n_iter_ < 50


def test_the_model_kept_is_the_best_one(data):
    X, y = data
    est = _bsca(early_stopping=True, max_iter=200, n_iter_no_change=5).fit(X, y)
    held = np.setdiff1d(np.arange(N), est._train_rows)
    accuracy = np.mean(est.predict(X[held]) == y[held])
    assert accuracy == est.validation_scores_[0].max()


class _Scripted:
    """A stand-in for a KernelSVM whose model classifies the i-th row right
    from the k-th call of decision_function on for k >= i."""

    def __init__(self, n):
        self.calls = 0
        self.n = n

    def decision_function(self, X):
        self.calls += 1
        return np.where(np.arange(self.n) < self.calls, 1.0, -1.0)

    def get_support_vectors(self):
        return None

    def get_coefficients(self):
        return np.zeros(0)

    def get_bias(self):
        return 0.0

    def get_support_indices(self):
        return None


def test_rule_does_not_end_a_run_that_keeps_improving():
    svm = _Scripted(50)
    monitor = ValidationMonitor(svm, np.zeros((50, 1)), np.ones(50), None, 1, 1e-4)
    assert not any(monitor({}) for _ in range(50))
    assert monitor.scores[-1] == 1.0
    # then flat: the first diagnostic without a gain ends it (n_iter_no_change=1)
    assert monitor({})
    assert monitor.stopped


def test_held_out_rows_are_scored_with_their_weights():
    svm = _Scripted(4)
    weights = np.array([3.0, 1.0, 0.0, 0.0])
    monitor = ValidationMonitor(svm, np.zeros((4, 1)), np.ones(4), weights, 2, 0.0)
    monitor({})  # row 0 right
    assert monitor.scores == [0.75]
    unweighted = ValidationMonitor(_Scripted(4), np.zeros((4, 1)), np.ones(4), None, 2, 0.0)
    unweighted({})
    assert unweighted.scores == [0.25]


def test_cap_before_the_rule_still_warns(data):
    X, y = data
    with pytest.warns(ConvergenceWarning, match="max_iter"):
        est = _bsca(early_stopping=True, max_iter=3, n_iter_no_change=10, budget=None,
                    tol=None).fit(X, y)
    assert est._stats[0]["status"] == "max_iterations"


# -- unchanged without it ------------------------------------------------------------


def test_off_is_the_model_without_early_stopping(data):
    """early_stopping=False (and "auto" on 10,000 rows or fewer) trains the
    very object the estimator trained before early stopping existed: the
    same iterates as the object API run by hand."""
    X, y = data
    models = [_bsca(max_iter=10, **p).fit(X, y) for p in ({}, {"early_stopping": "auto"})]
    svm = KernelSVM(X, np.where(y == 1.0, 1.0, -1.0), 1.0 / (C * N), solver="bsca", gamma=GAMMA,
                    seed=0)
    svm.set_unregularized_bias(True)
    svm.set_budget(20)
    svm.set_max_num_iterations(10 * N)
    svm.set_epsilon(0.0)
    svm.set_sdca_finish("auto")
    svm.train()
    for est in models:
        assert not hasattr(est, "validation_scores_")
        assert np.array_equal(est._svms[0].get_coefficients(), svm.get_coefficients())
        assert est._svms[0].get_bias() == svm.get_bias()


def test_auto_holds_out_only_for_budgeted_solvers_on_large_sets():
    est = KernelSVMClassifier(solver="bsca", early_stopping="auto")
    assert est._early_stopping_on(10_001) and not est._early_stopping_on(10_000)
    assert KernelSVMClassifier(solver="bsgd", early_stopping="auto")._early_stopping_on(20_000)
    for solver in ("sdca", "sbp", "pegasos", "perceptron"):
        assert not KernelSVMClassifier(solver=solver,
                                       early_stopping="auto")._early_stopping_on(10 ** 6)


def test_support_indexes_the_rows_given_to_fit(data):
    X, y = data
    est = KernelSVMClassifier(solver="sdca", C=C, gamma=GAMMA, early_stopping=True).fit(X, y)
    assert np.array_equal(X[est.support_], est.support_vectors_)


# -- parameters -----------------------------------------------------------------------


@pytest.mark.parametrize("fraction", [0.0, 1.0, -0.1, 1.5])
def test_bad_validation_fraction(data, fraction):
    X, y = data
    with pytest.raises(ValueError, match="validation_fraction"):
        _bsca(early_stopping=True, validation_fraction=fraction).fit(X, y)


@pytest.mark.parametrize("params", [{"n_iter_no_change": 0}, {"validation_tol": -1e-3},
                                    {"early_stopping": "yes"}])
def test_bad_parameters(data, params):
    X, y = data
    with pytest.raises(ValueError, match=list(params)[0]):
        _bsca(**{"early_stopping": True, **params}).fit(X, y)


def test_a_class_without_held_out_or_training_rows(data):
    X, y = data
    y = y.copy()
    y[0] = 5.0  # a class of one row
    with pytest.raises(ValueError, match="smallest class"):
        _bsca(early_stopping=True).fit(X, y)
    with pytest.raises(ValueError, match="smallest class"):
        _bsca(early_stopping=True, validation_fraction=0.001).fit(X[:100], y[:100] != 1.0)


@pytest.mark.parametrize("fraction, remedy", [(0.001, "raise validation_fraction"),
                                              (0.99, "lower validation_fraction")])
def test_the_split_error_says_which_way_to_move_the_fraction(fraction, remedy):
    y = np.repeat([0.0, 1.0], 50)  # too small: no held-out row; too large: no training row
    with pytest.raises(ValueError, match=remedy):
        validation_split(y, fraction, 0)
    y = np.r_[y, 2.0]  # a class of one row: no fraction helps
    with pytest.raises(ValueError, match=r"every class: give more rows"):
        validation_split(y, 0.1, 0)


def test_held_out_weights_all_zero(data):
    X, y = data
    est = _bsca(early_stopping=True, max_iter=3)
    train, held = validation_split(y, 0.1, 0)
    weights = np.ones(N)
    weights[held] = 0.0
    with pytest.raises(ValueError, match="weight 0"):
        est.fit(X, y, sample_weight=weights)


def test_precomputed_refused(data):
    X, y = data
    K = np.exp(-GAMMA * ((X[:, None] - X[None]) ** 2).sum(-1))
    with pytest.raises(ValueError, match="precomputed"):
        KernelSVMClassifier(kernel="precomputed", early_stopping=True).fit(K, y)


def test_get_params_and_clone():
    est = _bsca(early_stopping="auto", validation_fraction=0.2, n_iter_no_change=4,
                validation_tol=1e-3)
    params = clone(est).get_params()
    assert params["early_stopping"] == "auto"
    assert params["validation_fraction"] == 0.2
    assert params["n_iter_no_change"] == 4
    assert params["validation_tol"] == 1e-3
    assert clone(est.set_params(early_stopping=True)).early_stopping is True


# -- one rule: the command line's --validation ------------------------------------


def test_command_line_stops_where_the_estimator_stops(data, tmp_path, capsys):
    """`stochsvm train --validation F --patience P --validation-tol T` and the
    estimator's early_stopping with the same fraction, n_iter_no_change,
    validation_tol and seed hold out the same rows, score the same
    diagnostics and stop at the same one, with the same model."""
    from _helpers import write_libsvm

    from stochsvm.cli import main
    from stochsvm.datasets import load_libsvm
    from stochsvm.model_file import read_model

    path = write_libsvm(tmp_path / "blobs.svm", *data)
    X, y = load_libsvm(path, n_features=4)
    est = _bsca(early_stopping=True, max_iter=200, n_iter_no_change=4,
                validation_fraction=0.2, validation_tol=0.002, random_state=5).fit(X, y)
    assert est.stop_reasons_[0] == "validation"  # the rule fired, not the cap
    assert main(["train", path, str(tmp_path / "m.ssvm"), "--kernel", "rbf", "--solver", "bsca",
                 "-C", str(C), "--gamma", str(GAMMA), "--budget", "20", "--tol", "0",
                 "--epochs", "200", "--validation", "0.2", "--patience", "4",
                 "--validation-tol", "0.002", "--seed", "5"]) == 0
    out = capsys.readouterr().out
    assert f"validation: {N - est._train_rows.size} rows held out" in out
    assert f"early stop after {est.n_iter_} epochs" in out
    scores = est.validation_scores_[0]
    best = int(np.flatnonzero(scores == scores.max())[-1]) + 1  # a tie keeps the later
    assert f"best epoch {best}: validation accuracy {scores.max():.4f}" in out
    shown = [float(v) for v in re.findall(r"^epoch +\d+ .*validation accuracy (\S+)", out, re.M)]
    np.testing.assert_allclose(shown, np.round(scores[:len(shown)], 4))
    model = read_model(tmp_path / "m.ssvm")
    assert model["metadata_json"]["best_epochs"] == [best]
    from stochsvm import _model_file

    np.testing.assert_allclose(np.ravel(_model_file.decision_function(model, X)),
                               est.decision_function(X), rtol=1e-12, atol=1e-12)


def test_a_watched_run_leaves_the_diagnostic_schedule_as_it_was(data):
    """Early stopping sets a diagnostic every epoch for its run only: the
    objects then return to the default schedule (a later warm_start fit
    without early stopping runs on it), or to a frequency set before."""
    X, y = data
    est = _bsca(early_stopping=True, max_iter=200, warm_start=True).fit(X, y)
    svm = est._svms[0]
    assert est.stop_reasons_[0] == "validation"
    assert svm.get_diagnostic_frequency_setting() is None
    assert svm.__reduce__()[1][0]["diagnostic_frequency"] is None  # (pickled: the default)
    svm.set_diagnostic_frequency(7)
    est.set_params(max_iter=3).fit(X, y)
    assert est._svms[0] is svm and svm.get_diagnostic_frequency_setting() == 7


@pytest.mark.parametrize("make", [
    lambda X, y: KernelSVM(X, y, 0.1),
    lambda X, y: __import__("stochsvm").SVM(X, y, 0.1)])
def test_diagnostic_frequency_back_to_the_default(data, make):
    X, y = data
    svm = make(X, y)
    assert svm.get_diagnostic_frequency_setting() is None
    svm.set_diagnostic_frequency(7)
    assert svm.get_diagnostic_frequency_setting() == 7
    assert svm.get_diagnostic_frequency() == 7
    svm.set_diagnostic_frequency(None)
    assert svm.get_diagnostic_frequency_setting() is None
    assert svm.get_diagnostic_frequency() == X.shape[0]
    with pytest.raises(ValueError, match="diagnostic_frequency must be an integer >= 1"):
        svm.set_diagnostic_frequency(0)
    assert svm.get_diagnostic_frequency_setting() is None


@pytest.mark.parametrize("solver", ["sdca", "sgd"])
def test_linear_best_model_put_back_is_the_one_scored(solver):
    """A linear run the monitor ends puts back the model it scored best:
    SDCA's from its dual variables (w(alpha), which its running w equals up
    to rounding), the SGD family's as copied. Checked where the best
    diagnostic is not the last, so the model is really put back."""
    from sklearn.datasets import make_classification

    from stochsvm import SVM
    from stochsvm._early_stopping import train_watched

    X, y = make_classification(4000, 20, flip_y=0.1, random_state=1)
    y = np.where(y == 1, 1.0, -1.0)
    svm = SVM(X[:3000], y[:3000], 1e-5, solver=solver)
    monitor = ValidationMonitor(svm, X[3000:], y[3000:], None, 2, 1e-4)
    scored = []
    copy_model = monitor._copy_model

    def copy_and_keep():
        scored.append(svm.get_model().copy())
        return copy_model()

    monitor._copy_model = copy_and_keep
    # a diagnostic every epoch, as the estimators ask for (on SDCA's own
    # budget schedule the gap test ends the run before patience 2 runs out)
    stats = train_watched(svm, monitor, 3000)
    assert stats["status"] == "validation"
    assert monitor.scores[-1] < monitor.best_score  # the last model was not the best
    w = svm.get_model()
    np.testing.assert_allclose(w, scored[-1], rtol=0, atol=1e-12 * np.max(np.abs(w)))
    assert monitor.score() == monitor.best_score
    # What the statistics say of the model is the kept model's (the summary
    # line of `stochsvm train --validation` printed the last model's
    # objective); the work is the run's: its iteration count is its end's.
    b = svm.get_bias()
    margins = y[:3000] * (X[:3000] @ w + b)
    loss = np.mean(np.maximum(0.0, 1.0 - margins))
    regularizer = 1e-5 / 2 * (w @ w + b * b)    # bias multiplier 1
    assert stats["objective"] == pytest.approx(regularizer + loss, rel=1e-9)
    assert stats["loss"] == pytest.approx(loss, rel=1e-9)
    assert stats["iteration"] > monitor.best_iteration


def test_string_labels_of_dtype_object():
    """Labels as Python strings in an object array (a pandas string column)
    failed every early-stopping fit: the split named its smallest class with
    ndarray.tolist, which a str has not."""
    from sklearn.datasets import load_iris

    X, k = load_iris(return_X_y=True)
    names = np.array(["setosa", "versicolor", "virginica"], dtype=object)
    fits = [KernelSVMClassifier(early_stopping=True).fit(X, labels)
            for labels in (names[k], names[k].astype(str))]
    assert list(fits[0].classes_) == list(fits[1].classes_) == list(names)
    np.testing.assert_array_equal(fits[0].decision_function(X), fits[1].decision_function(X))
    with pytest.raises(ValueError, match=r"the smallest class \('rare'\) has 1 rows"):
        KernelSVMClassifier(early_stopping=True).fit(
            X[:101], np.append(names[k[:100]], "rare").astype(object))
