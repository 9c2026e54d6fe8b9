"""A scikit-learn classifier over the kernel SVM object (:class:`stochsvm.KernelSVM`).

:class:`KernelSVMClassifier` trains one :class:`~stochsvm.KernelSVM` per
binary problem (one for two classes, one-vs-rest for more, in ``n_jobs``
threads: training releases the GIL) with any solver of the object: the
Stochastic Batch Perceptron (``"sbp"``), kernel Pegasos, kernel SDCA or the
online Perceptron. The model of each is ``f(x) = sum_j beta_j K(z_j, x) + b``
over support vectors copied out of the training data.

Regularization: ``C`` means ``lambda = 1/(C n)`` (the problem of
``sklearn.svm.SVC(C=C)`` without its bias, for Pegasos and SDCA), ``lambda_``
is used as is. The SBP solves a slack-constrained problem with a budget
``nu`` per example; by default ``nu`` is derived from ``C`` (``lambda``) so
that the SBP solves the same SVM (:meth:`stochsvm.KernelSVM.estimate_nu`,
docs/kernel.rst), and an explicit ``nu`` is used as given. One epoch is
``n`` iterations (for SBP each costs ``n`` kernel evaluations). ``partial_fit`` runs one epoch
per call and continues the solver's state on the same data, so ``k`` calls
equal ``fit`` with ``max_iter=k, tol=0``; new data restart the state (with a
warning).

Weights: ``sample_weight`` times ``class_weight`` gives each example a weight
``c_i`` and the solvers minimise ``lambda/2 ||w||^2 + 1/n sum_i c_i hinge_i``
(``KernelSVM.set_weights``); with ``C`` an integer weight ``k`` equals ``k``
copies of the row. SBP has no weighted formulation: it takes equal weights
(which leave its problem unchanged) and refuses others. The budgeted solvers ``"bsca"`` and ``"bsgd"`` take ``budget`` and
``budget_maintenance``; the other solvers refuse them.
"""

import math
import warnings

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted

from stochsvm import _kernel_svm, _solvers, model_file
from stochsvm._kernel_attributes import KernelAttributes
from stochsvm._early_stopping import ValidationMonitor, train_watched, validation_split
from stochsvm._kernel_svm import KernelSVM
from stochsvm._validation import (DEPRECATED, RenamedParams, check_C_or_lambda, deprecated_alias,
                                  integer, lambda_of, options, random_states, real,
                                  seed_of)
from stochsvm._probability import _PlattProbabilities
from stochsvm._progress import estimator_progress
from stochsvm._stopped_fit import Trainings
from stochsvm._warm import SvmParams, TrainingData
from stochsvm.linear import (COMMON_CONSTRAINTS, _ClassWeights, _effective_n_jobs, _ScoresToClasses,
                             epochs_to_iterations, map_in_threads, print_training, validate_data)
from stochsvm.svm import (_convergence_warning, _report_training, _scale_note, _stop_reasons,
                          _zero_objective)

__all__ = ["KernelSVMClassifier", "KERNEL_SOLVERS"]

#: Solvers of the kernel SVM object usable here (:mod:`stochsvm._solvers`).
KERNEL_SOLVERS = _solvers.KERNEL
KERNELS = ("rbf", "linear", "poly", "sigmoid", "precomputed")
#: Solvers with a budget of support vectors (``budget``, ``budget_maintenance``).
BUDGET_SOLVERS = _solvers.names("kernel", budget=True)
BUDGET_MAINTENANCES = ("auto", "merge", "remove", "project")
#: Solvers with an unregularized bias (``unregularized_bias``).
_BIAS_SOLVERS = _solvers.names("kernel", bias="unregularized")
#: Solvers that do not minimise the SVM objective at C: the perceptron (no
#: objective) and the SBP while its nu is not derived from C. Their fits are
#: not compared with the objective of the zero model.
_OWN_OBJECTIVE = ("perceptron", "sbp")
#: early_stopping="auto" holds out data for the budgeted solvers above this many rows.
_AUTO_EARLY_STOPPING_ROWS = 10_000


def _variance(X):
    """The variance of all the entries of X (zeros of a sparse X included)
    as ``(v, s)``: X.var() = v s^2 with s = max |x_ij| (s = 0: X is 0), so
    that neither overflows or underflows where X.var() would. Summed in
    float64 over blocks of about 64k values: a float32 X is never copied."""
    n, d = X.shape
    count = n * d
    values = X.data if sp.issparse(X) else X
    if sp.issparse(X):
        blocks = [values[k:k + 65536] for k in range(0, values.size, 65536)]
    else:
        rows = max(1, 65536 // d)
        blocks = [values[k:k + rows] for k in range(0, n, rows)]
    scale = max((float(np.max(np.abs(b))) for b in blocks if b.size), default=0.0)
    if scale == 0 or not np.isfinite(scale):
        return 0.0, scale
    mean = sum(float(np.divide(b, scale, dtype=np.float64).sum()) for b in blocks) / count
    square = sum(float(np.square(np.divide(b, scale, dtype=np.float64) - mean).sum())
                 for b in blocks)
    if sp.issparse(X):
        square += (count - values.size) * mean * mean  # the zeros' (0 - mean)^2
    return square / count, scale


def resolve_gamma(gamma, X):
    """The kernel coefficient of ``gamma`` on the training data X: a number
    as given; "scale" 1 / (n_features X.var()) (1 when X is constant, as
    scikit-learn's SVC); "auto" or None 1 / n_features."""
    d = X.shape[1]
    if gamma is None or (isinstance(gamma, str) and gamma == "auto"):
        return 1.0 / d
    if isinstance(gamma, str) and gamma == "scale":
        variance, scale = _variance(X)
        if not np.isfinite(scale):
            raise ValueError("gamma='scale': X holds a value that is not finite; give finite "
                             "data, or gamma")
        if variance == 0:
            return 1.0
        with np.errstate(over="ignore", under="ignore"):
            value = 1.0 / (d * variance) / scale / scale
        if not np.isfinite(value) or value == 0:
            extreme = "large" if value == 0 else "small"
            raise ValueError(f"gamma='scale': 1 / (n_features X.var()) = {value:g} is not usable: "
                             f"X's values are too {extreme} (max |x| = {scale:g}); scale the "
                             f"features (e.g. sklearn.preprocessing.StandardScaler) or give gamma")
        return value
    return float(gamma)


def _canonical_csr(X):
    """Sparse ``X`` in canonical CSR form (sorted indices, no duplicates),
    copied once for all the one-vs-rest problems. Each KernelSVM sorts a
    copy of its own otherwise: memory for X once per class, and the exact
    solver's shared kernel rows refused the differing copies (a ValueError
    for unsorted CSR and for BSR input, whose ``tocsr`` leaves them unsorted)."""
    if sp.issparse(X) and not X.has_canonical_format:
        X = X.copy()
        X.sum_duplicates()  # sorts the indices too
    return X


@model_file.register("kernel", ("binary", "one_vs_rest"))
class KernelSVMClassifier(_PlattProbabilities, SvmParams, RenamedParams, KernelAttributes,
                          _ScoresToClasses, ClassifierMixin, _ClassWeights, BaseEstimator):
    """Kernel SVM classifier trained by a stochastic solver (scikit-learn API).

    Parameters
    ----------
    solver : str, default="sdca"
        One of :data:`KERNEL_SOLVERS`: ``"sdca"`` (kernel dual coordinate
        ascent, stops when the duality gap is below ``tol``), ``"pegasos"``,
        ``"sbp"`` (Stochastic Batch Perceptron; solves the SVM of ``C``
        through ``nu``), ``"perceptron"``, ``"bsca"`` and ``"bsgd"`` (on a
        budget of support vectors).
    kernel : {"rbf", "linear", "poly", "sigmoid", "precomputed"}, default="rbf"
        ``"precomputed"``: ``fit`` takes the n x n Gram matrix ``K(X, X)`` of
        the training rows (dense, as SVC's), ``decision_function`` and
        ``predict`` the m x n matrix ``K(X_test, X)`` against those rows
        (the model keeps no support vectors, only their training indices
        ``support_``, so ``support_vectors_`` is empty). Not with
        ``"bsca"`` and ``"bsgd"`` (their merged budget vectors are not
        training rows), and such a model cannot be written to a model file.
    gamma : float > 0, "scale" or "auto", default="scale"
        Kernel coefficient (rbf, poly, sigmoid). ``"scale"``:
        ``1 / (n_features X.var())`` of the X of the first fit or
        partial_fit (1 if X is constant), as scikit-learn's SVC, so that
        the default does not depend on the units of the features (a
        ValueError where that value over- or underflows: X scaled by about
        1e-160 or 1e160; there SVC's X.var() of 0 gives gamma 1, a constant kernel);
        ``"auto"`` (or None): ``1 / n_features``, LIBSVM's and the command
        line's default. The value used is ``gamma_``; warm starts keep it.
    degree : int >= 1, default=3
    coef0 : float, default=0.0
    C : float > 0, default=None
        ``lambda = 1/(C n)``; neither ``C`` nor ``lambda_``: ``C = 1``.
    lambda_ : float > 0, default=None
    nu : float > 0, default=None
        SBP's slack budget per example (other solvers refuse it). None: derived from ``C`` (or
        ``lambda_``), ``nu = L(w*) / ||w*||`` with ``w*`` the SVM of that
        ``C``, solved exactly by kernel SDCA on up to 4096 rows (on larger
        data: a sample of 4096 rows stratified by class and its halves at the same ``C``, their
        nu extrapolated to all rows; 0.9-1.7x SVC's on a9a and ijcnn1), so
        that the SBP solves the SVM of ``C``; when the SBP's own model shows
        that estimate off by more than 10x, it is refined and training goes
        on (docs/kernel.rst, docs/stopping.rst).
    unregularized_bias : bool, default=None
        SBP, BSCA and SDCA: learn an unregularized bias (the other solvers
        have none). None: True, so that they solve the problem of
        ``sklearn.svm.SVC``: ``"sdca"`` then solves LIBSVM's own dual exactly
        (pair steps, a kernel-row cache and shrinking; docs/kernel.rst,
        "Exact kernel SDCA with a bias"; without the bias, random coordinate
        steps for an epoch, then the exact solver's bias-free mode: 2.3-2.7x
        longer on digits at C = 1 to 1e4), ``"bsca"`` takes
        pair steps (the bias-free form of the paper oscillates,
        docs/budget.rst). False: the bias-free forms of the papers.
    eta0 : float > 0, default=None
        SBP's step size scale (None: the object's default; other solvers
        refuse it).
    max_iter : int >= 1, default=None
        Epochs (``n`` iterations each) ``fit`` may run. None: 1000 for
        ``"sdca"`` (which stops earlier on ``tol``: the optimum, where the
        box ``c_i C`` of the weights is active), 10 for ``"perceptron"`` (which
        has no stopping test), 100 for the others, and for ``"pegasos"`` and
        ``"bsgd"`` at least ``ceil(2e7 / n**2)`` epochs (their ``1/(lambda
        t)`` steps need many on small sets at large C: over 100 up to 447
        rows; docs: "Stopping and defaults"). A fit that stops on this cap
        before its test on ``tol`` passes raises a ConvergenceWarning.
        Under None, ``"pegasos"``, ``"sbp"`` (``nu`` derived from ``C``), and
        ``"bsgd"`` and ``"bsca"`` with ``budget >= n``, stopped on the cap,
        hand over to exact kernel SDCA on the same problem and end certified
        within ``min(tol, 1e-3)`` of the optimum (``stop_reasons_`` then
        reads ``"converged"``; docs: "The kernel SDCA finish"); a ``max_iter`` given is a cap as
        asked, without it.
    tol : float >= 0, default=None
        The stopping threshold (docs: "Stopping and defaults"). For ``"sdca"``
        and ``"bsca"`` the relative duality gap, ``P - D <= tol * D`` (BSCA
        with a budget below n_samples: only until budget maintenance changes
        its model; from then on its dual is an estimate that certifies
        nothing, and its run ends ``"budget_limited"`` with a warning); for
        ``"sbp"``, ``"pegasos"`` and ``"bsgd"`` the run driver's objective
        window (the objective flat to ``tol`` over the second half of the run
        and no longer falling steadily; the SBP's never while its averaged
        margin is not positive, a model that has learnt nothing yet). A
        window stop of the SBP that no dual bound certified warns that its
        distance to the optimum is not bounded. None: 1e-3 for the dual solvers,
        1e-2 for the primal ones (measured: at 1e-3 the primal solvers'
        window rarely closes within 100 epochs although their accuracy has
        settled). 0 runs ``max_iter``.
    random_state : int >= 0, None, numpy RandomState or Generator, default=0
        Seed of the visiting order (each binary problem's SVM uses it). None
        is seed 0; a ``RandomState`` or ``Generator`` gives a seed drawn from
        it at each ``fit`` (as scikit-learn's estimators do).
    warm_start : bool, default=False
        ``fit`` continues from the previous fit's state on the same data; a
        new ``C`` applies, a change of the solver, kernel or another parameter
        the SVMs are made with starts afresh (docs/estimators.rst).
    n_jobs : int, default=None
        Threads (None: 1; -1: all CPUs): one per one-vs-rest class first,
        the rest split evenly inside each model (``KernelSVM.set_num_threads``;
        results do not depend on it).
    class_weight : dict, "balanced" or None, default=None
        Per-class weights multiplying ``sample_weight`` (as
        :class:`~stochsvm.LinearSVMClassifier`; with ``partial_fit``,
        "balanced" uses the class counts seen so far). Not supported by
        ``solver="sbp"``: weights that are not all equal raise ValueError.
    budget : int >= 1, default=None
        ``solver="bsca"`` or ``"bsgd"``: the most support vectors the model
        keeps (None: the C object's default, 500). Given for another solver:
        ValueError.
    budget_maintenance : {"auto", "merge", "remove", "project"}, default=None
        ``solver="bsca"`` or ``"bsgd"``: how a model of ``budget + 1`` points is
        brought back to ``budget`` (None: the C object's default, "auto":
        merge for the rbf kernel, remove otherwise; "merge" needs rbf). Given
        for another solver: ValueError.
    kernel_precision : {"float64", "float32"}, default="float64"
        The precision of the kernel rows used in training. ``"float32"``:
        the rbf kernel computed from float32 data with a single-precision
        exp (and dot products, for dense X), each value within about 1.5e-7
        of the float64 one (docs: "Float32 kernel rows"); the solvers still
        sum in double, and prediction keeps float64 rows. ``fit`` then
        converts X to float32 (a copy unless X is float32 already: the
        values are rounded to float32 first). Needs ``kernel="rbf"`` and a
        solver other than ``"bsca"`` and ``"bsgd"`` (ValueError otherwise).
        A warm start with another precision than the last fit's starts afresh.
    cache_size : float > 0, default=200
        ``solver="sdca"`` with the bias (the default): the kernel-row cache
        in MB, as SVC's ``cache_size`` (rows are computed once and reused
        while they fit; with more than two classes, the one-vs-rest
        problems share the rows while all n rows of n doubles fit: each row
        is computed once for all classes). It changes the running time,
        never the model. The other solvers keep no row cache and ignore it.
    shrinking : bool, default=True
        ``solver="sdca"`` with the bias: leave out of the working-set search
        the examples stuck at a bound, as SVC's ``shrinking`` (checked again
        before the stop, so both reach the same optimum to ``tol``). The
        other solvers ignore it.
    probability : bool, default=False
        Fit Platt sigmoids on the scores of an internal 5-fold
        cross-validation (stratified, seeded by ``random_state``; five more
        fits) for :meth:`predict_proba`, as ``SVC(probability=True)``;
        multiclass by normalised one-vs-rest (docs: "Probabilities").
    early_stopping : bool or "auto", default=False
        Stop each binary problem's run on held-out data (docs/stopping.rst,
        "Early stopping on held-out data"): ``fit`` holds out a stratified
        ``validation_fraction`` of the rows (drawn once per fit from
        ``random_state``; one split for all one-vs-rest classes), trains on
        the rest, scores the held-out rows with the current model at every
        diagnostic (every epoch, except for ``"sbp"``, which keeps its
        finer schedule) and ends the run after ``n_iter_no_change``
        diagnostics in a row without an accuracy gain of more than
        ``validation_tol``; such a run keeps the model of its best
        held-out score and its statistics read status ``"validation"``,
        without a ConvergenceWarning (a run that hits ``max_iter`` first
        warns as without early stopping). The stop certifies nothing about
        the objective. ``"auto"``: on for ``"bsca"`` and ``"bsgd"`` when
        ``fit`` gets more than 10,000 rows, off otherwise. Only ``fit``
        (not ``partial_fit``); not with ``kernel="precomputed"``. The
        training part is a copy of those rows of X.
    validation_fraction : float in (0, 1), default=0.1
        The share of the rows held out under early stopping (rounded up;
        every class needs a held-out and a training row, ValueError
        otherwise). Sample and class weights weigh the held-out accuracy.
    n_iter_no_change : int >= 1, default=3
        Diagnostics without an improvement before early stopping ends a run.
    validation_tol : float >= 0, default=1e-4
        The held-out accuracy gain (a fraction, not points) that counts as
        an improvement.
    verbose : int, default=0
        Show the progress of fit (a tqdm bar, redrawn during the epochs), or
        without tqdm print a line per trained SVM (its last epoch, objective
        and status), as :class:`~stochsvm.LinearSVMClassifier` does.
    seed, max_epochs : deprecated
        The former names of ``random_state`` and ``max_iter`` (until 0.2.0;
        a FutureWarning, and a ValueError next to the new name).

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    n_features_in_ : int
    n_iter_ : int
        Epochs run in the last call.
    n_support_ : ndarray of shape (n_outputs,)
        Support vectors of each binary problem.
    gamma_ : float
        The kernel coefficient in use (``gamma`` resolved).
    n_kernel_evaluations_ : int
        Kernel evaluations made by the solvers so far (all problems).
    support_vectors_, support_, dual_coef_, intercept_
        scikit-learn SVC's names for the expansion over the union of the
        outputs' support vectors: ``decision_function(X)[:, c] ==
        K(X, support_vectors_) @ dual_coef_[c] + intercept_[c]``
        (:class:`stochsvm._kernel_attributes.KernelAttributes`).
    stop_reasons_ : ndarray of str, shape (n_outputs,)
        How the last call's run of each binary problem ended (in
        ``classes_`` order for one-vs-rest; one entry for two classes), a
        status of :meth:`stochsvm.KernelSVM.get_statistics`: ``"converged"``
        (the solver's stopping rule), ``"max_iterations"`` (the
        ``max_iter`` cap), ``"budget_limited"`` (BSCA after budget
        maintenance: its objective is not certified),
        ``"validation"`` (early stopping ended it), ``"diverged"``,
        ``"interrupted"`` (docs: "What every layer reports").
    validation_scores_ : list of ndarray
        Only after a fit with early stopping: for each binary problem, its
        held-out accuracy at each diagnostic (the last is the run's end;
        ``stop_reasons_[k]`` reads ``"validation"`` where early stopping
        ended problem k's run).
    probA_, probB_ : ndarray of shape (n_outputs,)
        ``probability=True``: the Platt sigmoid ``1 / (1 + exp(A f + B))`` of
        each output.
    """

    _renamed = {"random_state": "seed", "max_iter": "max_epochs"}
    # What _new_svm makes the SVMs with (stochsvm._warm: a warm fit after a change starts afresh).
    _SVM_PARAMS = ("solver", "kernel", "gamma", "degree", "coef0", "nu", "unregularized_bias",
                   "eta0", "budget", "budget_maintenance", "kernel_precision", "random_state")
    _parameter_constraints = {
        **COMMON_CONSTRAINTS,
        "solver": [options(*KERNEL_SOLVERS)],
        "kernel": [options(*KERNELS)],
        "gamma": [real(0), options("scale", "auto"), None],
        "degree": [integer(1)],
        "coef0": [real()],
        "nu": [real(0), None],
        "unregularized_bias": ["boolean", None],
        "eta0": [real(0), None],
        "max_iter": [integer(1), None],
        "max_epochs": [integer(1), None, deprecated_alias()],
        "tol": [real(0, closed="left"), None],
        "random_state": random_states(),
        "seed": [integer(0), deprecated_alias()],
        "budget": [integer(1), None],
        "budget_maintenance": [options(*BUDGET_MAINTENANCES), None],
        "kernel_precision": [options("float64", "float32")],
        "cache_size": [real(0)],
        "shrinking": ["boolean"],
        "probability": ["boolean"],
        "early_stopping": ["boolean", options("auto")],
        "validation_fraction": [real(0, 1)],
        "n_iter_no_change": [integer(1)],
        "validation_tol": [real(0, closed="left")],
    }

    def __init__(self, *, solver="sdca", kernel="rbf", gamma="scale", degree=3, coef0=0.0, C=None,
                 lambda_=None, nu=None, unregularized_bias=None, eta0=None, max_iter=None,
                 tol=None, random_state=0, warm_start=False, n_jobs=None, class_weight=None,
                 budget=None, budget_maintenance=None, kernel_precision="float64",
                 cache_size=200, shrinking=True, probability=False, early_stopping=False,
                 validation_fraction=0.1, n_iter_no_change=3, validation_tol=1e-4, verbose=0,
                 seed=DEPRECATED, max_epochs=DEPRECATED):
        self.solver = solver
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.C = C
        self.lambda_ = lambda_
        self.nu = nu
        self.unregularized_bias = unregularized_bias
        self.eta0 = eta0
        self.max_iter = max_iter
        self.tol = tol
        self.random_state = random_state
        self.warm_start = warm_start
        self.n_jobs = n_jobs
        self.class_weight = class_weight
        self.budget = budget
        self.budget_maintenance = budget_maintenance
        self.kernel_precision = kernel_precision
        self.cache_size = cache_size
        self.shrinking = shrinking
        self.probability = probability
        self.early_stopping = early_stopping
        self.validation_fraction = validation_fraction
        self.n_iter_no_change = n_iter_no_change
        self.validation_tol = validation_tol
        self.verbose = verbose
        self.seed = seed
        self.max_epochs = max_epochs

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = self.kernel != "precomputed"
        tags.input_tags.pairwise = self.kernel == "precomputed"
        return tags

    def _precomputed(self):
        return self.kernel == "precomputed"

    def _accept_sparse(self):
        """Sparse X: CSR, except for a precomputed kernel matrix (dense, as SVC's)."""
        return False if self._precomputed() else "csr"

    def __sklearn_is_fitted__(self):
        return hasattr(self, "_svms")

    def __getstate__(self):
        state = self.__dict__.copy()
        state.pop("_last_data", None)  # the training data are borrowed: never pickled
        return state

    # -- model files (stochsvm.model_file) ---------------------------------------

    def _to_model_file(self):
        """The model dict :func:`stochsvm.model_file.save_model` writes: one
        kernel expansion for all the outputs."""
        if not hasattr(self, "_svms"):
            raise ValueError(f"{type(self).__name__} is not fitted: call fit before saving it")
        if self._svms[0].get_kernel()["kernel"] == "precomputed":
            raise ValueError(f"a {type(self).__name__} with kernel='precomputed' cannot be written "
                             f"to a model file: its model is coefficients over the training rows' "
                             f"indices, which mean nothing without the Gram matrix it was fitted "
                             f"on; pickle the estimator instead (or fit with the kernel itself)")
        svms = self._svms
        labels, classes = model_file.labels_for_file(self.classes_)
        meta = model_file.estimator_metadata(self, classes=classes, solver=svms[0].get_solver(),
                                             nu=svms[0].get_nu())
        return model_file.kernel_model_dict(svms, "binary" if len(svms) == 1 else "one_vs_rest",
                                            labels, self.n_features_in_, meta, exact=True)

    @classmethod
    def _from_model_file(cls, d, meta):
        """The fitted classifier of a decoded model file (its SVM objects
        hold the expansion, without data)."""
        est = model_file.restore_estimator(cls, d, meta)
        est._check_params()
        kern = {"kernel": d["kernel"], "gamma": d["gamma"], "coef0": d["coef0"],
                "degree": d["degree"]}
        svms = []
        # each output's vectors in its order and layout: it scores bit for bit as the saved one
        for c, (vectors, coefficients) in enumerate(model_file.kernel_svms_of_file(d, meta)):
            svms.append(_kernel_svm._restore_kernel_svm({
                "solver": meta.get("solver", "sdca"), "kernel": kern, "dimension": d["dimension"],
                "lambda": d["lambda"] if d["lambda"] > 0 else 1.0, "nu": meta.get("nu", 1e-2),
                "unregularized_bias": False, "epsilon": 0.0, "seed": 0,
                "support_vectors": vectors, "coefficients": coefficients, "bias": d["biases"][c],
                "support_indices": None}))
        est._svms = svms
        est._remember_svm_params()
        est.gamma_ = float(d["gamma"])
        est.n_support_ = np.array([s.get_num_support_vectors() for s in svms])
        est.n_kernel_evaluations_ = 0
        return est

    def _check_params(self):
        """scikit-learn's parameter validation, then the rules across parameters."""
        self._validate_params()
        check_C_or_lambda(self.C, self.lambda_)
        if self.unregularized_bias and self.solver not in _BIAS_SOLVERS:
            raise ValueError(f"unregularized_bias=True needs solver="
                             f"{' or '.join(map(repr, _BIAS_SOLVERS))} (the other kernel "
                             f"solvers have no bias)")
        for name in ("nu", "eta0"):
            if getattr(self, name) is not None and self.solver != "sbp":
                raise ValueError(f"{name} is the SBP's setting; solver={self.solver!r} has "
                                 f"none and would ignore it (leave {name}=None)")
        for name in ("budget", "budget_maintenance"):
            if getattr(self, name) is not None and self.solver not in BUDGET_SOLVERS:
                raise ValueError(f"{name} applies to the budgeted solvers "
                                 f"{', '.join(map(repr, BUDGET_SOLVERS))} only; solver="
                                 f"{self.solver!r} keeps every support vector (leave {name}=None)")
        if self.kernel_precision == "float32" and (self.kernel != "rbf"
                                                   or self.solver in BUDGET_SOLVERS):
            raise ValueError(f"kernel_precision='float32' needs kernel='rbf' and a solver other "
                             f"than {' and '.join(map(repr, BUDGET_SOLVERS))}; got kernel="
                             f"{self.kernel!r}, solver={self.solver!r}")
        if self.kernel == "precomputed" and self.solver in BUDGET_SOLVERS:
            raise ValueError(f"kernel='precomputed' is not supported by solver={self.solver!r}: "
                             f"a budget merges support vectors into points that are not training "
                             f"rows, whose kernel values a precomputed matrix does not hold; use "
                             f"'sdca', 'sbp', 'pegasos' or 'perceptron'")
        if self.budget_maintenance == "merge" and self.kernel != "rbf":
            raise ValueError("budget_maintenance='merge' needs kernel='rbf'; use 'remove' or "
                             "'project'")
        self._check_renamed()

    def _check_gram(self, X, method):
        """kernel='precomputed': X must be the square Gram matrix of the training rows."""
        if self._precomputed() and X.shape[0] != X.shape[1]:
            raise ValueError(f"{method} with kernel='precomputed' needs the square n x n Gram "
                             f"matrix K(X, X) of the training rows; got shape {X.shape}")

    def _new_svm(self, X, y_pm, n, seed):
        lam = lambda_of(self.lambda_, self.C, n)
        svm = KernelSVM(X, y_pm, lam, solver=self.solver, kernel=self.kernel, gamma=self.gamma_,
                        coef0=float(self.coef0), degree=int(self.degree),
                        seed=seed)
        if self.nu is not None:
            svm.set_nu(float(self.nu))
        if self.solver in _BIAS_SOLVERS:
            svm.set_unregularized_bias(self._bias())
        if self.eta0 is not None:
            svm.set_eta0(float(self.eta0))
        if self.budget is not None:
            svm.set_budget(int(self.budget))
        if self.budget_maintenance is not None:
            svm.set_budget_maintenance(self.budget_maintenance)
        if self.kernel_precision == "float32":
            svm.set_kernel_precision("float32")
        return svm

    def _fit_dtype(self):
        """The dtypes fit keeps: float32 only for float32 kernel rows."""
        return np.float32 if self.kernel_precision == "float32" else (np.float64, np.float32)

    def _bias(self):
        """The unregularized-bias setting in force (None: the solver's default, on)."""
        if self.unregularized_bias is None:
            return bool(_solvers.get("kernel", self.solver).learns_bias)
        return bool(self.unregularized_bias)

    def _max_iter(self, n):
        """The epoch cap in force on ``n`` rows (None: the solver's default,
        1000 for SDCA, which stops on tol; 10 for the Perceptron, which has
        no test; else 100; Pegasos and BSGD: at least the epochs of their
        min_work, n^2 kernel evaluations each)."""
        max_iter = self._param("max_iter")
        if max_iter is not None:
            return int(max_iter)
        return _solvers.get("kernel", self.solver).default_epochs(n ** 2)

    def _cap_text(self, n):
        """The cap as the warnings name it: the value given, or None and the
        epochs it meant."""
        if self._param("max_iter") is not None:
            return self._param("max_iter")
        return f"None ({self._max_iter(n)} epochs)"

    def _tol(self):
        """The stopping threshold in force (None: the solver's default, 1e-3
        for the dual solvers, 1e-2 for the primal ones)."""
        if self.tol is not None:
            return float(self.tol)
        return _solvers.get("kernel", self.solver).tol

    def _checked_weights(self, weights):
        """The per-example weights to give the SVMs: None when all are 1. SBP
        has no weighted formulation: equal positive weights c are its
        unweighted problem (c copies of every row leave its slack budget per
        example, hence its solution, unchanged), other weights are refused."""
        if weights is None or np.all(weights == 1.0):
            return None
        if self.solver == "sbp":
            if weights.size and weights[0] > 0 and np.all(weights == weights[0]):
                return None
            raise ValueError("sample_weight and class_weight (weights that differ between "
                             "examples or between a class and another) are not supported by "
                             "solver='sbp', whose slack-constrained problem has no weighted "
                             "form; use 'sdca', 'pegasos', 'perceptron', 'bsca' or 'bsgd'")
        return weights

    def _problems(self, y):
        if len(self.classes_) == 2:
            return [np.where(y == self.classes_[1], 1.0, -1.0)]
        return [np.where(y == c, 1.0, -1.0) for c in self.classes_]

    def _train(self, X, y, weights, first, epochs, tol, partial, validation=None):
        self._forget_probability()
        X = _canonical_csr(X)
        n = X.shape[0]
        last = getattr(self, "_last_data", None)
        problems = self._problems(y)
        data = TrainingData(X, problems, weights)
        same = last is not None and data.same_examples(last)
        same_weights = same and data.same_weights(last)   # (X read once: not data == last)
        if partial and not first:
            changed = self._changed_svm_params(self._SVM_PARAMS + self._LAMBDA_PARAMS)
            if changed:
                self._refuse_changed_params(changed)
        elif not first:
            # A warm fit after a change of kernel, solver, ... starts afresh
            # (gamma="scale" keeps the gamma_ of the fit that made the SVMs).
            first = (bool(self._changed_svm_params())
                     or self._svms[0].get_kernel_precision() != self.kernel_precision)
        if first:
            self.gamma_ = resolve_gamma(self.gamma, X)
            seed = seed_of(self._param("random_state"))
            self._svms = [self._new_svm(X, yb, n, seed) for yb in problems]
            self._remember_svm_params()
        elif not same:
            if partial:
                warnings.warn("partial_fit on new data restarts the kernel solvers' state "
                              "(their state belongs to one data set)", UserWarning)
            for svm, yb in zip(self._svms, problems):
                svm.set_data(X, yb)
        elif not same_weights:   # keep the arrays the SVMs borrow
            data = last.with_weights(weights)
        if first or not same_weights:
            # new weights restart the solvers' state (set_data cleared the old ones)
            if partial and same and not first:
                warnings.warn("partial_fit with new weights restarts the kernel solvers' state",
                              UserWarning)
            for svm in self._svms:
                svm.set_weights(weights)
            self._last_data = data
        if not (first or partial):     # a warm fit: a new C (or another n) applies
            lam = lambda_of(self.lambda_, self.C, n)
            for svm in self._svms:
                if svm.get_lambda() != lam:
                    svm.set_lambda(lam)

        self._share_kernel_rows()
        finish = not partial and self._param("max_iter") is None
        monitors = self._monitors(validation)
        trainings = Trainings(self._svms)

        def run(svm):
            # (a warm start keeps its cached rows unless the size changed)
            if svm.get_cache_size() != float(self.cache_size):
                svm.set_cache_size(float(self.cache_size))
            svm.set_shrinking(bool(self.shrinking))
            svm.set_max_num_iterations(epochs_to_iterations(epochs, n))
            # The kernel SDCA finish (docs/stopping.rst): on under the default
            # cap, which fit passes as a number; "auto" (off under a cap the
            # object was given) when the user chose max_iter or in partial_fit.
            svm.set_sdca_finish(True if finish else "auto")
            svm.set_epsilon(tol)
            monitor = monitors.get(id(svm))
            if monitor is None:
                stats = svm.train()
            else:
                # a diagnostic every epoch (the SBP keeps its finer default
                # schedule); the object's own schedule comes back afterwards
                stats = train_watched(svm, monitor, None if self.solver == "sbp" else n)
            if self.verbose:
                print_training(self, stats)
            # (not the iteration number's change: a train at a new C restarts
            # the count of the SBP and of BSCA with the bias)
            stats["iterations_this_call"] = svm.get_last_train_iterations()
            return trainings.finished(svm, stats)

        # n_jobs beyond one per class goes to threads inside each model.
        workers = _effective_n_jobs(self.n_jobs, len(self._svms))
        threads = _effective_n_jobs(self.n_jobs, 1 << 20) // workers
        for svm in self._svms:
            svm.set_num_threads(threads)
        try:
            with estimator_progress(self, self._svms, [epochs * n] * len(self._svms)) as progress:
                stats = map_in_threads(progress.track(run), self._svms, self.n_jobs)
        except BaseException as exc:
            # Ctrl+C: unfitted (a fresh fit), or fitted with the SVMs as they stand
            trainings.stopped(self, first, lambda stats: self._record(stats, n, monitors), exc)
            raise
        self._record(stats, n, monitors)
        if not partial:
            self._report(X, y, weights, tol)
        return self

    def _record(self, stats, n, monitors):
        """The fitted attributes of a training of the SVMs on ``n`` rows that
        ended with ``stats`` (with ``"iterations_this_call"``)."""
        self._stats = stats
        self.stop_reasons_ = _stop_reasons(stats)
        if monitors:
            self.validation_scores_ = [np.array(monitors[id(svm)].scores) for svm in self._svms]
        else:
            self.__dict__.pop("validation_scores_", None)
        self.n_iter_ = int(max(-(-s["iterations_this_call"] // n) for s in stats))
        self.n_support_ = np.array([svm.get_num_support_vectors() for svm in self._svms])
        self.n_kernel_evaluations_ = int(sum(svm.get_num_kernel_evaluations()
                                             for svm in self._svms))

    def _monitors(self, validation):
        """One ValidationMonitor per binary problem (by ``id`` of its SVM),
        none without early stopping."""
        if validation is None:
            return {}
        X_held, y_held, w_held = validation
        return {id(svm): ValidationMonitor(svm, X_held, y_pm, w_held, self.n_iter_no_change,
                                           self.validation_tol)
                for svm, y_pm in zip(self._svms, self._problems(y_held))}

    def _share_kernel_rows(self):
        """One-vs-rest with the exact SDCA (the bias on): the binary problems
        share one store of kernel rows (``KernelSVM.share_kernel_rows``), as
        the rows do not depend on the labels: each row is computed once for
        all classes while the whole kernel matrix fits in ``cache_size``.
        Each problem's model is the same as trained alone."""
        if len(self._svms) > 1 and self.solver == "sdca" and self._bias():
            for svm in self._svms[1:]:
                svm.share_kernel_rows(self._svms[0])

    def _report(self, X, y, weights, tol):
        """Warn (or raise) when a fit diverged or stopped short: see
        ``stochsvm.svm._report_training``."""
        own = self.solver in _OWN_OBJECTIVE
        zeros = [None if own else _zero_objective(yb, "hinge", weights)
                 for yb in self._problems(y)]
        fix = ("scale the features (e.g. sklearn.preprocessing.StandardScaler) or choose a "
               "smaller gamma" + (", or a smaller eta0" if self.solver == "sbp" else ""))
        _report_training(type(self).__name__, list(zip(self._stats, zeros)), tol=tol,
                         cap=("max_iter", self._cap_text(X.shape[0])), fix=fix,
                         stopping_rule=_solvers.get("kernel", self.solver).stopping_rule,
                         budget=(("budget", self._svms[0].get_budget())
                                 if self.solver in BUDGET_SOLVERS else None),
                         scale_note=lambda: _scale_note(X))
        self._report_uncertified(tol)

    def _report_uncertified(self, tol):
        """The SBP with its nu derived from C stops on its objective window
        only where a dual bound confirms it, unless the bound would cost more
        than the run so far (docs/stopping.rst): the stop is then the
        window's heuristic, with no bound (a NaN dual objective), and says so."""
        if self.solver != "sbp" or self.nu is not None or not tol > 0:
            return
        for stats in self._stats:
            if stats["status"] == "converged" and not math.isfinite(stats["dual_objective"]):
                warnings.warn(
                    f"{type(self).__name__} (solver='sbp') stopped on its objective window "
                    f"without a certificate (a dual bound would have cost more than the run "
                    f"so far): its objective stopped falling, but nothing bounds how far it "
                    f"is from the optimum; solver='sdca' solves the same problem exactly",
                    _convergence_warning(), stacklevel=3)
                return

    def fit(self, X, y, sample_weight=None):
        """Fit on (X, y): at most ``max_iter`` epochs per binary problem.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative weights ``c_i`` (times the class weight): the solvers
            minimise ``lambda/2 ||w||^2 + 1/n sum_i c_i hinge_i``, so with ``C``
            an integer weight k equals k copies of the row. ``"sbp"`` accepts
            only equal weights (its unweighted problem). At least 2 classes
            must keep a positive total weight (ValueError otherwise).

        Returns
        -------
        self : KernelSVMClassifier
        """
        self._check_params()
        warm = self.warm_start and hasattr(self, "_svms")
        previous = getattr(self, "classes_", None)
        X, y = validate_data(self, X, y, accept_sparse=self._accept_sparse(),
                             dtype=self._fit_dtype(), order="C", reset=not warm)
        self._check_gram(X, "fit")
        check_classification_targets(y)
        classes = np.unique(y)
        if len(classes) < 2:
            raise ValueError(f"the training data need samples of at least 2 classes; got "
                             f"{len(classes)} class")
        if warm and not np.array_equal(classes, previous):
            raise ValueError(f"warm_start: the classes {classes.tolist()} differ from those of "
                             f"the previous fit {np.asarray(previous).tolist()}")
        self.classes_ = classes
        weights = self._checked_weights(self._fit_weights(X, y, sample_weight))
        self._check_probability_classes(y, weights)
        self._class_counts = None
        X_fit, y_fit, w_fit, validation = self._hold_out(X, y, weights)
        self._train(X_fit, y_fit, w_fit, not warm, self._max_iter(X_fit.shape[0]), self._tol(),
                    partial=False, validation=validation)
        return self._fit_probability(X, y, sample_weight)

    def _early_stopping_on(self, n):
        """Whether fit on ``n`` rows stops on held-out data (``"auto"``: for
        the budgeted solvers on more than 10,000 rows)."""
        if self.early_stopping == "auto":
            return self.solver in BUDGET_SOLVERS and n > _AUTO_EARLY_STOPPING_ROWS
        return bool(self.early_stopping)

    def _hold_out(self, X, y, weights):
        """``(X, y, weights, validation)`` to train on: all of them and None
        without early stopping; else the training part of a stratified split
        and the held-out ``(X, y, weights)`` (``_early_stopping``). The
        training rows' indices are kept (``support_`` maps through them)."""
        self.__dict__.pop("_train_rows", None)
        if not self._early_stopping_on(X.shape[0]):
            return X, y, weights, None
        if self._precomputed():
            raise ValueError("early_stopping is not supported with kernel='precomputed' (the "
                             "held-out rows' kernel values against the training part would be a "
                             "different matrix); hold out rows yourself, or set "
                             "early_stopping=False")
        seed = seed_of(self._param("random_state"))
        train, held = validation_split(y, float(self.validation_fraction), seed)
        w_held = None if weights is None else weights[held]
        if w_held is not None and not np.sum(w_held) > 0:
            raise ValueError("early stopping: every held-out row has weight 0 (sample_weight "
                             "times class_weight), so the held-out accuracy is undefined; give "
                             "positive weights or set early_stopping=False")
        self._train_rows = train
        return (X[train], y[train], None if weights is None else weights[train],
                (X[held], y[held], w_held))

    def partial_fit(self, X, y, classes=None, sample_weight=None):
        """Run one more epoch on (X, y), continuing the solvers' state.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
        classes : array-like, default=None
            All the classes; required on the first call.
        sample_weight : array-like of shape (n_samples,), default=None
            As in :meth:`fit`; new weights restart the solvers' state.

        Returns
        -------
        self : KernelSVMClassifier
        """
        first = not hasattr(self, "_svms")
        if first:
            self._check_params()
            if classes is None:
                raise ValueError("classes must be given on the first call to partial_fit")
        X, y = validate_data(self, X, y, accept_sparse=self._accept_sparse(),
                             dtype=self._fit_dtype(), order="C", reset=first)
        self._check_gram(X, "partial_fit")
        check_classification_targets(y)
        if first:
            self.classes_ = np.unique(np.asarray(classes))
            if len(self.classes_) < 2:
                raise ValueError("classes must hold at least 2 classes")
        elif classes is not None and not np.array_equal(np.unique(classes), self.classes_):
            raise ValueError(f"classes {np.unique(classes).tolist()} differ from those of the "
                             f"first partial_fit call {self.classes_.tolist()}")
        unknown = np.setdiff1d(np.unique(y), self.classes_)
        if unknown.size:
            raise ValueError(f"y holds classes {unknown.tolist()} not in classes "
                             f"{self.classes_.tolist()}")
        weights = self._checked_weights(self._partial_fit_weights(X, y, sample_weight))
        self.__dict__.pop("_train_rows", None)  # support_ indexes this X now
        return self._train(X, y, weights, first, 1, 0.0, partial=True)

    def decision_function(self, X):
        """Scores: shape (n_samples,) for two classes (positive means
        ``classes_[1]``), else (n_samples, n_classes).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)

        Returns
        -------
        ndarray
        """
        check_is_fitted(self)
        X = validate_data(self, X, accept_sparse=self._accept_sparse(),
                          dtype=(np.float64, np.float32), order="C", reset=False)
        scores = np.column_stack([svm.decision_function(X) for svm in self._svms])
        return scores.ravel() if scores.shape[1] == 1 else scores
