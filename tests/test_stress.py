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
    serial = [_fit(job) for job in jobs]
    # the jobs really differ
    assert len({s[3] for s in serial}) == len(jobs)
    with ThreadPoolExecutor(max_workers=THREADS) as pool:
        for _ in range(ROUNDS):
            order = np.random.default_rng().permutation(len(jobs))
            futures = {int(k): pool.submit(_fit, jobs[k]) for k in order}
            for k, future in futures.items():
                got, want = future.result(), serial[k]
                np.testing.assert_array_equal(got[0], want[0], err_msg=str(jobs[k][:3]))
                assert got[1:4] == want[1:4], jobs[k][:3]
                np.testing.assert_array_equal(got[4], want[4])


@pytest.mark.skipif(not hasattr(signal, "SIGINT") or os.name != "posix", reason="POSIX signals")
@pytest.mark.parametrize("solver", TRAINING_SOLVERS)
def test_sigint_stops_a_long_fit_and_keeps_the_object(solver):
    X, y = make_problem(n=2000, d=20, seed=32)
    cap = 10 ** 10   # hours of training if the signal were ignored
    svm = SVM(X, y, 1e-6, solver=solver)
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
    print(f"{solver}: train() returned {1000 * (returned - sent[0]):.1f} ms after SIGINT")
    t = svm.get_iteration_number()
    assert 0 < t < cap
    stats = svm.get_statistics()
    assert stats["status"] == "interrupted" and stats["iteration"] == t
    assert np.isfinite(stats["objective"]) and np.all(np.isfinite(svm.get_model()))
    # usable: training continues from where it stopped
    svm.set_max_num_iterations(1000)
    assert svm.train()["iteration"] == t + 1000


@pytest.mark.skipif(os.name != "posix", reason="POSIX signals")
def test_cli_train_exits_130_on_sigint(tmp_path):
    X, y = make_problem(n=3000, d=10, seed=33)
    path = tmp_path / "train.svm"
    with open(path, "w") as f:
        for row, label in zip(X, y):
            f.write(f"{label:g} " + " ".join(f"{j + 1}:{v:.4g}" for j, v in enumerate(row)) + "\n")
    proc = subprocess.Popen([sys.executable, "-m", "stochsvm", "train", str(path), "--lambda",
                             "1e-6", "--epochs", "100000000"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        line = proc.stdout.readline()           # wait for the first epoch line: training runs
        while line and not line.startswith("epoch"):
            line = proc.stdout.readline()
        assert line.startswith("epoch"), line
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 130
    assert "stochsvm: interrupted" in err
