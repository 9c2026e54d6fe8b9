"""The hinge finish's stalled first stage (issue 17; newton_hinge.c,
hinge_dual.c).

Raw digits at C = 1e3, one-vs-rest, as the unseen-data suite runs it
(bench/defaults.py: load_digits, its stratified 75 % split, seed 0): class 0
against the rest is nearly separable at lambda = 7.4e-7, and the smoothing
Newton method at its first width took line-search steps of 1e-4..1e-3 for
its 1000 iterations, P_mu falling by a few per cent per 50 of them, and
ended uncertified at 30 times the optimum. A stage that stalls now hands
its dual point over to the coordinate ascent on the hinge's own dual, whose
stall rule no longer stops it while its iterate still converges.

Linear SDCA hands its hinge over to the same finish, which starts from
SDCA's own model w~(alpha) (sdca_newton.c). Class 7 against the rest
(lambda = 7.4e-7) had started from the closing ray's t* w~(alpha), t* = 6.8,
which puts every margin past the kink: the smoothed Hessian held no row and
the finish crept for its 1000 iterations at width 1, ending uncertified at
3.8 times the optimum with a negative dual value.

The oracle is linear SDCA alone (no Newton fallback) to a relative gap of
1e-9: it brackets P* between its dual and primal values. (LIBLINEAR's -s 3
at eps 1e-9 ends on its iteration cap on these raw features, at 3,000 times
the optimum.)
"""

import warnings

import numpy as np
import pytest
from sklearn.datasets import load_digits
from sklearn.model_selection import train_test_split

from stochsvm import SVM, LinearSVMClassifier
from _helpers import objective

C = 1000.0


def _digits_train():
    X, y = load_digits(return_X_y=True)
    Xtr, _, ytr, _ = train_test_split(X, y, test_size=0.25, random_state=0, stratify=y)
    return np.ascontiguousarray(Xtr, dtype=np.float64), ytr


def _sdca_bracket(X, yb):
    """[D, P] of SDCA alone at a relative gap of 1e-9: P* lies within."""
    svm = SVM(X, yb, 1.0 / (C * X.shape[0]), solver="sdca", loss="hinge")
    svm.set_newton_fallback(False)
    svm.set_epsilon(1e-9)
    svm.set_max_num_iterations(10**9)
    stats = svm.train()
    assert stats["status"] == "converged"
    return stats["dual_objective"], stats["objective"]


@pytest.mark.parametrize("solver", ["sgd", "svmsgd2", "sgdqn"])
def test_digits_class0_certifies(solver):
    """Every one-vs-rest problem certified without a warning; problem 0's
    model has the objective it reports, within its gap of the oracle."""
    X, y = _digits_train()
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no ConvergenceWarning
        est = LinearSVMClassifier(solver=solver, loss="hinge", C=C).fit(X, y)
    assert [s["status"] for s in est._stats] == ["converged"] * 10
    stats = est._stats[0]
    yb = np.where(y == 0, 1.0, -1.0)
    P = objective(X, yb, est.coef_[0], float(est.intercept_[0]), 1.0 / (C * X.shape[0]))
    assert P == pytest.approx(stats["objective"], rel=1e-9)
    gap = stats["duality_gap"]
    assert gap <= 1e-3 * stats["objective"] * (1 + 1e-9)
    low, high = _sdca_bracket(X, yb)
    # both certificates bracket the same P*: each dual below the other's primal
    assert stats["dual_objective"] <= high * (1 + 1e-9)
    assert low <= P * (1 + 1e-9)
    # and the model is within its own gap of the optimum
    assert P - low <= gap + (high - low) + 1e-12 * P


def test_sdca_digits_certifies_from_its_dual_model():
    """SDCA's hinge at C = 1e3 certifies every one-vs-rest problem without a
    warning; class 7's model has the objective it reports, within its gap
    of the oracle's bracket."""
    X, y = _digits_train()
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no ConvergenceWarning
        est = LinearSVMClassifier(solver="sdca", loss="hinge", C=C).fit(X, y)
    assert [s["status"] for s in est._stats] == ["converged"] * 10
    stats = est._stats[7]
    assert stats["num_newton_iterations"] > 0  # the finish ran (the case at issue)
    yb = np.where(y == 7, 1.0, -1.0)
    P = objective(X, yb, est.coef_[7], float(est.intercept_[7]), 1.0 / (C * X.shape[0]))
    assert P == pytest.approx(stats["objective"], rel=1e-9)
    gap = stats["duality_gap"]
    assert 0 < stats["dual_objective"] and gap <= 5e-4 * stats["objective"] * (1 + 1e-9)
    low, high = _sdca_bracket(X, yb)
    assert stats["dual_objective"] <= high * (1 + 1e-9)
    assert low <= P * (1 + 1e-9)
    assert P - low <= gap + (high - low) + 1e-12 * P
