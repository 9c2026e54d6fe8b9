"""Live progress of a training run, redrawn during an epoch.

A daemon thread wakes every :data:`POLL_INTERVAL` seconds and reads the
iteration number of every SVM of the run through ``poll_iteration_number()``:
the one method of :class:`stochsvm.SVM` and :class:`stochsvm.KernelSVM` that
does not wait for the object's lock, a relaxed atomic read of the count the C
run driver publishes after every piece of steps (at most 16384 iterations for
a linear SVM, 64 for a kernel one). A poll costs no pass over the data and
does not slow the training down.

The display is a tqdm bar on standard error: iterations done out of the
cap of the run (which gives tqdm's rate and ETA: an upper bound, since a
solver may stop earlier on its tolerance; an SVM that stops early gives its
unused iterations back to the total), the epoch, and for one-vs-rest which
classes are training and how many are done. tqdm is an optional dependency
(``pip install tqdm``); without it :func:`new_sink` returns None, and the
callers keep their lines (one per trained SVM in the estimators, one per
epoch and per diagnostic in ``stochsvm train``).
"""

from __future__ import annotations

import sys
import threading

__all__ = ["POLL_INTERVAL", "FitProgress", "TqdmSink", "estimator_progress", "new_sink",
           "tqdm_available"]

#: Seconds between two polls of the running SVMs.
POLL_INTERVAL = 0.5


def tqdm_available():
    """True when tqdm can be imported (the bar needs it)."""
    try:
        import tqdm  # noqa: F401
    except ImportError:
        return False
    return True


class TqdmSink:
    """A tqdm bar on ``file`` (standard error): ``update(done, total, text)``
    moves it to ``done`` of ``total`` iterations with ``text`` after it."""

    def __init__(self, title, file=None):
        from tqdm import tqdm

        self._bar = tqdm(total=0, desc=title, unit="it", unit_scale=True, leave=True,
                         file=file if file is not None else sys.stderr, dynamic_ncols=True,
                         mininterval=0)

    def update(self, done, total, text):
        bar = self._bar
        bar.total = total
        bar.n = done
        bar.set_postfix_str(text, refresh=False)
        bar.refresh()

    def close(self):
        self._bar.close()


def new_sink(title):
    """The progress display for a run titled ``title``: a :class:`TqdmSink`,
    or None without tqdm (the tests replace this function by a recorder)."""
    return TqdmSink(title) if tqdm_available() else None


def estimator_progress(estimator, svms, iterations):
    """The :class:`FitProgress` of one call of an estimator's fit: drawn when
    its ``verbose`` is on and tqdm is installed."""
    sink = new_sink(type(estimator).__name__) if getattr(estimator, "verbose", 0) else None
    classes = getattr(estimator, "classes_", None)
    one_vs_rest = classes is not None and len(svms) > 1
    return FitProgress(svms, iterations, svms[0].get_num_data(), sink,
                       classes=list(classes) if one_vs_rest else None)


class FitProgress:
    """Progress of ``svms`` trained for ``iterations[k]`` more iterations each
    (``n`` per epoch), drawn on ``sink`` while the context is open.

    ``classes`` names the outputs of a one-vs-rest run (None: one binary
    SVM, or outputs that are not classes). Wrap the function that trains one
    SVM with :meth:`track` so that the display knows which are training and
    which are done. With ``sink`` None nothing is polled or drawn.

    Every SVM must be idle when the object is made (its iteration number,
    read there, is the origin of the count).
    """

    def __init__(self, svms, iterations, n, sink, classes=None, interval=POLL_INTERVAL):
        self._svms = list(svms)
        self._origin = [svm.get_iteration_number() for svm in self._svms]
        self._total = [int(t) for t in iterations]
        self._n = max(1, int(n))
        self._sink = sink
        self._classes = None if classes is None else list(classes)
        self._state = ["waiting"] * len(self._svms)
        self._interval = interval
        self._lock = threading.Lock()
        self._stopped = threading.Event()
        self._thread = None
        self._note = ""

    @property
    def drawing(self):
        """True when a display is drawn (the callers' own lines would garble it)."""
        return self._sink is not None

    # -- the run ---------------------------------------------------------------

    def start(self):
        """Draw the start and poll every ``interval`` seconds from now on."""
        if self._sink is not None:
            self.poll()
            if self._interval is not None:
                self._thread = threading.Thread(target=self._poll_loop, daemon=True,
                                                name="stochsvm-progress")
                self._thread.start()

    def stop(self, stopped_by=None):
        """Stop polling and draw the end. A run that ended gives back what it
        did not run (the total shrinks to the count: 100 %). One that an
        exception stopped (``stopped_by``: a KeyboardInterrupt, Ctrl+C, or
        an error) stays where it stopped, its total unchanged, and says so
        ("interrupted") instead of the last diagnostic's objective, which
        is not the stopped model's."""
        self._stopped.set()
        if self._thread is not None:
            self._thread.join()
        if self._sink is not None:
            if stopped_by is None:
                self._total = self._counts()
            else:
                self._note = ("interrupted" if issubclass(stopped_by, KeyboardInterrupt)
                              else f"stopped by {stopped_by.__name__}")
            self.poll()
            self._sink.close()

    def __enter__(self):
        self.start()
        return self

    def __exit__(self, kind, *exc):
        self.stop(kind)
        return False

    def track(self, train, svm_of=lambda job: job, last=True):
        """``train`` (a function of one job, e.g. one SVM), recording when the
        job's SVM (``svm_of(job)``) starts and ends training. ``last``: each
        SVM trains once (an SVM that stops early on its tolerance gives its
        unused iterations back to the total); False: in rounds (one epoch of
        every SVM at a time, ``stochsvm train``), "done" counts this round.
        A job that raises (Ctrl+C) stays "training", its total unchanged."""

        def tracked(job):
            k = self._index(svm_of(job))
            with self._lock:
                if not last and all(s == "done" for s in self._state):
                    self._state = ["waiting"] * len(self._state)  # a new round
                self._state[k] = "training"
            try:
                result = train(job)
            except BaseException:
                self.poll()   # still "training": the job stopped there
                raise
            self._state[k] = "done"
            if last:
                self._total[k] = min(self._total[k], self._done(k))
            self.poll()
            return result

        return tracked

    def note(self, text):
        """Show ``text`` (the live objective, say) after the counts, and redraw."""
        self._note = text
        self.poll()

    # -- polling ---------------------------------------------------------------

    def _index(self, svm):
        for k, candidate in enumerate(self._svms):
            if candidate is svm:
                return k
        raise ValueError("the SVM is not one of this run's")

    def _done(self, k):
        """Iterations SVM k has run since the start, within [0, its total]:
        before its train publishes the first count, the counter may still
        hold an older run's value."""
        return min(max(self._svms[k].poll_iteration_number() - self._origin[k], 0),
                   self._total[k])

    def _counts(self):
        return [self._done(k) for k in range(len(self._svms))]

    def _poll_loop(self):
        while not self._stopped.wait(self._interval):
            self.poll()

    def poll(self):
        """Read the counters and draw: ``(done, total, text)``, also given to
        the sink. Safe from any thread, during training included."""
        with self._lock:
            counts = self._counts()
            done, total = sum(counts), sum(self._total)
            text = self._describe(counts)
            if self._sink is not None:
                self._sink.update(done, total, text)
            return done, total, text

    def _describe(self, counts):
        parts = []
        if self._classes is not None:
            training = [str(c) for c, s in zip(self._classes, self._state) if s == "training"]
            finished = self._state.count("done")
            parts.append(f"class {', '.join(training)}" if training else "")
            parts.append(f"{finished}/{len(self._classes)} classes done")
        # The epoch of the SVMs being trained (of all, in a run not tracked
        # or over); none between two SVMs.
        active = [k for k, s in enumerate(self._state) if s == "training"]
        if not active and (self._stopped.is_set() or "done" not in self._state):
            active = range(len(counts))
        if active:
            epoch = min(counts[k] for k in active) / self._n
            cap = max(self._total[k] for k in active) / self._n
            parts.append(f"epoch {epoch:.2f}/{cap:g}")
        if self._note:
            parts.append(self._note)
        return ", ".join(p for p in parts if p)
