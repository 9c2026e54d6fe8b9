"""Thread stress and interruption across every solver.

- Eight threads train separate objects of mixed solvers, losses and data
  layouts at once, several rounds: every result equals the serial run's, bit
  for bit (tests/test_threads.py covers one solver and the per-object lock).
- A real SIGINT (os.kill) during a long fit of every solver raises
  KeyboardInterrupt promptly, leaves the object usable, and training
  continues from where it stopped.
- `stochsvm train` exits with status 130 and a message on SIGINT.

Extending to a new solver: add it to LINEAR_SOLVERS in tests/_helpers.py
(and to LONG_FIT if it needs other settings to run long). Latencies are printed, not asserted (the
machine may be shared and slow).
"""

import os
import signal

import numpy as np
import pytest
import scipy.sparse as sp

from _helpers import assert_threads_equal_serial, cli_train_interrupted, interrupt_long_fit, make_problem
from _helpers import LINEAR_SOLVERS as SOLVERS
from stochsvm import SVM, HomogeneousKernelMap

TRAINING_SOLVERS = ["sgd", "sdca", "svmsgd2", "sgdqn", "res", "lres"]   # "none" evaluates once
LOSSES = ["hinge", "hinge2", "logistic", "l2"]
NEEDS_DIFFERENTIABLE_LOSS = ("res", "lres")


def _jobs():
    X, y = make_problem(n=600, d=12, seed=31)
    Xs = sp.csr_matrix(np.where(np.abs(X) < 0.5, 0.0, X).astype(np.float32))
    hkm = HomogeneousKernelMap("chi2", order=1)
    layouts = {"dense": (X, None), "csr32": (Xs, None), "homkermap": (np.abs(X), hkm)}
    jobs = []
    for solver in SOLVERS:
        for loss in LOSSES:
            if solver in NEEDS_DIFFERENTIABLE_LOSS and loss == "hinge":
                continue
            for name, (data, m) in layouts.items():
                jobs.append((solver, loss, name, data, y, m, len(jobs)))
    return jobs


def _fit(job):
    solver, loss, _, X, y, hkm, seed = job
    svm = SVM(X, y, 1e-2, solver=solver, seed=seed, loss=loss, homkermap=hkm)
    if solver == "none":
        svm.set_model(np.linspace(-1, 1, svm.get_dimension()))
    svm.set_epsilon(0)
    svm.set_max_num_iterations(3000)
    svm.set_diagnostic_frequency(700)
    stats = svm.train()
    return svm.get_model(), svm.get_bias(), svm.get_iteration_number(), stats["objective"], \
        svm.get_scores()


def test_threads_of_mixed_solvers_equal_serial():
    jobs = _jobs()
    serial = assert_threads_equal_serial(jobs, _fit, lambda job: str(job[:3]))
    # the jobs really differ
    assert len({s[3] for s in serial}) == len(jobs)


@pytest.mark.skipif(not hasattr(signal, "SIGINT") or os.name != "posix", reason="POSIX signals")
@pytest.mark.parametrize("solver", TRAINING_SOLVERS)
def test_sigint_stops_a_long_fit_and_keeps_the_object(solver):
    X, y = make_problem(n=2000, d=20, seed=32)
    svm = SVM(X, y, 1e-6, solver=solver)
    stats = interrupt_long_fit(svm, solver)
    t = stats["iteration"]
    assert np.isfinite(stats["objective"]) and np.all(np.isfinite(svm.get_model()))
    # usable: training continues from where it stopped
    svm.set_max_num_iterations(1000)
    assert svm.train()["iteration"] == t + 1000


@pytest.mark.skipif(os.name != "posix", reason="POSIX signals")
def test_cli_train_exits_130_on_sigint(tmp_path):
    X, y = make_problem(n=3000, d=10, seed=33)
    returncode, err = cli_train_interrupted(tmp_path, X, y, ["--lambda", "1e-6"])
    assert returncode == 130
    assert "stochsvm: interrupted" in err
