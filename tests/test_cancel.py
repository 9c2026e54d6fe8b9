"""Ctrl+C and errors stop every training of a fit run on threads (stochsvm._cancel).

One-vs-rest with ``n_jobs`` trains its models on worker threads; Ctrl+C
reaches the main thread only. The trainings on the workers used to go on to
their end (minutes or hours) before the KeyboardInterrupt was raised, and a
model's error waited for all the others too.

The trainings here have no end of their own (epsilon 0, a cap of 10**9
iterations); each scenario runs in a subprocess that must end well within
the deadline, which it cannot without the cancellation.
"""
import os
import signal
import subprocess
import sys
import textwrap
import threading
import time

import numpy as np
import pytest

from stochsvm import SVM
from stochsvm._cancel import Cancelled, map_cancellable
from stochsvm.linear import map_in_threads

DEADLINE = 120.0  # seconds; the runs stop within a poll, well under a second

ENDLESS = textwrap.dedent("""
    import sys, time
    import numpy as np
    from stochsvm import KernelSVM, SVM
    from stochsvm.linear import map_in_threads

    rng = np.random.default_rng(0)
    X = rng.normal(size=(1500, 8))
    y = np.where(X[:, 0] + 0.3 * rng.normal(size=1500) > 0, 1.0, -1.0)

    def endless(kind):
        svm = (KernelSVM(X, y, 1e-4, solver="sbp", gamma=0.2, seed=0) if kind == "kernel"
               else SVM(X, y, 1e-4, solver="sgd"))
        svm.set_epsilon(0)
        svm.set_max_num_iterations(10 ** 9)
        return svm

    svms = [endless(sys.argv[1]) for _ in range(3)]
    print("ready", flush=True)
    try:
        map_in_threads(lambda svm: svm.train(), svms, 2)
    except KeyboardInterrupt:
        statuses = {svm.get_statistics()["status"] for svm in svms}
        print("interrupted", sorted(statuses), flush=True)
""")


@pytest.mark.skipif(not hasattr(signal, "SIGINT") or os.name != "posix", reason="POSIX signals")
@pytest.mark.parametrize("kind", ["kernel", "linear"])
def test_ctrl_c_stops_every_model_training_on_threads(kind):
    # (SIGINT at its default in the child, even under a runner that ignores it:
    # a child started with SIGINT ignored keeps ignoring it, and ran to its end)
    child = subprocess.Popen([sys.executable, "-c", ENDLESS, kind], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True,
                             preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        assert child.stdout.readline().strip() == "ready"
        time.sleep(1.0)  # the three trainings are under way (two at a time)
        child.send_signal(signal.SIGINT)
        out, err = child.communicate(timeout=DEADLINE)
    finally:
        if child.poll() is None:
            child.kill()
            child.communicate()
    assert child.returncode == 0, err
    # the two running models stopped at a poll; the third never began
    # (a new object's statistics read "max_iterations" before any run)
    assert out.startswith("interrupted"), (out, err)
    assert "'interrupted'" in out, out


ERROR = textwrap.dedent("""
    import time
    import numpy as np
    from stochsvm import KernelSVM
    from stochsvm._cancel import map_cancellable

    rng = np.random.default_rng(0)
    X = rng.normal(size=(1500, 8))
    y = np.where(X[:, 0] > 0, 1.0, -1.0)
    svm = KernelSVM(X, y, 1e-4, solver="sbp", gamma=0.2, seed=0)
    svm.set_epsilon(0)
    svm.set_max_num_iterations(10 ** 9)

    def job(item):
        if item is None:
            time.sleep(0.5)  # the endless one is under way
            raise ValueError("this job failed")
        return item.train()

    try:
        map_cancellable(job, [svm, None], workers=2)
    except ValueError as exc:
        print("raised", exc, svm.get_statistics()["status"], flush=True)
""")


def test_an_error_stops_the_other_jobs():
    done = subprocess.run([sys.executable, "-c", ERROR], capture_output=True, text=True,
                          timeout=DEADLINE)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "raised this job failed interrupted", (done.stdout, done.stderr)


def test_results_keep_the_items_order_and_no_event_outlives_a_call():
    from stochsvm import _cancel

    out = map_cancellable(lambda k: (k, _cancel.current() is not None), range(7), workers=3)
    assert out == [(k, True) for k in range(7)]
    assert _cancel.current() is None  # the caller's thread has none
    rng = np.random.default_rng(1)
    X = rng.normal(size=(300, 4))
    y = np.where(X[:, 0] > 0, 1.0, -1.0)
    serial = [SVM(X, y, 1e-2, solver="sdca") for _ in range(3)]
    threaded = [SVM(X, y, 1e-2, solver="sdca") for _ in range(3)]
    for svm in serial:
        svm.train()
    map_in_threads(lambda svm: svm.train(), threaded, 3)
    for a, b in zip(serial, threaded):
        np.testing.assert_array_equal(a.get_model(), b.get_model())
    assert issubclass(Cancelled, Exception)


def _interrupt_the_pool_filling(monkeypatch, when_running):
    """Ctrl+C as it lands inside ``submit``: ``Thread.start`` of the pool's
    first worker raises KeyboardInterrupt once the thread runs (its wait for
    the new thread) and ``when_running()`` says its job trains; the job was
    queued, its future not returned, the thread not yet recorded by the pool."""
    start = threading.Thread.start

    def start_then_interrupt(thread):
        start(thread)
        if thread.name.startswith("ThreadPoolExecutor"):
            deadline = time.monotonic() + 10
            while not when_running() and time.monotonic() < deadline:
                time.sleep(0.001)
            raise KeyboardInterrupt

    monkeypatch.setattr(threading.Thread, "start", start_then_interrupt)


def test_ctrl_c_while_the_pool_fills_waits_for_the_job_it_started(monkeypatch):
    # The call used to wait only on the futures it held: none, when the
    # interrupt came out of the first submit; it returned while that job ran.
    from stochsvm import _cancel

    begun, ended = threading.Event(), []

    def job(k):
        if k == 0:
            begun.set()
            _cancel.current().wait(30)  # a training polls the event
            time.sleep(0.2)  # and stops at its next poll
            ended.append(k)
        return k

    _interrupt_the_pool_filling(monkeypatch, begun.is_set)
    with pytest.raises(KeyboardInterrupt):
        map_cancellable(job, range(4), workers=2)
    assert ended == [0]  # nothing runs after the call


def _training(svm):
    try:
        svm.get_statistics()
    except RuntimeError as exc:  # "cannot read this SVM while train() is running"
        return "running" in str(exc)
    return False


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")  # (C 1e4, 3 epochs)
@pytest.mark.parametrize("kind", ["linear_res", "linear_sgd", "kernel"])
def test_ctrl_c_while_the_pool_fills_leaves_a_consistent_estimator(monkeypatch, kind):
    # /tmp/s57J/defect_ctrlc_submit.py: a warm one-vs-rest call with n_jobs=2
    # interrupted as the pool filled raised "RuntimeError: cannot read this SVM
    # while train() is running" (the stopped fit read an SVM still training)
    # and recorded a fit mid-training; now the KeyboardInterrupt comes as it
    # came and the fit recorded is of the SVMs as they stopped.
    import stochsvm

    rng = np.random.default_rng(0)
    n = 20000 if kind.startswith("linear") else 1000  # a call of a few tenths of a second
    X = rng.standard_normal((n, 20 if kind == "linear_res" else 100))
    y = rng.integers(0, 4, n)
    X[np.arange(n), y] += 1.0
    if kind == "kernel":
        m = stochsvm.KernelSVMClassifier(solver="sbp", tol=0, max_iter=3, n_jobs=2, C=1e4,
                                         warm_start=True)
        m.fit(X, y)
        again = lambda: m.fit(X, y)  # noqa: E731
    else:
        m = stochsvm.LinearSVMClassifier(solver=kind[len("linear_"):], tol=0, max_iter=3,
                                         n_jobs=2, C=1e4)
        m.partial_fit(X, y, classes=np.arange(4))
        again = lambda: m.partial_fit(X, y)  # noqa: E731
    svms = list(m._svms)
    _interrupt_the_pool_filling(monkeypatch, lambda: any(_training(s) for s in svms))
    with pytest.raises(KeyboardInterrupt):
        again()
    monkeypatch.undo()
    assert not any(_training(s) for s in svms)  # nothing trains after the call
    # the first class stopped part way (or had just finished), the others never began
    assert m.stop_reasons_[0] in ("interrupted", "max_iterations")
    assert list(m.stop_reasons_[1:]) == ["interrupted"] * 3
    assert m.predict(X[:5]).shape == (5,)
    again()  # the next warm call continues
    assert m.predict(X[:5]).shape == (5,)
