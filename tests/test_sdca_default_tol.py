"""Linear SDCA's default tolerance, one per loss (docs/stopping.rst, "SDCA
against LIBLINEAR's defaults"): 5e-4 with the hinge and l1 losses, 1e-8 with
the squared hinge, logistic and l2 losses.

The bar of issue 17: at its defaults SDCA ends at or below the objective of
LIBLINEAR's default run (``-s 3`` hinge, ``-s 7`` logistic, eps 0.1, ``-B 1``,
C = 1, i.e. lambda = 1/n). LIBLINEAR is not seeded, so its default result moves
from run to run (relatively by 2e-5 to 2e-3 here); "its objective" is the
highest of five runs, the top of its own spread. The former default (the
object's epsilon 1e-2, the estimators' tol 1e-3) stopped 3e-4 to 4e-3 above
it on the standardized breast_cancer set.
"""

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.datasets import load_breast_cancer
from sklearn.preprocessing import StandardScaler

from stochsvm import SVM, LinearSVMClassifier, LinearSVMRegressor, _solvers
from liblinear_reference import liblinear, objective

LIBLINEAR_SOLVER = {"hinge": 3, "logistic": 7}
DEFAULT_TOL = {"hinge": 5e-4, "l1": 5e-4, "hinge2": 1e-8, "logistic": 1e-8, "l2": 1e-8}


@pytest.fixture(scope="module")
def breast_cancer():
    X, y = load_breast_cancer(return_X_y=True)
    return sp.csr_matrix(StandardScaler().fit_transform(X)), np.where(y == 1, 1.0, -1.0)


def liblinear_default_objective(X, y, loss, runs=5):
    """The highest objective of `runs` LIBLINEAR default runs (C = 1)."""
    lam = 1.0 / X.shape[0]
    return max(objective(X, y, *liblinear(X, y, LIBLINEAR_SOLVER[loss], lam, 0.1), lam, loss)
               for _ in range(runs))


@pytest.mark.parametrize("loss", ["hinge", "logistic"])
def test_sdca_at_its_defaults_reaches_liblinears_default_objective(breast_cancer, loss):
    X, y = breast_cancer
    n = X.shape[0]
    P_liblinear = liblinear_default_objective(X, y, loss)
    svm = SVM(X, y, 1.0 / n, solver="sdca", loss=loss)
    stats = svm.train()
    assert stats["status"] == "converged"
    P = objective(X, y, svm.get_model(), svm.get_bias(), 1.0 / n, loss)
    assert P <= P_liblinear, (P - P_liblinear) / P_liblinear
    # The estimator at its defaults (C = 1 is lambda = 1/n) is the same run.
    clf = LinearSVMClassifier(loss=loss).fit(X, (y > 0).astype(int))
    P_est = objective(X, y, clf.coef_.ravel(), float(clf.intercept_[0]), 1.0 / n, loss)
    assert P_est <= P_liblinear, (P_est - P_liblinear) / P_liblinear


@pytest.mark.parametrize("loss", sorted(DEFAULT_TOL))
def test_the_default_tolerance_follows_the_loss_until_set(loss):
    X = np.random.default_rng(0).standard_normal((30, 3))
    y = np.where(X[:, 0] > 0, 1.0, -1.0)
    svm = SVM(X, y, 0.1, solver="sdca", loss=loss)
    assert svm.get_epsilon() == DEFAULT_TOL[loss]
    # The registry (estimators, command line) names the object's default.
    assert _solvers.get("linear", "sdca").default_tol_for(loss) == DEFAULT_TOL[loss]
    other = "logistic" if DEFAULT_TOL[loss] == 5e-4 else "hinge"
    if loss in ("l1", "l2"):
        other = "l2" if loss == "l1" else "l1"
    svm.set_loss(other)
    assert svm.get_epsilon() == DEFAULT_TOL[other]
    svm.set_epsilon(1e-3)
    svm.set_loss(loss)
    assert svm.get_epsilon() == 1e-3  # a tolerance set stays
    # The other solvers keep 1e-2 (object) and 1e-3 (estimators).
    assert SVM(X, y, 0.1, solver="sgd", loss=loss).get_epsilon() == 1e-2
    assert _solvers.get("linear", "sgd").default_tol_for(loss) == 1e-3


def test_estimators_tol_none_is_the_solvers_default():
    clf = LinearSVMClassifier(loss="logistic")
    assert clf.get_params()["tol"] is None
    assert clf._tol() == 1e-8
    assert LinearSVMClassifier()._tol() == 5e-4
    assert LinearSVMClassifier(solver="sgd")._tol() == 1e-3
    assert LinearSVMClassifier(tol=1e-2, loss="logistic")._tol() == 1e-2
    assert LinearSVMRegressor()._tol() == 1e-8   # l2
    assert LinearSVMRegressor(loss="l1")._tol() == 5e-4


@pytest.mark.parametrize("case", ["tol 1e-4", "a diagnostic every epoch"])
def test_the_stall_rule_waits_while_the_hinge_gap_falls(case):
    """w8a, lambda = 1/n, the hinge: SDCA's gap falls like a power of the
    epochs and plain epochs reach tol 1e-4 at about 970 (0.75 s). The stall
    rule handed the run to the Newton finish at epoch 195 (16 s), and with a
    gap read every epoch (then what a diagnostic function did) it handed the
    default run over at epochs 4-9 on the early gap's noise (newton.c,
    ss_sdca_stalled: the power law is now judged from 16 epochs on, against
    twice the cap)."""
    from liblinear_reference import benchmark

    X, y = benchmark("w8a")
    svm = SVM(X, y, 1.0 / X.shape[0], solver="sdca", loss="hinge")
    if case == "tol 1e-4":
        svm.set_epsilon(1e-4)
    else:
        svm.set_diagnostic_frequency(X.shape[0])
    stats = svm.train()
    assert stats["status"] == "converged", stats
    assert stats["num_newton_iterations"] == 0, stats
    assert stats["duality_gap"] <= svm.get_epsilon() * stats["dual_objective"] * (1 + 1e-12), stats
