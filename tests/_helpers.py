"""Helpers shared by several test modules: data, reference objectives and
checks that more than one module needs.

Test modules import these from here (``from _helpers import make_problem``),
never from ``conftest`` or from one another: conftest holds fixtures only,
and test_imports.py fails if a module imports conftest or another test
module. The solver lists come from the registry (``stochsvm._solvers``) so
that the property, soak and stress tests of one kind share one list, checked
against the library in test_properties.py and test_properties_kernel.py.
"""

import importlib.util
import os
import signal
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

from stochsvm import _solvers

#: Every linear solver of stochsvm.SVM: the registry's, and "none" (no training).
LINEAR_SOLVERS = [*_solvers.LINEAR, "none"]
#: Every kernel solver of stochsvm.KernelSVM: the registry's, and "none".
KERNEL_SOLVERS = [*_solvers.KERNEL, "none"]


# ---------------------------------------------------------------------------
#                            Problems and references
# ---------------------------------------------------------------------------

def make_problem(n=1000, d=20, seed=0, separation=1.0, sparsity=0.0):
    """A seeded Gaussian two-class problem.

    Returns ``(X, y)`` with X float64 of shape (n, d) in C order and y in
    {-1, +1}: the classes are N(+-separation * mu, I) with a fixed random
    unit direction mu. ``sparsity`` is the fraction of entries set to zero.
    """
    rng = np.random.default_rng(seed)
    y = np.where(rng.random(n) < 0.5, -1.0, 1.0)
    mu = rng.normal(size=d)
    mu /= np.linalg.norm(mu)
    X = rng.normal(size=(n, d)) + separation * y[:, None] * mu[None, :]
    if sparsity > 0:
        X[rng.random((n, d)) < sparsity] = 0.0
    return np.ascontiguousarray(X), y


def blobs(n=120, d=4, seed=0, sep=0.8):
    """n points in d dimensions, classes alternating, shifted by +-sep along
    the first axis."""
    rng = np.random.default_rng(seed)
    y = np.where(np.arange(n) % 2 == 0, 1.0, -1.0)
    X = rng.normal(size=(n, d))
    X[:, 0] += sep * y
    return X, y


def unsorted_csr(X):
    """X as a CSR matrix whose rows hold their entries in reverse column
    order (valid CSR, not canonical: has_sorted_indices is False)."""
    import scipy.sparse as sp

    M = sp.csr_matrix(X)
    for i in range(M.shape[0]):
        a, b = M.indptr[i], M.indptr[i + 1]
        M.indices[a:b] = M.indices[a:b][::-1].copy()
        M.data[a:b] = M.data[a:b][::-1].copy()
    M.has_sorted_indices = False
    return M


def rbf(X, Z, gamma):
    """The RBF kernel matrix exp(-gamma |x - z|^2) of the rows of X and Z."""
    d2 = (X ** 2).sum(1)[:, None] + (Z ** 2).sum(1)[None, :] - 2 * X @ Z.T
    return np.exp(-gamma * np.maximum(d2, 0))



def weighted_box_qp(X, y, gamma, C, c):
    """The weighted RBF SVM dual without bias, max 1'a - 1/2 a'Qa subject to
    0 <= a_i <= c_i C, solved by L-BFGS-B (the oracle): (optimum, a)."""
    from scipy.optimize import minimize

    Q = (y[:, None] * y[None, :]) * rbf(X, X, gamma)

    def f(a):
        Qa = Q @ a
        return 0.5 * a @ Qa - a.sum(), Qa - 1.0

    res = minimize(f, np.zeros(len(y)), jac=True, method="L-BFGS-B",
                   bounds=[(0.0, ci * C) for ci in c],
                   options={"maxiter": 100000, "maxfun": 100000, "ftol": 1e-16, "gtol": 1e-12})
    return -res.fun, res.x


def write_libsvm(path, X, y):
    """Write dense rows and labels to ``path`` in the LIBSVM format (1-based
    indices, 6 significant digits, zeros omitted); returns ``str(path)``."""
    with open(path, "w") as f:
        for row, label in zip(X, y):
            feats = " ".join(f"{j + 1}:{v:.6g}" for j, v in enumerate(row) if v != 0)
            f.write(f"{label:g} {feats}\n")
    return str(path)

def objective(X, y, w, b, lam, B=1.0, loss="hinge", weights=None):
    """The primal objective E(w, b) of include/stochsvm/svm.h, in NumPy:
    lam/2 (||w||^2 + (b/B)^2) (no b term when B = 0, b is then a fixed
    offset) + the mean of c_i loss(y_i, <w, x_i> + b) for the losses
    "hinge", "hinge2", "logistic", "l1" (|y - s|) and "l2" ((y - s)^2)."""
    s = np.asarray(X @ w).ravel() + b
    z = y * s
    if loss == "hinge":
        values = np.maximum(0.0, 1.0 - z)
    elif loss == "hinge2":
        values = np.maximum(0.0, 1.0 - z) ** 2
    elif loss == "logistic":
        values = np.logaddexp(0.0, -z)
    elif loss == "l1":
        values = np.abs(y - s)
    elif loss == "l2":
        values = (y - s) ** 2
    else:
        raise ValueError(loss)
    if weights is not None:
        values = weights * values
    reg = np.dot(w, w) + ((b / B) ** 2 if B > 0 else 0.0)
    return 0.5 * lam * reg + float(values.mean())


def assert_stats_equal(a, b):
    """Two statistics dicts are identical (NaN equal to NaN)."""
    assert set(a) == set(b)
    for key in a:
        if isinstance(a[key], float) and np.isnan(a[key]):
            assert isinstance(b[key], float) and np.isnan(b[key]), key
        else:
            assert a[key] == b[key], key


# ---------------------------------------------------------------------------
#                     Soak: resident memory of the process
# ---------------------------------------------------------------------------

CYCLES = 1000     # create/train/delete cycles per solver
WARM_UP = 100     # cycles before the first measurement


def rss_bytes():
    """The resident set size of this process (Linux: /proc/self/statm)."""
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


# ---------------------------------------------------------------------------
#                      Stress: threads and interruption
# ---------------------------------------------------------------------------

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
    # A runner started in the background (nohup, `cmd &`) hands the tests
    # SIGINT ignored: Python then has no KeyboardInterrupt handler and the
    # signal would be lost (a fit of hours). Install it for this test.
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            svm.train()
        returned = time.perf_counter()
    finally:
        timer.cancel()
        signal.signal(signal.SIGINT, previous)
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
    # (SIGINT at its default in the child, even under a runner that ignores
    # it: Python installs its KeyboardInterrupt handler only then)
    proc = subprocess.Popen([sys.executable, "-m", "stochsvm", "train", str(path), *options,
                             "--epochs", "100000000"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
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


def load_bench(name):
    """bench/<name>.py (bench/ is not a package), loaded afresh as the module
    ``bench_<name>``, for the tests that check a benchmark's rules."""
    bench_dir = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                                              "bench"))
    if bench_dir not in sys.path:  # the scripts import their sibling bench/_output.py
        sys.path.append(bench_dir)
    path = os.path.join(bench_dir, f"{name}.py")
    spec = importlib.util.spec_from_file_location(f"bench_{name}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


#: LIBLINEAR's solvers: the primal Newton solvers of the smooth losses (-s 2,
#: -s 0), dual coordinate descent for the hinge (-s 3, run without its
#: iteration cap: liblinear_reference's docstring).
_LIBLINEAR_SOLVER = {"hinge2": 2, "logistic": 0, "hinge": 3}


_OPTIMA = {}


def liblinear_optimum(X, y, C, loss):
    """P* of LIBLINEAR (-s 2 / -s 0 / -s 3 for hinge2 / logistic / hinge) at
    eps 1e-9, bias feature 1 (-B 1), cached by the problem."""
    key = (C, loss, X.shape, float(np.sum(X)), float(np.sum(y)))
    if key not in _OPTIMA:
        _OPTIMA[key] = liblinear_optimum_uncached(X, y, C, loss)
    return _OPTIMA[key]


def liblinear_optimum_uncached(X, y, C, loss):
    """The objective of LIBLINEAR's model on (X, y), not cached."""
    import scipy.sparse as sp

    from liblinear_reference import liblinear

    lam = 1.0 / (C * X.shape[0])
    w, b = liblinear(sp.csr_matrix(X), y, _LIBLINEAR_SOLVER[loss], lam, 1e-9)
    return objective(X, y, w, b, lam, loss=loss)
