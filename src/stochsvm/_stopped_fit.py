"""What an estimator holds after a ``fit`` or ``partial_fit`` whose training
raised: Ctrl+C (KeyboardInterrupt), or an error.

The estimators' SVMs train in place, and a training stopped part way leaves
them with the model they reached (an interrupt keeps the progress made: the
objects' ``train()``). The estimator used to keep what the call had set so
far: a fresh fit stopped by Ctrl+C left ``classes_`` and the SVMs, so that
``predict`` answered with the interrupted model and scikit-learn's
``check_is_fitted`` passed, while ``stop_reasons_`` and ``n_iter_`` were
missing. Now the exception propagates as it came, and the estimator is left
in one of two consistent states:

* **A cold call** (``fit`` without ``warm_start`` or on an unfitted
  estimator, a warm ``fit`` that starts afresh because a parameter of its
  SVMs changed, the first ``partial_fit``): unfitted. Every fitted attribute
  (and the SVMs) is removed, as before the first fit: ``predict`` raises
  NotFittedError.
* **A warm call** (a warm ``fit``, a later ``partial_fit``) stopped by
  Ctrl+C: a complete fit of the SVMs as they stand, as if the call had ended
  there. ``stop_reasons_``
  says ``"interrupted"`` for each SVM the call did not finish (stopped part
  way, or not begun: one-vs-rest trains the classes in turn); an SVM that
  finished keeps its own status. ``coef_`` (``support_vectors_``, ...)
  describe the SVMs' models; a later warm call continues them. The
  statistics of an interrupted kernel run are NaN where its objective was not
  computed (the objects' ``train()``). A warm call stopped by an error
  (training diverged: the SVMs hold a non-finite model) is left unfitted, as
  a cold one: its SVMs have nothing to continue. An error raised before any
  SVM took a step (``train()`` refusing the data: a row whose squared norm
  overflows, ...) changed no model: the fit of the last call that trained
  stands.
"""

from __future__ import annotations

__all__ = ["Trainings", "forget_fit"]


def forget_fit(estimator):
    """Remove every fitted attribute of ``estimator`` (all but its
    parameters and scikit-learn's own records): unfitted again."""
    params = estimator.get_params(deep=False)
    for name in list(vars(estimator)):
        if name not in params and not name.startswith(("_sklearn", "_metadata_request")):
            delattr(estimator, name)


class Trainings:
    """The runs of ``svms`` in one call: :meth:`finished` records the
    statistics of each run that ended, :meth:`statistics` gives every SVM's
    after the call raised (with ``"iterations_this_call"``)."""

    def __init__(self, svms):
        self._svms = list(svms)
        self._starts = [svm.get_iteration_number() for svm in self._svms]
        self._finished = {}

    def finished(self, svm, stats):
        """Record that ``svm``'s run of this call ended with ``stats``; returns them."""
        self._finished[id(svm)] = stats
        return stats

    def statistics(self):
        """Each SVM's statistics: its run's own when it finished, else
        those it holds now with the status ``"interrupted"``."""
        out = []
        for svm, start in zip(self._svms, self._starts):
            stats = self._finished.get(id(svm))
            if stats is None:
                stats = dict(svm.get_statistics(), status="interrupted")
            stats["iterations_this_call"] = svm.get_iteration_number() - start
            out.append(stats)
        return out

    def _stepped(self):
        """Whether any SVM's iteration number moved in this call."""
        return any(svm.get_iteration_number() != start
                   for svm, start in zip(self._svms, self._starts))

    def stopped(self, estimator, cold, record, exc):
        """After the call raised ``exc``: ``estimator`` unfitted (``cold``,
        or an error), or (Ctrl+C of a warm call) its fit recorded from
        :meth:`statistics` by ``record(stats)``."""
        if not (cold or isinstance(exc, KeyboardInterrupt) or self._stepped()):
            return      # refused before a step: no model changed, the fit stands
        if cold or not isinstance(exc, KeyboardInterrupt):
            forget_fit(estimator)
        else:
            record(self.statistics())
