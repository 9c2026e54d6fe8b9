"""Training releases the GIL; each object has a lock; Ctrl+C stops training."""

import _thread
import signal
import threading
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest
import scipy.sparse as sp

from _helpers import make_problem
from stochsvm import SVM

LAMBDA = 1e-2


def _problems():
    out = []
    for k in range(4):
        X, y = make_problem(n=1000, d=20, seed=20 + k)
        if k % 2:
            X = sp.csr_matrix(np.where(np.abs(X) < 0.4, 0.0, X).astype(np.float32))
        out.append((X, y, k))
    return out


def _train(X, y, seed):
    svm = SVM(X, y, LAMBDA, seed=seed)
    svm.set_epsilon(0)
    svm.set_max_num_iterations(200_000)
    stats = svm.train()
    return svm.get_model(), svm.get_bias(), stats["objective"], svm.get_iteration_number()


def test_concurrent_training_equals_serial():
    problems = _problems()
    serial = [_train(*p) for p in problems]
    with ThreadPoolExecutor(max_workers=4) as pool:
        threaded = list(pool.map(lambda p: _train(*p), problems))
    for s, t in zip(serial, threaded):
        np.testing.assert_array_equal(s[0], t[0])
        assert s[1:] == t[1:]
    # the four problems really are different
    assert len({s[2] for s in serial}) == 4


class _Blocked:
    """Train ``svm`` on a worker thread, paused inside its first diagnostic."""

    def __init__(self, svm):
        self.svm = svm
        self.started = threading.Event()
        self.release = threading.Event()
        svm.set_epsilon(0)
        svm.set_max_num_iterations(10 ** 9)
        svm.set_diagnostic_function(self._diag)
        self.pool = ThreadPoolExecutor(max_workers=1)
        self.future = self.pool.submit(svm.train)
        assert self.started.wait(30), "training did not start"

    def _diag(self, stats):
        self.started.set()
        self.release.wait(30)
        return True   # stop

    def finish(self):
        self.release.set()
        stats = self.future.result(30)
        self.pool.shutdown()
        return stats


def test_same_object_from_two_threads(problem):
    X, y = problem
    svm = SVM(X, y, LAMBDA)
    blocked = _Blocked(svm)
    try:
        with pytest.raises(RuntimeError, match=r"train\(\) is already running on this SVM"):
            svm.train()
    finally:
        stats = blocked.finish()
    assert stats["status"] == "interrupted"
    assert stats["iteration"] == X.shape[0]
    # free again
    svm.set_diagnostic_function(None)
    svm.set_max_num_iterations(10)
    assert svm.train()["iteration"] == X.shape[0] + 10


def test_setters_and_getters_from_another_thread_during_training(problem):
    X, y = problem
    svm = SVM(X, y, LAMBDA)
    blocked = _Blocked(svm)
    try:
        for call in (lambda: svm.set_epsilon(0.5), lambda: svm.set_model(np.ones(20)),
                     lambda: svm.set_lambda(1.0), lambda: svm.unset_t0(),
                     lambda: svm.set_data(X, y), lambda: svm.set_diagnostic_function(None)):
            with pytest.raises(RuntimeError, match=r"while train\(\) is running on this SVM"):
                call()
        for call in (svm.get_model, svm.get_statistics, svm.get_scores, svm.get_bias,
                     lambda: svm.predict(X)):
            with pytest.raises(RuntimeError, match=r"cannot read this SVM while train\(\) is "
                                                   r"running in another thread"):
                call()
        # the shape of the object does not change: these stay readable
        assert svm.get_dimension() == 20 and svm.get_num_data() == 1000
        assert svm.get_solver() == "sgd"
    finally:
        blocked.finish()
    assert svm.get_epsilon() == 0.0
    assert svm.get_lambda() == LAMBDA


def test_keyboard_interrupt_stops_training_and_keeps_the_object():
    X, y = make_problem(n=1000, d=20, seed=7)
    cap = 10 ** 9   # minutes of training if the interrupt were ignored
    svm = SVM(X, y, LAMBDA)
    svm.set_epsilon(0)
    svm.set_max_num_iterations(cap)
    timer = threading.Timer(0.3, _thread.interrupt_main)
    # A runner started in the background (nohup, `cmd &`) hands the tests
    # SIGINT ignored, and interrupt_main() then does nothing (the fit would
    # run its whole cap): install Python's handler for this test.
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            svm.train()
    finally:
        timer.cancel()
        signal.signal(signal.SIGINT, previous)
    t = svm.get_iteration_number()
    assert 0 < t < cap
    stats = svm.get_statistics()
    assert stats["status"] == "interrupted"     # the C core saw the stop request
    assert stats["iteration"] == t
    assert np.isfinite(stats["objective"])
    # the object is usable and continues from where it stopped
    svm.set_max_num_iterations(1000)
    assert svm.train()["iteration"] == t + 1000


def test_training_releases_the_gil():
    # While a worker thread trains, the main thread keeps running Python code.
    # If train() held the GIL, the main thread would stall for the whole run:
    # one gap between its time stamps as long as the training itself.
    import time

    X, y = make_problem(n=1000, d=20, seed=8)
    svm = SVM(X, y, LAMBDA)
    svm.set_epsilon(0)
    svm.set_max_num_iterations(10 ** 7)
    with ThreadPoolExecutor(max_workers=1) as pool:
        future = pool.submit(svm.train)
        stamps = [time.perf_counter()]
        while not future.done():
            stamps.append(time.perf_counter())
        stats = future.result()
    elapsed = stats["elapsed_time"]
    assert elapsed > 0.05
    assert np.max(np.diff(stamps)) < 0.5 * elapsed
