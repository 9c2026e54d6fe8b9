"""``probability=True`` for the SVM classifiers: Platt scaling fitted by an
internal cross-validation, as ``sklearn.svm.SVC(probability=True)`` and
LIBSVM's ``-b 1`` do.

After the fit on all the data, :meth:`_PlattProbabilities._fit_probability`
fits a copy of the classifier on each of 5 stratified folds' complements
(:func:`stochsvm.model_selection.stratified_folds`, seeded by the
classifier's seed), takes the decision values of every example from the
copy that did not see it, and fits Platt's sigmoid
``P(y = +1 | f) = 1 / (1 + exp(A f + B))`` to them, one per output
(:func:`stochsvm.calibration.fit_platt`, the fit of ``stochsvm train
--probability``). Held-out scores matter: on its own training rows an SVM is
more confident than on new data, and a sigmoid fitted there is too steep.

Multiclass: normalised one-vs-rest. Each class's output gets its own
sigmoid, and a row's probabilities are divided by their sum
(:func:`stochsvm.calibration.class_probabilities`), as
``CalibratedClassifierCV`` does for a one-vs-rest classifier and as
``stochsvm predict --probability`` does. LIBSVM's pairwise coupling (Wu,
Lin and Weng 2004) needs one-vs-one outputs, which these classifiers do not
train.

``sample_weight`` and ``class_weight`` weigh the fold fits as they weigh the
fit; rows of weight 0 are left out first, and the sigmoids are fitted
unweighted (both as LIBSVM does). A kernel model's fold fits use its
``gamma_`` (SVC's cross-validation uses the fit's gamma): ``gamma="scale"``
counts every row of X, weight 0 or not, and a fold must not compute another.
"""

from __future__ import annotations

import numbers
import warnings

import numpy as np
from sklearn.base import clone
from sklearn.exceptions import ConvergenceWarning, NotFittedError
from sklearn.utils import get_tags
from sklearn.utils.metaestimators import available_if
from sklearn.utils.validation import check_is_fitted

from stochsvm.calibration import class_probabilities, fit_platt
from stochsvm.model_selection import stratified_folds

__all__ = ["PROBABILITY_FOLDS", "check_classes", "check_weighted_classes", "fold_count",
           "folds_of", "held_out_scores"]

#: Folds of the internal cross-validation (LIBSVM's and SVC's 5).
PROBABILITY_FOLDS = 5


def check_classes(y, what="probability=True"):
    """Refuse (ValueError) labels ``y`` with a class of fewer than 2
    examples: the rule of the internal cross-validation for the estimators
    and ``stochsvm train --probability`` (``what`` names the option), so
    that each fold's complement holds every class."""
    classes, counts = np.unique(y, return_counts=True)
    if counts.min() < 2:
        raise ValueError(f"{what} needs at least 2 examples of every class for its internal "
                         f"cross-validation; class {_label(classes[np.argmin(counts)])} has 1")


def check_weighted_classes(classes, y, weights):
    """Refuse (ValueError) example weights (sample_weight times the class
    weights; None: all 1) that leave a class exactly one row of positive
    weight: the fold holding that row would be fitted without the class
    (a one-class fit for two classes), after the fit on all the data had
    trained. A class with no row of positive weight is never predicted,
    by the fit as by every fold's model: allowed."""
    if weights is None:
        return
    index = np.searchsorted(classes, y)
    positive = np.bincount(index[np.asarray(weights) > 0], minlength=len(classes))
    if np.any(positive == 1):
        lone = _label(classes[np.flatnonzero(positive == 1)[0]])
        raise ValueError(f"probability=True needs at least 2 rows of positive weight in every "
                         f"class that has any, so that every fold of its internal "
                         f"cross-validation trains on the class; sample_weight and class_weight "
                         f"leave one row of class {lone} with positive weight: give another of its "
                         f"rows a positive weight, or set probability=False")


def _label(label):
    return f"{label:g}" if isinstance(label, numbers.Real) else repr(label)


def fold_count(y):
    """The folds of the internal cross-validation: ``PROBABILITY_FOLDS``,
    fewer for fewer examples."""
    return min(PROBABILITY_FOLDS, len(y))


def folds_of(estimator, y):
    """The fold of every example (:func:`check_classes`' rule, :func:`fold_count`
    folds): stratified, seeded by the estimator's ``random_state`` (or its
    deprecated alias ``seed``; 0 if not an int)."""
    check_classes(y)
    seed = estimator._param("random_state")   # or its deprecated alias, seed
    seed = int(seed) if isinstance(seed, numbers.Integral) else 0
    return stratified_folds(y, fold_count(y), seed)


def held_out_scores(estimator, X, y, sample_weight, folds):
    """Decision values of shape (n, outputs): each row's from a copy of
    ``estimator`` (probability off, no warm start, quiet) fitted without its
    fold. A kernel model's copies use its kernel, ``gamma=gamma_``, as
    SVC's (LIBSVM's) cross-validation does: ``gamma="scale"`` resolved on
    a fold's rows gave another kernel than the one whose scores the
    sigmoids calibrate. The copies' convergence warnings repeat the fit's:
    not shown."""
    params = estimator.get_params()
    quiet = {"probability": False, "warm_start": False}
    if "verbose" in params:
        quiet["verbose"] = 0
    if "gamma" in params and hasattr(estimator, "gamma_"):
        quiet["gamma"] = estimator.gamma_
    scores = None
    pairwise = get_tags(estimator).input_tags.pairwise  # X is K(X, X): slice its columns too
    for fold in range(folds.max() + 1):
        train, test = folds != fold, folds == fold
        copy = clone(estimator).set_params(**quiet)
        weights = None if sample_weight is None else np.asarray(sample_weight)[train]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            copy.fit(X[np.ix_(train, train)] if pairwise else X[train], y[train],
                     sample_weight=weights)
        fold_scores = copy.decision_function(X[np.ix_(test, train)] if pairwise else X[test])
        fold_scores = fold_scores.reshape(fold_scores.shape[0], -1)
        if scores is None:
            scores = np.empty((X.shape[0], fold_scores.shape[1]))
        scores[test] = fold_scores
    return scores


def _weighted_rows(estimator, X, y, sample_weight):
    """``(X, y, sample_weight)`` without the rows of ``sample_weight`` 0, as
    LIBSVM drops them before its cross-validation: a row of weight 0 is not
    in the model, and it should not move the folds or the sigmoids either
    (kept, iris's probabilities moved by up to 0.13 against the same fit
    without those rows). A class left fewer than 2 rows keeps all of its
    rows (the folds need 2 of every class, so that the fold models have the
    fit's classes): it has no weight (:func:`check_weighted_classes`), and
    the fit, like every fold's model, never predicts it."""
    if sample_weight is None:
        return X, y, None
    y = np.asarray(y)
    keep = np.asarray(sample_weight) > 0
    index = np.searchsorted(estimator.classes_, y)
    keep |= (np.bincount(index[keep], minlength=len(estimator.classes_)) < 2)[index]
    if keep.all():
        return X, y, sample_weight
    rows = np.flatnonzero(keep)
    pairwise = get_tags(estimator).input_tags.pairwise  # X is K(X, X): its columns too
    X = X[np.ix_(rows, rows)] if pairwise else X[rows]
    return X, np.asarray(y)[rows], np.asarray(sample_weight)[rows]


def _output_labels(classes, y):
    """The +-1 labels of each output: one for two classes (positive
    ``classes[1]``), one per class for one-vs-rest."""
    if len(classes) == 2:
        return [np.where(y == classes[1], 1.0, -1.0)]
    return [np.where(y == c, 1.0, -1.0) for c in classes]


class _PlattProbabilities:
    """``probability`` for a classifier with ``decision_function``,
    ``classes_``, a ``probability`` parameter and SVMs in ``_svms``:
    ``predict_proba`` and ``predict_log_proba`` through Platt sigmoids
    (attributes ``probA_``, ``probB_``: one per output). Training calls
    :meth:`_forget_probability` (partial_fit leaves no sigmoids: they
    belonged to the model before it), fit checks :meth:`_check_probability_classes`
    before training and ends with :meth:`_fit_probability`. A subclass with
    probabilities of its own (the logistic loss) overrides
    :meth:`_own_probabilities` (None: none)."""

    def _own_probabilities(self, X):
        return None

    def _has_own_probabilities(self):
        return False

    def _forget_probability(self):
        """The model is about to change: its sigmoids no longer apply."""
        self.__dict__.pop("probA_", None)
        self.__dict__.pop("probB_", None)

    def _check_probability_classes(self, y, weights):
        """fit, before training: when ``probability``, :func:`check_classes`
        and :func:`check_weighted_classes` (``weights``: the examples'
        weights, sample_weight times the class weights, or None), so that a
        class of one example, or of one with positive weight, is refused
        before training, not by a fold's fit after it."""
        if self.probability:
            check_classes(y)
            check_weighted_classes(self.classes_, y, weights)

    def _fit_probability(self, X, y, sample_weight):
        """fit's end: the sigmoids when ``probability`` (else none); self."""
        self._forget_probability()
        if self.probability:
            X, y, sample_weight = _weighted_rows(self, X, y, sample_weight)
            scores = held_out_scores(self, X, y, sample_weight, folds_of(self, y))
            sigmoids = [fit_platt(scores[:, k], labels)
                        for k, labels in enumerate(_output_labels(self.classes_, y))]
            self.probA_ = np.array([a for a, _ in sigmoids])
            self.probB_ = np.array([b for _, b in sigmoids])
        return self

    def _check_probability(self):
        if self.probability or self._has_own_probabilities():
            return True
        raise AttributeError(f"predict_proba is not available when probability=False "
                             f"(set probability=True: Platt scaling on an internal "
                             f"{PROBABILITY_FOLDS}-fold cross-validation)")

    @available_if(_check_probability)
    def predict_proba(self, X):
        """Class probabilities: Platt's sigmoids of the scores
        (``probability=True``), normalised over the classes for one-vs-rest.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
            Rows sum to 1; columns in the order of ``classes_``.
        """
        check_is_fitted(self)
        if not self.probability:
            return self._own_probabilities(X)
        if not hasattr(self, "probA_"):
            raise NotFittedError("the Platt sigmoids are fitted by fit with probability=True "
                                 "(a fit with probability=False or a partial_fit leaves none); "
                                 "call fit")
        scores = self.decision_function(X)
        return class_probabilities(scores.reshape(scores.shape[0], -1),
                                   list(zip(self.probA_, self.probB_)))

    @available_if(_check_probability)
    def predict_log_proba(self, X):
        """Logarithm of :meth:`predict_proba`.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
        """
        with np.errstate(divide="ignore"):
            return np.log(self.predict_proba(X))
