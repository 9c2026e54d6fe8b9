"""Stopping the other trainings of one fit when one of them, or the caller, stops.

A fit of several models (one-vs-rest with ``n_jobs``, the command line's
``--jobs``) trains them on worker threads. Ctrl+C reaches only the main
thread, which waits for the workers: the trainings on the workers never see
it (``PyErr_CheckSignals`` polls nothing off the main thread), and the fit
used to go on until every model was done, minutes or hours later. The same
held when one model failed: the others ran to the end before the error was
raised.

:func:`map_cancellable` gives the jobs of one call an event. A training
started on such a job's thread polls it, as the main thread polls for Ctrl+C
(the objects' interrupt function, every few dozen iterations: the
``_Trainer`` base of ``SVM`` and ``KernelSVM``), and stops with
:class:`Cancelled` once it is set; the event is set when the caller is
interrupted or a job raises. The call then cancels the jobs not yet begun,
waits for the running ones to stop, and raises what stopped it.

The call counts the jobs that began itself, rather than waiting on the
futures it holds: a Ctrl+C can land while the pool is being filled, inside
``submit`` (in ``Thread.start``, once the new worker runs), after the job was
queued but before its future came back, and before the pool had recorded
the thread (its ``shutdown`` does not wait for it). That job then began
training, and ran on while the estimator read its SVM's statistics
("cannot read this SVM while train() is running") and recorded a fit. A job
begins only while the event is unset, under the lock that counts it, so once
the event is set the count only falls, and the call returns when it is zero:
nothing trains after it.
"""
import threading
from concurrent.futures import FIRST_EXCEPTION, ThreadPoolExecutor, wait

_local = threading.local()


class Cancelled(Exception):
    """A training stopped because another job of the same call, or the
    caller, stopped first (its exception is the one raised)."""


def current():
    """The event the trainings of this thread poll (None: none)."""
    return getattr(_local, "event", None)


def map_cancellable(fn, items, workers=None, pool=None):
    """``[fn(item) for item in items]`` on ``pool`` (or a pool of ``workers``
    threads made for the call), in the items' order; the first exception,
    or a KeyboardInterrupt of the caller, stops the trainings still running
    (see the module's text) before it is raised."""
    event = threading.Event()
    begun = threading.Condition()  # counts the jobs running: running[0]
    running = [0]

    def job(item):
        with begun:
            if event.is_set():
                raise Cancelled("another job of this call stopped first")
            running[0] += 1
        _local.event = event
        try:
            return fn(item)
        finally:
            _local.event = None
            with begun:
                running[0] -= 1
                begun.notify_all()

    own = pool is None
    if own:
        pool = ThreadPoolExecutor(max_workers=workers)
    futures = []
    try:
        for item in items:  # (a Ctrl+C here keeps the futures submitted so far)
            futures.append(pool.submit(job, item))
        # all done, or one failed: not in order, a later job may fail first
        wait(futures, return_when=FIRST_EXCEPTION)
        for f in futures:
            if f.done() and f.exception() is not None:
                raise f.exception()
        return [f.result() for f in futures]
    except BaseException:
        with begun:
            event.set()  # no job begins from here on
            for f in futures:
                f.cancel()
            # the running ones stop at their next poll; this counts a job
            # whose future the interrupted submit did not return (see above)
            begun.wait_for(lambda: running[0] == 0)
        raise
    finally:
        if own:
            pool.shutdown(wait=True)
