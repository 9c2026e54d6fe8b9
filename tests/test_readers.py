"""Readers in C against writers (docs/python_api.rst, "Threads").

decision_function, predict, KernelSVM.estimate_nu and nu_from_model release
the GIL for their C call. Several threads may read one object at once; a
writer (a setter, set_data, set_model, set_num_threads, train, ...) called
while one of them runs raises RuntimeError instead of changing the object
under it. Before, set_num_threads froze the thread pool under a running
prediction (a hang), set_model and train freed support vectors a prediction
was reading (a segfault), and set_data tore estimate_nu's data.

The deterministic tests hold a reader inside the object: the reader's X is an
object whose ``__array__`` waits on an event, which the reader converts after
it has registered. The stress tests run the reported races in a subprocess
under a timeout (without the rule they hang or crash).
"""

import os
import subprocess
import sys
import textwrap
import threading

import numpy as np
import pytest

from _helpers import make_problem
from stochsvm import SVM, KernelSVM


class _HeldArray:
    """An array-like whose conversion waits until released."""

    def __init__(self, a):
        self.a = a
        self.entered = threading.Event()
        self.release = threading.Event()

    def __array__(self, dtype=None, copy=None):
        self.entered.set()
        assert self.release.wait(30)
        return self.a if dtype is None else self.a.astype(dtype)


def _held_reader(call, held):
    """Run call() in a thread; return it once the reader is inside the object."""
    out = {}

    def run():
        try:
            out["value"] = call()
        except BaseException as e:  # reported to the test
            out["error"] = e

    t = threading.Thread(target=run)
    t.start()
    assert held.entered.wait(30)
    return t, out


def _linear():
    X, y = make_problem(n=300, d=5, seed=3)
    svm = SVM(X, y, 1e-2, seed=1)
    svm.train()
    return svm, X, y


def _kernel(solver="sdca"):
    X, y = make_problem(n=200, d=5, seed=4)
    k = KernelSVM(X, y, 1e-2, solver=solver, kernel="rbf", gamma=0.2, seed=1)
    k.train()
    return k, X, y


def _linear_writers(svm, X, y):
    d = X.shape[1]
    return {
        "set_num_threads": lambda: svm.set_num_threads(2),
        "set_model": lambda: svm.set_model(np.zeros(d)),
        "set_data": lambda: svm.set_data(X, y),
        "set_lambda": lambda: svm.set_lambda(0.1),
        "set_bias": lambda: svm.set_bias(0.0),
        "set_weights": lambda: svm.set_weights(None),
        "train": svm.train,
        "calibrate_t0": svm.calibrate_t0,
    }


def _kernel_writers(k, X, y):
    sv, coef = k.get_support_vectors(), k.get_coefficients()
    return {
        "set_num_threads": lambda: k.set_num_threads(2),
        "set_model": lambda: k.set_model(sv[:3], coef[:3], 0.0),
        "set_data": lambda: k.set_data(X, y),
        "set_lambda": lambda: k.set_lambda(0.1),
        "set_weights": lambda: k.set_weights(None),
        "set_cache_size": lambda: k.set_cache_size(1e6),
        "train": k.train,
    }


@pytest.mark.parametrize("kind", ["linear", "kernel"])
def test_writers_refuse_while_a_reader_is_inside(kind):
    obj, X, y = _linear() if kind == "linear" else _kernel()
    writers = (_linear_writers if kind == "linear" else _kernel_writers)(obj, X, y)
    expected = obj.decision_function(X)
    held = _HeldArray(X)
    t, out = _held_reader(lambda: obj.decision_function(held), held)
    try:
        for name, call in writers.items():
            with pytest.raises(RuntimeError, match=rf"cannot call {name}\(\) while another "
                                                   r"thread is scoring"):
                call()
        # other readers still read, at once
        np.testing.assert_array_equal(obj.decision_function(X), expected)
        np.testing.assert_array_equal(obj.predict(X), np.where(expected >= 0, 1.0, -1.0))
    finally:
        held.release.set()
        t.join(30)
    assert "error" not in out, out.get("error")
    np.testing.assert_array_equal(out["value"], expected)
    # the reader gone, the writers run again
    for call in writers.values():
        call()


def test_kernel_estimate_nu_and_nu_from_model_are_readers():
    k, X, y = _kernel()
    nu = k.nu_from_model()
    est = k.estimate_nu()
    held = _HeldArray(X)
    t, out = _held_reader(lambda: k.decision_function(held), held)
    try:
        # readers beside a reader
        assert k.nu_from_model() == nu
        assert k.estimate_nu() == est
        with pytest.raises(RuntimeError, match=r"set_data\(\) while another thread is scoring"):
            k.set_data(X, y)
    finally:
        held.release.set()
        t.join(30)
    assert "error" not in out


def test_a_writer_checks_again_after_converting_its_argument():
    # set_model's argument conversion runs Python (here: waits); a reader
    # that enters meanwhile makes the writer raise instead of freeing the
    # support vectors under it.
    k, X, y = _kernel()
    sv, coef = k.get_support_vectors(), k.get_coefficients()
    held_sv = _HeldArray(sv[:3].copy())
    writer, wout = _held_reader(lambda: k.set_model(held_sv, coef[:3], 0.0), held_sv)
    held_x = _HeldArray(X)
    reader, rout = _held_reader(lambda: k.decision_function(held_x), held_x)
    held_sv.release.set()
    writer.join(30)
    held_x.release.set()
    reader.join(30)
    assert isinstance(wout.get("error"), RuntimeError), wout
    assert "set_model() while another thread is scoring" in str(wout["error"])
    assert k.get_num_support_vectors() == len(sv)   # the model was not changed
    np.testing.assert_array_equal(rout["value"], k.decision_function(X))


def test_the_diagnostic_function_may_score_during_train():
    # the training thread's own reads: no deadlock, no refusal
    k, X, y = _kernel("pegasos")
    k.set_max_num_iterations(2000)
    k.set_diagnostic_frequency(500)
    seen = []

    def watch(stats):
        seen.append(k.decision_function(X[:10]).shape)
        with pytest.raises(RuntimeError, match="while train"):
            k.set_lambda(0.5)
        return False

    k.set_diagnostic_function(watch)
    k.train()
    assert seen and all(s == (10,) for s in seen)


_STRESS = {
    # defect 1: the thread pool joined under a running prediction (hang)
    "linear_set_num_threads": """
        X, y = make_problem(n=2000, d=20, seed=0)
        svm = SVM(X, y, 1e-3); svm.train(); svm.set_num_threads(2)
        Xt = np.random.default_rng(0).standard_normal((100_000, 20))
        ref = svm.decision_function(Xt)
        def write(i):
            svm.set_num_threads(1 + i % 3)
        read = lambda: svm.decision_function(Xt)
        ok = lambda r: np.array_equal(r, ref)
    """,
    # defect 2: support vectors freed under a running prediction (segfault)
    "kernel_set_model": """
        rng = np.random.default_rng(0)
        X = rng.standard_normal((600, 100)); y = np.where(X[:, 0] > 0, 1.0, -1.0)
        k = KernelSVM(X, y, 1e-3, solver="pegasos", kernel="rbf", gamma=0.005); k.train()
        sv, coef, b = k.get_support_vectors(), k.get_coefficients(), k.get_bias()
        Xt = rng.standard_normal((2000, 100))
        ref = k.decision_function(Xt)
        k.set_model(sv[:5].copy(), coef[:5].copy(), b)
        ref_small = k.decision_function(Xt)
        def write(i):
            if i % 2:
                k.set_model(sv[:5].copy(), coef[:5].copy(), b)
            else:
                k.set_model(sv.copy(), coef.copy(), b)
        read = lambda: k.decision_function(Xt)
        ok = lambda r: np.array_equal(r, ref) or np.array_equal(r, ref_small)
    """,
    # defect 3: set_data under estimate_nu (a wrong error, torn data)
    "kernel_estimate_nu_set_data": """
        rng = np.random.default_rng(0)
        X = rng.standard_normal((1500, 5)); y = np.where(X[:, 0] > 0, 1.0, -1.0)
        k = KernelSVM(X, y, 1e-3, solver="sbp", kernel="rbf", gamma=0.1)
        ref = k.estimate_nu()
        k.set_data(X[:700].copy(), y[:700].copy())
        ref_small = k.estimate_nu()
        def write(i):
            m = 1500 if i % 2 else 700
            k.set_data(X[:m].copy(), y[:m].copy())
        read = lambda: k.estimate_nu()
        ok = lambda r: r in (ref, ref_small)
    """,
}

_STRESS_MAIN = """
    import threading, time
    refused = [0]
    done = threading.Event()
    def writer():
        i = 0
        while not done.is_set():
            try:
                write(i)
            except RuntimeError as e:
                assert "while another thread is scoring" in str(e), e
                refused[0] += 1
            i += 1
    t = threading.Thread(target=writer, daemon=True)
    t.start()
    results = []
    try:
        for _ in range(READS):
            results.append(read())
    finally:
        done.set()
    t.join()
    assert all(ok(r) for r in results)
    print("OK", refused[0], len(results))
"""


@pytest.mark.parametrize("case", sorted(_STRESS))
def test_reported_races_neither_hang_nor_crash(case):
    reads = {"linear_set_num_threads": 30, "kernel_set_model": 30,
             "kernel_estimate_nu_set_data": 8}[case]
    src = ("import numpy as np, sys\nsys.path.insert(0, %r)\n"
           "from _helpers import make_problem\nfrom stochsvm import SVM, KernelSVM\n"
           % os.path.dirname(__file__)
           + textwrap.dedent(_STRESS[case]) + f"READS = {reads}\n" + textwrap.dedent(_STRESS_MAIN))
    try:
        proc = subprocess.run([sys.executable, "-c", src], capture_output=True, text=True,
                              timeout=120)
    except subprocess.TimeoutExpired:
        pytest.fail(f"{case}: hung (no answer in 120 s)")
    assert proc.returncode == 0, (case, proc.returncode, proc.stderr[-2000:])
    assert proc.stdout.startswith("OK"), proc.stdout
