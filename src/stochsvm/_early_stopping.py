"""Early stopping on held-out rows for the kernel estimators (docs/stopping.rst,
"Early stopping on held-out data").

A fit with ``early_stopping`` on holds out a stratified ``validation_fraction``
of the training rows, drawn once per fit from ``random_state``
(:func:`validation_split`), and trains on the rest. At each diagnostic of a
binary problem's :class:`~stochsvm.KernelSVM` (its diagnostic function), a
:class:`ValidationMonitor` scores the held-out rows with the current model:
the accuracy of the model's sign against the problem's +-1 labels, weighted
by the rows' weights when the fit has any. Writing ``s_k`` for the score at
the k-th diagnostic and ``s*`` for the best score before it, the diagnostic
improves when ``s_k > s* + validation_tol``; after ``n_iter_no_change``
diagnostics in a row that did not improve, the monitor ends the run (the
diagnostic function's true return value) and the estimator reports the
stop as status ``"validation"``. The monitor keeps a copy of the model at
the best score (the budget's B points for BSCA and BSGD, the support vectors
otherwise; a tie keeps the later model), which the estimator puts back into
the object when the monitor ended the run: the model returned is then the
best one seen, not the last. A run that ends otherwise (its own stopping
rule, its cap) keeps its last model.

This is scikit-learn's rule for SGDClassifier's ``early_stopping`` with the
score read at the solver's diagnostics instead of after every epoch. It
certifies nothing about the objective: it stops a run whose held-out accuracy
stopped paying for its epochs.
"""

import math

import numpy as np
from sklearn.model_selection import StratifiedShuffleSplit

__all__ = ["validation_split", "ValidationMonitor"]


def validation_split(y, fraction, seed):
    """Indices ``(train, held_out)`` of a stratified split of the rows of
    ``y``: about ``fraction`` of each class held out, drawn from ``seed``.
    A ValueError when a class would have no held-out row or no training
    row (a class of one row, or a fraction too small or too large for the
    smallest class)."""
    y = np.asarray(y)
    classes, counts = np.unique(y, return_counts=True)
    n = y.shape[0]
    held_out = math.ceil(fraction * n)  # scikit-learn's rounding of a fractional test_size
    smallest = classes[np.argmin(counts)]
    advice = (f"validation_fraction={fraction} of {n} rows holds out {held_out}, and the "
              f"smallest class ({smallest!r}) has {counts.min()} rows; a stratified split "
              f"needs a held-out row and a training row of every class: raise "
              f"validation_fraction, give more rows of that class, or set "
              f"early_stopping=False")
    if counts.min() < 2 or held_out < len(classes) or n - held_out < len(classes):
        raise ValueError(f"early stopping cannot split the training data: {advice}")
    splitter = StratifiedShuffleSplit(n_splits=1, test_size=held_out, random_state=seed)
    train, test = next(splitter.split(np.zeros((n, 1)), y))
    if (np.unique(y[train]).size < len(classes)
            or np.unique(y[test]).size < len(classes)):
        raise ValueError(f"early stopping cannot split the training data: {advice}")
    return np.sort(train), np.sort(test)


class ValidationMonitor:
    """The diagnostic function of one binary problem: scores the held-out
    rows ``X`` (labels ``y`` in {-1, +1}, weights ``weights`` or None) with
    the current model of ``svm``, keeps the best model, and ends the run
    after ``n_iter_no_change`` diagnostics without an improvement of more
    than ``tol`` (see the module's docstring).

    Attributes after a run: ``scores`` (one per diagnostic), ``best_score``,
    ``stopped`` (True when this monitor ended the run)."""

    def __init__(self, svm, X, y, weights, n_iter_no_change, tol):
        self.svm = svm
        self.X = X
        self.positive = np.asarray(y) > 0
        self.weights = weights
        self.n_iter_no_change = int(n_iter_no_change)
        self.tol = float(tol)
        self.scores = []
        self.best_score = -math.inf
        self.best_model = None
        self.best_is_current = False
        self.no_change = 0
        self.stopped = False

    def score(self):
        """The held-out accuracy of the object's current model."""
        right = (self.svm.decision_function(self.X) > 0) == self.positive
        if self.weights is None:
            return float(np.mean(right))
        return float(np.dot(self.weights, right) / np.sum(self.weights))

    def __call__(self, statistics):
        score = self.score()
        self.scores.append(score)
        improved = score > self.best_score + self.tol
        self.best_is_current = score >= self.best_score  # a tie keeps the later model
        if self.best_is_current:
            self.best_score = score
            self.best_model = self._copy_model()
        self.no_change = 0 if improved else self.no_change + 1
        self.stopped = self.no_change >= self.n_iter_no_change
        return self.stopped

    def _copy_model(self):
        svm = self.svm
        return (svm.get_support_vectors(), svm.get_coefficients().copy(), svm.get_bias(),
                svm.get_support_indices())

    def restore_best(self):
        """After a run this monitor ended, put the best model back into the
        object (nothing to do when the last diagnostic was the best). A run
        that ended otherwise (its own rule, its cap, an SDCA finish after the
        last diagnostic) keeps its last model."""
        if not self.stopped or self.best_model is None or self.best_is_current:
            return
        support_vectors, coefficients, bias, indices = self.best_model
        self.svm.set_model(support_vectors, coefficients, bias, indices=indices)
        self.best_is_current = True
