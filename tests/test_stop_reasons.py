"""The estimators' public stop reason, ``stop_reasons_`` (docs/stopping.rst,
"What every layer reports"): one status per binary problem, in ``classes_``
order for one-vs-rest, for a converged run and a capped one, linear and
kernel."""

import warnings

import numpy as np
import pytest
from _helpers import blobs
from sklearn.exceptions import ConvergenceWarning

from stochsvm import KernelSVMClassifier, LinearSVMClassifier, LinearSVMRegressor


def _fit_quietly(est, X, y):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return est.fit(X, y)


@pytest.fixture(scope="module")
def three_classes():
    rng = np.random.default_rng(2)
    k = np.arange(300) % 3
    return rng.normal(size=(3, 4))[k] * 3 + rng.normal(size=(300, 4)), k


def test_linear_converged_and_capped():
    X, y = blobs(200, 4, seed=1, sep=1.0)
    converged = LinearSVMClassifier(solver="sdca", C=1.0, random_state=0).fit(X, y)
    assert converged.stop_reasons_.tolist() == ["converged"]
    assert converged.stop_reasons_[0] == converged._stats[0]["status"]
    with pytest.warns(ConvergenceWarning):
        capped = LinearSVMClassifier(solver="sgd", C=100.0, tol=1e-9, max_iter=1,
                                     random_state=0).fit(X, y)
    assert capped.stop_reasons_.tolist() == ["max_iterations"]


def test_linear_one_vs_rest_in_classes_order(three_classes):
    X, y = three_classes
    est = _fit_quietly(LinearSVMClassifier(solver="sdca", C=1.0, random_state=0), X, y)
    assert est.stop_reasons_.shape == (3,)
    assert est.stop_reasons_.tolist() == [s["status"] for s in est._stats]
    # a class made hard to separate by a cap of one epoch on its problem only
    # cannot be arranged per class; instead: the order follows classes_
    relabelled = _fit_quietly(LinearSVMClassifier(solver="sdca", C=1.0, random_state=0),
                              X, 2 - y)
    assert relabelled.stop_reasons_.tolist() == est.stop_reasons_[::-1].tolist()


def test_regressor_has_one_reason():
    rng = np.random.default_rng(4)
    X = rng.random((200, 3))
    reg = LinearSVMRegressor(loss="l2", solver="sdca", C=10.0).fit(X, X @ [3.0, -1.0, 0.5])
    assert reg.stop_reasons_.tolist() == ["converged"]
    with pytest.warns(ConvergenceWarning):
        capped = LinearSVMRegressor(loss="l2", solver="sgd", C=100.0, tol=1e-9,
                                    max_iter=1).fit(X, X @ [3.0, -1.0, 0.5])
    assert capped.stop_reasons_.tolist() == ["max_iterations"]


def test_kernel_converged_capped_and_validation(three_classes):
    X, y = three_classes
    converged = KernelSVMClassifier(solver="sdca", C=1.0, gamma=0.1).fit(X, y)
    assert converged.stop_reasons_.tolist() == ["converged"] * 3
    with pytest.warns(ConvergenceWarning):
        capped = KernelSVMClassifier(solver="pegasos", C=1000.0, gamma=0.1, tol=1e-9,
                                     max_iter=1).fit(X, y)
    assert capped.stop_reasons_.tolist() == ["max_iterations"] * 3
    Xb, yb = blobs(400, 4, seed=11, sep=1.0)
    watched = KernelSVMClassifier(solver="bsca", C=1.0, gamma=0.1, budget=20, tol=0,
                                  max_iter=200, early_stopping=True).fit(Xb, yb)
    assert watched.stop_reasons_.tolist() == ["validation"]
