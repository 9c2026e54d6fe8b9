"""Objects with threads across fork() (thread_pool.c, "After fork").

fork() copies only the calling thread: a child process holds an object's
pool of worker threads in memory, but none of its workers. Deleting such an
object once joined a worker that does not exist in the child and hung for
ever; a child that trains must get threads of its own and the same model.

Each scenario runs in a forked child with an alarm, and the parent waits for
it with a deadline: a regression fails the test instead of hanging the run.
"""
import os
import signal
import threading
import time

import numpy as np
import pytest

from stochsvm import SVM, KernelSVM

pytestmark = [
    pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork()"),
    # the parent holds worker threads on purpose; Python 3.12+ warns of that
    pytest.mark.filterwarnings("ignore::DeprecationWarning"),
]

DEADLINE = 120.0  # seconds: far beyond what any scenario needs (under 1 s alone)


def _problem(n=1500, d=8, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = np.where(X[:, 0] - X[:, 1] + 0.3 * rng.normal(size=n) > 0, 1.0, -1.0)
    return X, y


def _kernel_svm(X, y, threads):
    svm = KernelSVM(X, y, 1e-3, solver="sbp", gamma=0.2, seed=0)
    svm.set_num_threads(threads)
    return svm


def _linear_svm(X, y, threads):
    svm = SVM(X, y, 1e-3, solver="sdca")
    svm.set_num_threads(threads)
    return svm


def _threads_of_this_process():
    return len(os.listdir("/proc/self/task"))


def _in_child(body):
    """Runs body() in a forked child; returns its exit code (0: body passed).
    The child exits by os._exit, so no pytest machinery runs in it."""
    pid = os.fork()
    if pid == 0:
        code = 1
        try:
            signal.alarm(int(DEADLINE))  # a hung child dies of SIGALRM
            body()
            code = 0
        except BaseException as exc:  # noqa: BLE001 - reported by the exit code
            os.write(2, f"child failed: {exc!r}\n".encode())
        finally:
            os._exit(code)
    start = time.monotonic()
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return os.waitstatus_to_exitcode(status)
        if time.monotonic() - start > DEADLINE + 10:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            pytest.fail("the forked child hung")
        time.sleep(0.01)


@pytest.mark.parametrize("make", [_kernel_svm, _linear_svm], ids=["kernel", "linear"])
def test_child_deletes_an_object_with_threads(make):
    X, y = _problem()
    svm = make(X, y, 2)
    svm.train()

    def body():
        nonlocal svm
        del svm  # joined the parent's worker: hung until stop 53

    assert _in_child(body) == 0
    svm.train()  # the parent's object is untouched


@pytest.mark.parametrize("make", [_kernel_svm, _linear_svm], ids=["kernel", "linear"])
def test_child_trains_on_threads_of_its_own_to_the_same_model(make):
    X, y = _problem()
    svm = make(X, y, 2)
    svm.train()

    def body():
        # the same two train calls (the second a warm start) on one thread
        serial = make(X, y, 1)
        serial.train()
        serial.train()
        # the inherited object: its pool is replaced by one of this process
        before = _threads_of_this_process()
        svm.train()
        after = _threads_of_this_process()
        assert after == before + 1, (before, after)  # one worker: two threads in all
        assert svm.get_num_threads() == 2
        # threaded == serial, bit for bit, here as in the parent
        assert np.array_equal(svm.decision_function(X), serial.decision_function(X))

    assert _in_child(body) == 0


def test_child_predicts_before_it_trains():
    X, y = _problem()
    svm = _kernel_svm(X, y, 2)
    svm.train()
    expected = svm.decision_function(X)

    def body():
        # the parent's pool, never trained on here: the caller runs every chunk
        assert np.array_equal(svm.decision_function(X), expected)
        before = _threads_of_this_process()
        svm.set_num_threads(2)  # the same count: the inherited pool is replaced all the same
        assert _threads_of_this_process() == before + 1
        assert np.array_equal(svm.decision_function(X), expected)
        svm.set_num_threads(3)
        assert _threads_of_this_process() == before + 2
        assert np.array_equal(svm.decision_function(X), expected)

    assert _in_child(body) == 0


def test_child_of_a_fork_taken_while_the_object_trains():
    """The copy of an object that another thread was training is mid-run in
    the child: its train is refused with a clear error, and deleting it
    neither hangs nor touches the parent's run."""
    X, y = _problem()
    svm = _kernel_svm(X, y, 2)
    svm.set_epsilon(0)
    svm.set_max_num_iterations(10 ** 9)
    started, release = threading.Event(), threading.Event()

    def diagnostic(stats):
        started.set()
        release.wait(DEADLINE)
        return True  # stop

    svm.set_diagnostic_function(diagnostic)
    runner = threading.Thread(target=svm.train)
    runner.start()
    assert started.wait(DEADLINE), "training did not start"

    def body():
        nonlocal svm
        with pytest.raises(RuntimeError, match="already running"):
            svm.train()
        del svm

    try:
        assert _in_child(body) == 0
    finally:
        release.set()
        runner.join(DEADLINE)
    assert not runner.is_alive()
    assert svm.get_statistics()["status"] == "interrupted"  # by the callback
