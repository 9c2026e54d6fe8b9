"""scikit-learn estimators over the linear SVM object.

:class:`LinearSVMClassifier` and :class:`LinearSVMRegressor` wrap
:class:`stochsvm.SVM` in scikit-learn's conventions: ``fit``,
``partial_fit``, ``predict``, ``decision_function``, ``score``,
``sample_weight``, ``class_weight``, ``get_params``/``set_params`` and the
fitted attributes ``coef_``, ``intercept_``, ``classes_``, ``n_iter_`` and
``n_features_in_``.

The objective. With ``n`` training rows and per-example weights ``c_i``
(``sample_weight`` times the class weight), the SVM object minimises ::

    lambda/2 (||w||^2 + (b/B)^2) + 1/n sum_i c_i loss(y_i, <w, x_i> + b)

Give either ``lambda_`` or ``C`` (LIBLINEAR's and scikit-learn's
parameter); ``C`` means ``lambda = 1/(C n)``, which turns the objective into
``1/(C n)`` times ``1/2 ||w~||^2 + C sum_i c_i loss_i``: the problem of
``LinearSVC(C=C, intercept_scaling=B)``. With ``C``, weights and
replication agree (a weight of 2 equals a duplicated row). Neither given
means ``C = 1``.

Multiclass problems are solved one-vs-rest: one binary SVM per class, trained
in ``n_jobs`` threads; threads beyond one per class are split evenly inside
each model (``SVM.set_num_threads``). Training releases the GIL, so the
threads run in parallel; each class's SVM has the same seed and threads
inside a model change no result, so the result does not depend on
``n_jobs``.

Repeated training. ``partial_fit`` runs one epoch (``n`` iterations) per
call and continues the solver's state: the SGD learning-rate schedule, and
SDCA's dual variables when it is given the same data again (a new batch
restarts SDCA's dual variables, and with them its model: SDCA is not a
streaming method). ``k`` calls of ``partial_fit(X, y)`` equal
``fit(X, y)`` with ``max_iter=k, tol=0`` bit for bit, for the same
``random_state``. ``warm_start=True`` makes ``fit`` continue the same way for
``max_iter`` more epochs.

Renamed parameters: ``random_state`` and ``max_iter`` were ``seed`` and
``max_epochs``; the old names are deprecated aliases (a FutureWarning) until
0.2.0.
"""

import json
import os
import warnings

import numpy as np
import scipy.sparse as sp
from scipy.special import expit
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin
from sklearn.utils.class_weight import compute_class_weight
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import _check_sample_weight, check_is_fitted
from sklearn.utils.validation import validate_data as _sklearn_validate_data

from stochsvm import _solvers, _svm, model_file
from stochsvm._cancel import map_cancellable
from stochsvm._probability import _PlattProbabilities
from stochsvm._progress import estimator_progress
from stochsvm._solvers import CLASSIFICATION_LOSSES, REGRESSION_LOSSES
from stochsvm._stopped_fit import Trainings
from stochsvm._svm import _T0_SOLVERS, SVM, _finite_scores
from stochsvm._validation import (DEPRECATED, RenamedParams, check_C_or_lambda, deprecated_alias,
                                  integer, lambda_of, options, random_states, real,
                                  seed_of)
from stochsvm._warm import SvmParams, TrainingData
from stochsvm.calibration import log_platt_probability, normalise_logs
from stochsvm.svm import (_report_training, _scale_alternative, _scale_note, _stop_reasons,
                          _zero_objective)

__all__ = ["LinearSVMClassifier", "LinearSVMRegressor", "LINEAR_SOLVERS"]

#: Linear solvers usable by the estimators (:mod:`stochsvm._solvers`).
LINEAR_SOLVERS = _solvers.LINEAR


def validate_data(estimator, X="no_validation", y="no_validation", **kwargs):
    """scikit-learn's ``validate_data``, with one-line errors naming the
    argument where numpy's, Python's or scikit-learn's would not: a ragged
    nested list (X or y), X of one dimension (an empty list included), and
    class labels of types that cannot be compared (``["a", 1]``)."""
    for name, value in (("X", X), ("y", y)):
        if isinstance(value, (list, tuple)):
            _svm._as_numeric_array(value, name)
    try:
        out = _sklearn_validate_data(estimator, X, y, **kwargs)
    except ValueError as exc:
        if str(exc).startswith("Expected 2D array"):
            raise ValueError(f"X must be a 2-D array (n_samples, n_features). {exc}") from None
        raise
    labels = out[1] if isinstance(out, tuple) else None
    if labels is not None and labels.dtype == object:
        try:
            np.unique(labels)
        except TypeError:
            kinds = sorted({type(v).__name__ for v in labels})
            raise TypeError(f"y mixes labels that cannot be compared ({', '.join(kinds)}); "
                            f"give labels of one type (all strings or all numbers)") from None
    return out


class _SampleWeights:
    """sample_weight checking, shared by the linear and kernel estimators."""

    def _sample_weights(self, X, sample_weight):
        """Checked non-negative float64 sample weights, or None."""
        if sample_weight is None:
            return None
        weights = _check_sample_weight(sample_weight, X, dtype=np.float64)
        if np.any(weights < 0):
            raise ValueError("sample_weight must be >= 0")
        return weights


class _ClassWeights(_SampleWeights):
    """class_weight (None, a dict or "balanced", also over the examples seen
    by partial_fit so far) times sample_weight, for the classifiers with a
    ``class_weight`` parameter and a ``classes_`` attribute."""

    def _class_index(self, y):
        """The position of each label of ``y`` in ``classes_``."""
        return np.searchsorted(self.classes_, y)

    def _example_weights(self, X, y, index, sample_weight, counts=None):
        """sample_weight times the class weights, or None when all are 1;
        ``index`` is :meth:`_class_index` of ``y``."""
        weights = self._sample_weights(X, sample_weight)
        cw = self.class_weight
        if cw is not None:
            if isinstance(cw, str) and cw == "balanced" and counts is not None:
                # partial_fit: balanced over the examples seen so far
                seen = counts > 0
                per_class = np.zeros(len(self.classes_))
                per_class[seen] = counts.sum() / (seen.sum() * counts[seen])
            else:
                per_class = compute_class_weight(cw, classes=self.classes_, y=y)
            class_w = per_class[index]
            weights = class_w if weights is None else weights * class_w
        return weights

    def _fit_weights(self, X, y, sample_weight):
        """fit's weights (:meth:`_example_weights`), refused when they leave
        fewer than 2 classes with positive weight (the SVM would see one class
        and say nothing); a class weighted 0 among 3 or more is never
        predicted, with a warning."""
        index = self._class_index(y)
        weights = self._example_weights(X, y, index, sample_weight)
        if weights is None:
            return None
        total = np.bincount(index, weights=weights, minlength=len(self.classes_))
        weighted = self.classes_[total > 0]
        if len(weighted) < 2:
            raise ValueError(f"sample_weight and class_weight leave positive weight on "
                             f"{len(weighted)} class{'' if len(weighted) == 1 else 'es'} "
                             f"({', '.join(repr(c) for c in weighted.tolist())}); the SVM needs "
                             f"examples of at least 2 classes with weight > 0")
        if len(weighted) < len(self.classes_):
            unweighted = [c for c in self.classes_[total == 0].tolist()]
            warnings.warn(f"sample_weight and class_weight give the classes {unweighted!r} a "
                          f"total weight of 0: they are never predicted", UserWarning,
                          stacklevel=3)
        return weights

    def _partial_fit_weights(self, X, y, sample_weight):
        """partial_fit's weights: counts the classes seen so far (reset by fit)."""
        if getattr(self, "_class_counts", None) is None:
            self._class_counts = np.zeros(len(self.classes_))
        index = self._class_index(y)
        self._class_counts += np.bincount(index, minlength=len(self.classes_))
        return self._example_weights(X, y, index, sample_weight, counts=self._class_counts)


#: scikit-learn's parameter constraints shared by the estimators (the
#: regularization, the renamed parameters, threads).
COMMON_CONSTRAINTS = {
    "C": [real(0), None],
    "lambda_": [real(0), None],
    "tol": [real(0, closed="left")],
    "random_state": random_states(),
    "seed": [integer(0), None, deprecated_alias()],
    "warm_start": ["boolean"],
    "n_jobs": [integer(1), integer(None, -1), None],
    "class_weight": [dict, options("balanced"), None],
    "verbose": ["verbose"],
}


#: A partial_fit call within the first epoch warns of an objective above this
#: many times the zero model's (SGD's first epoch on unbalanced blobs: 1.03).
_FIRST_EPOCH_SLACK = 10.0


def epochs_to_iterations(epochs, n):
    """The iteration cap of ``epochs`` epochs of n examples, at most the
    2^62 (of the 2^63 - 1 the C core counts, leaving a warm start room for
    more): a larger max_iter means no cap."""
    return min(int(epochs) * int(n), 2**62)


def print_training(estimator, stats):
    """The ``verbose`` line of one trained SVM."""
    backoffs = stats.get("num_step_backoffs", 0)
    print(f"[{type(estimator).__name__}] epoch {stats['epoch']}: objective "
          f"{stats['objective']:.6g}, status {stats['status']}"
          + (f", {backoffs} step back-off{'s' if backoffs > 1 else ''}" if backoffs else ""))


def _steps_scale(X, weights, B, lam):
    """C max_i c_i (||x_i||^2 + B^2), C = 1/(lambda n): the A of SDCA's
    largest coordinate step (sdca.c), in whose units its steps move; the
    epochs SDCA needs grow with it (bench/results/linear_sdca_unscaled.md)."""
    n = X.shape[0]
    if n == 0:
        return 0.0
    if sp.issparse(X):
        squares = sp.csr_matrix((np.square(X.data, dtype=np.float64), X.indices, X.indptr),
                                shape=X.shape)
        norms2 = np.asarray(squares.sum(axis=1)).ravel()
    else:
        norms2 = np.einsum("ij,ij->i", X, X, dtype=np.float64)
    norms2 = norms2 + B * B
    if weights is not None:
        norms2 = norms2 * weights
    return float(np.max(norms2)) / (lam * n)


class _LinearSVMBase(SvmParams, RenamedParams, _SampleWeights, BaseEstimator):
    """What the classifier and the regressor share: parameters, validation,
    the SVM objects and their training."""

    _losses = ()
    _renamed = {"random_state": "seed", "max_iter": "max_epochs"}
    # What _new_svm makes the SVMs with (stochsvm._warm: a warm fit after a change starts afresh).
    _SVM_PARAMS = ("solver", "loss", "bias_multiplier", "bias_learning_rate", "t0", "eps0",
                   "shrinking", "random_state")
    _parameter_constraints = {
        **COMMON_CONSTRAINTS,
        "solver": [options(*LINEAR_SOLVERS)],
        "bias_multiplier": [real(0, closed="left")],
        "bias_learning_rate": [real(0), None],
        "t0": [real(1), None],
        "eps0": [real(0), None],
        "max_iter": [integer(1), None],
        "max_epochs": [integer(1), deprecated_alias()],
        "shrinking": ["boolean"],
        "tol": [real(0, closed="left"), None],
    }

    def __init__(self, *, solver="sdca", loss=None, C=None, lambda_=None,
                 bias_multiplier=1.0, bias_learning_rate=None, t0=None, max_iter=None,
                 tol=None, random_state=0, warm_start=False, shrinking=True, verbose=0,
                 seed=DEPRECATED, max_epochs=DEPRECATED, eps0=None):
        self.solver = solver
        self.loss = loss
        self.C = C
        self.lambda_ = lambda_
        self.bias_multiplier = bias_multiplier
        self.bias_learning_rate = bias_learning_rate
        self.t0 = t0
        self.eps0 = eps0
        self.max_iter = max_iter
        self.tol = tol
        self.random_state = random_state
        self.warm_start = warm_start
        self.shrinking = shrinking
        self.verbose = verbose
        self.seed = seed
        self.max_epochs = max_epochs

    # -- parameters ----------------------------------------------------------

    def _check_params(self):
        """scikit-learn's parameter validation, then the rules across parameters."""
        self._validate_params()
        check_C_or_lambda(self.C, self.lambda_)
        self._check_renamed()

    def _loss(self):
        """The loss in force: ``loss``, or for None the default of the task
        (``_losses[0]``), the squared hinge for the solvers that need a
        differentiable loss (RES, LRES)."""
        if self.loss == "squared_hinge":  # scikit-learn's name (LinearSVC)
            return "hinge2"
        if self.loss is not None:
            return self.loss
        if self._losses[0] == "hinge":
            return _solvers.get("linear", self.solver).default_loss
        return self._losses[0]

    def _tol(self):
        """The stopping threshold in force: ``tol``, or for None the solver's
        default with the loss in force (SDCA's depends on it: 5e-4 for the
        hinge and l1 losses, 1e-8 for the others; 1e-3 for the other
        solvers; docs/stopping.rst)."""
        if self.tol is not None:
            return float(self.tol)
        return _solvers.get("linear", self.solver).default_tol_for(self._loss())

    def _lambda_for(self, n):
        return lambda_of(self.lambda_, self.C, n)

    def _new_svm(self, X, y_binary, lam, seed):
        svm = SVM(X, y_binary, lam, solver=self.solver, seed=seed,
                  loss=self._loss())
        svm.set_bias_multiplier(float(self.bias_multiplier))
        if self.bias_learning_rate is not None:
            svm.set_bias_learning_rate(float(self.bias_learning_rate))
        # Per-solver knobs are set only on their solver (the object refuses others).
        if self.t0 is not None and self.solver in _T0_SOLVERS:
            svm.set_t0(float(self.t0))
        if self.eps0 is not None and self.solver in ("res", "lres"):
            svm.set_res_eps0(float(self.eps0))
        if self.solver == "sdca":
            svm.set_shrinking(bool(self.shrinking))
        return svm

    # -- input ---------------------------------------------------------------

    def _validate_X(self, X, reset):
        return validate_data(self, X, accept_sparse="csr", dtype=(np.float64, np.float32),
                             order="C", reset=reset)

    def _validate_Xy(self, X, y, reset):
        return validate_data(self, X, y, accept_sparse="csr", dtype=(np.float64, np.float32),
                             order="C", y_numeric=not self._is_classifier(), reset=reset)

    @classmethod
    def _is_classifier(cls):
        return issubclass(cls, ClassifierMixin)

    # -- training --------------------------------------------------------------

    def _train_all(self, jobs, n_jobs, cold):
        """Run ``svm.train()`` for each (svm, iterations, epsilon) in ``jobs``,
        in up to n_jobs threads (each train releases the GIL). If that
        raises (Ctrl+C), the estimator is left unfitted (``cold``: a fresh
        fit) or fitted with the SVMs as they stand (stochsvm._stopped_fit)."""
        self._forget_probability()
        progress = estimator_progress(self, [job[0] for job in jobs], [job[1] for job in jobs])
        trainings = Trainings(job[0] for job in jobs)

        def run(job):
            svm, iterations, epsilon = job
            svm.set_max_num_iterations(iterations)
            svm.set_epsilon(epsilon)
            start = svm.get_iteration_number()
            stats = svm.train()
            stats["iterations_this_call"] = svm.get_iteration_number() - start
            if self.verbose and not progress.drawing:
                print_training(self, stats)
            return trainings.finished(svm, stats)

        # n_jobs beyond one per problem goes to threads inside each model
        # (its order-free passes: diagnostics; bit-identical for any count).
        workers = _effective_n_jobs(n_jobs, len(jobs))
        threads = _effective_n_jobs(n_jobs, 1 << 20) // workers
        for svm, _, _ in jobs:
            svm.set_num_threads(threads)
        try:
            with progress:
                return map_in_threads(progress.track(run, svm_of=lambda job: job[0]), jobs, n_jobs)
        except BaseException as exc:
            trainings.stopped(self, cold, lambda stats: self._after_training(stats, None), exc)
            raise

    def _forget_probability(self):
        """The classifier's Platt sigmoids, if any, no longer apply (stochsvm._probability)."""

    def _after_training(self, stats, X, problems=None, weights=None, partial=False):
        """Record the fit (coef_, n_iter_) on ``X``; with ``problems`` (the
        label vectors, one per SVM), report how the training ended: fit's
        whole report, or for a ``partial`` call (one epoch, no stopping
        test) its divergence checks only."""
        self._stats = stats
        self.stop_reasons_ = _stop_reasons(stats)
        # Epochs of this call (the iteration number itself runs on across
        # partial_fit and warm-started fit calls), as scikit-learn's n_iter_.
        n = max(svm.get_num_data() for svm in self._svms)
        self.n_iter_ = int(max(-(-s["iterations_this_call"] // n) for s in stats)) if n else 0
        coef = np.vstack([svm.get_model() for svm in self._svms])
        intercept = np.array([svm.get_bias() for svm in self._svms])
        self._set_coef(coef, intercept)
        if problems is not None:
            zeros = [_zero_objective(yb, self._loss(), weights) for yb in problems]
            if partial:
                # The first epoch's large steps may end a little above the
                # zero model (the run driver leaves them an epoch to settle
                # before it backs off): there only far above it warns.
                n = X.shape[0]
                zeros = [z if s["iteration"] > n or s["objective"] > _FIRST_EPOCH_SLACK * z
                         else None for s, z in zip(stats, zeros)]
                _report_training(type(self).__name__, list(zip(stats, zeros)), tol=0.0,
                                 cap=("max_iter", 1), fix=self._partial_fit_fix(),
                                 stopping_rule=None)
                return
            fix, cap_fix = self._divergence_fix(), self._cap_fix()
            backoffs = max(s.get("num_step_backoffs", 0) for s in stats)
            if backoffs:
                step = "eps0" if self.solver in ("res", "lres") else "t0"
                note = (f" (the steps were backed off {backoffs} time{'s' if backoffs > 1 else ''}"
                        f": at the default {step} the objective rose above the zero model's or "
                        f"went non-finite, and training restarted from w = 0 with shorter "
                        f"steps)")
                fix, cap_fix = fix + note, (cap_fix or "increase max_iter (or tol)") + note
            alternative = _scale_alternative(self.solver, self.loss)
            _report_training(type(self).__name__, list(zip(stats, zeros)), tol=self._tol(),
                             cap=("max_iter", self._cap_text()), fix=fix, cap_fix=cap_fix,
                             stopping_rule=_solvers.get("linear", self.solver).stopping_rule,
                             scale_note=lambda: _scale_note(X, alternative))

    def _max_iter(self, X):
        """The epoch cap in force (None: the solver's default, max_iter
        epochs or the epochs of its min_work, whichever is more)."""
        max_iter = self._param("max_iter")
        if max_iter is not None:
            return int(max_iter)
        return _solvers.get("linear", self.solver).default_epochs_on(X, self._loss())

    def _cap_text(self):
        """The cap as the warnings name it: the value given, or None and the
        epochs it meant."""
        if self._param("max_iter") is not None:
            return self._param("max_iter")
        return f"None ({self._cap} epochs)"

    def _sdca_epochs_note(self):
        """Why SDCA may need many epochs, with this fit's C max ||x_i||^2."""
        return (f"SDCA needs more epochs the larger C max ||x_i||^2 is (here "
                f"{self._steps_scale:.3g}; standardized features give about C n_features): "
                f"scale the features (e.g. sklearn.preprocessing.StandardScaler) or lower C")

    def _cap_fix(self):
        """The advice of a stop on the cap (None: _report_training's own)."""
        if self.solver == "sdca":
            return f"increase max_iter (or tol); {self._sdca_epochs_note()}"
        return None

    def _divergence_fix(self):
        if self.solver == "sdca":
            return ("increase max_iter (SDCA's primal model is poor until its dual converges); "
                    f"{self._sdca_epochs_note()}")
        return ("scale the features (e.g. sklearn.preprocessing.StandardScaler), or use "
                "solver='sdca', which needs no step size")

    def _partial_fit_fix(self):
        """The advice of a partial_fit call whose model diverged."""
        start = ("partial_fit takes one epoch per call and no step back-off (fit restarts a "
                 "diverging run with shorter steps): ")
        scale = ("scale the features (e.g. sklearn.preprocessing.StandardScaler, whose "
                 "partial_fit also learns from batches)")
        if self.solver in ("res", "lres"):
            # Their steps can overshoot on standardized data too: the step is the knob.
            eps0 = self._svms[0].get_res_eps0() if getattr(self, "_svms", None) else 0.1
            return (f"{start}set a smaller eps0 (shorter steps; eps0={eps0:g} now), {scale}, "
                    f"train with fit, or use solver='sgd' or 'svmsgd2'")
        shorter = ", or set a larger t0 (shorter steps)" if self.solver in _T0_SOLVERS else ""
        return f"{start}{scale}{shorter}, or train with fit"

    def _install(self, X, problems, weights, lam, continue_state):
        """Create (or give new data to) one SVM per label vector in
        ``problems``; ``lam`` None keeps the SVMs' lambda."""
        if not continue_state:
            seed = seed_of(self._param("random_state"))
            self._svms = [self._new_svm(X, yb, lam, seed) for yb in problems]
            self._remember_svm_params()
        else:
            for svm, yb in zip(self._svms, problems):
                svm.set_data(X, yb)
                if lam is not None:
                    svm.set_lambda(lam)
        for svm in self._svms:
            if weights is not None:
                svm.set_weights(weights)

    def _fit_problems(self, X, y, problems, weights, warm):
        """fit's training: max_iter epochs (or until tol), from the previous
        state when warm."""
        n = X.shape[0]
        data = TrainingData(X, problems, weights)
        if warm and self._changed_svm_params():
            warm = False   # the SVMs were made for another solver, loss, ...: start afresh
        if not (warm and data == getattr(self, "_last_data", None)):
            self._install(X, problems, weights, self._lambda_for(n), continue_state=warm)
            self._last_data = data   # (kept when equal: the arrays the SVMs borrow)
        else:
            lam = self._lambda_for(n)    # a new C (or lambda_) on the same data
            for svm in self._svms:
                if svm.get_lambda() != lam:
                    svm.set_lambda(lam)
        self._cap = self._max_iter(X)
        # The Newton finish (docs/stopping.rst): on under the default cap,
        # which fit passes as a number; "auto" (for the primal solvers and
        # SDCA's hinge: off under a cap the object was given) when the user
        # chose max_iter, a cheap rough model as asked. SDCA's smooth losses
        # hand over under any cap.
        mode = True if self._param("max_iter") is None else "auto"
        for svm in self._svms:
            svm.set_newton_fallback(mode)
        if self.solver == "sdca":  # (named by its warnings)
            self._steps_scale = _steps_scale(X, weights, float(self.bias_multiplier),
                                             self._svms[0].get_lambda())
        stats = self._train_all([(svm, epochs_to_iterations(self._cap, n), self._tol())
                                 for svm in self._svms], getattr(self, "n_jobs", None),
                                cold=not warm)
        self._after_training(stats, X, problems, weights)
        return self

    def _partial_fit_problems(self, X, y, problems, weights, first):
        """partial_fit's training: one epoch, continuing the state."""
        n = X.shape[0]
        data = TrainingData(X, problems, weights)
        changed = [] if first else self._changed_svm_params(self._SVM_PARAMS + self._LAMBDA_PARAMS)
        if changed:
            self._refuse_changed_params(changed)
        if first:
            self._install(X, problems, weights, self._lambda_for(n), continue_state=False)
            self._last_data = data
        elif data != getattr(self, "_last_data", None):
            if self.solver == "sdca":
                warnings.warn("partial_fit with solver='sdca' on new data restarts the dual "
                              "variables, and the model, from 0 (SDCA is not a streaming "
                              "method; use solver='sgd' to learn from batches)", UserWarning)
            self._install(X, problems, weights, None, continue_state=True)
            self._last_data = data
        stats = self._train_all([(svm, n, 0.0) for svm in self._svms],
                                getattr(self, "n_jobs", None), cold=first)
        # SDCA's primal model may sit above the zero model's until its dual
        # converges: only the step-size solvers diverge.
        self._after_training(stats, X, None if self.solver == "sdca" else problems, weights,
                             partial=True)
        return self

    def __sklearn_is_fitted__(self):
        # lambda_ is a parameter, not a fitted attribute: decide on coef_.
        return hasattr(self, "coef_")

    def __getstate__(self):
        state = self.__dict__.copy()
        # The training data are referenced, not owned: never pickle them.
        state.pop("_last_data", None)
        return state

    # -- model files (stochsvm.model_file) ---------------------------------------

    def _to_model_file(self):
        """The model dict :func:`stochsvm.model_file.save_model` writes."""
        if not hasattr(self, "coef_"):
            raise ValueError(f"{type(self).__name__} is not fitted: call fit before saving it")
        svms = getattr(self, "_svms", [])
        meta = model_file.estimator_metadata(
            self, iteration_numbers=[int(s.get_iteration_number()) for s in svms])
        d = {"kind": "linear", "dimension": self.n_features_in_,
             "loss": model_file.LOSS_CODES[self._loss()],
             "lambda": svms[0].get_lambda() if svms else 0.0,
             "bias_multiplier": float(self.bias_multiplier), **self._model_file_outputs(meta)}
        d["metadata"] = json.dumps(meta)
        return d

    @classmethod
    def _from_model_file(cls, d, meta):
        """The fitted estimator of a decoded model file: it predicts, and its
        SVMs (without data) continue training with partial_fit."""
        est = model_file.restore_estimator(cls, d, meta)
        est._check_params()
        est._restore_outputs(d, meta)
        iterations = (model_file.metadata_numbers(meta, "iteration_numbers", len(d["biases"]),
                                                  integers=True) or [0] * len(d["biases"]))
        if d["lambda"] > 0:
            est._svms = [_svm._restore_svm({
                "solver": est.solver, "dimension": d["dimension"], "lambda": d["lambda"],
                "epsilon": est._tol(), "bias_multiplier": d["bias_multiplier"],
                "bias_learning_rate": est.bias_learning_rate or 1.0, "t0": est.t0,
                "loss": model_file._LOSS_NAMES[d["loss"]], "seed": est._param("random_state") or 0,
                "shrinking": est.shrinking, "model": w, "bias": b, "iteration_number": t})
                for w, b, t in zip(d["weights"], d["biases"], iterations)]
            if est.eps0 is not None and est.solver in ("res", "lres"):
                for svm in est._svms:
                    svm.set_res_eps0(float(est.eps0))
            est._remember_svm_params()
        return est


#: Rows per block of :func:`_linear_scores` on float32 data: float64
#: temporaries of about 4 MB at d = 64.
_SCORE_BLOCK_ROWS = 8192


def _linear_scores(X, W):
    """``X @ W`` as float64 (W float64 of shape (d,) or (d, k)), without a float64 copy
    of float32 X: NumPy and SciPy would convert all of X before multiplying,
    so float32 X is multiplied block of rows by block of rows (never a
    block of one row, which BLAS sums in another order). An overflow is
    left to the callers (inf or NaN: _finite_scores says which row)."""
    with np.errstate(over="ignore", invalid="ignore"):
        return _scores_of_blocks(X, W)


def _scores_of_blocks(X, W):
    if X.dtype == np.float64:
        return np.asarray(X @ W, dtype=np.float64)
    n = X.shape[0]
    out = np.empty((n,) + W.shape[1:])
    bounds = list(range(0, n, _SCORE_BLOCK_ROWS)) + [n]
    if len(bounds) > 2 and bounds[-1] - bounds[-2] == 1:
        del bounds[-2]      # the last row joins the block before it
    for lo, hi in zip(bounds[:-1], bounds[1:]):
        out[lo:hi] = X[lo:hi] @ W
    return out


def map_in_threads(fn, items, n_jobs):
    """``[fn(item) for item in items]`` in up to ``n_jobs`` threads (training
    releases the GIL, so one SVM per thread runs in parallel)."""
    workers = _effective_n_jobs(n_jobs, len(items))
    if workers == 1:
        return [fn(item) for item in items]
    # Ctrl+C, or a job's error, stops the trainings still running (stochsvm._cancel)
    return map_cancellable(fn, items, workers=workers)


def _effective_n_jobs(n_jobs, tasks):
    if n_jobs is None:
        n = 1
    elif n_jobs < 0:
        n = max(1, (os.cpu_count() or 1) + 1 + n_jobs)
    else:
        n = n_jobs
    return max(1, min(n, tasks))


class _ScoresToClasses:
    """predict() from decision_function() for binary and one-vs-rest classifiers."""

    def predict(self, X):
        """Class labels: the class of the largest score (one-vs-rest).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples,)
        """
        scores = self.decision_function(X)
        if scores.ndim == 1:
            return self.classes_[(scores > 0).astype(int)]
        return self.classes_[np.argmax(scores, axis=1)]


@model_file.register("linear", ("binary", "one_vs_rest"))
class LinearSVMClassifier(_PlattProbabilities, _ScoresToClasses, ClassifierMixin, _ClassWeights,
                          _LinearSVMBase):
    """Linear SVM classifier trained by a stochastic solver (scikit-learn API).

    Parameters
    ----------
    solver : str, default="sdca"
        One of :data:`LINEAR_SOLVERS` (the solvers of :class:`stochsvm.SVM`).
        ``"sdca"``: stochastic dual coordinate ascent, stops when the duality
        gap is below ``tol``. ``"sgd"``: Pegasos-style SGD, stops when the
        variation of the scores over an epoch is below ``tol``.
    loss : {"hinge", "hinge2", "logistic"} or None, default=None
        ``max(0, 1 - y s)``, its square, or ``log(1 + exp(-y s))``.
        ``"squared_hinge"`` (scikit-learn's ``LinearSVC`` name) is
        ``"hinge2"``.
        None means ``"hinge"``, except for the solvers that need a
        differentiable loss (``"res"``, ``"lres"``), where it means
        ``"hinge2"``. ``predict_proba`` needs the logistic loss or
        ``probability=True``.
    C : float > 0, default=None
        Inverse regularization as in LIBLINEAR: ``lambda = 1/(C n)``. If
        neither ``C`` nor ``lambda_`` is given, ``C = 1``.
    lambda_ : float > 0, default=None
        The regularization constant of the SVM object, used as is.
    bias_multiplier : float >= 0, default=1.0
        ``B``: the bias is the weight of a constant feature ``B``, regularized
        like ``w`` (LIBLINEAR's ``-B``, scikit-learn's ``intercept_scaling``).
        0 fits no intercept.
    bias_learning_rate : float > 0, default=None
        SGD: scale of the bias feature's steps (None: the object's default, 1).
    t0 : float > 1, default=None
        SGD: offset of the step size ``1/(lambda (t + t0))`` (None: the
        object's default, see :meth:`stochsvm.SVM.set_t0`).
    eps0 : float > 0, default=None
        RES and LRES: initial step of ``eps_t = eps0 tau / (tau + t)`` (None:
        the object's default 0.1, which ``fit`` backs off from when a run
        diverges; a value given here is kept, see
        :meth:`stochsvm.SVM.set_res_eps0`). ``partial_fit`` has no back-off:
        where its steps overshoot, a smaller ``eps0`` is the remedy.
    max_iter : int >= 1 or None, default=None
        Passes over the data (epochs) ``fit`` may make (per class). None:
        100, and for ``solver`` ``"sgd"``, ``"svmsgd2"`` and ``"sgdqn"`` at
        least the epochs that make 3e7 units of work (stored values of ``X``
        plus one per row, per epoch; every set of 3e5 stored values or more
        keeps 100), for ``"sdca"`` 4e7 (4e5), and for ``"sdca"`` with the
        hinge loss at least 1000: small, badly scaled sets, and the
        step-size solvers at large C, need thousands of epochs, and SDCA's
        shrunk hinge epochs are cheap next to the Newton finish that takes
        over at the cap (see :doc:`stopping`).
    tol : float >= 0 or None, default=None
        Stopping tolerance checked after every epoch (see ``solver``); 0 runs
        ``max_iter`` epochs. A ``ConvergenceWarning`` says when ``fit``
        stopped at ``max_iter`` first. None: the solver's default, for
        ``"sdca"`` one per loss, the relative duality gap 5e-4 with the
        hinge loss and 1e-8 with the squared hinge and logistic losses (the
        C object's default epsilon: a hinge gap falls slowly, a smooth
        loss's a decade in a few epochs; see :doc:`stopping`), 1e-3 for the
        other solvers.
    random_state : int >= 0, None, numpy RandomState or Generator, default=0
        Seed of the visiting order (each class's SVM uses it). None is seed
        0; a ``RandomState`` or ``Generator`` gives a seed drawn from it at
        each ``fit`` (as scikit-learn's estimators do).
    warm_start : bool, default=False
        ``fit`` continues from the previous fit's state (same classes and
        features) instead of starting again; a new ``C`` applies, a change of
        the solver, loss or another parameter the SVMs are made with starts
        afresh (docs/estimators.rst).
    shrinking : bool, default=True
        SDCA: skip examples stuck at a bound (hinge and squared hinge).
    class_weight : dict, "balanced" or None, default=None
        Multiplies each example's weight by its class's weight. "balanced"
        uses ``n / (n_classes * count(class))``; with ``partial_fit`` the
        counts accumulate over the calls.
    n_jobs : int, default=None
        Threads for one-vs-rest training (None: 1; -1: all CPUs); what is
        left beyond one per binary problem is split evenly inside each model
        (``SVM.set_num_threads``: its diagnostic passes).
    verbose : int, default=0
        Show the progress of fit (a tqdm bar, redrawn during the epochs),
        or without tqdm print a line per trained SVM.
    probability : bool, default=False
        Fit Platt sigmoids on the scores of an internal 5-fold
        cross-validation (stratified, seeded by ``random_state``; five more
        fits) for :meth:`predict_proba`, as ``SVC(probability=True)``;
        multiclass by normalised one-vs-rest (docs: "Probabilities"). With
        the logistic loss and ``probability=False``, ``predict_proba`` is the
        sigmoid of the scores.
    seed, max_epochs : deprecated
        The former names of ``random_state`` and ``max_iter`` (until 0.2.0;
        a FutureWarning, and a ValueError next to the new name).

    Attributes
    ----------
    coef_ : ndarray of shape (1, n_features) or (n_classes, n_features)
    intercept_ : ndarray of shape (1,) or (n_classes,)
    classes_ : ndarray of shape (n_classes,)
    n_iter_ : int
        Epochs run by the longest-running class in the last call.
    stop_reasons_ : ndarray of str, shape (n_outputs,)
        How the last call's run of each binary problem ended (in
        ``classes_`` order for one-vs-rest; one entry for two classes), a
        status of :meth:`stochsvm.SVM.get_statistics`: ``"converged"``
        (the stopping test on ``tol`` passed), ``"max_iterations"`` (the
        ``max_iter`` cap), ``"diverged"``, ``"interrupted"`` (docs:
        "What every layer reports").
    n_features_in_ : int
    feature_names_in_ : ndarray of str
        Only when ``X`` had string column names.
    probA_, probB_ : ndarray of shape (n_outputs,)
        ``probability=True``: the Platt sigmoid ``1 / (1 + exp(A f + B))`` of
        each output.

    Examples
    --------
    >>> import numpy as np
    >>> from stochsvm import LinearSVMClassifier
    >>> X = np.array([[0.0, 1.0], [1.0, 0.0], [0.0, -1.0], [-1.0, 0.0]])
    >>> y = np.array([1, 1, 0, 0])
    >>> clf = LinearSVMClassifier(C=10.0).fit(X, y)
    >>> clf.predict([[2.0, 2.0], [-2.0, -2.0]]).tolist()
    [1, 0]
    """

    _losses = CLASSIFICATION_LOSSES

    _parameter_constraints = {**_LinearSVMBase._parameter_constraints,
                              "loss": [options(*CLASSIFICATION_LOSSES, "squared_hinge"), None],
                              "probability": ["boolean"]}

    def __init__(self, *, solver="sdca", loss=None, C=None, lambda_=None,
                 bias_multiplier=1.0, bias_learning_rate=None, t0=None, max_iter=None,
                 tol=None, random_state=0, warm_start=False, shrinking=True, class_weight=None,
                 n_jobs=None, verbose=0, probability=False, seed=DEPRECATED, max_epochs=DEPRECATED,
                 eps0=None):
        super().__init__(solver=solver, loss=loss, C=C, lambda_=lambda_,
                         bias_multiplier=bias_multiplier, bias_learning_rate=bias_learning_rate,
                         t0=t0, max_iter=max_iter, tol=tol, random_state=random_state,
                         warm_start=warm_start, shrinking=shrinking, verbose=verbose,
                         seed=seed, max_epochs=max_epochs, eps0=eps0)
        self.class_weight = class_weight
        self.n_jobs = n_jobs
        self.probability = probability

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags

    # -- labels and weights ----------------------------------------------------

    def _binary_problems(self, y):
        """One ±1 label vector per SVM: a single one for two classes."""
        if len(self.classes_) == 2:
            return [np.where(y == self.classes_[1], 1.0, -1.0)]
        return [np.where(y == c, 1.0, -1.0) for c in self.classes_]

    # -- fit ---------------------------------------------------------------------

    def fit(self, X, y, sample_weight=None):
        """Fit the model on (X, y): at most ``max_iter`` epochs per class.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            float32 data stays float32 (no copy when C-contiguous or CSR).
        y : array-like of shape (n_samples,)
            Class labels (at least two classes).
        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative weights (times the class weight); at least 2 classes
            must keep a positive total weight (ValueError otherwise).

        Returns
        -------
        self : LinearSVMClassifier
        """
        self._check_params()
        warm = self.warm_start and hasattr(self, "_svms")
        previous_classes = getattr(self, "classes_", None)
        X, y = self._validate_Xy(X, y, reset=not warm)
        check_classification_targets(y)
        classes = np.unique(y)
        if len(classes) < 2:
            raise ValueError(f"the training data need samples of at least 2 classes; got 1 "
                             f"class ({classes[0]!r})" if len(classes) else "y is empty")
        if warm and not np.array_equal(classes, previous_classes):
            raise ValueError(f"warm_start: the classes {classes.tolist()} differ from those of "
                             f"the previous fit {np.asarray(previous_classes).tolist()}")
        self.classes_ = classes
        weights = self._fit_weights(X, y, sample_weight)
        self._check_probability_classes(y, weights)
        self._class_counts = None
        self._fit_problems(X, y, self._binary_problems(y), weights, warm)
        return self._fit_probability(X, y, sample_weight)

    def partial_fit(self, X, y, classes=None, sample_weight=None):
        """Run one more epoch on (X, y), continuing the solver's state.

        The first call needs ``classes`` (all the classes that will ever be
        seen). Later calls continue the learning-rate schedule (SGD) and, on
        the same data, the dual variables (SDCA). ``k`` calls on the same data
        equal ``fit`` with ``max_iter=k, tol=0`` (where ``fit`` takes no step
        back-off). A call whose model scores worse than ``w = 0`` on (X, y)
        (steps too long: partial_fit does not back off) warns with
        ``ConvergenceWarning`` naming the fix (docs/stopping.rst).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
        classes : array-like of shape (n_classes,), default=None
            Required on the first call, ignored (if equal) afterwards.
        sample_weight : array-like of shape (n_samples,), default=None

        Returns
        -------
        self : LinearSVMClassifier
        """
        first = not hasattr(self, "_svms")
        if first:
            self._check_params()
            if classes is None:
                raise ValueError("classes must be given on the first call to partial_fit")
        X, y = self._validate_Xy(X, y, reset=first)
        check_classification_targets(y)
        if first:
            all_classes = np.unique(np.asarray(classes))
            if len(all_classes) < 2:
                raise ValueError("classes must hold at least 2 classes")
            self.classes_ = all_classes
        elif classes is not None and not np.array_equal(np.unique(classes), self.classes_):
            raise ValueError(f"classes {np.unique(classes).tolist()} differ from those of the "
                             f"first partial_fit call {self.classes_.tolist()}")
        unknown = np.setdiff1d(np.unique(y), self.classes_)
        if unknown.size:
            raise ValueError(f"y holds classes {unknown.tolist()} not in classes "
                             f"{self.classes_.tolist()}")
        weights = self._partial_fit_weights(X, y, sample_weight)
        return self._partial_fit_problems(X, y, self._binary_problems(y), weights, first)

    def _set_coef(self, coef, intercept):
        self.coef_ = coef
        self.intercept_ = intercept

    def _model_file_outputs(self, meta):
        labels, meta["classes"] = model_file.labels_for_file(self.classes_)
        counts = getattr(self, "_class_counts", None)
        meta["class_counts"] = None if counts is None else counts.tolist()
        return {"task": "binary" if len(labels) == 2 else "one_vs_rest", "labels": labels,
                "weights": self.coef_, "biases": self.intercept_}

    def _restore_outputs(self, d, meta):
        self.coef_ = d["weights"]
        self.intercept_ = d["biases"]
        counts = model_file.metadata_numbers(meta, "class_counts", len(self.classes_))
        self._class_counts = None if counts is None else np.asarray(counts, dtype=np.float64)

    # -- prediction ----------------------------------------------------------

    def decision_function(self, X):
        """Scores ``<w, x> + b``: shape (n_samples,) for two classes (positive
        means ``classes_[1]``), else (n_samples, n_classes).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)

        Returns
        -------
        ndarray
        """
        check_is_fitted(self, "coef_")
        X = self._validate_X(X, reset=False)
        with np.errstate(over="ignore", invalid="ignore"):
            scores = _linear_scores(X, self.coef_.T) + self.intercept_
        scores = _finite_scores(scores)
        return scores.ravel() if scores.shape[1] == 1 else scores

    def _has_own_probabilities(self):
        return self._loss() == "logistic"

    def _own_probabilities(self, X):
        """The logistic loss's probabilities (``probability=False``): the
        sigmoid of the scores, normalised over the classes for one-vs-rest."""
        f = self.decision_function(X)
        if f.ndim == 1:
            p = expit(f)
            return np.column_stack([1 - p, p])
        # log expit(f) = log(1 / (1 + exp(-f))), normalised in logs: rows whose
        # every score lies below about -745 underflowed to 0 / 0 (NaN)
        return normalise_logs(log_platt_probability(f, -1.0, 0.0))


@model_file.register("linear", ("regression",))
class LinearSVMRegressor(RegressorMixin, _LinearSVMBase):
    """Linear support vector regression by a stochastic solver (scikit-learn API).

    The losses are ``|y - s|`` (``"l1"``) and ``(y - s)^2`` (``"l2"``) of the
    score ``s = <w, x> + b``; the parameters and the repeated-training
    semantics are those of :class:`LinearSVMClassifier` (without classes).

    Parameters
    ----------
    solver : str, default="sdca"
        One of :data:`LINEAR_SOLVERS`.
    loss : {"l2", "l1"}, default="l2"
    C : float > 0, default=None
        ``lambda = 1/(C n)``; neither ``C`` nor ``lambda_``: ``C = 1``.
    lambda_ : float > 0, default=None
    bias_multiplier : float >= 0, default=1.0
    bias_learning_rate : float > 0, default=None
    t0 : float > 1, default=None
    eps0 : float > 0, default=None
    max_iter : int >= 1 or None, default=None
        As for :class:`LinearSVMClassifier`.
    tol : float >= 0 or None, default=None
        None: the solver's default, for ``"sdca"`` 5e-4 with ``"l1"`` and
        1e-8 with ``"l2"``, 1e-3 for the other solvers.
    random_state : int >= 0, None, numpy RandomState or Generator, default=0
    warm_start : bool, default=False
        As the classifier's.
    shrinking : bool, default=True
        Has no effect for the regression losses (kept for symmetry).
    verbose : int, default=0
    seed, max_epochs : deprecated
        The former names of ``random_state`` and ``max_iter`` (until 0.2.0).

    Attributes
    ----------
    coef_ : ndarray of shape (n_features,)
    intercept_ : float
    n_iter_ : int
    stop_reasons_ : ndarray of str, shape (1,)
        How the last call's run ended (as :class:`LinearSVMClassifier`'s).
    n_features_in_ : int

    Examples
    --------
    >>> import numpy as np
    >>> from stochsvm import LinearSVMRegressor
    >>> X = np.arange(8.0).reshape(-1, 1)
    >>> reg = LinearSVMRegressor(C=100.0, tol=1e-9, max_iter=1000).fit(X, 2 * X.ravel() + 1)
    >>> np.round(reg.predict([[10.0]]), 1).tolist()
    [21.0]
    """

    _losses = REGRESSION_LOSSES

    _parameter_constraints = {
        **{k: v for k, v in _LinearSVMBase._parameter_constraints.items()
           if k not in ("class_weight", "n_jobs")},
        "loss": [options(*REGRESSION_LOSSES)]}

    def __init__(self, *, solver="sdca", loss="l2", C=None, lambda_=None, bias_multiplier=1.0,
                 bias_learning_rate=None, t0=None, max_iter=None, tol=None, random_state=0,
                 warm_start=False, shrinking=True, verbose=0, seed=DEPRECATED,
                 max_epochs=DEPRECATED, eps0=None):
        super().__init__(solver=solver, loss=loss, C=C, lambda_=lambda_,
                         bias_multiplier=bias_multiplier, bias_learning_rate=bias_learning_rate,
                         t0=t0, max_iter=max_iter, tol=tol, random_state=random_state,
                         warm_start=warm_start, shrinking=shrinking, verbose=verbose,
                         seed=seed, max_epochs=max_epochs, eps0=eps0)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags

    def fit(self, X, y, sample_weight=None):
        """Fit the model on (X, y): at most ``max_iter`` epochs.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
            Finite real targets.
        sample_weight : array-like of shape (n_samples,), default=None

        Returns
        -------
        self : LinearSVMRegressor
        """
        self._check_params()
        warm = self.warm_start and hasattr(self, "_svms")
        X, y = self._validate_Xy(X, y, reset=not warm)
        y = np.asarray(y, dtype=np.float64)
        return self._fit_problems(X, y, [y], self._sample_weights(X, sample_weight), warm)

    def partial_fit(self, X, y, sample_weight=None):
        """Run one more epoch on (X, y), continuing the solver's state.

        A call whose model scores worse than ``w = 0`` on (X, y) warns with
        ``ConvergenceWarning`` (as the classifier's partial_fit).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
        sample_weight : array-like of shape (n_samples,), default=None

        Returns
        -------
        self : LinearSVMRegressor
        """
        first = not hasattr(self, "_svms")
        if first:
            self._check_params()
        X, y = self._validate_Xy(X, y, reset=first)
        y = np.asarray(y, dtype=np.float64)
        return self._partial_fit_problems(X, y, [y], self._sample_weights(X, sample_weight),
                                          first)

    def _set_coef(self, coef, intercept):
        self.coef_ = coef[0]
        self.intercept_ = float(intercept[0])

    def _model_file_outputs(self, meta):
        return {"task": "regression", "labels": None, "weights": self.coef_[None, :],
                "biases": [self.intercept_]}

    def _restore_outputs(self, d, meta):
        self._set_coef(d["weights"], d["biases"])

    def predict(self, X):
        """Predicted targets ``<w, x> + b``.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples,)
        """
        check_is_fitted(self, "coef_")
        X = self._validate_X(X, reset=False)
        with np.errstate(over="ignore", invalid="ignore"):
            scores = _linear_scores(X, self.coef_).ravel() + self.intercept_
        return _finite_scores(scores)
