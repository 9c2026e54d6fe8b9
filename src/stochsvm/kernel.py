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
equal ``fit`` with ``max_epochs=k, tol=0``; new data restart the state (with a
warning).

Weights: ``sample_weight`` times ``class_weight`` gives each example a weight
``c_i`` and the solvers minimise ``lambda/2 ||w||^2 + 1/n sum_i c_i hinge_i``
(``KernelSVM.set_weights``); with ``C`` an integer weight ``k`` equals ``k``
copies of the row. SBP has no weighted formulation: it takes equal weights
(which leave its problem unchanged) and refuses others. The budgeted solvers ``"bsca"`` and ``"bsgd"`` take ``budget`` and
``budget_maintenance``; the other solvers refuse them.
"""

import warnings

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted

from stochsvm import _kernel_svm
from stochsvm._kernel_attributes import KernelAttributes
from stochsvm._kernel_svm import KernelSVM
from stochsvm._probability import _PlattProbabilities
from stochsvm._progress import estimator_progress
from stochsvm.linear import (_check_int, _check_positive_number, _ClassWeights,
                             _effective_n_jobs, _lambda_of,
                             _ScoresToClasses, _TrainingData, validate_data)
from stochsvm.svm import _KERNEL_STOPPING_RULES, _report_training, _zero_objective

__all__ = ["KernelSVMClassifier", "KERNEL_SOLVERS"]

#: Solvers of the kernel SVM object usable here (read from it: a solver added
#: to :class:`stochsvm.KernelSVM` is accepted without a change).
KERNEL_SOLVERS = tuple(name for name in _kernel_svm._KSOLVERS if name != "none")
KERNELS = ("rbf", "linear", "poly", "sigmoid")
#: Solvers with a budget of support vectors (``budget``, ``budget_maintenance``).
BUDGET_SOLVERS = ("bsca", "bsgd")
BUDGET_MAINTENANCES = ("auto", "merge", "remove", "project")
#: Solvers that do not minimise the SVM objective at C: the perceptron (no
#: objective) and the SBP while its nu is not derived from C. Their fits are
#: not compared with the objective of the zero model.
_OWN_OBJECTIVE = ("perceptron", "sbp")


class KernelSVMClassifier(_PlattProbabilities, KernelAttributes, _ScoresToClasses,
                          ClassifierMixin, _ClassWeights, BaseEstimator):
    """Kernel SVM classifier trained by a stochastic solver (scikit-learn API).

    Parameters
    ----------
    solver : str, default="sdca"
        One of :data:`KERNEL_SOLVERS`: ``"sdca"`` (kernel dual coordinate
        ascent, stops when the duality gap is below ``tol``), ``"pegasos"``,
        ``"sbp"`` (Stochastic Batch Perceptron; solves the SVM of ``C``
        through ``nu``), ``"perceptron"``, ``"bsca"`` and ``"bsgd"`` (on a
        budget of support vectors).
    kernel : {"rbf", "linear", "poly", "sigmoid"}, default="rbf"
    gamma : float > 0, default=None
        Kernel coefficient; None: ``1 / n_features``.
    degree : int >= 1, default=3
    coef0 : float, default=0.0
    C : float > 0, default=None
        ``lambda = 1/(C n)``; neither ``C`` nor ``lambda_``: ``C = 1``.
    lambda_ : float > 0, default=None
    nu : float > 0, default=None
        SBP's slack budget per example. None: derived from ``C`` (or
        ``lambda_``), ``nu = L(w*) / ||w*||`` with ``w*`` the SVM of that
        ``C`` estimated by a 20-epoch BSCA warm-up, so that the SBP solves
        the SVM of ``C``.
    unregularized_bias : bool, default=None
        SBP and BSCA: learn an unregularized bias (the other solvers have
        none). None: True for ``"bsca"`` (LIBSVM's problem, solved by pair
        steps; the bias-free form of the paper oscillates, docs/budget.rst)
        and for ``"sbp"`` (so that it solves the problem of
        ``sklearn.svm.SVC``), False for the others.
    eta0 : float > 0, default=None
        SBP's step size scale (None: the object's default).
    max_epochs : int >= 1, default=None
        Epochs (``n`` iterations each) ``fit`` may run. None: 1000 for
        ``"sdca"`` (which stops earlier on ``tol``: the optimum, where the
        box ``c_i C`` of the weights is active), 10 for ``"perceptron"`` (which
        has no stopping test), 100 for the others. A fit that stops on this cap
        before its test on ``tol`` passes raises a ConvergenceWarning.
    tol : float >= 0, default=None
        The stopping threshold (docs: "Stopping and defaults"). For ``"sdca"``
        and ``"bsca"`` the relative duality gap, ``P - D <= tol * D``; for
        ``"sbp"``, ``"pegasos"`` and ``"bsgd"`` the run driver's objective
        window (the objective flat to ``tol`` over the second half of the run
        and no longer falling steadily). None: 1e-3 for the dual solvers,
        1e-2 for the primal ones (measured: at 1e-3 the primal solvers'
        window rarely closes within 100 epochs although their accuracy has
        settled). 0 runs ``max_epochs``.
    seed : int >= 0, default=0
    warm_start : bool, default=False
        ``fit`` continues from the previous fit's state on the same data.
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
    probability : bool, default=False
        Fit Platt sigmoids on the scores of an internal 5-fold
        cross-validation (stratified, seeded by ``seed``; five more fits) for
        :meth:`predict_proba`, as ``SVC(probability=True)``; multiclass by
        normalised one-vs-rest (docs: "Probabilities").

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    n_features_in_ : int
    n_iter_ : int
        Epochs run in the last call.
    n_support_ : ndarray of shape (n_outputs,)
        Support vectors of each binary problem.
    n_kernel_evaluations_ : int
        Kernel evaluations made by the solvers so far (all problems).
    support_vectors_, support_, dual_coef_, intercept_
        scikit-learn SVC's names for the expansion over the union of the
        outputs' support vectors: ``decision_function(X)[:, c] ==
        K(X, support_vectors_) @ dual_coef_[c] + intercept_[c]``
        (:class:`stochsvm._kernel_attributes.KernelAttributes`).
    probA_, probB_ : ndarray of shape (n_outputs,)
        ``probability=True``: the Platt sigmoid ``1 / (1 + exp(A f + B))`` of
        each output.
    """

    def __init__(self, *, solver="sdca", kernel="rbf", gamma=None, degree=3, coef0=0.0, C=None,
                 lambda_=None, nu=None, unregularized_bias=None, eta0=None, max_epochs=None,
                 tol=None, seed=0, warm_start=False, n_jobs=None, class_weight=None,
                 budget=None, budget_maintenance=None, probability=False):
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
        self.max_epochs = max_epochs
        self.tol = tol
        self.seed = seed
        self.warm_start = warm_start
        self.n_jobs = n_jobs
        self.class_weight = class_weight
        self.budget = budget
        self.budget_maintenance = budget_maintenance
        self.probability = probability

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags

    def __sklearn_is_fitted__(self):
        return hasattr(self, "_svms")

    def __getstate__(self):
        state = self.__dict__.copy()
        state.pop("_last_data", None)  # the training data are borrowed: never pickled
        return state

    def _validate_params(self):
        if not isinstance(self.solver, str) or self.solver not in KERNEL_SOLVERS:
            raise ValueError(f"solver must be one of {', '.join(map(repr, KERNEL_SOLVERS))}, "
                             f"got {self.solver!r}")
        if not isinstance(self.kernel, str) or self.kernel not in KERNELS:
            raise ValueError(f"kernel must be one of {', '.join(map(repr, KERNELS))}, "
                             f"got {self.kernel!r}")
        if self.C is not None and self.lambda_ is not None:
            raise ValueError("give either C or lambda_, not both (C means lambda = 1/(C n))")
        for name in ("C", "lambda_", "gamma", "nu", "eta0"):
            _check_positive_number(getattr(self, name), name, allow_none=True)
        _check_int(self.degree, "degree", 1)
        if not (isinstance(self.coef0, (int, float, np.number)) and np.isfinite(self.coef0)):
            raise ValueError(f"coef0 must be a finite number, got {self.coef0!r}")
        if self.max_epochs is not None:
            _check_int(self.max_epochs, "max_epochs", 1)
        _check_positive_number(self.tol, "tol", allow_zero=True, allow_none=True)
        _check_int(self.seed, "seed", 0)
        if self.unregularized_bias not in (None, True, False):
            raise ValueError(f"unregularized_bias must be None, True or False, got "
                             f"{self.unregularized_bias!r}")
        if self.unregularized_bias and self.solver not in ("sbp", "bsca"):
            raise ValueError("unregularized_bias=True needs solver='sbp' or 'bsca' (the other "
                             "kernel solvers have no bias)")
        if self.n_jobs is not None and (not isinstance(self.n_jobs, (int, np.integer))
                                        or self.n_jobs == 0):
            raise ValueError(f"n_jobs must be None or a non-zero integer, got {self.n_jobs!r}")
        for name in ("budget", "budget_maintenance"):
            if getattr(self, name) is not None and self.solver not in BUDGET_SOLVERS:
                raise ValueError(f"{name} applies to the budgeted solvers "
                                 f"{', '.join(map(repr, BUDGET_SOLVERS))} only; solver="
                                 f"{self.solver!r} keeps every support vector (leave {name}=None)")
        if self.budget is not None:
            _check_int(self.budget, "budget", 1)
        bm = self.budget_maintenance
        if bm is not None:
            if not isinstance(bm, str) or bm not in BUDGET_MAINTENANCES:
                raise ValueError(f"budget_maintenance must be None or one of "
                                 f"{', '.join(map(repr, BUDGET_MAINTENANCES))}, got {bm!r}")
            if bm == "merge" and self.kernel != "rbf":
                raise ValueError("budget_maintenance='merge' needs kernel='rbf'; use 'remove' or "
                                 "'project'")
        self._check_class_weight()

    def _new_svm(self, X, y_pm, n):
        lam = _lambda_of(self.lambda_, self.C, n)
        svm = KernelSVM(X, y_pm, lam, solver=self.solver, kernel=self.kernel, gamma=self.gamma,
                        coef0=float(self.coef0), degree=int(self.degree), seed=self.seed)
        if self.nu is not None:
            svm.set_nu(float(self.nu))
        if self.solver in ("sbp", "bsca"):
            svm.set_unregularized_bias(self._bias())
        if self.eta0 is not None:
            svm.set_eta0(float(self.eta0))
        if self.budget is not None:
            svm.set_budget(int(self.budget))
        if self.budget_maintenance is not None:
            svm.set_budget_maintenance(self.budget_maintenance)
        return svm

    def _bias(self):
        """The unregularized-bias setting in force (None: on for SBP and BSCA)."""
        if self.unregularized_bias is None:
            return self.solver in ("sbp", "bsca")
        return bool(self.unregularized_bias)

    def _max_epochs(self):
        """The epoch cap in force (None: 1000 for SDCA, which stops on tol;
        10 for the Perceptron, which has no test; else 100)."""
        if self.max_epochs is not None:
            return int(self.max_epochs)
        return {"sdca": 1000, "perceptron": 10}.get(self.solver, 100)

    def _tol(self):
        """The stopping threshold in force (None: 1e-3 for the dual solvers,
        1e-2 for the primal ones)."""
        if self.tol is not None:
            return float(self.tol)
        return 1e-3 if self.solver in ("sdca", "bsca") else 1e-2

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

    def _train(self, X, y, weights, first, epochs, tol, partial):
        self._forget_probability()
        n = X.shape[0]
        last = getattr(self, "_last_data", None)
        problems = self._problems(y)
        data = _TrainingData(X, problems, weights)
        same = last is not None and data.same_examples(last)
        same_weights = same and data == last
        if first:
            self._svms = [self._new_svm(X, yb, n) for yb in problems]
        elif not same:
            if partial:
                warnings.warn("partial_fit on new data restarts the kernel solvers' state "
                              "(their state belongs to one data set)", UserWarning)
            for svm, yb in zip(self._svms, problems):
                svm.set_data(X, yb)
        elif not same_weights:   # keep the arrays the SVMs borrow
            data = _TrainingData(last.X, last.problems, weights)
        if first or not same_weights:
            # new weights restart the solvers' state (set_data cleared the old ones)
            if partial and same and not first:
                warnings.warn("partial_fit with new weights restarts the kernel solvers' state",
                              UserWarning)
            for svm in self._svms:
                svm.set_weights(weights)
            self._last_data = data

        def run(svm):
            svm.set_max_num_iterations(epochs * n)
            svm.set_epsilon(tol)
            start = svm.get_iteration_number()
            stats = svm.train()
            return stats, svm.get_iteration_number() - start

        workers = _effective_n_jobs(self.n_jobs, len(self._svms))
        # n_jobs beyond one per class goes to threads inside each model.
        threads = _effective_n_jobs(self.n_jobs, 1 << 20) // workers
        for svm in self._svms:
            svm.set_num_threads(threads)
        with estimator_progress(self, self._svms, [epochs * n] * len(self._svms)) as progress:
            run = progress.track(run)
            if workers == 1:
                results = [run(svm) for svm in self._svms]
            else:
                from concurrent.futures import ThreadPoolExecutor

                with ThreadPoolExecutor(max_workers=workers) as pool:
                    results = list(pool.map(run, self._svms))
        self._stats = [r[0] for r in results]
        self.n_iter_ = int(max(-(-r[1] // n) for r in results))
        self.n_support_ = np.array([svm.get_num_support_vectors() for svm in self._svms])
        self.n_kernel_evaluations_ = int(sum(svm.get_num_kernel_evaluations()
                                             for svm in self._svms))
        if not partial:
            self._report(y, weights, tol)
        return self

    def _report(self, y, weights, tol):
        """Warn (or raise) when a fit diverged or stopped short: see
        ``stochsvm.svm._report_training``."""
        own = self.solver in _OWN_OBJECTIVE
        zeros = [None if own else _zero_objective(yb, "hinge", weights)
                 for yb in self._problems(y)]
        fix = ("scale the features (e.g. sklearn.preprocessing.StandardScaler) or choose a "
               "smaller gamma" + (", or a smaller eta0" if self.solver == "sbp" else ""))
        _report_training(type(self).__name__, list(zip(self._stats, zeros)), tol=tol,
                         cap=("max_epochs", self._max_epochs()), fix=fix,
                         stopping_rule=_KERNEL_STOPPING_RULES.get(self.solver))

    def fit(self, X, y, sample_weight=None):
        """Fit on (X, y): at most ``max_epochs`` epochs per binary problem.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative weights ``c_i`` (times the class weight): the solvers
            minimise ``lambda/2 ||w||^2 + 1/n sum_i c_i hinge_i``, so with ``C``
            an integer weight k equals k copies of the row. ``"sbp"`` accepts
            only equal weights (its unweighted problem).

        Returns
        -------
        self : KernelSVMClassifier
        """
        self._validate_params()
        self._check_probability_param()
        warm = self.warm_start and hasattr(self, "_svms")
        previous = getattr(self, "classes_", None)
        X, y = validate_data(self, X, y, accept_sparse="csr", dtype=(np.float64, np.float32),
                             order="C", reset=not warm)
        check_classification_targets(y)
        classes = np.unique(y)
        if len(classes) < 2:
            raise ValueError(f"the training data need samples of at least 2 classes; got "
                             f"{len(classes)} class")
        if warm and not np.array_equal(classes, previous):
            raise ValueError("warm_start: the classes differ from those of the previous fit")
        self.classes_ = classes
        weights = self._checked_weights(self._example_weights(X, y, sample_weight))
        self._class_counts = None
        self._train(X, y, weights, not warm, self._max_epochs(), self._tol(), partial=False)
        return self._fit_probability(X, y, sample_weight)

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
            self._validate_params()
            if classes is None:
                raise ValueError("classes must be given on the first call to partial_fit")
        X, y = validate_data(self, X, y, accept_sparse="csr", dtype=(np.float64, np.float32),
                             order="C", reset=first)
        check_classification_targets(y)
        if first:
            self.classes_ = np.unique(np.asarray(classes))
            if len(self.classes_) < 2:
                raise ValueError("classes must hold at least 2 classes")
        unknown = np.setdiff1d(np.unique(y), self.classes_)
        if unknown.size:
            raise ValueError(f"y holds classes {unknown.tolist()} not in classes "
                             f"{self.classes_.tolist()}")
        weights = self._checked_weights(self._partial_fit_weights(X, y, sample_weight))
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
        X = validate_data(self, X, accept_sparse="csr", dtype=(np.float64, np.float32),
                          order="C", reset=False)
        scores = np.column_stack([svm.decision_function(X) for svm in self._svms])
        return scores.ravel() if scores.shape[1] == 1 else scores
