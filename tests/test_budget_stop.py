"""The run driver's budget rule (docs/stopping.rst, "The budgeted solvers"):
BSCA with a budget far too small for its problem stops "budget_limited"
before its cap, at every layer (object statistics, estimator warning naming
the budget, command-line notice); with a budget of n or more it never does."""

import numpy as np
import pytest
from _helpers import blobs as _blobs
from _helpers import write_libsvm as _write_libsvm
from sklearn.exceptions import ConvergenceWarning

from stochsvm import KernelSVM, KernelSVMClassifier
from stochsvm.cli import main

N, C, GAMMA = 300, 1.0, 0.1


@pytest.fixture(scope="module")
def data():
    """Overlapping classes: most examples are support vectors at the optimum.
    With B = 10 its gap (P - D) / D levels off near 0.18 from the second epoch
    on (0.182 after 200 epochs)."""
    return _blobs(N, 4, seed=11, sep=1.0)


def _object(X, y, budget, epsilon=1e-3, epochs=200):
    svm = KernelSVM(X, y, 1.0 / (C * len(y)), solver="bsca", gamma=GAMMA)
    svm.set_budget(budget)
    svm.set_seed(0)
    svm.set_epsilon(epsilon)
    svm.set_max_num_iterations(epochs * len(y))
    return svm


def test_object_reports_budget_limited(data):
    X, y = data
    stats = _object(X, y, 10).train()
    assert stats["status"] == "budget_limited"
    assert stats["iteration"] < 200 * N
    assert stats["duality_gap"] > 1e-3 * stats["primal_objective"]


def test_object_not_budget_limited_without_a_tolerance(data):
    X, y = data
    stats = _object(X, y, 10, epsilon=0.0, epochs=30).train()
    assert stats["status"] == "max_iterations"
    assert stats["iteration"] == 30 * N


def test_object_not_budget_limited_when_budget_holds_every_point(data):
    X, y = data
    svm = _object(X, y, N, epsilon=1e-2)
    stats = svm.train()
    assert stats["status"] in ("converged", "max_iterations")
    assert svm.get_budget_statistics()["num_maintenance"] == 0


def test_estimator_warning_names_the_budget(data):
    X, y = data
    est = KernelSVMClassifier(solver="bsca", C=C, gamma=GAMMA, budget=10, random_state=0)
    with pytest.warns(ConvergenceWarning, match=r"budget=10 support vectors was full; raise budget"):
        est.fit(X, y)
    assert est._stats[0]["status"] == "budget_limited"
    assert est.n_iter_ < est._max_iter(X.shape[0])


def test_estimator_silent_when_budget_holds_every_point(data, recwarn):
    X, y = data
    est = KernelSVMClassifier(solver="bsca", C=C, gamma=GAMMA, budget=N, tol=1e-2,
                              random_state=0).fit(X, y)
    assert est._stats[0]["status"] == "converged"
    assert not [w for w in recwarn if "budget" in str(w.message)]


def test_cli_notice(data, tmp_path, capsys):
    X, y = data
    train = _write_libsvm(tmp_path / "train.svm", X, np.where(y > 0, 1, -1))
    assert main(["train", str(train), str(tmp_path / "m.ssvm"), "--kernel", "rbf", "--gamma",
                 str(GAMMA), "--solver", "bsca", "--budget", "10", "-C", str(C), "--epochs",
                 "200", "--tol", "1e-3", "-q"]) == 0
    out, err = capsys.readouterr()
    assert "budget limited after" in out
    assert "notice: stopped where the budget bounds the accuracy (--budget 10)" in err
    assert "raise --budget" in err
