# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, embedsignature=True
"""The kernel SVM object: a Cython class owning one C ``SsKernelSvm``, plus
kernel matrices and the SBP water filling as functions.

Inputs are validated by the linear module's converters; this module keeps
every array the C object borrows alive, releases the GIL around training and
turns status codes into exceptions. The contract is
``include/stochsvm/kernel.h`` and ``include/stochsvm/kernel_svm.h``.
"""

import math
import threading

import numpy as np

cimport cython
cimport numpy as cnp
from cpython.exc cimport PyErr_CheckSignals
from cpython.pythread cimport PyThread_get_thread_ident
from libc.stdint cimport int32_t, int64_t, uint64_t
from libc.string cimport memcpy

from stochsvm._core cimport *
from stochsvm._svm import (_as_float, _as_int, _as_int64, _all_finite, _prepare_matrix,
                           _prepare_labels, _as_float_vector, _scores_or_raise)

cnp.import_array()

_KERNELS = {
    "linear": SS_KERNEL_LINEAR,
    "rbf": SS_KERNEL_RBF,
    "poly": SS_KERNEL_POLYNOMIAL,
    "polynomial": SS_KERNEL_POLYNOMIAL,
    "sigmoid": SS_KERNEL_SIGMOID,
    "precomputed": SS_KERNEL_PRECOMPUTED,
}
_KERNEL_NAMES = {int(SS_KERNEL_LINEAR): "linear", int(SS_KERNEL_RBF): "rbf",
                 int(SS_KERNEL_POLYNOMIAL): "poly", int(SS_KERNEL_SIGMOID): "sigmoid",
                 int(SS_KERNEL_PRECOMPUTED): "precomputed"}
_KSOLVERS = {"sbp": SS_KSOLVER_SBP, "pegasos": SS_KSOLVER_PEGASOS, "sdca": SS_KSOLVER_SDCA,
             "perceptron": SS_KSOLVER_PERCEPTRON, "none": SS_KSOLVER_NONE,
             "bsca": SS_KSOLVER_BSCA, "bsgd": SS_KSOLVER_BSGD}
_MAINTENANCE = {"auto": SS_BUDGET_MAINTENANCE_AUTO, "merge": SS_BUDGET_MAINTENANCE_MERGE,
                "remove": SS_BUDGET_MAINTENANCE_REMOVE, "project": SS_BUDGET_MAINTENANCE_PROJECT}
_MAINTENANCE_NAMES = {int(v): k for k, v in _MAINTENANCE.items()}
_KSOLVER_NAMES = {int(v): k for k, v in _KSOLVERS.items()}
_STATUS_NAMES = {
    int(SS_SVM_STATUS_UNTRAINED): "untrained",
    int(SS_SVM_STATUS_TRAINING): "training",
    int(SS_SVM_STATUS_CONVERGED): "converged",
    int(SS_SVM_STATUS_MAX_ITERATIONS): "max_iterations",
    int(SS_SVM_STATUS_INTERRUPTED): "interrupted",
    int(SS_SVM_STATUS_ERROR): "error",
    int(SS_SVM_STATUS_DIVERGED): "diverged",
    int(SS_SVM_STATUS_BUDGET_LIMITED): "budget_limited",
}
_RANGES = {
    "lambda_": "a number in [1e-150, 1e150]",
    "nu": "a finite number > 0",
    "eta0": "a finite number > 0",
    "epsilon": "a finite number >= 0 (0 disables the stopping rule)",
    "max_num_iterations": "an integer >= 1",
    "diagnostic_frequency": "an integer >= 1 (or None: the default schedule)",
    "gamma": "a finite number > 0",
    "sigma2": "a finite number > 0",
    "coef0": "a finite number",
    "degree": "an integer in [1, 64]",
    "volume": "a finite number > 0",
    "budget": "an integer >= 1",
}


_PRECISIONS = {"float64": SS_KERNEL_ROWS_FLOAT64, "float32": SS_KERNEL_ROWS_FLOAT32}


def _valid(names):
    return ", ".join(repr(k) for k in names)


#: The settings only some solvers have (the others refuse them rather than
#: ignore them): the solvers, and what the others lack.
_SOLVER_SETTINGS = {
    "nu": (("sbp",), "has no slack budget"),
    "eta0": (("sbp",), "has no eta0"),
    "budget": (("bsca", "bsgd"), "keeps every support vector"),
    "budget_maintenance": (("bsca", "bsgd"), "keeps every support vector"),
}


def _has_setting(solver, name):
    """Does ``solver`` use the setting ``name`` (every solver uses those
    outside _SOLVER_SETTINGS)?"""
    return name not in _SOLVER_SETTINGS or solver in _SOLVER_SETTINGS[name][0]


def _require_solver(solver, name):
    """ValueError when setting ``name`` means nothing to ``solver``."""
    solvers, lack = _SOLVER_SETTINGS[name]
    if solver not in solvers:
        raise ValueError(f"{name} applies to {'solver' if len(solvers) == 1 else 'the solvers'} "
                         f"{' and '.join(map(repr, solvers))} only; "
                         f"this KernelSVM's solver {solver!r} {lack}")


cdef int _check(SsStatus status, str name, value) except -1:
    if status == SS_OK:
        return 0
    if status == SS_ERR_BAD_ARG:
        raise ValueError(f"{name} must be {_RANGES.get(name, 'valid')}, got {value!r}")
    if status == SS_ERR_ALLOC:
        raise MemoryError(f"out of memory ({name})")
    if status == SS_ERR_BAD_STATE:
        raise RuntimeError(f"{name} cannot be set in this state: "
                           + ss_status_string(status).decode("utf-8", "replace"))
    raise ValueError(f"invalid {name}: " + ss_status_string(status).decode("utf-8", "replace"))


include "_data_view.pxi"


cdef SsKernel _make_kernel(kernel, gamma, sigma2, coef0, degree, int64_t dimension) except *:
    """The C kernel from the Python options (gamma None: 1 / dimension, LIBSVM's default)."""
    cdef SsKernel k
    if not isinstance(kernel, str) or kernel not in _KERNELS:
        raise ValueError(f"kernel must be one of {_valid(_KERNELS)}, got {kernel!r}")
    if gamma is not None and sigma2 is not None:
        raise ValueError("give gamma or sigma2, not both (gamma = 1 / (2 sigma2))")
    if sigma2 is not None:
        if kernel != "rbf":
            raise ValueError(f"sigma2 applies to the rbf kernel only, not {kernel!r}")
        s2 = _as_float(sigma2, "sigma2")
        _check(ss_kernel_init_gaussian(&k, s2), "sigma2", sigma2)
        return k
    g = 1.0 / dimension if gamma is None else _as_float(gamma, "gamma")
    c0 = _as_float(coef0, "coef0")
    deg = _as_int(degree, "degree")
    if not (1 <= deg <= 64):
        raise ValueError(f"degree must be {_RANGES['degree']}, got {degree!r}")
    status = ss_kernel_init(&k, <SsKernelType>_KERNELS[kernel], g, c0, <int>deg)
    if status != SS_OK:
        if not (0 < g < float("inf")):
            raise ValueError(f"gamma must be {_RANGES['gamma']}, got {gamma!r}")
        raise ValueError(f"coef0 must be {_RANGES['coef0']}, got {coef0!r}")
    return k


def kernel_matrix(X, Y=None, kernel="rbf", gamma=None, sigma2=None, coef0=0.0, degree=3):
    """Kernel values ``K[i, j] = K(x_i, y_j)``, computed by the C core's kernel rows.

    Parameters
    ----------
    X : ndarray (m, d) or scipy.sparse matrix
    Y : ndarray (n, d) or scipy.sparse matrix, optional (default X)
    kernel : {'linear', 'rbf', 'poly', 'sigmoid'}
    gamma : float, optional
        Default ``1 / d``.
    sigma2 : float, optional
        rbf only: ``gamma = 1 / (2 sigma2)``.
    coef0 : float
    degree : int

    Returns
    -------
    ndarray (m, n), float64
    """
    if kernel == "precomputed":
        raise ValueError("kernel_matrix needs a kernel function, not 'precomputed'")
    cdef _DataView xv = _DataView.build(X, "X", True)
    cdef _DataView yv = xv if Y is None else _DataView.build(Y, "Y", True)
    if xv.data.dimension != yv.data.dimension:
        raise ValueError(f"X has {xv.data.dimension} features and Y {yv.data.dimension}; "
                         f"they must match")
    cdef SsKernel k = _make_kernel(kernel, gamma, sigma2, coef0, degree, xv.data.dimension)
    cdef int64_t m = xv.data.num_data, n = yv.data.num_data, i
    cdef cnp.ndarray out = np.empty((m, n), dtype=np.float64)
    if m == 0 or n == 0:
        return out
    cdef cnp.ndarray norms = np.empty(n, dtype=np.float64)
    cdef double *o = <double *>cnp.PyArray_DATA(out)
    cdef double *nrm = <double *>cnp.PyArray_DATA(norms)
    cdef SsStatus status = SS_OK
    with nogil:
        ss_kernel_squared_norms(&yv.data, nrm)
        for i in range(m):
            status = ss_kernel_row(&k, &xv.data, i, &yv.data, nrm, o + i * n, NULL)
            if status != SS_OK:
                break
    if status == SS_ERR_ALLOC:
        raise MemoryError("out of memory computing the kernel matrix")
    if status != SS_OK:
        raise ValueError("kernel_matrix: " + ss_status_string(status).decode("utf-8", "replace"))
    return out


def _responses(c, name="c"):
    a = np.ascontiguousarray(np.asarray(c, dtype=np.float64))
    if a.ndim != 1 or a.shape[0] < 1:
        raise ValueError(f"{name} must be a non-empty 1-D array, got shape {a.shape}")
    if not np.isfinite(a).all():
        raise ValueError(f"{name} contains NaN or infinity")
    return a


def find_gamma(c, volume):
    """The SBP water level: ``gamma`` with ``sum_i max(0, gamma - c_i) = volume``.

    Expected O(n) (partition around random pivots; ``ss_sbp_find_gamma``).

    Parameters
    ----------
    c : array_like (n,)
        Responses.
    volume : float
        ``n nu > 0``.

    Returns
    -------
    float
    """
    cdef cnp.ndarray a = _responses(c)
    cdef double v = _as_float(volume, "volume")
    cdef cnp.ndarray work = np.empty_like(a)
    cdef double gamma = 0
    _check(ss_sbp_find_gamma(<const double *>cnp.PyArray_DATA(a), a.shape[0], v,
                             <double *>cnp.PyArray_DATA(work), &gamma), "volume", volume)
    return gamma


def find_gamma_and_bias(y, c, volume):
    """The SBP water level with an unregularized bias (``ss_sbp_find_gamma_and_bias``).

    Positives sit at ``c_i + b``, negatives at ``c_i - b``; ``volume`` of water
    fills both to one level ``gamma`` with the same number ``k`` of covered
    examples in each class.

    Returns
    -------
    (gamma, bias, k) : (float, float, int)
    """
    cdef cnp.ndarray a = _responses(c)
    cdef cnp.ndarray labels = _prepare_labels(y, a.shape[0])
    cdef double v = _as_float(volume, "volume")
    cdef cnp.ndarray work = np.empty(2 * a.shape[0], dtype=np.float64)
    cdef double gamma = 0, bias = 0
    cdef int64_t k = 0
    cdef SsStatus status = ss_sbp_find_gamma_and_bias(
        <const double *>cnp.PyArray_DATA(labels), <const double *>cnp.PyArray_DATA(a),
        a.shape[0], v, <double *>cnp.PyArray_DATA(work), &gamma, &bias, &k)
    if status == SS_ERR_BAD_DATA:
        raise ValueError("y must contain both classes -1 and +1")
    if status == SS_ERR_BAD_ARG and a.shape[0] < 2:
        raise ValueError("c needs at least two responses")
    _check(status, "volume", volume)
    return gamma, bias, int(k)


cdef object _copy_or_none(const double *values, int64_t n):
    """A float64 copy of n values owned by the C object, or None for NULL."""
    if values == NULL:
        return None
    cdef cnp.ndarray out = np.empty(n, dtype=np.float64)
    memcpy(cnp.PyArray_DATA(out), values, <size_t>n * sizeof(double))
    return out


include "_trainer.pxi"


cdef int _diagnostic_trampoline(const SsKernelSvm *svm, void *user) noexcept nogil:
    with gil:
        return (<KernelSVM>user)._on_diagnostic()


#: The statistics that only a train() call measures (NaN before the first one).
_MEASURED_BY_TRAINING = ("objective", "primal_objective", "regularizer", "loss", "dual_objective",
                         "duality_gap", "margin", "training_error")


cdef dict _statistics_dict(const SsKernelSvmStatistics *st):
    return {
        "status": _STATUS_NAMES.get(<int>st.status, "error"),
        "iteration": st.iteration,
        "epoch": st.epoch,
        "objective": st.objective,
        "primal_objective": st.primal_objective,
        "regularizer": st.regularizer,
        "loss": st.loss,
        "dual_objective": st.dual_objective,
        "duality_gap": st.duality_gap,
        "margin": st.margin,
        "training_error": st.training_error,
        "num_kernel_evaluations": st.num_kernel_evaluations,
        "num_support_vectors": st.num_support_vectors,
        "elapsed_time": st.elapsed_time,
        "finish_epochs": st.finish_epochs,
        "exact_cost": st.exact_cost,
    }


def _restore_kernel_svm(state):
    """Rebuild a pickled :class:`KernelSVM` (without data); see ``KernelSVM.__reduce__``."""
    cdef KernelSVM svm = KernelSVM.__new__(KernelSVM)
    kern = state["kernel"]
    svm._init_without_data(state["solver"], kern, state["dimension"], state["lambda"])
    solver = state["solver"]
    if state.get("nu") and _has_setting(solver, "nu"):  # None or 0: derived from lambda
        svm.set_nu(state["nu"])
    svm.set_epsilon(state["epsilon"])
    svm.set_seed(state["seed"])
    svm.set_unregularized_bias(state["unregularized_bias"])  # BSCA's default is True
    # The SBP's and the budget's settings are refused by the other solvers;
    # pickles made before they were (and model files) carry them for every
    # solver, at their defaults.
    for key in ("eta0", "max_num_iterations", "diagnostic_frequency", "budget",
                "budget_maintenance", "cache_size", "shrinking", "kernel_precision",
                "row_copy", "sdca_finish"):
        if state.get(key) is not None and _has_setting(solver, key):
            getattr(svm, "set_" + key)(state[key])
    if state.get("num_threads", 1) > 1:  # pickles before stop 53 have none: 1
        svm.set_num_threads(state["num_threads"])
    svm.set_model(state["support_vectors"], state["coefficients"], state["bias"],
                  indices=state["support_indices"])
    svm._saved_statistics = state.get("statistics")
    return svm


# The docstring opens with the signature in the form CPython reads into
# __text_signature__, so that inspect.signature(KernelSVM) works.
@cython.embedsignature(False)
cdef class KernelSVM(_Trainer):
    """KernelSVM(X, y, lambda_, solver='sbp', kernel='rbf', gamma=None, sigma2=None, coef0=0.0, degree=3, seed=None)
--

    Kernel SVM trained by the Stochastic Batch Perceptron, kernel Pegasos,
    kernel SDCA, the online Perceptron or, on a budget, BSCA and BSGD (a
    mirror of the C ``SsKernelSvm``).

    The predictor is ``f(x) = sum_j beta_j K(z_j, x) + b`` over support vectors
    copied from the training data. Pegasos, SDCA, BSCA and BSGD minimise
    ``lambda/2 ||w||^2 + 1/n sum_i c_i max(0, 1 - y_i f(x_i))`` (per-example
    weights ``c_i``, default 1, see :meth:`set_weights`); SDCA and BSCA can
    learn an unregularized bias ``b`` (:meth:`set_unregularized_bias`: on by
    default for BSCA, off for SDCA), Pegasos and BSGD have none. The SBP
    maximises the margin under a slack budget ``n nu`` and can learn an
    unregularized bias too (off by default); the Perceptron minimises no
    objective.

    Parameters
    ----------
    X : ndarray (n, d) or scipy.sparse matrix
        Training data (float32 kept, anything else float64; borrowed, not
        copied). With ``kernel='precomputed'``, the n x n Gram matrix.
    y : array_like (n,)
        Labels -1 or +1.
    lambda_ : float
        Regularization (> 0) of Pegasos, SDCA, BSCA and BSGD; the reported
        primal of every solver uses it.
    solver : {'sbp', 'pegasos', 'sdca', 'perceptron', 'bsca', 'bsgd', 'none'}
        'bsca' and 'bsgd' keep at most B support vectors (:meth:`set_budget`,
        :meth:`set_budget_maintenance`, :meth:`get_budget_statistics`).
    kernel : {'rbf', 'linear', 'poly', 'sigmoid', 'precomputed'}
    gamma : float, optional
        Kernel coefficient (default ``1 / d``).
    sigma2 : float, optional
        rbf bandwidth: ``K = exp(-||x - z||^2 / (2 sigma2))``.
    coef0 : float
    degree : int
    seed : int, optional

    Notes
    -----
    Threads (docs: python_api.rst, "Threads"): :meth:`train` releases the
    GIL and holds the object's lock: meanwhile a second :meth:`train` and
    every setter raise RuntimeError, and so does every getter called from
    another thread (the diagnostic function, on the training thread, may
    call getters and :meth:`decision_function`). Several threads may call
    :meth:`decision_function`, :meth:`predict`, :meth:`estimate_nu` and
    :meth:`nu_from_model` at once; while one of them runs, a setter,
    :meth:`set_data`, :meth:`set_model`, :meth:`set_num_threads` or
    :meth:`train` from another thread raises RuntimeError instead of
    changing the object under it.

    X is borrowed: values changed in place are detected as
    docs/bad_inputs.rst ("Borrowed data") says; resizing or freeing its
    buffer behind NumPy's back (``X.resize(..., refcheck=False)``) breaks
    NumPy's buffer contract and is outside what the object can protect.

    Examples
    --------
    >>> import numpy as np
    >>> from stochsvm import KernelSVM
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(200, 2))
    >>> y = np.where(X[:, 0] ** 2 + X[:, 1] ** 2 < 1.2, 1.0, -1.0)
    >>> svm = KernelSVM(X, y, 1e-3, solver="sdca", sigma2=0.5, seed=1)
    >>> stats = svm.train()
    >>> bool(np.mean(svm.predict(X) == y) > 0.9)
    True
    """

    cdef SsKernelSvm *_svm
    cdef object _data_refs
    cdef bint _eta0_set
    cdef bint _nu_set
    cdef bint _max_num_iterations_set
    cdef bint _diagnostic_frequency_set

    def __cinit__(self, *args, **kwargs):
        self._svm = NULL
        self._kind = "KernelSVM"

    def __dealloc__(self):
        ss_kernel_svm_delete(self._svm)
        self._svm = NULL

    def __init__(self, X, y, lambda_, solver="sbp", kernel="rbf", gamma=None, sigma2=None,
                 coef0=0.0, degree=3, seed=None):
        cdef SsKernelSolver c_solver
        cdef SsKernel k
        cdef _DataView view
        cdef cnp.ndarray labels
        cdef SsKernelSvm *obj
        if self._svm != NULL:
            raise RuntimeError("KernelSVM.__init__ cannot be called twice")
        c_solver = _solver_from_name(solver)
        lam = _check_lambda(lambda_)
        view = _DataView.build(X, "X", False)
        if kernel == "precomputed" and view.data.num_data != view.data.dimension:
            raise ValueError(f"with kernel='precomputed' X must be the square n x n Gram matrix, "
                             f"got shape ({view.data.num_data}, {view.data.dimension})")
        if kernel == "precomputed" and solver in ("bsca", "bsgd"):
            raise ValueError(f"solver={solver!r} does not support kernel='precomputed' (budget "
                             f"maintenance needs the feature vectors); use another kernel or solver")
        k = _make_kernel(kernel, gamma, sigma2, coef0, degree, view.data.dimension)
        labels = _prepare_labels(y, view.data.num_data)
        obj = ss_kernel_svm_new(c_solver, &k, &view.data,
                                <const double *>cnp.PyArray_DATA(labels), lam)
        if obj == NULL:
            status = ss_kernel_svm_check_new(c_solver, &k, &view.data,
                                             <const double *>cnp.PyArray_DATA(labels), lam)
            if status == SS_OK or status == SS_ERR_ALLOC:
                raise MemoryError("could not allocate the KernelSVM")
            raise ValueError("invalid arguments for KernelSVM: "
                             + ss_status_string(status).decode("utf-8", "replace"))
        self._svm = obj
        self._data_refs = view.refs
        if seed is not None:
            self.set_seed(seed)

    cdef _init_without_data(self, solver, kern, dimension, lambda_):
        cdef SsKernel k = _make_kernel(kern["kernel"], kern["gamma"], None, kern["coef0"],
                                       kern["degree"], 1)
        cdef SsKernelSvm *obj = ss_kernel_svm_new_without_data(
            _solver_from_name(solver), &k, _as_int64(dimension, "dimension"),
            _check_lambda(lambda_))
        if obj == NULL:
            raise ValueError("cannot restore the KernelSVM (invalid state)")
        self._svm = obj

    # -- guards ------------------------------------------------------------

    cdef inline SsKernelSvm *_ptr(self) except NULL:
        if self._svm == NULL:
            raise RuntimeError("this KernelSVM was not initialised")
        return self._svm

    cdef SsKernelSvm *_reader(self) except NULL:
        cdef SsKernelSvm *p = self._ptr()
        self._reader_check()
        return p

    cdef SsKernelSvm *_writer(self, str what) except NULL:
        cdef SsKernelSvm *p = self._ptr()
        self._writer_check(what)
        return p

    # -- the C calls of the trainer base (_trainer.pxi) ----------------------

    cdef SsStatus _c_train(self) noexcept nogil:
        return ss_kernel_svm_train(self._svm)

    cdef str _last_error(self):
        return _c_text(ss_kernel_svm_get_last_error(self._svm))

    cdef void _c_set_interrupt(self, bint enabled):
        if enabled:
            ss_kernel_svm_set_interrupt_function(self._svm, _trainer_interrupt_trampoline,
                                                 <void *>self)
        else:
            ss_kernel_svm_set_interrupt_function(self._svm, NULL, NULL)

    cdef int64_t _c_num_data(self):
        return ss_kernel_svm_get_num_data(self._svm)

    cdef dict _c_statistics(self):
        return _statistics_dict(ss_kernel_svm_get_statistics(self._svm))

    # -- pickling ----------------------------------------------------------

    def __reduce__(self):
        """Pickle support: the parameters and the model, not the data (nor the
        training state: an unpickled object's iteration number is 0, while its
        statistics describe the training that made the model)."""
        self._pickle_check()
        cdef SsKernelSvm *p = self._reader()
        state = {
            "format": 1,
            "solver": self.get_solver(),
            "kernel": self.get_kernel(),
            "dimension": ss_kernel_svm_get_dimension(p),
            "lambda": ss_kernel_svm_get_lambda(p),
            "nu": ss_kernel_svm_get_nu(p) if self._nu_set else None,
            "unregularized_bias": bool(ss_kernel_svm_get_unregularized_bias(p)),
            "epsilon": ss_kernel_svm_get_epsilon(p),
            "seed": ss_kernel_svm_get_seed(p),
            "eta0": ss_kernel_svm_get_eta0(p) if self._eta0_set else None,
            "max_num_iterations": (ss_kernel_svm_get_max_num_iterations(p)
                                   if self._max_num_iterations_set else None),
            "diagnostic_frequency": (ss_kernel_svm_get_diagnostic_frequency(p)
                                     if self._diagnostic_frequency_set else None),
            "budget": ss_kernel_svm_get_budget(p),
            "budget_maintenance": self.get_budget_maintenance(),
            "cache_size": ss_kernel_svm_get_cache_size(p),
            "shrinking": bool(ss_kernel_svm_get_shrinking(p)),
            "sdca_finish": self.get_sdca_finish(),
            "row_copy": bool(ss_kernel_svm_get_row_copy(p)),
            "num_threads": ss_kernel_svm_get_num_threads(p),
            "kernel_precision": self.get_kernel_precision(),
            "support_vectors": self.get_support_vectors(),
            "support_indices": self.get_support_indices(),
            "coefficients": self.get_coefficients(),
            "bias": ss_kernel_svm_get_bias(p),
            "statistics": self.get_statistics(),
        }
        return (_restore_kernel_svm, (state,))

    def __repr__(self):
        if self._svm == NULL:
            return "KernelSVM(<uninitialised>)"
        return (f"KernelSVM(solver={self.get_solver()!r}, kernel={self.get_kernel()!r}, "
                f"num_data={ss_kernel_svm_get_num_data(self._svm)}, "
                f"support_vectors={ss_kernel_svm_get_num_support_vectors(self._svm)})")

    # -- data and training -------------------------------------------------

    def set_data(self, X, y):
        """New training data of the same dimension; the solver restarts from zero."""
        cdef SsKernelSvm *p = self._writer("set_data")
        cdef _DataView view = _DataView.build(X, "X", False)
        if view.data.dimension != ss_kernel_svm_get_dimension(p):
            raise ValueError(f"X has {view.data.dimension} columns, the KernelSVM expects "
                             f"{ss_kernel_svm_get_dimension(p)}")
        cdef cnp.ndarray labels = _prepare_labels(y, view.data.num_data)
        self._writer_check("set_data")  # again: converting the argument ran Python
        status = ss_kernel_svm_set_data(p, &view.data, <const double *>cnp.PyArray_DATA(labels))
        if status == SS_ERR_BAD_ARG:
            raise ValueError("with kernel='precomputed' X must be the square Gram matrix" + self._detail())
        self._check(status, "X", "data")
        self._data_refs = view.refs
        self._saved_statistics = None

    def train(self):
        """Run the solver from its present state (``ss_kernel_svm_train``), GIL released.

        On the main thread Ctrl+C stops it within ``SS_KERNEL_SVM_INTERRUPT_PERIOD``
        (64) iterations (Pegasos, SDCA without the bias and the Perceptron: or
        2^22 kernel evaluations of a diagnostic's pass) and raises
        KeyboardInterrupt, the model kept. Pegasos, SDCA without the bias and
        the Perceptron then make no closing pass over the data: their
        statistics say where the run stopped and give NaN for the objectives,
        loss, gap and training error (docs: c_api.rst,
        ``SS_KERNEL_SVM_INTERRUPT_PERIOD``).

        Returns
        -------
        dict
            The statistics (see :meth:`get_statistics`).

        Raises
        ------
        ValueError
            X changed since :meth:`set_data` (found before the run), or while
            it ran (from the diagnostic function or another thread; found when
            it ends, and the model is then not reliable): give the data again.
            Or the kernel's values overflow on X (a polynomial kernel of high
            degree, gamma or ``|coef0|``): the message names the kernel and a
            value ``K(x_i, x_j)`` that is not finite. Found before the run
            (``K(x_i, x_i)``), nothing is trained; found in it, the model
            cannot score X (statistics status ``"error"``).
        FloatingPointError
            Training produced a non-finite model otherwise (``SS_ERR_NUMERIC``)
            or diverged (``SS_ERR_DIVERGED``).
        """
        cdef SsKernelSvm *p = self._ptr()
        status, message = self._run_training()
        if status == SS_OK or status == SS_ERR_INTERRUPTED:
            return _statistics_dict(ss_kernel_svm_get_statistics(p))
        advice = ""
        kind = None
        if status == SS_ERR_DIVERGED:
            advice = " (Pegasos and BSGD step by 1/(lambda t)): use a larger lambda"
        elif status == SS_ERR_NUMERIC and "the kernel's values overflow" in message:
            kind = ValueError   # the kernel's parameters on this X, not a solver's steps
        return _raise_status(status, message, advice, kind)

    def set_diagnostic_function(self, f):
        """Call ``f(statistics)`` at every diagnostic (and at the end of a run);
        a true return value stops training. ``None`` removes it. The callback
        may call :meth:`decision_function` (the model is refreshed first)."""
        cdef SsKernelSvm *p = self._writer("set_diagnostic_function")
        if f is not None and not callable(f):
            raise TypeError(f"the diagnostic function must be callable or None, got {f!r}")
        self._callback = f
        if f is None:
            ss_kernel_svm_set_diagnostic_function(p, NULL, NULL)
        else:
            ss_kernel_svm_set_diagnostic_function(p, _diagnostic_trampoline, <void *>self)

    def decision_function(self, X):
        """Scores ``f(x) = sum_j beta_j K(z_j, x) + b`` of the rows of ``X``.

        With ``kernel='precomputed'``, X holds kernel values against the
        training examples (m x n).
        """
        cdef SsKernelSvm *p = self._ptr()
        cdef _DataView view
        cdef int64_t d
        cdef cnp.ndarray out
        cdef double *o
        cdef SsStatus status
        self._enter_reading()  # no writer changes the object (model, threads) until we leave
        try:
            view = _DataView.build(X, "X", True)
            d = ss_kernel_svm_get_dimension(p)
            if view.data.dimension != d:
                raise ValueError(f"X has {view.data.dimension} columns, the KernelSVM expects {d}")
            out = np.empty(view.data.num_data, dtype=np.float64)
            if view.data.num_data == 0:
                return out
            o = <double *>cnp.PyArray_DATA(out)
            with nogil:
                status = ss_kernel_svm_decision_function(p, &view.data, o)
        finally:
            self._leave_reading()
        if status == SS_ERR_ALLOC:
            raise MemoryError("out of memory in decision_function")
        if status == SS_ERR_NUMERIC or status == SS_ERR_BAD_DATA:
            return _scores_or_raise(status, out)
        _check(status, "X", "data")
        return out

    def predict(self, X):
        """Labels -1 / +1: the sign of :meth:`decision_function` (0 counts as +1)."""
        return np.where(self.decision_function(X) >= 0, 1.0, -1.0)

    def nu_from_model(self):
        """The paper's ``nu`` for this model: mean hinge loss / ||w|| (``ss_kernel_svm_nu_from_model``).

        Train a reference (e.g. ``solver='sdca'`` to a small gap) at the lambda
        of interest, then give this nu to an SBP.
        """
        cdef SsKernelSvm *p = self._ptr()
        cdef double nu = 0
        cdef SsStatus status
        self._enter_reading()
        try:
            with nogil:
                status = ss_kernel_svm_nu_from_model(p, &nu)
        finally:
            self._leave_reading()
        if status == SS_ERR_BAD_STATE:
            raise RuntimeError("nu_from_model needs data and a trained, non-zero model")
        _check(status, "model", None)
        return nu

    def estimate_nu(self, epochs=0):
        """The SBP's ``nu`` for this object's lambda (``ss_kernel_svm_estimate_nu``).

        ``nu = L(w*) / ||w*||`` (mean hinge loss over norm) is the slack budget
        at which the SBP's problem has the minimiser ``w*`` of the regularized
        primal as its solution. ``w*`` is computed by exact kernel SDCA (this
        object's bias setting, seed, weights and threads, to a relative gap of
        1e-3) on this object's data; above 4096 rows, on a sample of 4096 rows
        and its two halves at the same ``C``, their nu extrapolated to all
        rows (docs/kernel.rst). It is what the SBP uses when no nu is set.

        Parameters
        ----------
        epochs : int >= 0, default=0
            The warm-up's epoch cap (0: the default, 100).

        Returns
        -------
        float
        """
        cdef SsKernelSvm *p = self._reader()
        cdef double nu = 0
        cdef int64_t c_epochs = _as_int64(epochs, "epochs")
        cdef SsStatus status
        if c_epochs < 0:
            raise ValueError(f"epochs must be an integer >= 0, got {epochs!r}")
        if ss_kernel_svm_get_num_data(p) == 0:
            raise RuntimeError("this KernelSVM has no data; call set_data(X, y) before "
                               "estimate_nu")
        self._enter_reading()  # it reads the data, labels, weights and threads
        try:
            with nogil:
                status = ss_kernel_svm_estimate_nu(p, c_epochs, &nu)
        finally:
            self._leave_reading()
        if status == SS_ERR_ALLOC:
            raise MemoryError("out of memory in estimate_nu")
        _check(status, "epochs", epochs)
        return nu

    # -- setters -------------------------------------------------------------

    def set_lambda(self, lambda_):
        """lambda > 0 (Pegasos and SDCA restart their state)."""
        cdef SsKernelSvm *p = self._writer("set_lambda")
        self._check(ss_kernel_svm_set_lambda(p, _as_float(lambda_, "lambda_")), "lambda_", lambda_)

    def set_weights(self, weights):
        """Set per-example weights c_i (copied), or restore uniform weights.

        Pegasos, SDCA, BSCA and BSGD then minimise
        ``lambda/2 ||w||^2 + 1/n sum_i c_i max(0, 1 - y_i f(x_i))`` (SDCA's and
        BSCA's box becomes ``0 <= alpha_i <= c_i / (lambda n)``), the
        Perceptron scales its update of example i by c_i, and the reported
        primal objective and loss are weighted. The solver restarts from zero.

        Parameters
        ----------
        weights : array_like of shape (n,) or None
            Finite values >= 0, one per example (0 removes the example). None
            restores the default (all 1). :meth:`set_data` clears the weights.

        Raises
        ------
        ValueError
            Wrong length, negative or non-finite values (weights unchanged), or
            weights given to ``solver='sbp'``, which has no weighted formulation.
        """
        cdef SsKernelSvm *p = self._writer("set_weights")
        cdef cnp.ndarray w
        cdef int64_t n = ss_kernel_svm_get_num_data(p)
        if weights is None:
            self._check(ss_kernel_svm_set_weights(p, NULL), "weights", None)
            return
        if n == 0:
            raise RuntimeError("this KernelSVM has no data; call set_data(X, y) before "
                               "set_weights")
        w = _as_float_vector(weights, "weights", n, "one per example")
        if ss_kernel_svm_get_solver(p) == SS_KSOLVER_SBP:
            raise ValueError("weights are not supported by solver='sbp' (its slack-"
                             "constrained problem has no weighted form here); use "
                             "'sdca', 'pegasos', 'perceptron', 'bsca' or 'bsgd'")
        self._writer_check("set_weights")  # again: converting the argument ran Python
        status = ss_kernel_svm_set_weights(p, <const double *>cnp.PyArray_DATA(w))
        if status == SS_ERR_BAD_ARG:
            raise ValueError(f"weights must be {n} finite values >= 0" + self._detail())
        self._check(status, "weights", None)

    def get_weights(self):
        """A copy of the per-example weights, or None for uniform weights.

        Returns
        -------
        ndarray of shape (n,) or None
        """
        cdef SsKernelSvm *p = self._reader()
        return _copy_or_none(ss_kernel_svm_get_weights(p), ss_kernel_svm_get_num_data(p))

    def set_nu(self, nu):
        """SBP's slack per example, > 0; None restores the default, nu derived
        from lambda at the first train (:meth:`estimate_nu`), with which the
        SBP solves the SVM of lambda. Other solvers have no nu and raise
        ValueError (None is accepted: there is nothing to forget)."""
        cdef SsKernelSvm *p = self._writer("set_nu")
        if nu is None:  # nothing to forget for the other solvers
            self._check(ss_kernel_svm_unset_nu(p), "nu", nu)
            self._nu_set = False
            return
        _require_solver(self.get_solver(), "nu")
        self._check(ss_kernel_svm_set_nu(p, _as_float(nu, "nu")), "nu", nu)
        self._nu_set = True

    def set_unregularized_bias(self, enabled):
        """SBP, BSCA and SDCA: learn an unregularized bias (default: True for
        BSCA, False for the SBP and SDCA); other solvers
        refuse True. BSCA then keeps sum_i y_i alpha_i = 0 by pair steps and sets
        the bias to the primal's minimiser at each diagnostic (LIBSVM's problem,
        see docs/budget.rst). SDCA becomes the exact pairwise solver of LIBSVM's
        dual, with a kernel-row cache (:meth:`set_cache_size`) and shrinking
        (:meth:`set_shrinking`); docs/kernel.rst. Changing it restarts BSCA and SDCA."""
        cdef SsKernelSvm *p = self._writer("set_unregularized_bias")
        if not isinstance(enabled, (bool, np.bool_)):  # "False" or nan would read as True
            raise TypeError(f"unregularized_bias must be True or False, got {enabled!r}")
        solver = _KSOLVER_NAMES[<int>ss_kernel_svm_get_solver(p)]
        if enabled and solver not in ("sbp", "bsca", "sdca"):
            raise ValueError(f"unregularized_bias=True needs the solver 'sbp', 'bsca' or "
                             f"'sdca'; this KernelSVM's solver {solver!r} has no bias")
        self._check(ss_kernel_svm_set_unregularized_bias(p, 1 if enabled else 0),
               "unregularized_bias", enabled)

    def set_cache_size(self, cache_size):
        """SDCA with a bias: the kernel-row cache in MB, finite and > 0
        (default 200, as SVC's ``cache_size``). It changes the running time,
        never the iterates. The rows are allocated as they are needed, up to
        this size; where the memory runs out first (an address-space limit),
        the cache keeps seven eighths of the rows it got and goes on with
        them, where the fit used to raise MemoryError."""
        cdef SsKernelSvm *p = self._writer("set_cache_size")
        v = _as_float(cache_size, "cache_size")
        if not (math.isfinite(v) and v > 0):
            raise ValueError(f"cache_size must be a finite number of MB > 0, got {cache_size!r}")
        _check(ss_kernel_svm_set_cache_size(p, v), "cache_size", cache_size)

    def get_cache_size(self):
        return ss_kernel_svm_get_cache_size(self._reader())

    def share_kernel_rows(self, KernelSVM source):
        """SDCA with a bias: take the kernel rows from a store shared with
        ``source`` (another KernelSVM on the same X array, kernel and kernel
        precision; labels and weights may differ), so that each row is
        computed once for all the objects sharing it, e.g. the binary
        problems of a one-vs-rest fit. Used while all n rows fit in the cache
        size; it changes the running time and ``get_num_kernel_evaluations``
        (each object counts the rows it computed), never the model. The
        objects may train at the same time in different threads. ``None``:
        stop sharing. ValueError when the rows would differ."""
        cdef SsKernelSvm *p = self._writer("share_kernel_rows")
        cdef SsKernelSvm *q = NULL
        if source is not None:
            q = source._writer("share_kernel_rows")
        self._check(ss_kernel_svm_share_kernel_rows(p, q), "share_kernel_rows", source)

    def set_shrinking(self, enabled):
        """SDCA with a bias: shrink the active set (default True). On and off
        reach the same optimum."""
        cdef SsKernelSvm *p = self._writer("set_shrinking")
        if not isinstance(enabled, (bool, np.bool_)):  # "False" or nan would read as True
            raise TypeError(f"shrinking must be True or False, got {enabled!r}")
        _check(ss_kernel_svm_set_shrinking(p, 1 if enabled else 0), "shrinking", enabled)

    def get_shrinking(self):
        return bool(ss_kernel_svm_get_shrinking(self._reader()))

    def set_sdca_finish(self, enabled):
        """The certified finish on exact kernel SDCA: on, off or ``"auto"``
        (``ss_kernel_svm_set_sdca_finish``).

        Kernel Pegasos, the SBP (``nu`` derived from ``lambda_``), bias-free
        kernel SDCA (its coordinate steps; its dual variables become the
        finish's) and, when their budget is at least ``n``, BSGD and BSCA: a
        ``train`` that ends on
        its iteration cap, or on its objective window without a dual bound
        certifying ``min(epsilon, 1e-3)`` where the cache holds the whole
        kernel matrix (``8 n**2`` bytes), continues on exact kernel SDCA on the same problem
        (``lambda_``, weights, the bias form in force), until its relative
        duality gap meets ``min(epsilon, 1e-3)`` (status ``'converged'``,
        within that factor of the optimum) or its cap ran (1000 epochs, more
        on small sets). Such a run does not wait for its cap: Pegasos, BSGD
        and BSCA hand over once their kernel evaluations since the run began
        reach ``n**2`` (what the exact solve costs at most where its cache
        holds the kernel matrix), bias-free SDCA at its first diagnostic
        short of the gap. The model and the statistics become
        the SDCA's; ``statistics["finish_epochs"]`` counts its epochs
        (docs/stopping.rst). A further ``train`` finishes again, from the
        last finish's dual state (kept on the object, 24 bytes per example):
        on the same problem a kernel row or a few instead of a solve
        (Pegasos, BSGD, BSCA, bias-free SDCA, and the SBP after its race, go
        straight to it, without steps of their own). After
        :meth:`set_lambda` it starts from that state scaled to the new box; :meth:`set_data`, :meth:`set_weights`
        and a change of the bias form or the kernel precision start it from
        zero.

        Parameters
        ----------
        enabled : bool or "auto"
            True: whenever a run ends on its cap; False: never; ``"auto"``
            (the default): only while the cap is the object's default (after
            :meth:`set_max_num_iterations` a run ends on the cap it was
            given, a cheap rough model as asked).
        """
        mode = _finish_mode(enabled)
        cdef SsKernelSvm *p = self._writer("set_sdca_finish")
        _check(ss_kernel_svm_set_sdca_finish(p, mode), "sdca_finish", enabled)

    def get_sdca_finish(self):
        """The finish's mode: True, False or ``"auto"`` (the default;
        :meth:`set_sdca_finish`)."""
        return _finish_mode_name(ss_kernel_svm_get_sdca_finish(self._reader()))

    def set_row_copy(self, enabled):
        """SBP and exact SDCA (``solver="sdca"`` with the bias, and the
        kernel SDCA finishes) on CSR data: keep copies of X's rows laid out
        for fast kernel rows (True, the default) or not (False). The copies
        give the same kernel values bit for bit, so both give the same
        iterates; off saves their memory (about 9 bytes per stored value,
        for exact SDCA its shrunk active rows compacted, and for kernel SDCA
        without the bias, Pegasos and the Perceptron their support rows
        during each diagnostic's scores pass;
        docs/memory.rst) and the time to make them, at the price of slower
        rows."""
        cdef SsKernelSvm *p = self._writer("set_row_copy")
        if not isinstance(enabled, (bool, np.bool_)):
            raise TypeError(f"row_copy must be True or False, got {enabled!r}")
        _check(ss_kernel_svm_set_row_copy(p, 1 if enabled else 0), "row_copy", enabled)

    def get_row_copy(self):
        return bool(ss_kernel_svm_get_row_copy(self._reader()))

    def set_kernel_precision(self, precision):
        """The precision of the kernel rows used in training: ``"float64"``
        (the default) or ``"float32"``, the rbf kernel of float32 data with a
        single-precision exp (and dot products, for dense data): each value
        within about 1.5e-7 of the float64 one, sums still in double
        (docs/kernel.rst, "Float32 kernel rows"). ``"float32"`` needs
        ``kernel='rbf'``, a solver other than 'bsca' and 'bsgd', and float32
        X (ValueError otherwise; :meth:`set_data` then refuses float64 X).
        Prediction keeps float64 rows. Changing it restarts the solver."""
        cdef SsKernelSvm *p = self._writer("set_kernel_precision")
        if not isinstance(precision, str) or precision not in _PRECISIONS:
            raise ValueError(f"kernel_precision must be 'float64' or 'float32', got {precision!r}")
        status = ss_kernel_svm_set_kernel_precision(p, _PRECISIONS[precision])
        if status != SS_OK:
            raise ValueError(f"kernel_precision={precision!r}: {self._last_error()}")

    def get_kernel_precision(self):
        """``"float64"`` or ``"float32"``, see :meth:`set_kernel_precision`."""
        return ("float32" if ss_kernel_svm_get_kernel_precision(self._reader())
                == SS_KERNEL_ROWS_FLOAT32 else "float64")

    def set_eta0(self, eta0):
        """SBP's initial step, > 0 (default 1 / sqrt(max_i K(x_i, x_i))).
        Other solvers raise ValueError."""
        cdef SsKernelSvm *p = self._writer("set_eta0")
        _require_solver(self.get_solver(), "eta0")
        self._check(ss_kernel_svm_set_eta0(p, _as_float(eta0, "eta0")), "eta0", eta0)
        self._eta0_set = True

    def set_epsilon(self, epsilon):
        """Relative stopping tolerance, finite and >= 0 (default 1e-3 for every
        solver; 0 disables the rule, the run ends at the cap). SDCA and BSCA
        stop when the relative duality gap ``P - D <= epsilon D`` (for SDCA a
        certificate of ``P <= (1 + epsilon) P*``; BSCA's ``D`` is an estimate
        once budget maintenance has changed the model); Pegasos, BSGD and the
        SBP on the objective window of the primal ``P`` (the linear object's
        rule, ``SVM.set_epsilon``); the Perceptron has no rule and runs
        to the cap (``ss_kernel_svm_set_epsilon``)."""
        cdef SsKernelSvm *p = self._writer("set_epsilon")
        self._check(ss_kernel_svm_set_epsilon(p, _as_float(epsilon, "epsilon")), "epsilon", epsilon)

    def set_max_num_iterations(self, n):
        """Iterations per train() call, >= 1 (default 100 n: 100 epochs; the
        stopping rule usually ends the run earlier)."""
        cdef SsKernelSvm *p = self._writer("set_max_num_iterations")
        v = _as_int64(n, "max_num_iterations")
        self._check(ss_kernel_svm_set_max_num_iterations(p, v), "max_num_iterations", n)
        self._max_num_iterations_set = True

    def set_diagnostic_frequency(self, f):
        """Iterations between diagnostics, >= 1, or None for the default: a
        geometric schedule of epochs, as the linear object's (the SBP's unit
        is smaller)."""
        cdef SsKernelSvm *p = self._writer("set_diagnostic_frequency")
        v = 0 if f is None else _as_int64(f, "diagnostic_frequency")
        if f is not None and v < 1:  # (0 is C's default; Python says None)
            raise ValueError(f"diagnostic_frequency must be {_RANGES['diagnostic_frequency']}, "
                             f"got {f!r}")
        self._check(ss_kernel_svm_set_diagnostic_frequency(p, v), "diagnostic_frequency", f)
        self._diagnostic_frequency_set = v > 0

    def get_diagnostic_frequency_setting(self):
        """The diagnostic frequency as set: an int, or None on the default
        schedule (as :meth:`stochsvm.SVM.get_diagnostic_frequency_setting`)."""
        return (ss_kernel_svm_get_diagnostic_frequency(self._reader())
                if self._diagnostic_frequency_set else None)

    def set_seed(self, seed):
        """Seed of the object's random generator, an integer in [0, 2**64)."""
        cdef SsKernelSvm *p = self._writer("set_seed")
        v = _as_int(seed, "seed")
        if not (0 <= v < 2 ** 64):
            raise ValueError(f"seed must be an integer in [0, 2**64), got {seed!r}")
        ss_kernel_svm_set_seed(p, <uint64_t>v)

    def set_num_threads(self, num_threads):
        """Threads for this one model, an integer >= 1 (default 1).

        Kernel rows (SBP, SDCA, Pegasos, Perceptron), the diagnostic passes
        and prediction are split over this many threads, and with a
        Gaussian kernel BSCA's and BSGD's loops over 256 or more budget terms
        (docs/budget.rst, "Threads"); the results are bit-identical for any
        count. A core built without POSIX threads runs serially whatever the
        count. A pickle keeps the count; a process forked from this one
        trains on threads of its own (docs/embedding.rst)."""
        cdef SsKernelSvm *p = self._writer("set_num_threads")
        v = _as_int(num_threads, "num_threads")
        if not (1 <= v <= 1024):
            raise ValueError(f"num_threads must be an integer in [1, 1024], got {num_threads!r}")
        _check(ss_kernel_svm_set_num_threads(p, <int>v), "num_threads", num_threads)

    def set_model(self, support_vectors, coefficients, bias=0.0, indices=None):
        """Copy a model: support vectors (m x d rows; None for a precomputed
        kernel, which needs ``indices``), m coefficients and the bias."""
        cdef SsKernelSvm *p = self._writer("set_model")
        cdef cnp.ndarray coef = _as_float_vector(np.ravel(coefficients), "coefficients",
                                                 np.size(coefficients), "one per support vector")
        cdef int64_t m = coef.shape[0]
        cdef cnp.ndarray idx = None
        cdef const int64_t *ip = NULL
        cdef _DataView view = None
        cdef const SsData *svp = NULL
        b = _as_float(bias, "bias")
        if indices is not None:
            idx = np.ascontiguousarray(np.asarray(indices, dtype=np.int64)).reshape(-1)
            if idx.shape[0] != m:
                raise ValueError(f"indices must have {m} entries, got {idx.shape[0]}")
            ip = <const int64_t *>cnp.PyArray_DATA(idx)
        if support_vectors is not None and m > 0:
            view = _DataView.build(support_vectors, "support_vectors", False)
            if view.data.num_data != m:
                raise ValueError(f"support_vectors has {view.data.num_data} rows but there are "
                                 f"{m} coefficients")
            svp = &view.data
        self._writer_check("set_model")  # again: converting the argument ran Python
        status = ss_kernel_svm_set_model(p, svp, ip, <const double *>cnp.PyArray_DATA(coef), m, b)
        if status == SS_ERR_BAD_STATE:
            raise RuntimeError("nu_from_model needs data and a trained, non-zero model" + self._detail())
        self._check(status, "model", None)

    # -- getters -------------------------------------------------------------

    def get_solver(self):
        return _KSOLVER_NAMES[<int>ss_kernel_svm_get_solver(self._reader())]

    def get_kernel(self):
        """The kernel as a dict: kernel, gamma, coef0, degree."""
        cdef const SsKernel *k = ss_kernel_svm_get_kernel(self._reader())
        return {"kernel": _KERNEL_NAMES[<int>k.type], "gamma": k.gamma, "coef0": k.coef0,
                "degree": k.degree}

    def get_lambda(self):
        return ss_kernel_svm_get_lambda(self._reader())

    def get_nu(self):
        """SBP's nu in force: the one set, else the one derived from lambda (0
        until the first train derives it)."""
        return ss_kernel_svm_get_nu(self._reader())

    # -- budgeted solvers (BSCA, BSGD) ---------------------------------------

    def set_budget(self, budget):
        """BSCA/BSGD: the budget B >= 1, the most support vectors the model
        keeps (default 500). Changing it restarts a budgeted solver. The
        other solvers keep every support vector and raise ValueError."""
        cdef SsKernelSvm *p = self._writer("set_budget")
        _require_solver(self.get_solver(), "budget")
        v = _as_int64(budget, "budget")
        self._check(ss_kernel_svm_set_budget(p, v), "budget", budget)

    def get_budget(self):
        return ss_kernel_svm_get_budget(self._reader())

    def set_budget_maintenance(self, maintenance):
        """BSCA/BSGD: how a model of B + 1 points is brought back to B:
        'merge' (rbf kernel only), 'remove', 'project', or 'auto' (the default:
        merge for rbf, remove otherwise). Changing it restarts a budgeted solver.
        The other solvers raise ValueError."""
        cdef SsKernelSvm *p = self._writer("set_budget_maintenance")
        _require_solver(self.get_solver(), "budget_maintenance")
        if not isinstance(maintenance, str) or maintenance not in _MAINTENANCE:
            raise ValueError(f"budget_maintenance must be one of {_valid(_MAINTENANCE)}, "
                             f"got {maintenance!r}")
        if maintenance == "merge" and self.get_kernel()["kernel"] != "rbf":
            raise ValueError("budget_maintenance='merge' needs the rbf kernel; use 'remove' or "
                             "'project' with other kernels")
        self._check(ss_kernel_svm_set_budget_maintenance(p, <SsBudgetMaintenance>_MAINTENANCE[maintenance]),
               "budget_maintenance", maintenance)

    def get_budget_maintenance(self):
        return _MAINTENANCE_NAMES[<int>ss_kernel_svm_get_budget_maintenance(self._reader())]

    def get_budget_statistics(self):
        """BSCA/BSGD counters since the solver (re)started, as a dict: budget,
        num_points, num_updates, num_maintenance, num_merges, num_removals,
        num_projections, weight_degradation (sum of ||w~_before - w~_after||^2),
        solver_seconds (CPU time of the training thread in the solver's steps,
        diagnostics excluded)."""
        cdef SsBudgetStatistics bs
        _check(ss_kernel_svm_get_budget_statistics(self._reader(), &bs), "statistics", None)
        return {"budget": bs.budget, "num_points": bs.num_points, "num_updates": bs.num_updates,
                "num_maintenance": bs.num_maintenance, "num_merges": bs.num_merges,
                "num_removals": bs.num_removals, "num_projections": bs.num_projections,
                "weight_degradation": bs.weight_degradation,
                "solver_seconds": bs.solver_seconds}

    def get_unregularized_bias(self):
        return bool(ss_kernel_svm_get_unregularized_bias(self._reader()))

    def get_eta0(self):
        return ss_kernel_svm_get_eta0(self._reader())

    def get_epsilon(self):
        return ss_kernel_svm_get_epsilon(self._reader())

    def get_max_num_iterations(self):
        return ss_kernel_svm_get_max_num_iterations(self._reader())

    def get_diagnostic_frequency(self):
        return ss_kernel_svm_get_diagnostic_frequency(self._reader())

    def get_seed(self):
        return ss_kernel_svm_get_seed(self._reader())

    def get_num_threads(self):
        return ss_kernel_svm_get_num_threads(self._reader())

    def get_iteration_number(self):
        return ss_kernel_svm_get_iteration_number(self._reader())

    def get_last_train_iterations(self):
        """The iterations the last :meth:`train` made (a train at a new
        lambda restarts some solvers' count, so the iteration number before
        the call does not tell it; 0 before the first train and after a
        refused one)."""
        return ss_kernel_svm_get_last_train_iterations(self._reader())

    def poll_iteration_number(self):
        """The iteration number as the running :meth:`train` last published
        it (every 64 iterations at most): callable from another thread during
        training, without the lock, as :meth:`stochsvm.SVM.poll_iteration_number`."""
        return ss_kernel_svm_poll_iteration_number(self._ptr())

    def get_dimension(self):
        return ss_kernel_svm_get_dimension(self._reader())

    def get_num_data(self):
        return ss_kernel_svm_get_num_data(self._reader())

    def get_num_kernel_evaluations(self):
        """Kernel evaluations made by the solver so far (diagnostics excluded)."""
        return ss_kernel_svm_get_num_kernel_evaluations(self._reader())

    def get_num_support_vectors(self):
        return ss_kernel_svm_get_num_support_vectors(self._reader())

    def get_support_vectors(self):
        """The m support vectors (copies): an ndarray, or a scipy CSR matrix when
        the training data was sparse; None for a precomputed kernel."""
        cdef const SsData *sv = ss_kernel_svm_get_support_vectors(self._reader())
        cdef int64_t m, d, nnz
        if sv == NULL:
            if ss_kernel_svm_get_kernel(self._svm).type == SS_KERNEL_PRECOMPUTED:
                return None
            return np.zeros((0, ss_kernel_svm_get_dimension(self._svm)))
        m = sv.num_data
        d = sv.dimension
        cdef cnp.ndarray values, indptr, indices
        if sv.layout == SS_LAYOUT_DENSE:
            values = np.empty((m, d), dtype=np.float64)
            memcpy(cnp.PyArray_DATA(values), sv.values, <size_t>(m * d) * sizeof(double))
            return values
        nnz = sv.indptr[m]
        indptr = np.empty(m + 1, dtype=np.int64)
        memcpy(cnp.PyArray_DATA(indptr), sv.indptr, <size_t>(m + 1) * sizeof(int64_t))
        values = np.empty(nnz, dtype=np.float64)
        indices = np.empty(nnz, dtype=np.int32)
        if nnz > 0:
            memcpy(cnp.PyArray_DATA(values), sv.values, <size_t>nnz * sizeof(double))
            memcpy(cnp.PyArray_DATA(indices), sv.indices, <size_t>nnz * sizeof(int32_t))
        import scipy.sparse as sp
        return sp.csr_matrix((values, indices, indptr), shape=(m, d))

    def get_support_indices(self):
        """Training indices of the support vectors (-1: not a training example)."""
        cdef SsKernelSvm *p = self._reader()
        cdef int64_t m = ss_kernel_svm_get_num_support_vectors(p)
        cdef cnp.ndarray out = np.empty(m, dtype=np.int64)
        if m > 0:
            memcpy(cnp.PyArray_DATA(out), ss_kernel_svm_get_support_indices(p),
                   <size_t>m * sizeof(int64_t))
        return out

    def get_coefficients(self):
        """The coefficients beta_j of the support vectors."""
        cdef SsKernelSvm *p = self._reader()
        cdef int64_t m = ss_kernel_svm_get_num_support_vectors(p)
        cdef cnp.ndarray out = np.empty(m, dtype=np.float64)
        if m > 0:
            memcpy(cnp.PyArray_DATA(out), ss_kernel_svm_get_coefficients(p),
                   <size_t>m * sizeof(double))
        return out

    def get_bias(self):
        return ss_kernel_svm_get_bias(self._reader())

    def get_dual_variables(self):
        """The solver's per-example variables (SDCA alpha, SBP alpha_bar / gamma,
        Pegasos/Perceptron counts), or None before training."""
        cdef SsKernelSvm *p = self._reader()
        return _copy_or_none(ss_kernel_svm_get_dual_variables(p), ss_kernel_svm_get_num_data(p))

    def get_statistics(self):
        """Statistics of the last diagnostic: status, iteration, epoch, objective,
        primal_objective, regularizer, loss, dual_objective, duality_gap
        (NaN where the solver has no dual value: BSCA once budget
        maintenance changed its model, docs/budget.rst),
        margin, training_error, num_kernel_evaluations, num_support_vectors,
        elapsed_time, finish_epochs (the kernel SDCA finish's epochs) and
        exact_cost (the SBP at a derived ``nu`` on more than 4096 rows: the
        predicted kernel evaluations of an exact solve, which its run races;
        Pegasos, BSGD and BSCA whose run may hand over to the finish, on
        2,048 rows or more: the finish's predicted kernel evaluations; 0
        otherwise). Before the first train (status ``'untrained'``) every
        figure but the counts and ``elapsed_time`` is NaN, as for SVM."""
        cdef SsKernelSvm *p = self._reader()
        if self._saved_statistics is not None:
            return dict(self._saved_statistics)
        st = _statistics_dict(ss_kernel_svm_get_statistics(p))
        if st["status"] == "untrained":
            st.update(dict.fromkeys(_MEASURED_BY_TRAINING, math.nan))
        return st


def _solver_from_name(solver):
    if not isinstance(solver, str) or solver not in _KSOLVERS:
        raise ValueError(f"solver must be one of {_valid(_KSOLVERS)}, got {solver!r}")
    return <SsKernelSolver>_KSOLVERS[solver]


def _check_lambda(lambda_):
    v = _as_float(lambda_, "lambda_")
    if not (SS_LAMBDA_MIN <= v <= SS_LAMBDA_MAX):
        raise ValueError(f"lambda_ must be {_RANGES['lambda_']}, got {lambda_!r}")
    return v
