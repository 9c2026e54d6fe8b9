"""Early stopping on held-out rows: the one rule of the kernel estimators'
``early_stopping`` and of ``stochsvm train --validation`` (docs/stopping.rst,
"Early stopping on held-out data").

The caller holds out a stratified fraction of the training rows
(:func:`validation_split`; the command line's regression targets, which have
no classes, a plain random draw), drawn once from its seed, and trains on the
rest. At each diagnostic of a binary problem's object (a :class:`~stochsvm.SVM`
or a :class:`~stochsvm.KernelSVM`, one train() call with a diagnostic every
epoch: :func:`train_watched`), a :class:`ValidationMonitor` scores the
held-out rows with the current model: the accuracy of the model's sign
against the problem's +-1 labels, weighted by the rows' weights when there
are any (a regression: minus the weighted mean squared error). Writing
``s_k`` for the score at the k-th diagnostic and ``s*`` for the best score
before it, the diagnostic improves when ``s_k > s* + tol``; after
``n_iter_no_change`` diagnostics in a row that did not improve, the monitor
ends the run (the diagnostic function's true return value) and the run
reports status ``"validation"``. The monitor keeps a copy of the model at
the best score (a kernel object's support vectors, the budget's B points
for BSCA and BSGD; a linear object's ``w`` and bias, SDCA's dual variables;
a tie keeps the later model), which is put back into the object when the
monitor ended the run: the model returned is then the best one seen, not
the last. A run that ends otherwise (its own stopping rule, its cap) keeps
its last model.

This is scikit-learn's rule for SGDClassifier's ``early_stopping`` with the
score read at the solver's diagnostics instead of after every epoch. It
certifies nothing about the objective: it stops a run whose held-out score
stopped paying for its epochs.
"""

import math

import numpy as np
from sklearn.model_selection import StratifiedShuffleSplit

__all__ = ["validation_split", "ValidationMonitor", "train_watched"]


def _split_seed(seed):
    """scikit-learn's seed (below 2^32) for the C core's seed (63 bits, from
    seed_of; None is seed 0): the seed itself where it fits, else one mixed
    from all its bits."""
    seed = 0 if seed is None else int(seed)
    if 0 <= seed < 2**32:
        return seed
    return int(np.random.SeedSequence(abs(seed)).generate_state(1)[0])


def validation_split(y, fraction, seed, *, words=("early stopping", "validation_fraction=",
                                                   "set early_stopping=False")):
    """Indices ``(train, held_out)`` of a stratified split of the rows of
    ``y``: about ``fraction`` of each class held out, drawn from ``seed``.
    A ValueError when a class would have no held-out row or no training
    row (a class of one row, or a fraction too small or too large for the
    smallest class), in the caller's ``words``: what is splitting, the
    fraction's option (with its separator), and how to turn the split off."""
    what, option, off = words
    y = np.asarray(y)
    classes, counts = np.unique(y, return_counts=True)
    n = y.shape[0]
    held_out = math.ceil(fraction * n)  # scikit-learn's rounding of a fractional test_size
    smallest = classes[np.argmin(counts)]
    # a Python scalar, whose repr reads plainly (object arrays hold them already:
    # a str has no tolist, and string labels of dtype object failed every fit)
    smallest = smallest.tolist() if isinstance(smallest, np.generic) else smallest

    def fail(direction):
        # direction: what to do with the fraction ("raise" when a class has
        # no held-out row, "lower" when it has no training row), or None
        # when no fraction helps (a class of one row)
        name = option.rstrip("= ")
        remedy = f"{direction} {name}, give" if direction else "give"
        raise ValueError(
            f"{what} cannot split the training data: {option}{fraction} "
            f"of {n} rows holds out {held_out}, and the smallest class ({smallest!r}) has "
            f"{counts.min()} rows; a stratified split needs a held-out row and a training "
            f"row of every class: {remedy} more rows of that class, or {off}")
    if counts.min() < 2:
        fail(None)
    if held_out < len(classes):
        fail("raise")
    if n - held_out < len(classes):
        fail("lower")
    splitter = StratifiedShuffleSplit(n_splits=1, test_size=held_out,
                                      random_state=_split_seed(seed))
    train, test = next(splitter.split(np.zeros((n, 1)), y))
    if np.unique(y[test]).size < len(classes):
        fail("raise")
    if np.unique(y[train]).size < len(classes):
        fail("lower")
    return np.sort(train), np.sort(test)


class ValidationMonitor:
    """The diagnostic function of one binary problem: scores the held-out
    rows ``X`` (labels ``y`` in {-1, +1}, or targets with ``regression``;
    weights ``weights`` or None) with the current model of ``svm``, keeps the
    best model, and ends the run after ``n_iter_no_change`` diagnostics
    without an improvement of more than ``tol`` (see the module's docstring).

    Attributes after a run: ``scores`` (one per diagnostic), ``best_score``,
    ``best_iteration`` (the object's iteration number at the best score),
    ``best_statistics`` (the statistics of that diagnostic), ``stopped``
    (True when this monitor ended the run)."""

    def __init__(self, svm, X, y, weights, n_iter_no_change, tol, regression=False):
        self.svm = svm
        self.X = X
        self.y = np.asarray(y, dtype=np.float64)
        self.regression = bool(regression)
        self.weights = weights
        self.n_iter_no_change = int(n_iter_no_change)
        self.tol = float(tol)
        self.scores = []
        self.best_score = -math.inf
        self.best_iteration = None
        self.best_model = None
        self.best_statistics = None
        self.best_is_current = False
        self.no_change = 0
        self.stopped = False

    def score(self):
        """The held-out score of the object's current model: the accuracy
        (a regression: minus the mean squared error), weighted when there
        are weights."""
        scores = self.svm.decision_function(self.X)
        if self.regression:
            value = -(scores - self.y) ** 2
        else:
            value = (scores > 0) == (self.y > 0)
        if self.weights is None:
            return float(np.mean(value))
        return float(np.dot(self.weights, value) / np.sum(self.weights))

    def __call__(self, statistics):
        score = self.score()
        self.scores.append(score)
        improved = score > self.best_score + self.tol
        self.best_is_current = score >= self.best_score  # a tie keeps the later model
        if self.best_is_current:
            self.best_score = score
            self.best_iteration = statistics.get("iteration")
            self.best_statistics = dict(statistics)
            self.best_model = self._copy_model()
        self.no_change = 0 if improved else self.no_change + 1
        self.stopped = self.no_change >= self.n_iter_no_change
        return self.stopped

    def _copy_model(self):
        svm = self.svm
        if hasattr(svm, "get_support_vectors"):  # a KernelSVM
            return (svm.get_support_vectors(), svm.get_coefficients().copy(), svm.get_bias(),
                    svm.get_support_indices())
        if svm.get_solver() == "sdca":  # its model follows from its dual variables
            return (svm.get_dual_variables().copy(),)
        return (svm.get_model().copy(), svm.get_bias())

    def restore_best(self):
        """After a run this monitor ended, put the best model back into the
        object (nothing to do when the last diagnostic was the best). A run
        that ended otherwise (its own rule, its cap, an SDCA finish after the
        last diagnostic) keeps its last model. True when a model was put back."""
        if not self.stopped or self.best_model is None or self.best_is_current:
            return False
        svm, model = self.svm, self.best_model
        if hasattr(svm, "get_support_vectors"):
            support_vectors, coefficients, bias, indices = model
            svm.set_model(support_vectors, coefficients, bias, indices=indices)
        elif len(model) == 1:
            svm.set_dual_variables(model[0])
        else:
            svm.set_model(model[0])
            svm.set_bias(model[1])
        self.best_is_current = True
        return True


# The statistics that describe the work of a run, not its model: a restored
# model's statistics keep these from the run's end.
_WORK_STATISTICS = frozenset(("status", "iteration", "epoch", "elapsed_time", "num_step_backoffs",
                              "num_newton_iterations", "num_kernel_evaluations", "finish_epochs",
                              "exact_cost"))


def train_watched(svm, monitor, frequency, observer=None):
    """One train() call of ``svm`` under early stopping: a diagnostic every
    ``frequency`` iterations (None: the object's own schedule), ``monitor``
    as the diagnostic function (then ``observer(statistics)``, a progress
    display, when given). A run the monitor ended gets its best model back
    and its statistics read status ``"validation"`` with
    ``validation_score``; what they say of the model (objective, gap,
    support vectors...) is the best diagnostic's, of the model kept, and
    what they say of the work (iteration, epoch, time) the run's end. The
    object leaves with its diagnostic frequency as it came (a setting, or
    the default schedule) and no diagnostic function, so a later run is not watched."""
    previous = svm.get_diagnostic_frequency_setting()
    if frequency is not None:
        svm.set_diagnostic_frequency(frequency)
    if observer is None:
        watch = monitor
    else:
        def watch(statistics):
            stop = monitor(statistics)
            observer(statistics)  # (it may show the score just made)
            return stop
    svm.set_diagnostic_function(watch)
    try:
        stats = svm.train()
    finally:
        svm.set_diagnostic_function(None)
        svm.set_diagnostic_frequency(previous)
    if monitor.stopped:
        if monitor.restore_best():
            stats = dict(stats, **{key: value for key, value in monitor.best_statistics.items()
                                   if key not in _WORK_STATISTICS})
        stats = dict(stats, status="validation", validation_score=monitor.best_score)
    return stats
