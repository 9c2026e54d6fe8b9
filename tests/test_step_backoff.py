"""The step back-off of SGD, SVMSGD2 and SGD-QN at their default t0
(src/core/driver/run.c, src/core/linear/epochs.c; docs/stopping.rst): a run
whose objective goes non-finite, diverges, or sits above the zero model's an
epoch after its first diagnostic restarts from w = 0 with shorter steps.

A t0 set by the caller runs the same code path as the default without the
back-off, so ``set_t0(get_t0())`` is the run of the code before it (SGD and
SGD-QN: SVMSGD2's step guard also keys on a default t0)."""

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.datasets import load_wine
from sklearn.exceptions import ConvergenceWarning

from liblinear_reference import liblinear, objective
from stochsvm import SVM, LinearSVMClassifier
from stochsvm.datasets import make_classification, make_outlier
from stochsvm.linear import print_training


def _wine():
    """scikit-learn's wine, class 0 against the rest, unscaled (proline ~ 1e3)."""
    X, y = load_wine(return_X_y=True)
    return np.ascontiguousarray(X, dtype=np.float64), np.where(y == 0, 1.0, -1.0)


def _sgd(X, y, C, *, solver="sgd", loss="hinge", same_t0=False):
    svm = SVM(X, y, 1.0 / (C * len(y)), solver=solver, loss=loss, seed=0)
    svm.set_epsilon(1e-3)
    # the solvers' own runs: the back-off, not the Newton finish that follows
    # an uncertified smooth-loss run (tests/test_primal_finish.py)
    svm.set_newton_fallback(False)
    if same_t0:
        svm.set_t0(svm.get_t0())
    return svm


def _zero(y, loss):
    return objective(np.zeros((len(y), 1)), y, np.zeros(1), 0.0, 1.0, loss)


@pytest.mark.parametrize("C", [10.0, 1e3])
def test_pegasos_on_raw_wine_ends_below_the_zero_model(C):
    """VLFeat's t0 = 2/lambda (first step 1/2 whatever ||x||^2 ~ 1e6) ends
    above the zero model's objective (C = 10) or raises (C = 1e3); the
    back-off, sized by the row norms, ends well below it (0.23 and 0.12 where
    w = 0 scores 1; LIBLINEAR's dual solver at eps 1e-9 stops on its own
    iteration cap on these raw features, above both: no oracle here)."""
    X, y = _wine()
    old = _sgd(X, y, C, same_t0=True)
    try:
        stats = old.train()
        assert stats["objective"] > _zero(y, "hinge"), stats
    except FloatingPointError:
        pass
    svm = _sgd(X, y, C)
    stats = svm.train()
    assert stats["num_step_backoffs"] >= 1
    P = objective(X, y, svm.get_model(), svm.get_bias(), 1.0 / (C * len(y)), "hinge")
    assert P == pytest.approx(stats["objective"], rel=1e-9)
    assert P < 0.5 * _zero(y, "hinge")


def test_an_id_column_reaches_the_optimum_after_a_back_off():
    """A sample-id column (~1e6) at C = 1e-3, logistic loss: without the
    back-off SGD ends 1.5x the optimum (LIBLINEAR at eps 1e-9), above the
    zero model's objective; with it within 1.05x."""
    X, y = make_classification(300, 5, seed=6)
    X = np.column_stack([1e6 + 1e3 * np.arange(len(y)), X + 5.0])
    C = 1e-3
    lam = 1.0 / (C * len(y))
    w, b = liblinear(sp.csr_matrix(X), y, 0, lam, 1e-9)
    P_star = objective(X, y, w, b, lam, "logistic")
    old = _sgd(X, y, C, loss="logistic", same_t0=True)
    old_stats = old.train()
    assert old_stats["objective"] > _zero(y, "logistic") and old_stats["objective"] > 1.3 * P_star
    svm = _sgd(X, y, C, loss="logistic")
    stats = svm.train()
    assert stats["num_step_backoffs"] >= 1
    assert P_star <= stats["objective"] * (1 + 1e-9) and stats["objective"] <= 1.05 * P_star


@pytest.mark.parametrize("solver, loss", [("sgd", "hinge"), ("sgd", "logistic"),
                                          ("sgdqn", "hinge2"), ("sgdqn", "logistic")])
def test_never_fires_on_scaled_data_and_changes_nothing(solver, loss):
    """Where the back-off does not fire, the iterates are those of the same
    steps without it, bit for bit (and its state costs nothing)."""
    X, y = make_classification(400, 8, seed=3)
    for C in (1e-2, 1.0, 1e2):
        runs = []
        for same_t0 in (False, True):
            svm = _sgd(X, y, C, solver=solver, loss=loss, same_t0=same_t0)
            svm.set_max_num_iterations(30 * len(y))
            stats = svm.train()
            assert stats["num_step_backoffs"] == 0
            runs.append((svm.get_model(), svm.get_bias(), stats["iteration"], stats["status"]))
        (w0, b0, t0, s0), (w1, b1, t1, s1) = runs
        assert np.array_equal(w0, w1) and b0 == b1 and t0 == t1 and s0 == s1


def test_a_t0_set_by_the_caller_is_never_changed():
    X, y = _wine()
    svm = _sgd(X, y, 1e3)
    svm.set_t0(svm.get_t0())  # VLFeat's 2/lambda, now the caller's
    with pytest.raises(FloatingPointError, match="diverged"):
        svm.train()
    assert svm.get_statistics()["num_step_backoffs"] == 0
    assert svm.get_t0() == 2.0 / svm.get_lambda()


def test_at_most_four_back_offs_and_forgotten_with_the_history():
    """Each back-off is counted in the statistics; the count starts again
    when the model is set (the history is forgotten)."""
    X, y = _wine()
    svm = _sgd(X, y, 1e3)
    stats = svm.train()
    k = stats["num_step_backoffs"]
    assert 1 <= k <= 4
    svm.set_model(np.zeros(X.shape[1]))
    svm.set_max_num_iterations(len(y))
    assert svm.train()["num_step_backoffs"] == 0


def test_the_estimator_reports_the_back_off():
    """SVMSGD2 on one outlier row (100x the median norm) at C = 1e3 ended
    above the zero model's objective; now below it, and the warning of its
    cap says the steps were backed off."""
    X, y = make_outlier(n=240, d=8)
    est = LinearSVMClassifier(solver="svmsgd2", loss="hinge2", C=1e3)
    # the default cap given explicitly: the run's own end, no Newton finish
    est.set_params(max_iter=est._max_iter(X))
    with pytest.warns(ConvergenceWarning, match="max_iter.*backed off [1-4] times?: at the default t0"):
        est.fit(X, y)
    stats = est._stats[0]
    assert stats["num_step_backoffs"] >= 1 and stats["num_newton_iterations"] == 0
    assert stats["objective"] < 1.0  # the zero model's: the squared hinge at s = 0
    # at the defaults the finish takes over from the backed-off run: certified
    est = LinearSVMClassifier(solver="svmsgd2", loss="hinge2", C=1e3).fit(X, y)
    stats = est._stats[0]
    assert stats["status"] == "converged" and stats["num_newton_iterations"] > 0
    assert stats["duality_gap"] <= 1e-3 * stats["objective"]


def test_verbose_line_names_the_back_offs(capsys):
    X, y = _wine()
    svm = _sgd(X, y, 1e3)
    stats = svm.train()
    print_training(LinearSVMClassifier(), stats)
    assert f"status max_iterations, {stats['num_step_backoffs']} step back-off" in \
        capsys.readouterr().out
