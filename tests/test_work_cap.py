"""The estimators' work-based default caps (stochsvm._solvers min_work):
SGD, SVMSGD2 and SGD-QN run at least 3e7 units of work, SDCA 4e7 (stored values
plus one per row, per epoch), kernel Pegasos and BSGD at least 2e7 kernel
evaluations (n^2 per epoch); large sets keep 100 epochs, an explicit
max_iter is a plain cap, and the warnings name the epochs None meant."""

import math

import numpy as np
import pytest
from sklearn.datasets import load_wine
from sklearn.exceptions import ConvergenceWarning

from stochsvm import KernelSVMClassifier, LinearSVMClassifier
from stochsvm._solvers import get

STEP_SOLVERS = ["sgd", "svmsgd2", "sgdqn"]


@pytest.fixture(scope="module")
def wine():
    X, y = load_wine(return_X_y=True)
    return X, y


@pytest.mark.parametrize("solver", STEP_SOLVERS + ["sdca"])
def test_small_sets_get_more_epochs(wine, solver):
    X, y = wine
    n, d = X.shape
    work = 4e7 if solver == "sdca" else 3e7
    epochs = math.ceil(work / (n * d + n))
    assert get("linear", solver).min_work == work
    assert LinearSVMClassifier(solver=solver)._max_iter(X) == epochs > 100
    assert LinearSVMClassifier(solver=solver, max_iter=7)._max_iter(X) == 7


@pytest.mark.parametrize("solver", ["res", "lres"])
def test_res_and_lres_keep_100_epochs(wine, solver):
    assert LinearSVMClassifier(solver=solver, loss="hinge2")._max_iter(wine[0]) == 100


@pytest.mark.parametrize("solver", STEP_SOLVERS)
def test_the_cap_of_none_then_the_finish(solver):
    """Raw wine at C = 1e3: the run goes to the work-based cap (SGD's
    1/(lambda t) steps at a tiny lambda), then the hinge's Newton finish
    certifies it (primal_finish.c): no warning. (Before the finish the run
    ended there with a warning naming max_iter=None's epochs.)"""
    import warnings

    X, y = load_wine(return_X_y=True)
    X, y = X[::4], y[::4]  # 45 rows: 4.3e4 epochs, a few hundredths of a second
    n, d = X.shape
    epochs = math.ceil(3e7 / (n * d + n))
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        est = LinearSVMClassifier(solver=solver, C=1e3).fit(X, y)
    assert est.n_iter_ == epochs
    assert all(s["status"] == "converged" and s["num_newton_iterations"] > 0 for s in est._stats)


def test_large_sets_keep_100_epochs_bit_for_bit():
    """n d >= 3e5: the default is 100 epochs, the same fit bit for bit as
    max_iter=100 (tol=0 runs the whole cap)."""
    rng = np.random.default_rng(1)
    X = rng.standard_normal((1500, 200))
    y = np.where(X[:, 0] + 0.5 * rng.standard_normal(1500) > 0, 1, -1)
    default = LinearSVMClassifier(solver="svmsgd2", tol=0.0)
    assert default._max_iter(X) == 100
    explicit = LinearSVMClassifier(solver="svmsgd2", tol=0.0, max_iter=100)
    assert np.array_equal(default.fit(X, y).coef_, explicit.fit(X, y).coef_)
    assert default.n_iter_ == explicit.n_iter_ == 100


@pytest.mark.parametrize("solver", ["pegasos", "bsgd"])
def test_kernel_step_solvers_cap_by_kernel_evaluations(solver):
    assert KernelSVMClassifier(solver=solver)._max_iter(100) == 2000
    assert KernelSVMClassifier(solver=solver)._max_iter(447) == 101
    assert KernelSVMClassifier(solver=solver)._max_iter(448) == 100
    assert KernelSVMClassifier(solver=solver)._max_iter(5000) == 100
    assert KernelSVMClassifier(solver=solver, max_iter=3)._max_iter(100) == 3
    for other in ("sdca", "sbp", "bsca", "perceptron"):
        assert KernelSVMClassifier(solver=other)._max_iter(100) == get("kernel", other).max_iter


def test_kernel_warning_names_the_epochs_of_none():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((60, 3))
    y = np.where(X[:, 0] + 0.3 * rng.standard_normal(60) > 0, 1, -1)
    epochs = math.ceil(2e7 / 60 ** 2)
    # (BSGD with a budget below n: Pegasos, or BSGD with B >= n, hand over to
    # kernel SDCA on the cap under max_iter=None and end certified)
    est = KernelSVMClassifier(solver="bsgd", C=1e3, tol=1e-9, budget=30)
    with pytest.warns(ConvergenceWarning, match=rf"max_iter=None \({epochs} epochs\)"):
        est.fit(X, y)
    assert est.n_iter_ == epochs
    assert est._stats[0]["finish_epochs"] == 0
