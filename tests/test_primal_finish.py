"""The primal solvers' Newton finish (src/core/linear/primal_finish.c): SGD,
SVMSGD2, SGD-QN, RES and LRES with a smooth loss hand over to newton.c where
their run would end uncertified, and finish certified (issue 17, item 5).

Raw breast_cancer (features from 1e-3 to 4e3) at large C: at the estimators'
defaults these solvers ended on their caps at 1.1x to 100x the optimum
(bench/results/defaults.md). The oracle is LIBLINEAR's primal solver at eps
1e-9 with the regularized bias feature (-B 1), its objective computed in
numpy (tests/test_sdca_newton.py); l2 against the closed form.
"""

import pickle
import warnings

import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer

from stochsvm import SVM, LinearSVMClassifier, LinearSVMRegressor
from _helpers import liblinear_optimum as _oracle, objective

PRIMAL = ["sgd", "svmsgd2", "sgdqn", "res", "lres"]


@pytest.fixture(scope="module")
def cancer():
    X, y = load_breast_cancer(return_X_y=True)
    return np.ascontiguousarray(X), np.where(y == 1, 1.0, -1.0)


def _fit(X, y, **params):
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no ConvergenceWarning
        return LinearSVMClassifier(**params).fit(X, y)


@pytest.mark.parametrize("loss", ["hinge2", "logistic"])
@pytest.mark.parametrize("solver", PRIMAL)
def test_defaults_reach_the_optimum(cancer, solver, loss):
    X, y = cancer
    C = 1000.0
    est = _fit(X, y, solver=solver, loss=loss, C=C)
    stats = est._stats[0]
    assert stats["status"] == "converged"
    assert stats["num_newton_iterations"] > 0
    P = objective(X, y, est.coef_.ravel(), float(est.intercept_[0]), 1.0 / (C * X.shape[0]), loss=loss)
    assert P == pytest.approx(stats["objective"], rel=1e-9)
    # certified: P - D <= tol max(P, D), so within 1.001x of LIBLINEAR's P*
    assert stats["duality_gap"] <= 1e-3 * stats["objective"]
    assert P <= 1.001 * _oracle(X, y, C, loss)
    # the stall rule handed over long before the cap
    assert est.n_iter_ < 50


@pytest.mark.parametrize("solver", PRIMAL)
def test_off_is_the_old_run(cancer, solver):
    """Without the finish (an explicit max_iter at the default cap leaves
    the mode "auto", off under a cap the object was given): the run ends on
    its cap, with the warning, as before."""
    from sklearn.exceptions import ConvergenceWarning

    X, y = cancer
    est = LinearSVMClassifier(solver=solver, loss="hinge2", C=1000.0)
    cap = est._max_iter(X)
    with pytest.warns(ConvergenceWarning, match="stopped on its cap"):
        est.set_params(max_iter=cap).fit(X, y)
    stats = est._stats[0]
    assert stats["status"] == "max_iterations" and stats["num_newton_iterations"] == 0
    assert est._svms[0].get_newton_fallback() == "auto"
    P = objective(X, y, est.coef_.ravel(), float(est.intercept_[0]), 1.0 / (1000.0 * X.shape[0]),
                  loss="hinge2")
    assert P > 1.02 * _oracle(X, y, 1000.0, "hinge2")


def test_an_explicit_cap_gets_no_newton(cancer):
    """max_iter=5 asks for a cheap, rough model: five epochs, no Newton."""
    from sklearn.exceptions import ConvergenceWarning

    X, y = cancer
    with pytest.warns(ConvergenceWarning, match="max_iter=5"):
        est = LinearSVMClassifier(solver="sgd", loss="logistic", C=1000.0, max_iter=5).fit(X, y)
    stats = est._stats[0]
    assert stats["num_newton_iterations"] == 0 and stats["epoch"] == 5
    # the object: auto after set_max_num_iterations, True forces the finish
    svm = SVM(X, y, 1.0 / (1000.0 * X.shape[0]), solver="sgd", loss="logistic")
    assert svm.get_newton_fallback() == "auto"
    svm.set_max_num_iterations(5 * X.shape[0])
    assert svm.train()["num_newton_iterations"] == 0
    svm.set_newton_fallback(True)
    stats = svm.train()
    assert stats["num_newton_iterations"] > 0 and stats["status"] == "converged"


@pytest.mark.parametrize("solver", PRIMAL)
def test_warm_start_after_the_finish(cancer, solver):
    """The next fit continues the schedule (t), SGD-QN's scaling and RES's
    curvature from Newton's model: no error, no divergence, certified again."""
    X, y = cancer
    C = 1000.0
    est = _fit(X, y, solver=solver, loss="logistic", C=C, warm_start=True)
    first = est._stats[0]["objective"]
    assert est._stats[0]["num_newton_iterations"] > 0
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        est.fit(X, y)
    stats = est._stats[0]
    assert stats["status"] == "converged"
    assert stats["iteration"] > 0 and np.isfinite(stats["objective"])
    assert stats["objective"] <= first * (1 + 1e-3)
    assert stats["objective"] <= 1.001 * _oracle(X, y, C, "logistic")


def test_l2_regression_closed_form(cancer):
    """l2 (ridge with the bias regularised, B = 1) against its closed form."""
    X, y = cancer
    target = X[:, 0] / 10.0
    C = 1000.0
    n = X.shape[0]
    lam = 1.0 / (C * n)
    est = LinearSVMRegressor(solver="sgd", C=C, loss="l2").fit(X, target)
    stats = est._stats[0]
    assert stats["status"] == "converged" and stats["num_newton_iterations"] > 0
    Xb = np.hstack([X, np.ones((n, 1))])
    w = np.linalg.solve(Xb.T @ Xb / n + 0.5 * lam * np.eye(Xb.shape[1]), Xb.T @ target / n)
    best = 0.5 * lam * (w @ w) + np.mean((Xb @ w - target) ** 2)
    assert best <= stats["objective"] <= best * (1 + 1e-3)


def test_pickle_keeps_the_mode(cancer):
    X, y = cancer
    for mode in (True, False, "auto"):
        svm = SVM(X, y, 0.01, solver="sgdqn", loss="hinge2")
        svm.set_newton_fallback(mode)
        assert pickle.loads(pickle.dumps(svm)).get_newton_fallback() == mode


def test_cli_says_certified(cancer, tmp_path, capsys):
    from _helpers import write_libsvm

    from stochsvm.cli import main

    X, y = cancer
    path = write_libsvm(tmp_path / "cancer.svm", X, y)
    assert main(["train", str(path), str(tmp_path / "m.ssvm"), "--solver", "sgd", "--loss",
                 "hinge2", "-C", "1000"]) == 0
    out = capsys.readouterr().out
    assert "converged after" in out and "Newton iteration" in out and "(certified)" in out
