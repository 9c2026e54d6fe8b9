"""Thread stress and interruption across every solver.

- Eight threads train separate objects of mixed solvers, losses and data
  layouts at once, several rounds: every result equals the serial run's, bit
  for bit (tests/test_threads.py covers one solver and the per-object lock).
- A real SIGINT (os.kill) during a long fit of every solver raises
  KeyboardInterrupt promptly, leaves the object usable, and training
  continues from where it stopped.
- `stochsvm train` exits with status 130 and a message on SIGINT.

Extending to a new solver: add it to SOLVERS (and to LONG_FIT if it needs
other settings to run long). Latencies are printed, not asserted (the
machine may be shared and slow).
"""

import os
import signal
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest
import scipy.sparse as sp

from conftest import make_problem
from stochsvm import SVM, HomogeneousKernelMap

SOLVERS = ["sgd", "sdca", "none", "svmsgd2", "sgdqn", "res", "lres"]
TRAINING_SOLVERS = ["sgd", "sdca", "svmsgd2", "sgdqn", "res", "lres"]   # "none" evaluates once
LOSSES = ["hinge", "hinge2", "logistic", "l2"]
NEEDS_DIFFERENTIABLE_LOSS = ("res", "lres")
THREADS = 8
ROUNDS = int(os.environ.get("STOCHSVM_STRESS_ROUNDS", "3"))   # more for a long one-off run


def interrupt_long_fit(svm, name):
    """Start a fit of ``svm`` capped at 10^10 iterations (hours or days) and
    send a real SIGINT (os.kill) to this process 0.3 s in: train() must raise
    KeyboardInterrupt, and the statistics say where it stopped. Prints the
    latency from the signal to the return (not asserted: the machine may be
    slow). Returns the statistics."""
    cap = 10 ** 10
    svm.set_epsilon(0)
    svm.set_max_num_iterations(cap)
    sent = []

    def send():
        sent.append(time.perf_counter())
        os.kill(os.getpid(), signal.SIGINT)

    timer = threading.Timer(0.3, send)
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            svm.train()
        returned = time.perf_counter()
    finally:
        timer.cancel()
    print(f"{name}: train() returned {1000 * (returned - sent[0]):.1f} ms after SIGINT")
    t = svm.get_iteration_number()
    assert 0 < t < cap
    stats = svm.get_statistics()
    assert stats["status"] == "interrupted" and stats["iteration"] == t
    return stats


def cli_train_interrupted(tmp_path, X, y, options):
    """Run ``stochsvm train`` on (X, y) written as a LIBSVM file with
    ``options`` and 10^8 epochs, send SIGINT once the first epoch line is out;
    the exit status and the standard error."""
    path = tmp_path / "train.svm"
    with open(path, "w") as f:
        for row, label in zip(X, y):
            f.write(f"{label:g} " + " ".join(f"{j + 1}:{v:.4g}" for j, v in enumerate(row)) + "\n")
    proc = subprocess.Popen([sys.executable, "-m", "stochsvm", "train", str(path), *options,
                             "--epochs", "100000000"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        line = proc.stdout.readline()           # wait for the first epoch line: training runs
        while line and not line.startswith("epoch"):
            line = proc.stdout.readline()
        assert line.startswith("epoch"), line + proc.stderr.read()
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    return proc.returncode, err


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


def assert_threads_equal_serial(jobs, fit, label):
    """Run ``fit(job)`` for every job serially, then ROUNDS times on THREADS
    threads in a random order: each result (a tuple of arrays and numbers)
    must equal the serial one, bit for bit. Returns the serial results."""
    serial = [fit(job) for job in jobs]
    with ThreadPoolExecutor(max_workers=THREADS) as pool:
        for _ in range(ROUNDS):
            order = np.random.default_rng().permutation(len(jobs))
            futures = {int(k): pool.submit(fit, jobs[k]) for k in order}
            for k, future in futures.items():
                for got, want in zip(future.result(), serial[k], strict=True):
                    np.testing.assert_array_equal(got, want, err_msg=label(jobs[k]))
    return serial


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
