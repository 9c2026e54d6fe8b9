"""The SGD family's Newton finish for the hinge and l1 losses
(src/core/linear/primal_finish.c, newton_hinge.c): SGD, SVMSGD2 and SGD-QN
with the hinge (their estimators' default loss) or l1 hand over to Newton's
method on the smoothed loss where their run ends on its cap or on its
window (which the hinge's loose bound cannot certify), and finish certified
by the loss's own duality gap (issue 17).

Raw wine and breast_cancer at large C are where these runs ended on their
caps at up to thousands of times the optimum (bench/results/defaults.md).
The oracle is the optimum of the same problem (regularized bias feature,
LIBLINEAR's -B 1) from tests/liblinear_reference.py: Newton's method with a
certified dual bound on these small sets (LIBLINEAR's -s 3 ends on its
iteration cap there, far above the optimum), LIBLINEAR's -s 3 without its
cap on w8a.
"""

import warnings

import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer, load_diabetes, load_wine

from stochsvm import SVM, LinearSVMClassifier, LinearSVMRegressor
from _helpers import liblinear_optimum, objective

SGD_FAMILY = ["sgd", "svmsgd2", "sgdqn"]


def _raw(name):
    X, y = (load_wine if name == "wine" else load_breast_cancer)(return_X_y=True)
    return np.ascontiguousarray(X, dtype=float), y


def _targets(y):
    classes = np.unique(y)
    if len(classes) == 2:
        return [np.where(y == classes[1], 1.0, -1.0)]
    return [np.where(y == k, 1.0, -1.0) for k in classes]


@pytest.mark.parametrize("name", ["wine", "breast_cancer"])
@pytest.mark.parametrize("solver", SGD_FAMILY)
def test_defaults_reach_the_optimum(name, solver):
    """The estimator at its defaults (hinge; one-vs-rest on wine's 3
    classes) at C = 1e3: certified, no warning, within 1.001x of the optimum."""
    X, y = _raw(name)
    C = 1000.0
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no ConvergenceWarning
        est = LinearSVMClassifier(solver=solver, C=C).fit(X, y)
    lam = 1.0 / (C * X.shape[0])
    targets = _targets(y)
    assert len(est._stats) == len(targets)
    for k, (yb, stats) in enumerate(zip(targets, est._stats)):
        assert stats["status"] == "converged"
        assert stats["num_newton_iterations"] > 0
        P = objective(X, yb, est.coef_[k], float(est.intercept_[k]), lam)
        assert P == pytest.approx(stats["objective"], rel=1e-9)
        assert stats["duality_gap"] <= 1e-3 * stats["objective"] * (1 + 1e-9)
        assert P <= 1.001 * liblinear_optimum(X, yb, C, "hinge")


def _svm(X, y, C, solver, fallback=None, cap_epochs=None, loss="hinge"):
    svm = SVM(X, y, 1.0 / (C * X.shape[0]), solver=solver, loss=loss)
    if cap_epochs is not None:
        svm.set_max_num_iterations(cap_epochs * X.shape[0])
    if fallback is not None:
        svm.set_newton_fallback(fallback)
    return svm


@pytest.mark.parametrize("solver", SGD_FAMILY)
def test_off_is_the_old_run(solver):
    """Off: the stochastic run alone, bit for bit the run that auto gives
    under a cap the caller set (no finish either); on: certified, below."""
    X, y = _raw("breast_cancer")
    yb = _targets(y)[0]
    off = _svm(X, yb, 1000.0, solver, fallback=False, cap_epochs=200).train()
    capped = _svm(X, yb, 1000.0, solver, cap_epochs=200).train()
    on = _svm(X, yb, 1000.0, solver, fallback=True, cap_epochs=200).train()
    assert off["num_newton_iterations"] == capped["num_newton_iterations"] == 0
    assert off["status"] == capped["status"] == "max_iterations"
    assert off["objective"] == capped["objective"] and off["iteration"] == capped["iteration"]
    assert on["status"] == "converged" and on["num_newton_iterations"] > 0
    assert on["objective"] < off["objective"]


def test_bias_weights_and_warm_start():
    """Per-example weights and the learned bias enter the problem; the
    next train continues from Newton's model and ends certified again."""
    X, y = _raw("wine")
    yb = _targets(y)[1]
    C = 1000.0
    lam = 1.0 / (C * X.shape[0])
    c = 0.5 + (np.arange(len(yb)) % 3)
    svm = _svm(X, yb, C, "sgd", fallback=True)
    svm.set_weights(c)
    first = svm.train()
    assert first["status"] == "converged" and first["num_newton_iterations"] > 0
    P = objective(X, yb, svm.get_model(), svm.get_bias(), lam, weights=c)
    assert P == pytest.approx(first["objective"], rel=1e-9)
    assert svm.get_bias() != 0
    second = svm.train()
    assert second["status"] == "converged"
    assert second["iteration"] > first["iteration"]
    assert second["objective"] <= first["objective"] * (1 + 2e-3)
    P2 = objective(X, yb, svm.get_model(), svm.get_bias(), lam, weights=c)
    assert P2 == pytest.approx(second["objective"], rel=1e-9)


def test_an_explicit_cap_gets_no_newton():
    """max_iter=5 asks for five epochs: no Newton, and the warning."""
    from sklearn.exceptions import ConvergenceWarning

    X, y = _raw("breast_cancer")
    with pytest.warns(ConvergenceWarning, match="max_iter=5"):
        est = LinearSVMClassifier(solver="sgd", C=1000.0, max_iter=5).fit(X, y)
    stats = est._stats[0]
    assert stats["num_newton_iterations"] == 0 and stats["epoch"] == 5


def test_l1_regression_is_certified():
    """l1 (least absolute deviations, bias regularised) on diabetes with
    features of scale 5: the smoothed l1's finish ends certified, within
    1.001x of the optimum bounded by the dual, a box-constrained QP that
    scipy solves: D(alpha) = 1/n sum_i alpha_i t_i - 1/(2 lam n^2)
    ||sum_i alpha_i (x_i, 1)||^2, |alpha_i| <= 1, D <= P*."""
    from scipy.optimize import minimize

    X, t = load_diabetes(return_X_y=True)
    X = np.ascontiguousarray(X * 100.0)
    C = 10.0
    n = X.shape[0]
    lam = 1.0 / (C * n)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        est = LinearSVMRegressor(solver="sgd", loss="l1", C=C).fit(X, t)
    stats = est._stats[0]
    assert stats["status"] == "converged" and stats["num_newton_iterations"] > 0
    P = objective(X, t, est.coef_.ravel(), float(np.ravel(est.intercept_)[0]), lam, loss="l1")
    assert P == pytest.approx(stats["objective"], rel=1e-9)
    assert stats["duality_gap"] <= 1e-3 * stats["objective"] * (1 + 1e-9)

    Xb = np.hstack([X, np.ones((n, 1))])

    def negative_dual(a):
        v = Xb.T @ a
        return -(a @ t / n - 0.5 * (v @ v) / (lam * n * n)), -(t / n - Xb @ v / (lam * n * n))

    best = minimize(negative_dual, np.zeros(n), jac=True, method="L-BFGS-B", bounds=[(-1, 1)] * n,
                    options={"maxiter": 20000, "ftol": 1e-15, "gtol": 1e-12})
    D = -best.fun
    assert D <= P * (1 + 1e-9)
    assert P <= 1.001 * D


def test_cli_says_certified(tmp_path, capsys):
    from _helpers import write_libsvm

    from stochsvm.cli import main

    X, y = _raw("breast_cancer")
    path = write_libsvm(tmp_path / "cancer.svm", X, np.where(y == 1, 1.0, -1.0))
    assert main(["train", str(path), str(tmp_path / "m.ssvm"), "--solver", "sgd", "-C", "1000"]) == 0
    out = capsys.readouterr().out
    assert "converged after" in out and "Newton iteration" in out and "(certified)" in out


_W8A_OPTIMUM = {}


@pytest.mark.parametrize("solver", SGD_FAMILY)
def test_w8a_finishes_on_the_dual(solver):
    """w8a at C = 1 (lambda = 1/n), the hinge at the estimators' tol 1e-3:
    the finish hands the smoothed minimiser's dual point over to coordinate
    ascent at width 0.1 (newton_hinge.c, hinge_dual.c) instead of running
    the widths down to 0.01, so it takes at most 30 Newton iterations (the
    widths alone took 50 to 54 from these runs' models), and still ends
    certified, within tol of LIBLINEAR's optimum at eps 1e-9."""
    from liblinear_reference import benchmark, liblinear
    from liblinear_reference import objective as reference_objective

    X, y = benchmark("w8a")
    lam = 1.0 / X.shape[0]
    svm = SVM(X, y, lam, solver=solver, loss="hinge")
    svm.set_epsilon(1e-3)
    svm.set_newton_fallback(True)
    stats = svm.train()
    assert stats["status"] == "converged"
    assert 0 < stats["num_newton_iterations"] <= 30
    w, b = np.asarray(svm.get_model()), svm.get_bias()
    P = reference_objective(X, y, w, b, lam, "hinge")
    assert P == pytest.approx(stats["objective"], rel=1e-9)
    assert stats["duality_gap"] <= 1e-3 * stats["objective"] * (1 + 1e-9)
    if "P*" not in _W8A_OPTIMUM:
        w_star, b_star = liblinear(X, y, 3, lam, 1e-9)
        _W8A_OPTIMUM["P*"] = reference_objective(X, y, w_star, b_star, lam, "hinge")
    P_star = _W8A_OPTIMUM["P*"]
    assert P_star * (1 - 1e-9) <= P <= (1 + 1e-3) * P_star
