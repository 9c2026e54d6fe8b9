"""Threads inside one kernel model: ``set_num_threads`` validates its argument,
and 1 and 2 threads give bit-identical iterates, statistics and predictions."""
import numpy as np
import pytest
import scipy.sparse as sp

from stochsvm import KernelSVM

# Longer than the core's threshold for splitting a kernel row (1024,
# src/core/common/threads.h), so SBP's rows and the predictions are split.
N = 2600


def _problem(sparse):
    rng = np.random.default_rng(3)
    X = rng.normal(size=(N, 5))
    X[rng.random(X.shape) < 0.4] = 0.0
    y = np.where(X[:, 0] + 0.5 * X[:, 1] ** 2 + 0.3 * rng.normal(size=N) > 0.3, 1.0, -1.0)
    return (sp.csr_matrix(X) if sparse else X), y


def test_set_num_threads_validates():
    X, y = _problem(False)
    svm = KernelSVM(X[:50], y[:50], 1e-2)
    assert svm.get_num_threads() == 1
    svm.set_num_threads(2)
    assert svm.get_num_threads() == 2
    with pytest.raises(ValueError, match="num_threads"):
        svm.set_num_threads(0)
    with pytest.raises(ValueError, match="num_threads"):
        svm.set_num_threads(-1)
    with pytest.raises(TypeError, match="num_threads"):
        svm.set_num_threads("2")
    with pytest.raises(ValueError, match="num_threads"):
        svm.set_num_threads(1.5)
    assert svm.get_num_threads() == 2


@pytest.mark.parametrize("solver,sparse", [("sbp", False), ("sbp", True), ("sdca", True)])
def test_threads_bitwise(solver, sparse):
    X, y = _problem(sparse)
    runs = []
    for threads in (1, 2):
        svm = KernelSVM(X, y, 1e-3, solver=solver, gamma=0.5, seed=7)
        svm.set_num_threads(threads)
        svm.set_max_num_iterations(150)
        svm.set_diagnostic_frequency(150)
        svm.train()
        stats = svm.get_statistics()
        runs.append((svm.get_dual_variables().copy(), svm.decision_function(X),
                     stats["primal_objective"], stats["num_kernel_evaluations"]))
    (a1, f1, p1, k1), (a2, f2, p2, k2) = runs
    assert np.any(a1 != 0)
    assert a1.tobytes() == a2.tobytes()
    assert f1.tobytes() == f2.tobytes()
    assert np.float64(p1).tobytes() == np.float64(p2).tobytes()
    assert k1 == k2 > 0


def test_estimator_n_jobs_threads_one_binary_model():
    """n_jobs=2 on a binary problem: the one model gets two threads, and the
    fit is the same bit for bit."""
    from stochsvm import KernelSVMClassifier

    X, y = _problem(False)
    fits = [KernelSVMClassifier(solver="sbp", C=10.0, gamma=0.5, nu=0.2, max_iter=1, tol=0,
                                n_jobs=jobs).fit(X, y) for jobs in (1, 2)]
    assert [svm.get_num_threads() for svm in fits[1]._svms] == [2]
    assert fits[0].decision_function(X).tobytes() == fits[1].decision_function(X).tobytes()
