# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, embedsignature=True
"""The linear SVM object: a Cython class owning one C ``SsSvm``.

This module converts inputs, keeps every array the C object borrows alive,
releases the GIL around training and turns status codes into exceptions. The
algorithms live in the C core (``src/core``); the contract is
``include/stochsvm/svm.h``.
"""

import math
import numbers
import sys
import threading

import numpy as np

cimport cython
cimport numpy as cnp
from cpython.exc cimport PyErr_CheckSignals
from cpython.pythread cimport PyThread_get_thread_ident
from libc.stdint cimport int32_t, int64_t, uint64_t
from libc.string cimport memcpy

from stochsvm._core cimport *

cnp.import_array()


# ---------------------------------------------------------------------------
#                               Names and ranges
# ---------------------------------------------------------------------------

_SOLVERS = {"sgd": SS_SOLVER_SGD, "sdca": SS_SOLVER_SDCA, "none": SS_SOLVER_NONE,
            "svmsgd2": SS_SOLVER_SVMSGD2, "sgdqn": SS_SOLVER_SGDQN,
            "res": SS_SOLVER_RES, "lres": SS_SOLVER_LRES}
_SOLVER_NAMES = {int(v): k for k, v in _SOLVERS.items()}
_RES_PARAMETERS = ("lres_memory", "res_minibatch_size", "res_delta", "res_gamma", "res_eps0",
                   "res_tau", "res_initial_curvature")
# RES and LRES need a differentiable loss.
_QUASI_NEWTON = ("res", "lres")
# The solvers each per-solver knob applies to (sgd.h, sgdqn.h, sdca.h, res.h);
# the C object refuses a knob of another solver.
_T0_SOLVERS = ("sgd", "svmsgd2", "sgdqn")
_SKIP_SOLVERS = ("svmsgd2", "sgdqn")
_NON_DIFFERENTIABLE = ("hinge", "l1")

_LOSSES = {
    "hinge": SS_LOSS_HINGE,
    "hinge2": SS_LOSS_HINGE2,
    "squared_hinge": SS_LOSS_HINGE2,
    "logistic": SS_LOSS_LOGISTIC,
    "l1": SS_LOSS_L1,
    "l2": SS_LOSS_L2,
}
# Regression losses take any finite label; the others need -1/+1.
_REGRESSION_LOSSES = ("l1", "l2")
_LOSS_NAMES = {
    int(SS_LOSS_HINGE): "hinge",
    int(SS_LOSS_HINGE2): "hinge2",
    int(SS_LOSS_LOGISTIC): "logistic",
    int(SS_LOSS_L1): "l1",
    int(SS_LOSS_L2): "l2",
    int(SS_LOSS_CUSTOM): "custom",
}

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

# Valid range of every parameter, as documented in include/stochsvm/svm.h.
_RANGES = {
    "lambda": "a number in [1e-150, 1e150]",
    "epsilon": "a finite number >= 0 (0 disables the stopping rule)",
    "max_num_iterations": "an integer >= 1",
    "diagnostic_frequency": "an integer >= 1 (or None: the default schedule)",
    "bias_multiplier": "a finite number >= 0 (0: the bias is not learned)",
    "bias_learning_rate": "a finite number > 0",
    "t0": "a finite number > 1",
    "skip": "an integer >= 1",
    "bias": "a finite number",
    "iteration_number": "an integer >= 0",
    "seed": "an integer in [0, 2**64)",
    "order": "an integer in [0, 64]",
    "res_minibatch_size": "an integer >= 1",
    "res_delta": "a finite number >= 0",
    "res_gamma": "a finite number >= 0",
    "res_eps0": "a finite number > 0",
    "res_tau": "a number > 0 (inf: constant step)",
    "res_initial_curvature": "a finite number > 0",
    "lres_memory": "an integer in [1, 1024]",
}

#: The valid range of lambda (SS_LAMBDA_MIN, SS_LAMBDA_MAX in stochsvm.h).
LAMBDA_MIN, LAMBDA_MAX = SS_LAMBDA_MIN, SS_LAMBDA_MAX

_INT64_MIN = -(2 ** 63)
_INT64_MAX = 2 ** 63 - 1
_VISIT_ORDERS = ("data", "permutation", "blocks", "interleaved")  # SsVisitOrder's values, in order
_INT32_MAX = 2 ** 31 - 1


def core_version():
    """Version string of the C core compiled into this module.

    Returns
    -------
    str
        ``"MAJOR.MINOR.PATCH"`` as returned by ``ss_version()``.
    """
    return ss_version().decode("ascii")


def status_string(int status):
    """Human-readable description of a C status code (``ss_status_string``).

    Parameters
    ----------
    status : int
        An ``SsStatus`` value.

    Returns
    -------
    str
    """
    return ss_status_string(<SsStatus>status).decode("utf-8", "replace")


# ---------------------------------------------------------------------------
#                              Argument conversion
# ---------------------------------------------------------------------------

def _as_float(value, name):
    """``value`` as a Python float; TypeError if it is not a real number."""
    if isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be a real number, got a boolean ({value!r})")
    if isinstance(value, numbers.Real) or (isinstance(value, np.ndarray) and value.ndim == 0
                                           and value.dtype.kind in "iuf"):
        try:
            return float(value)
        except OverflowError:   # an int beyond the doubles (10**400)
            raise ValueError(f"{name} must be {_RANGES.get(name, 'a finite number')}, got an "
                             f"integer of {int(value).bit_length()} bits, beyond the range of "
                             f"doubles") from None
    raise TypeError(f"{name} must be a real number, got {type(value).__name__} ({value!r})")


def _as_int(value, name):
    """``value`` as a Python int; TypeError if it is not an integer.

    Floats with an integral value (``1e6``) are accepted for convenience.
    """
    if isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be an integer, got a boolean ({value!r})")
    if isinstance(value, numbers.Integral):
        return int(value)
    if isinstance(value, np.ndarray) and value.ndim == 0 and value.dtype.kind in "iu":
        return int(value)
    if isinstance(value, numbers.Real):
        f = float(value)
        if math.isfinite(f) and f.is_integer():
            return int(f)
        raise ValueError(f"{name} must be {_RANGES.get(name, 'an integer')}, got {value!r}")
    raise TypeError(f"{name} must be an integer, got {type(value).__name__} ({value!r})")


def _as_int64(value, name):
    """``value`` as an int that fits int64_t (ValueError with the range otherwise)."""
    v = _as_int(value, name)
    if not (_INT64_MIN <= v <= _INT64_MAX):
        raise ValueError(f"{name} must be {_RANGES.get(name, 'a 64-bit integer')}, got {value!r}")
    return v


def _float_dtype(dtype, name):
    """The float dtype data of ``dtype`` is handed to C as (float32 or float64)."""
    kind = dtype.kind
    if kind == "f":
        if dtype.itemsize == 4:
            return np.dtype(np.float32)
        return np.dtype(np.float64)
    if kind in "biu":
        return np.dtype(np.float64)
    if kind == "c":
        raise TypeError(
            f"{name} has a complex dtype ({dtype}); stochsvm needs real numbers: "
            f"take the real part or the magnitude explicitly")
    raise TypeError(
        f"{name} has dtype {dtype}, which is not numeric; convert it to float32 or "
        f"float64 (e.g. {name}.astype(np.float64))")


def _is_sparse(X):
    """True for a scipy.sparse matrix or array, without importing scipy."""
    sp = sys.modules.get("scipy.sparse")
    return sp is not None and sp.issparse(X)


def _all_finite(a):
    """True if every value of the float array ``a`` is finite (chunked, no big temporary)."""
    a = np.asarray(a)
    if a.size == 0:
        return True
    # (module-wide boundscheck=False also covers tuple indexing: never a.shape[0] of a 0-d array)
    flat = a.reshape(a.shape[0], -1) if a.ndim > 1 else a.reshape(-1)
    step = max(1, (1 << 16) // max(1, flat.shape[1] if flat.ndim > 1 else 1))
    for start in range(0, flat.shape[0], step):
        if not np.isfinite(flat[start:start + step]).all():
            return False
    return True


def _csr_is_canonical(indptr, indices, block=1 << 18):
    """True if the column indices of every row are strictly increasing
    (``indices`` a signed integer array, so that ``np.diff`` cannot wrap).

    Checked ``block`` entries at a time, so that the temporaries (5 bytes per
    entry) stay near 1 MB whatever the number of stored entries."""
    nnz = indices.shape[0]
    if nnz < 2:
        return True
    starts = indptr[1:indptr.shape[0] - 1]
    for lo in range(0, nnz - 1, block):
        hi = min(lo + block, nnz - 1)
        ok = np.diff(indices[lo:hi + 1]) > 0    # the pairs (k, k + 1), lo <= k < hi
        # a pair (last of one row, first of the next) is not compared
        first = np.searchsorted(starts, lo + 1)
        last = np.searchsorted(starts, hi, side="right")
        ok[starts[first:last] - 1 - lo] = True
        if not ok.all():
            return False
    return True


def _prepare_matrix(X, name="X", allow_empty_rows=False):
    """Validate ``X`` and bring it to a layout the C core reads.

    Returns a tuple ``(layout, values, indptr, indices, n, d, row_stride)``.
    Dense: ``values`` is the (possibly original) 2-D array whose rows are
    contiguous. CSR: ``values`` (possibly the original), and private copies of
    ``indptr`` (int64) and ``indices`` (int32).
    """
    if _is_sparse(X):
        return _prepare_sparse(X, name, allow_empty_rows)
    X = _as_numeric_array(X, name)
    if X.ndim != 2:
        hint = ""
        if X.ndim == 1:
            hint = (f"; for a single example use {name}.reshape(1, -1), "
                    f"for a single feature {name}.reshape(-1, 1)")
        raise ValueError(
            f"{name} must be a 2-D array (n examples x d features), got a {X.ndim}-D "
            f"array of shape {X.shape}{hint}")
    n, d = X.shape
    if d == 0 or (n == 0 and not allow_empty_rows):
        raise ValueError(
            f"{name} is empty (shape {X.shape}); it needs at least one example (row) "
            f"and one feature (column)")
    target = _float_dtype(X.dtype, name)
    if X.dtype != target:
        X = X.astype(target, order="C")
    itemsize = X.itemsize
    s0, s1 = X.strides
    row_stride = -1
    if X.flags.aligned and (d == 1 or s1 == itemsize):
        if n <= 1:
            row_stride = d
        elif s0 > 0 and s0 % itemsize == 0 and s0 // itemsize >= d:
            row_stride = s0 // itemsize
    if row_stride < 0:
        X = np.ascontiguousarray(X)
        row_stride = d
    return (SS_LAYOUT_DENSE, X, None, None, n, d, row_stride)


def _as_numeric_array(value, name):
    """``np.asarray(value)``, numpy's error for a ragged nested list turned
    into one naming the argument."""
    try:
        return np.asarray(value)
    except ValueError:
        raise ValueError(f"{name} must be a rectangular array of numbers, got a ragged "
                         f"nested sequence (rows of different lengths)") from None


def _prepare_sparse(X, name, allow_empty_rows):
    """CSR ``values`` and private copies of ``indptr`` and ``indices``.

    The structure is copied (4 bytes per nonzero and 8 per row, against 8 or 4
    per nonzero of values) so that the C core never walks an index array the
    caller can change after construction: only values are borrowed, and a
    changed value changes the model, never memory safety.
    """
    sp = sys.modules["scipy.sparse"]
    if X.ndim != 2:
        raise ValueError(f"{name} must be a 2-D sparse matrix, got a {X.ndim}-D sparse array "
                         f"of shape {X.shape}")
    n, d = X.shape
    if d == 0 or (n == 0 and not allow_empty_rows):
        raise ValueError(
            f"{name} is empty (shape {X.shape}); it needs at least one example (row) "
            f"and one feature (column)")
    if d > _INT32_MAX + 1:
        raise ValueError(f"{name} has {d} columns; stochsvm's sparse format indexes columns "
                         f"with 32-bit integers, so at most 2**31 = {_INT32_MAX + 1}")
    target = _float_dtype(X.dtype, name)
    if X.format != "csr":
        X = X.tocsr()           # CSC, COO, LIL, ...: one conversion (a new matrix)
    indptr = np.asarray(X.indptr)
    if (indptr.ndim != 1 or indptr.shape[0] != n + 1 or indptr.dtype.kind not in "iu"):
        raise ValueError(f"{name} is not a valid CSR matrix: indptr must be {n + 1} integers "
                         f"starting at 0")
    indptr = np.array(indptr, dtype=np.int64)       # private copy, checked below
    if indptr[0] != 0 or (n > 0 and np.any(np.diff(indptr) < 0)):
        raise ValueError(f"{name} is not a valid CSR matrix: indptr must start at 0 and "
                         f"never decrease")
    nnz = int(indptr[n])
    indices = np.asarray(X.indices)
    data = np.asarray(X.data)
    if indices.ndim != 1 or indices.dtype.kind not in "iu":
        raise ValueError(f"{name} is not a valid CSR matrix: indices must be a 1-D integer "
                         f"array, got dtype {indices.dtype}")
    if nnz > indices.shape[0] or nnz > data.shape[0]:
        raise ValueError(f"{name} is not a valid CSR matrix: indptr[-1] = {nnz} exceeds the "
                         f"number of stored entries")
    indices = np.array(indices[:nnz])               # private copy, checked below
    data = data[:nnz]
    if nnz:
        lo, hi = int(indices.min()), int(indices.max())
        if lo < 0 or hi >= d:
            raise ValueError(f"{name} is not a valid CSR matrix: a column index is out of "
                             f"range [0, {d})")
    indices = indices.astype(np.int32, copy=False)  # signed: np.diff below cannot wrap
    if not _csr_is_canonical(indptr, indices):
        # Sort the indices and sum duplicates on a copy: the user's matrix is
        # never modified. A fresh matrix has no cached "canonical" flags.
        fixed = sp.csr_array((data.copy(), indices, indptr), shape=(n, d))
        fixed.sum_duplicates()
        data, indices, indptr = fixed.data, fixed.indices, fixed.indptr
    values = np.ascontiguousarray(data, dtype=target)
    indptr = np.ascontiguousarray(indptr, dtype=np.int64)
    indices = np.ascontiguousarray(indices, dtype=np.int32)
    return (SS_LAYOUT_CSR, values, indptr, indices, n, d, 0)


def _prepare_labels(y, n, binary=True):
    """``y`` as a contiguous float64 array of n labels: finite, and in {-1, +1}
    if ``binary`` (classification losses)."""
    y_arr = _as_numeric_array(y, "y")
    if y_arr.dtype.kind not in "biuf":
        raise TypeError(f"y must contain the numbers -1 and +1, got dtype {y_arr.dtype}")
    if y_arr.ndim != 1:
        hint = "; use y.ravel()" if y_arr.ndim == 2 and 1 in y_arr.shape else ""
        raise ValueError(f"y must be a 1-D array of labels, got shape {y_arr.shape}{hint}")
    if y_arr.shape[0] != n:
        raise ValueError(f"y has {y_arr.shape[0]} labels but X has {n} rows (examples); "
                         f"they must match")
    y64 = np.ascontiguousarray(y_arr, dtype=np.float64)
    if not np.isfinite(y64).all():
        raise ValueError("y contains NaN or infinity; labels must be -1 or +1"
                         if binary else "y contains NaN or infinity; labels must be finite")
    if not binary:
        return y64
    bad = (y64 != 1.0) & (y64 != -1.0)
    if bad.any():
        found = np.unique(y64)
        shown = ", ".join(f"{v:g}" for v in found[:6]) + (", ..." if found.size > 6 else "")
        msg = f"y must contain only the labels -1 and +1, found {{{shown}}}"
        if np.all((found == 0) | (found == 1)):
            msg += "; convert 0/1 labels with y = 2*y - 1"
        else:
            msg += ("; map your two classes to -1 and +1, e.g. "
                    "y = np.where(y == positive_class, 1, -1)")
        raise ValueError(msg)
    return y64


def _finite_scores(scores, mapped=False):
    """``scores`` (one row per example of X) if every value is finite; else
    the ValueError of the first row that is not: a sign of inf or NaN is no
    prediction. Finite values can overflow against a model (about 1e308
    times a weight of 2), or through a kernel map's |x|**(gamma/2)."""
    if _all_finite(scores):
        return scores
    bad = ~np.isfinite(np.asarray(scores).reshape(len(scores), -1))
    row = int(np.flatnonzero(bad.any(axis=1))[0])
    value = np.asarray(scores).reshape(len(scores), -1)[row][bad[row]][0]
    raise ValueError(f"the score of row {row} of X is {value}: its values"
                     f"{', mapped,' if mapped else ''} times the model overflow; scale X down "
                     f"(or check the model)")


def _scores_or_raise(int status, scores, mapped=False):
    """``scores`` from a C decision function that returned ``status``
    (SS_OK, or the two statuses of a score that is not finite: every score
    is written either way)."""
    if status == SS_ERR_NUMERIC:
        return _finite_scores(scores, mapped)   # raises, naming the row
    if status == SS_ERR_BAD_DATA:
        raise ValueError("X holds a value that is not finite: its array changed while it was "
                         "being scored (another thread?)")
    return scores


def _as_float_vector(value, name, length, what):
    """``value`` as a contiguous float64 vector of ``length`` entries."""
    a = np.asarray(value)
    if a.dtype.kind not in "biuf":
        raise TypeError(f"{name} must contain real numbers, got dtype {a.dtype}")
    if a.ndim != 1 or a.shape[0] != length:
        raise ValueError(f"{name} must be a 1-D array of {length} values ({what}), got shape "
                         f"{a.shape}")
    return np.ascontiguousarray(a, dtype=np.float64)


include "_data_view.pxi"


cdef _DataView _mapped_view(object X, str name, bint allow_empty_rows, object homkermap):
    """_DataView.build, then attach ``homkermap`` (a HomogeneousKernelMap or None)."""
    cdef _DataView view = _DataView.build(X, name, allow_empty_rows)
    cdef SsStatus status
    if homkermap is not None:
        status = ss_data_set_homkermap(&view.data, &(<HomogeneousKernelMap>homkermap).map)
        if status != SS_OK:
            raise ValueError(f"{name} is too large for the kernel map ({view.data.dimension} "
                             f"features times {homkermap.dimension} overflows)")
        view.refs = view.refs + (homkermap,)
    return view


include "_homkermap.pxi"
include "_trainer.pxi"


# ---------------------------------------------------------------------------
#                               C callbacks
# ---------------------------------------------------------------------------

cdef int _diagnostic_trampoline(const SsSvm *svm, void *user) noexcept nogil:
    with gil:
        return (<SVM>user)._on_diagnostic()


_SDCA_MODEL_NAMES = {
    <int>SS_SDCA_MODEL_DUAL: "dual",
    <int>SS_SDCA_MODEL_EARLIER: "earlier",
    <int>SS_SDCA_MODEL_AVERAGE: "average",
    <int>SS_SDCA_MODEL_RAY: "ray",
    <int>SS_SDCA_MODEL_NEWTON: "newton",
}


cdef dict _statistics_dict(const SsSvmStatistics *st, const SsSvm *svm):
    return {
        "status": _STATUS_NAMES.get(<int>st.status, "error"),
        "iteration": st.iteration,
        "epoch": st.epoch,
        "objective": st.objective,
        "regularizer": st.regularizer,
        "loss": st.loss,
        "dual_objective": st.dual_objective,
        "duality_gap": st.duality_gap,
        "scores_variation": st.scores_variation,
        "elapsed_time": st.elapsed_time,
        "num_step_backoffs": st.num_step_backoffs,
        "num_newton_iterations": st.num_newton_iterations,
        "sdca_model": _SDCA_MODEL_NAMES.get(<int>ss_svm_get_sdca_model(svm)),
    }


def _pickled_newton_fallback(state):
    """The Newton finish's mode a pickled state restores.

    Format 2 stores the mode as set (``"auto"`` when never set). Format 1
    stored what ``get_newton_fallback()`` read, which for SDCA is True under
    the default ``"auto"`` wherever "auto" meant on: every loss before the
    hinge's finish became "auto" only under the object's own cap
    (2026-11-26), the l1 loss until it did the same (2026-11-27), the smooth
    losses still. Restored as True, such a state would force the finish
    under any cap with the hinge and l1 (and after a later ``set_loss``), so
    a format-1 SDCA True restores as the default, "auto" (an explicit True
    of those versions cannot be told from it). States from before the knob
    have none: "auto".
    """
    mode = state.get("newton_fallback", "auto")
    if state.get("format", 1) < 2 and state["solver"] == "sdca" and mode is True:
        return "auto"
    return mode


def _restore_svm(state, cls=None):
    """Rebuild a pickled :class:`SVM` (without data); see ``SVM.__reduce__``."""
    if cls is None:
        cls = SVM
    if not (isinstance(cls, type) and issubclass(cls, SVM)):
        raise TypeError(f"cannot restore an SVM as {cls!r}")
    cdef SVM svm = cls.__new__(cls)
    svm._init_without_data(state["solver"], state["dimension"], state["lambda"])
    svm._homkermap = _as_homkermap(state.get("homkermap"))
    svm.set_epsilon(state["epsilon"])
    if state.get("max_num_iterations") is not None:
        svm.set_max_num_iterations(state["max_num_iterations"])
    if state.get("diagnostic_frequency") is not None:
        svm.set_diagnostic_frequency(state["diagnostic_frequency"])
    svm.set_bias_multiplier(state["bias_multiplier"])
    svm.set_bias_learning_rate(state["bias_learning_rate"])
    solver = state["solver"]
    if state.get("t0") is not None and solver in _T0_SOLVERS:
        svm.set_t0(state["t0"])
    if state.get("skip") is not None and solver in _SKIP_SOLVERS:
        svm.set_skip(state["skip"])
    svm.set_loss(state["loss"])
    svm.set_seed(state["seed"])
    svm.set_shuffle(state.get("shuffle", True))
    if "visit_order" in state:  # pickles made before the block-wise order have "shuffle" only
        svm.set_visit_order(state["visit_order"])
    if solver == "sdca":
        svm.set_shrinking(state.get("shrinking", True))
    if solver != "none":
        svm.set_newton_fallback(_pickled_newton_fallback(state))
    svm.set_model(state["model"])
    svm.set_bias(state["bias"])
    svm.set_iteration_number(state["iteration_number"])
    res = state.get("res")
    if res is not None and solver in _QUASI_NEWTON:
        svm._set_res_parameters(res)
    if state.get("scaling") is not None:
        svm.set_scaling(state["scaling"], state["scaling_updates"])
    if state.get("num_threads", 1) > 1:  # pickles before stop 53 have none: 1
        svm.set_num_threads(state["num_threads"])
    stats = state.get("statistics")
    svm._saved_statistics = dict(stats) if stats is not None else None
    return svm


# ---------------------------------------------------------------------------
#                                 The class
# ---------------------------------------------------------------------------

# The docstring opens with the signature in the form CPython reads into
# __text_signature__, so that inspect.signature(SVM) works.
@cython.embedsignature(False)
cdef class SVM(_Trainer):
    """SVM(X, y, lambda_, solver='sgd', seed=None, loss=None, homkermap=None)
--

    Linear SVM trained by a stochastic solver (a mirror of VLFeat's ``vl_svm``).

    Minimises, over the model ``w`` and the bias ``b``, ::

        E(w, b) = lambda/2 (||w||^2 + (b/B)^2) + 1/n sum_i c_i loss(y_i, <w, x_i> + b)

    where ``B`` is the bias multiplier and ``c_i`` are per-example weights
    (1 by default). The object owns a C ``SsSvm``; every ``set_*``/``get_*``
    method maps to the C function of the same name.

    Parameters
    ----------
    X : ndarray of shape (n, d) or scipy.sparse matrix/array
        Training examples, one per row. float32 data stays float32 and float64
        stays float64; any other real dtype (integers, bool, float16) is
        converted to float64. Dense arrays whose rows are contiguous (C order,
        or a row-strided view such as ``A[:, :d]``) are used without copying;
        other layouts are copied once to C order. Sparse input is converted
        once to CSR; its structure (int32 column indices, int64 row pointers)
        is always copied, its values only when they need converting. A CSR
        matrix with unsorted or duplicate column indices is sorted and its
        duplicates summed **on a copy**: the matrix you pass is never
        modified. The object keeps a reference to the values it reads:
        changing them in place while it is alive changes the model it
        trains (garbage in, garbage out; NaN may make ``train`` raise
        FloatingPointError), never memory safety; changing a sparse
        matrix's ``indices`` or ``indptr`` has no effect on the object.
    y : array_like of shape (n,)
        Labels, each -1 or +1 (copied).
    lambda_ : float
        Regularization strength, in [1e-150, 1e150] (``SS_LAMBDA_MIN``,
        ``SS_LAMBDA_MAX``).
    solver : {"sgd", "sdca", "svmsgd2", "sgdqn", "res", "lres", "none"}, default "sgd"
        ``"sgd"``: Pegasos-style stochastic gradient descent. ``"sdca"``:
        stochastic dual coordinate ascent, stops when the duality gap
        < epsilon. ``"svmsgd2"``: SGD with the regularizer applied every
        ``skip`` steps (O(nnz) sparse steps); ``"sgdqn"``: SVMSGD2 with a
        diagonal quasi-Newton rescaling (Bordes, Bottou, Gallinari 2009; see
        :meth:`set_skip`, :meth:`get_scaling`, :meth:`calibrate_t0`).
        ``"res"``: regularized stochastic BFGS (Mokhtari & Ribeiro) and
        ``"lres"`` its limited-memory form, for differentiable losses (their
        default loss is ``"hinge2"``; see :meth:`set_res_minibatch_size` and
        the other ``set_res_*`` methods). ``"none"``:
        :meth:`train` only evaluates the present model and bias (statistics
        and scores).
    seed : int or None, default None
        Seed of the object's own random generator, in [0, 2**64). ``None``
        uses the C default, 0, so training is deterministic unless you pass
        different seeds.
    loss : str or None, default None
        The loss to start with (see :meth:`set_loss`); None keeps the
        default ``"hinge"``. With ``"l1"`` or ``"l2"`` the labels may be any
        finite numbers, otherwise they must be -1 or +1.
    homkermap : HomogeneousKernelMap, dict or None, default None
        Train on the homogeneous kernel map of X, ``Psi(X)``, computed on the
        fly (never stored): a :class:`HomogeneousKernelMap`, or a dict of its
        parameters (``kernel``, ``order``, ``gamma``, ``period``, ``window``).
        The model then has dimension ``d * (2 * order + 1)``; :meth:`set_data`,
        :meth:`decision_function` and :meth:`predict` take unmapped data
        with d columns and apply the same map.

    Raises
    ------
    ValueError
        Bad shapes, empty data, NaN or infinity in X or y, labels other than
        -1/+1, ``lambda_`` out of range, unknown solver, seed out of range,
        bad kernel map parameters.
    TypeError
        Non-numeric X or y (complex, object, strings), non-numeric ``lambda_``
        or seed.

    Notes
    -----
    Repeated :meth:`train` calls continue from the stored model, bias and
    iteration number: training N iterations equals training N/2 and then
    N/2 more, bit for bit.

    :meth:`train` releases the GIL, so several objects can be trained from
    several threads at once. Each object has a lock: while it trains, a
    second :meth:`train`, any setter, and any getter called from another
    thread raise RuntimeError. The diagnostic callback runs on the training
    thread and may call every getter (no setter). Several threads may call
    :meth:`decision_function` and :meth:`predict` at once (they release the
    GIL too); while one runs, a setter, :meth:`set_data`,
    :meth:`set_num_threads` or :meth:`train` called from another thread
    raises RuntimeError instead of changing the object under it (docs:
    python_api.rst, "Threads").

    Resizing or freeing ``X``'s buffer behind NumPy's back (``X.resize(...,
    refcheck=False)``) breaks NumPy's buffer contract and is outside what
    the object can protect: use :meth:`set_data` for new data.

    Pickling stores the parameters, the model, the bias, the iteration
    number, the seed and the last statistics, not the data. The unpickled
    object predicts right away; call :meth:`set_data` before training it.
    An SDCA object's dual variables are not pickled: after :meth:`set_data`
    SDCA restarts from zero dual variables (and a zero model).

    Examples
    --------
    >>> import numpy as np
    >>> from stochsvm import SVM
    >>> X = np.array([[1.0, 2.0], [2.0, 1.0], [-1.0, -2.0], [-2.0, -1.0]])
    >>> y = np.array([1, 1, -1, -1])
    >>> svm = SVM(X, y, 0.1)
    >>> stats = svm.train()
    >>> svm.predict(X)
    array([ 1.,  1., -1., -1.])
    """

    cdef SsSvm *_svm
    cdef object _data_refs
    cdef bint _max_num_iterations_set
    cdef bint _diagnostic_frequency_set
    cdef bint _t0_set
    cdef bint _skip_set
    cdef object _newton_fallback_set  # the mode set_newton_fallback was given; None: never
    cdef object _res_explicit      # RES parameters whose default follows the data, once set
    cdef object _homkermap

    def __cinit__(self, *args, **kwargs):
        self._svm = NULL
        self._kind = "SVM"
        self._res_explicit = set()

    def __dealloc__(self):
        ss_svm_delete(self._svm)
        self._svm = NULL

    def __init__(self, X, y, lambda_, solver="sgd", seed=None, loss=None, homkermap=None):
        cdef SsSolver c_solver
        cdef double lam
        cdef _DataView view
        cdef cnp.ndarray labels
        cdef SsSvm *obj
        cdef SsStatus status
        if self._svm != NULL:
            raise RuntimeError("SVM.__init__ cannot be called twice; create a new SVM")
        c_solver = _solver_from_name(solver)
        lam = _check_lambda(lambda_)
        seed_value = _check_seed(seed)
        if loss is not None and (not isinstance(loss, str) or loss not in _LOSSES):
            raise ValueError(f"loss must be one of {_valid(_LOSSES)}, got {loss!r}")
        if solver in _QUASI_NEWTON and loss in _NON_DIFFERENTIABLE:
            raise ValueError(_non_differentiable_message(solver, loss))
        hom = _as_homkermap(homkermap)
        view = _mapped_view(X, "X", False, hom)
        labels = _prepare_labels(y, view.data.num_data, loss not in _REGRESSION_LOSSES)
        obj = ss_svm_new(c_solver, &view.data, <const double *>cnp.PyArray_DATA(labels), lam)
        if obj == NULL:
            status = ss_svm_check_new(c_solver, &view.data,
                                      <const double *>cnp.PyArray_DATA(labels), lam)
            _raise_new_failure(status)
        self._svm = obj
        self._data_refs = view.refs
        self._homkermap = hom
        if seed_value is not None:
            self._check(ss_svm_set_seed(self._svm, <uint64_t>seed_value), "seed", seed)
        if loss is not None:
            self._check(ss_svm_set_loss(self._svm, <SsLoss>_LOSSES[loss]), "loss", loss)

    cdef _init_without_data(self, solver, dimension, lambda_):
        cdef SsSolver c_solver = _solver_from_name(solver)
        cdef double lam = _check_lambda(lambda_)
        d = _as_int64(dimension, "dimension")
        if d < 1:
            raise ValueError(f"dimension must be an integer >= 1, got {dimension!r}")
        obj = ss_svm_new_without_data(c_solver, <int64_t>d, lam)
        if obj == NULL:
            raise MemoryError("could not allocate the SVM")
        self._svm = obj

    # -- guards ------------------------------------------------------------

    cdef inline SsSvm *_ptr(self) except NULL:
        if self._svm == NULL:
            raise RuntimeError("this SVM was not initialised (create it with SVM(X, y, lambda_))")
        return self._svm

    cdef SsSvm *_reader(self) except NULL:
        """The C object, for a getter: refused from other threads during training."""
        cdef SsSvm *p = self._ptr()
        self._reader_check()
        return p

    cdef SsSvm *_writer(self, str what) except NULL:
        """The C object, for a setter: refused while training (callbacks included)."""
        cdef SsSvm *p = self._ptr()
        self._writer_check(what)
        return p

    # -- the C calls of the trainer base (_trainer.pxi) ----------------------

    cdef SsStatus _c_train(self) noexcept nogil:
        # train() returns the statistics: the closing diagnostic the C object
        # leaves for later is made here, with the GIL released, and its
        # verdict raised as if ss_svm_train had returned it.
        cdef SsStatus status = ss_svm_train(self._svm)
        return ss_svm_settle(self._svm) if status == SS_OK else status

    cdef str _last_error(self):
        return _c_text(ss_svm_get_last_error(self._svm))

    cdef void _c_set_interrupt(self, bint enabled):
        if enabled:
            ss_svm_set_interrupt_function(self._svm, _trainer_interrupt_trampoline, <void *>self)
        else:
            ss_svm_set_interrupt_function(self._svm, NULL, NULL)

    cdef int64_t _c_num_data(self):
        return ss_svm_get_num_data(self._svm)

    cdef dict _c_statistics(self):
        return _statistics_dict(ss_svm_get_statistics(self._svm), self._svm)

    # -- pickling ----------------------------------------------------------

    def __reduce__(self):
        """Pickle support: the parameters and the model, not the data.

        Returns
        -------
        tuple
            ``(callable, (state,))`` for :mod:`pickle`.
        """
        self._pickle_check()
        cdef SsSvm *p = self._reader()
        state = {
            "format": 2,  # 2: newton_fallback is the mode as set (_pickled_newton_fallback)
            "solver": self.get_solver(),
            "dimension": ss_svm_get_dimension(p),
            "lambda": ss_svm_get_lambda(p),
            "epsilon": ss_svm_get_epsilon(p),
            "max_num_iterations": (ss_svm_get_max_num_iterations(p)
                                   if self._max_num_iterations_set else None),
            "diagnostic_frequency": (ss_svm_get_diagnostic_frequency(p)
                                     if self._diagnostic_frequency_set else None),
            "bias_multiplier": ss_svm_get_bias_multiplier(p),
            "bias_learning_rate": ss_svm_get_bias_learning_rate(p),
            "t0": ss_svm_get_t0(p) if self._t0_set else None,
            "skip": ss_svm_get_skip(p) if self._skip_set else None,
            "loss": self.get_loss(),
            "model": self.get_model(),
            "bias": ss_svm_get_bias(p),
            "iteration_number": ss_svm_get_iteration_number(p),
            "seed": ss_svm_get_seed(p),
            "shuffle": bool(ss_svm_get_shuffle(p)),
            "visit_order": _VISIT_ORDERS[ss_svm_get_visit_order(p)],
            "shrinking": bool(ss_svm_get_shrinking(p)),
            "newton_fallback": ("auto" if self._newton_fallback_set is None
                                else self._newton_fallback_set),
            "scaling": self.get_scaling(),
            "scaling_updates": ss_svm_get_scaling_updates(p),
            "statistics": self.get_statistics(),
            "homkermap": self._homkermap,
            "res": self._get_res_parameters(),
            "num_threads": ss_svm_get_num_threads(p),
        }
        cls = type(self)
        return (_restore_svm, (state,) if cls is SVM else (state, cls))

    def __repr__(self):
        if self._svm == NULL:
            return "SVM(<uninitialised>)"
        return (f"SVM(solver={self.get_solver()!r}, dimension={ss_svm_get_dimension(self._svm)}, "
                f"num_data={ss_svm_get_num_data(self._svm)}, "
                f"lambda_={ss_svm_get_lambda(self._svm)!r})")

    # -- data --------------------------------------------------------------

    def set_data(self, X, y):
        """Give the SVM new data of the same dimension (``ss_svm_set_data``).

        Model, bias, iteration number and parameters are kept; per-example
        weights and scores are cleared. Use it to train on a new batch, or to
        train an unpickled SVM.

        Parameters
        ----------
        X : ndarray of shape (n, d) or scipy.sparse matrix/array
            New examples, with the SVM's dimension d; converted exactly as in
            the constructor (no copy of contiguous float32/float64 data).
        y : array_like of shape (n,)
            Labels, -1 or +1.

        Raises
        ------
        ValueError
            Invalid X or y, or a dimension that differs from the SVM's.
        RuntimeError
            If called while training.
        """
        cdef SsSvm *p = self._writer("set_data")
        cdef _DataView view = _mapped_view(X, "X", False, self._homkermap)
        cdef cnp.ndarray labels
        cdef SsStatus status
        cdef int64_t d = ss_svm_get_dimension(p)
        self._check_input_dimension(view)
        labels = _prepare_labels(y, view.data.num_data,
                                 self.get_loss() not in _REGRESSION_LOSSES)
        self._writer_check("set_data")  # again: converting the argument ran Python
        status = ss_svm_set_data(p, &view.data, <const double *>cnp.PyArray_DATA(labels))
        if status == SS_ERR_BAD_DATA:
            raise ValueError("y contains NaN or infinity; labels must be -1 or +1" + self._detail())
        if status == SS_ERR_BAD_ARG:
            self._check_input_dimension(view)
        self._check(status, "data", None)
        self._data_refs = view.refs

    cdef _check_input_dimension(self, _DataView view):
        """ValueError unless the (mapped) data has the SVM's dimension."""
        cdef int64_t d = ss_svm_get_dimension(self._svm)
        cdef int64_t got = view.data.dimension
        if self._homkermap is None:
            if got != d:
                raise ValueError(f"X has {got} features (columns), but this SVM has dimension {d}")
            return
        D = self._homkermap.dimension
        if got * D != d:
            raise ValueError(f"X has {got} features (columns), but this SVM expects "
                             f"{d // D}: its kernel map turns each into {D}, for dimension {d}")

    def get_homkermap(self):
        """The homogeneous kernel map applied to the data, or None.

        Returns
        -------
        HomogeneousKernelMap or None
        """
        return self._homkermap

    # -- training ----------------------------------------------------------

    def train(self):
        """Run the solver from the present state (``ss_svm_train``), GIL released.

        SGD continues the learning-rate schedule from the stored iteration
        number and runs at most :meth:`get_max_num_iterations` iterations, or
        until the stopping rule fires (SDCA: relative duality gap below
        epsilon; the others: the objective flat within epsilon). RES
        and LRES do the same (iterations count examples, a step every
        minibatch) and keep their curvature between calls. The
        ``"none"`` solver evaluates the present model and bias. On the main
        thread, Ctrl+C (SIGINT) is checked every ``SS_SVM_INTERRUPT_PERIOD``
        iterations; it stops training and raises KeyboardInterrupt, keeping
        the progress made.

        Returns
        -------
        dict
            The statistics (see :meth:`get_statistics`). If the diagnostic
            function returned True, training stops early and the status is
            ``'interrupted'``.

        Raises
        ------
        RuntimeError
            If train() is already running on this SVM, or if the SVM has no
            data (after unpickling: call :meth:`set_data` first).
        FloatingPointError
            If training diverged: a non-finite model, or a score overflowed on
            data with huge values (status ``'error'``), or the objective rose
            above 1e4 times its value at w = 0 (status ``'diverged'``; the
            message names the fix: a smaller step, a larger lambda, scaled
            data). Reset the model.
        ValueError
            If the labels are not valid for the loss.
        MemoryError
            If an allocation failed.
        KeyboardInterrupt
            On Ctrl+C (main thread only); the SVM stays usable.
        Exception
            Any exception raised by the diagnostic function is re-raised
            here once training has stopped.
        """
        cdef SsSvm *p = self._ptr()
        status, message = self._run_training()
        if status == SS_OK or status == SS_ERR_INTERRUPTED:
            return _statistics_dict(ss_svm_get_statistics(p), p)
        advice = ""
        kind = None
        if status == SS_ERR_NUMERIC or status == SS_ERR_DIVERGED:
            advice = (". The model is not reliable: reset it (set_model, set_bias, "
                      "set_iteration_number) and use a larger t0 (a smaller step; for res/lres a "
                      "smaller eps0), a larger lambda, a smaller bias_learning_rate, or scaled data")
        elif status == SS_ERR_BAD_DATA and "label" in message:
            advice = " (the regression losses l1 and l2 take any finite label)"
        elif status == SS_ERR_BAD_ARG and self.get_solver() in _QUASI_NEWTON:
            advice = " (set_res_initial_curvature, set_res_delta)"
        elif status == SS_ERR_ALLOC and self.get_solver() == "res" \
                and ss_svm_get_dimension(p) > SS_RES_MAX_DIMENSION:
            advice = "; use solver='lres' (O(m d) per step)"
            kind = ValueError
        return _raise_status(status, message, advice, kind)

    # -- decision ----------------------------------------------------------

    def decision_function(self, X):
        """Scores ``X @ w + b`` of new examples with the present model.

        Parameters
        ----------
        X : ndarray of shape (m, d) or scipy.sparse matrix/array
            Examples with the SVM's dimension d (with a kernel map: the
            input dimension, d / (2 order + 1); the map is applied on the fly).

        Returns
        -------
        ndarray of shape (m,), float64

        Raises
        ------
        ValueError
            If X is not 2-D, has the wrong number of columns, or contains
            NaN or infinity; or if a score is not finite (values, or their
            kernel map, too large for the model: the sum overflows).
        """
        cdef SsSvm *p = self._ptr()
        cdef _DataView view
        cdef int64_t m
        cdef cnp.ndarray out
        cdef double *o
        cdef SsStatus status
        self._enter_reading()  # no writer changes the object (its threads) until we leave
        try:
            view = _mapped_view(X, "X", True, self._homkermap)
            m = view.data.num_data
            self._check_input_dimension(view)
            out = np.empty(m, dtype=np.float64)
            if m == 0:
                return out
            o = <double *>cnp.PyArray_DATA(out)
            with nogil:   # on the object's threads (set_num_threads)
                status = ss_svm_decision_function(p, &view.data, o)
        finally:
            self._leave_reading()
        if status == SS_ERR_NUMERIC or status == SS_ERR_BAD_DATA:
            return _scores_or_raise(status, out, self._homkermap is not None)
        self._check(status, "X", None)
        return out

    def predict(self, X):
        """Predicted labels, the sign of :meth:`decision_function` (ties -> +1).

        Parameters
        ----------
        X : ndarray of shape (m, d) or scipy.sparse matrix/array

        Returns
        -------
        ndarray of shape (m,), float64
            -1.0 or +1.0 for each example.
        """
        scores = self.decision_function(X)
        return np.where(scores >= 0.0, 1.0, -1.0)

    # -- setters and getters ------------------------------------------------

    def set_lambda(self, lambda_):
        """Set the regularization strength (``ss_svm_set_lambda``).

        Parameters
        ----------
        lambda_ : float
            Finite and > 0.

        Raises
        ------
        ValueError
            Out of range (the value is left unchanged).
        """
        cdef SsSvm *p = self._writer("set_lambda")
        self._check(ss_svm_set_lambda(p, _as_float(lambda_, "lambda")), "lambda", lambda_)

    def get_lambda(self):
        """Regularization strength lambda.

        Returns
        -------
        float
        """
        return ss_svm_get_lambda(self._reader())

    def set_epsilon(self, epsilon):
        """Set the relative stopping tolerance (``ss_svm_set_epsilon``).

        SDCA stops when its duality gap ``P - D <= epsilon D``, a certificate
        of ``P <= (1 + epsilon) P*``; the other solvers when the objective
        stays within a band of relative width epsilon over the last half of
        the run and falls at most half as fast as before (a heuristic).

        Parameters
        ----------
        epsilon : float
            >= 0; 0 disables the stopping rule. Default 1e-2; for SDCA one
            per loss, 5e-4 with the hinge and l1 losses (their gap falls
            slowly) and 1e-8 with the squared hinge, logistic and l2 losses
            (a decade in a few epochs), which follows ``set_loss`` until
            this method is called (:doc:`stopping`).

        Raises
        ------
        ValueError
            Negative or NaN (the value is left unchanged).
        """
        cdef SsSvm *p = self._writer("set_epsilon")
        self._check(ss_svm_set_epsilon(p, _as_float(epsilon, "epsilon")), "epsilon", epsilon)

    def get_epsilon(self):
        """The relative stopping tolerance (see :meth:`set_epsilon`).

        Returns
        -------
        float
        """
        return ss_svm_get_epsilon(self._reader())

    def set_max_num_iterations(self, n):
        """Set the iteration cap of each :meth:`train` call.

        Parameters
        ----------
        n : int
            >= 1. Default ``max(100 num_data, min(ceil(10 / lambda), 1000
            num_data))`` (1000 ``num_data`` for SDCA with the hinge loss),
            computed at train time while not set: at most 1000 epochs however
            small lambda is, after which the certified Newton finish takes
            over (docs: "The default cap at a tiny lambda").

        Raises
        ------
        ValueError
            Less than 1 (the value is left unchanged).
        """
        cdef SsSvm *p = self._writer("set_max_num_iterations")
        v = _as_int64(n, "max_num_iterations")
        self._check(ss_svm_set_max_num_iterations(p, <int64_t>v), "max_num_iterations", n)
        self._max_num_iterations_set = True

    def get_max_num_iterations(self):
        """The iteration cap in force (the default is computed from n and lambda).

        Returns
        -------
        int
        """
        return ss_svm_get_max_num_iterations(self._reader())

    def set_diagnostic_frequency(self, f):
        """Set the number of iterations between two diagnostics.

        Parameters
        ----------
        f : int or None
            >= 1, or None for the default. Default (never set, or set
            to None): the ends of epochs 1, 2, 3, 4, 6, 9, 13, ... (each
            a half more than the last), so that the full pass a diagnostic
            costs stays a small part of a long run; SDCA without a
            diagnostic function follows its work instead (docs/stopping).

        Raises
        ------
        ValueError
            Less than 1 (the value is left unchanged).
        """
        cdef SsSvm *p = self._writer("set_diagnostic_frequency")
        v = 0 if f is None else _as_int64(f, "diagnostic_frequency")
        if f is not None and v < 1:  # (0 is C's default; Python says None)
            raise ValueError(f"diagnostic_frequency must be {_RANGES['diagnostic_frequency']}, "
                             f"got {f!r}")
        self._check(ss_svm_set_diagnostic_frequency(p, <int64_t>v), "diagnostic_frequency", f)
        self._diagnostic_frequency_set = v > 0

    def get_diagnostic_frequency_setting(self):
        """The diagnostic frequency as set: an int, or None on the default
        schedule; ``set_diagnostic_frequency(get_diagnostic_frequency_setting())``
        puts it back after a change.

        Returns
        -------
        int or None
        """
        return ss_svm_get_diagnostic_frequency(self._reader()) if self._diagnostic_frequency_set else None

    def get_diagnostic_frequency(self):
        """The diagnostic frequency in force (num_data, the first interval of
        the default schedule, when never set; 0 without data).

        Returns
        -------
        int
        """
        return ss_svm_get_diagnostic_frequency(self._reader())

    def set_bias_multiplier(self, B):
        """Set the bias multiplier B, the value of the constant feature.

        The bias b = B * w_b is regularized as ``lambda/2 (b/B)^2``. B = 0
        means the bias is not learned (it keeps its value). The bias b is
        kept as is, whatever the order of this call and :meth:`set_bias`.

        Parameters
        ----------
        B : float
            Finite and >= 0. Default 1.

        Raises
        ------
        ValueError
            Out of range (the value is left unchanged).
        """
        cdef SsSvm *p = self._writer("set_bias_multiplier")
        self._check(ss_svm_set_bias_multiplier(p, _as_float(B, "bias_multiplier")),
                      "bias_multiplier", B)

    def get_bias_multiplier(self):
        """Bias multiplier B.

        Returns
        -------
        float
        """
        return ss_svm_get_bias_multiplier(self._reader())

    def set_bias_learning_rate(self, rate):
        """Set the learning-rate factor of the bias coordinate.

        Parameters
        ----------
        rate : float
            Finite and > 0; the bias moves with step ``rate * eta_t``. Default 1.

        Raises
        ------
        ValueError
            Out of range (the value is left unchanged).
        """
        cdef SsSvm *p = self._writer("set_bias_learning_rate")
        self._check(ss_svm_set_bias_learning_rate(p, _as_float(rate, "bias_learning_rate")),
                      "bias_learning_rate", rate)

    def get_bias_learning_rate(self):
        """Learning-rate factor of the bias.

        Returns
        -------
        float
        """
        return ss_svm_get_bias_learning_rate(self._reader())

    def set_t0(self, t0):
        """Set the offset of the SGD schedule ``eta_t = 1 / (lambda (t + t0))``.

        Parameters
        ----------
        t0 : float
            Finite and > 1. Default ``max(2, 2 / lambda, L / lambda)``: a first
            step of 1/2, or less where ``L``, the loss's curvature over the rows
            ``(x_i, B)`` (``2 R^2`` for hinge2, ``R^2 / 4`` for logistic, 0 for
            hinge, ``R^2 = max ||x_i||^2 + B^2``), would make it overshoot.

        Raises
        ------
        ValueError
            Out of range (the value is left unchanged).
        """
        cdef SsSvm *p = self._writer("set_t0")
        self._check_knob(ss_svm_set_t0(p, _as_float(t0, "t0")), "t0", t0)
        self._t0_set = True

    def unset_t0(self):
        """Go back to the default t0, ``max(2, 2 / lambda, L / lambda)`` (see :meth:`set_t0`),
        recomputed at train time."""
        cdef SsSvm *p = self._writer("unset_t0")
        self._check_knob(ss_svm_unset_t0(p), "t0", None)
        self._t0_set = False

    def get_t0(self):
        """The t0 in force (the default is computed from lambda).

        Returns
        -------
        float
        """
        return ss_svm_get_t0(self._reader())

    def set_skip(self, skip):
        """Iterations between two regularization steps of SVMSGD2 and SGD-QN.

        The regularizer is applied, scaled by ``skip``, at the iterations t
        with ``(t + 1) % skip == 0``. Other solvers refuse it (ValueError).

        Parameters
        ----------
        skip : int
            >= 1. Default ``round(16 / s)`` with s the fraction of non-zero
            values of the data (:meth:`get_density`); 16 on dense data.

        Raises
        ------
        ValueError
            Out of range (the value is left unchanged).
        TypeError
            Not an integer.
        """
        cdef SsSvm *p = self._writer("set_skip")
        v = _as_int(skip, "skip")
        if not (1 <= v <= _INT64_MAX):
            raise ValueError(f"skip must be {_RANGES['skip']}, got {skip!r}")
        self._check_knob(ss_svm_set_skip(p, <int64_t>v), "skip", skip)
        self._skip_set = True

    def unset_skip(self):
        """Go back to the default skip, ``round(16 / density)``."""
        cdef SsSvm *p = self._writer("unset_skip")
        self._check_knob(ss_svm_unset_skip(p), "skip", None)
        self._skip_set = False

    def get_skip(self):
        """The skip in force (the default follows the data's density).

        Returns
        -------
        int
        """
        return ss_svm_get_skip(self._reader())

    def get_density(self):
        """The fraction of non-zero values of the data, counted for SVMSGD2 and
        SGD-QN (1 for other solvers and without data); with a kernel map, of
        the mapped values, so that both map paths get the same ``skip``.

        Returns
        -------
        float
        """
        return ss_svm_get_density(self._reader())

    def get_scaling(self):
        """A copy of SGD-QN's diagonal rescaling B (``d + 1`` values, the last
        for the bias coordinate), or None for other solvers.

        B starts at ``1 / lambda``, is kept between :meth:`train` calls and
        is reset by :meth:`set_lambda` and :meth:`reset_scaling`; with the
        built-in losses it stays in ``[1 / (2 lambda), 1 / lambda]``. It is
        pickled with the object (with its update count), and
        :meth:`set_scaling` sets it, so a fresh object continues exactly.

        Returns
        -------
        ndarray of shape (d + 1,) or None
        """
        cdef SsSvm *p = self._reader()
        cdef const double *B = ss_svm_get_scaling(p)
        if B == NULL:
            return None
        return _copy_doubles(B, ss_svm_get_dimension(p) + 1)

    def get_scaling_updates(self):
        """SGD-QN: the number u of updates of B since its last reset (the leaky
        average's r is 2 + u); 0 for other solvers.

        Returns
        -------
        int
        """
        return ss_svm_get_scaling_updates(self._reader())

    def set_scaling(self, scaling, updates):
        """SGD-QN: set B and its update count (``ss_svm_set_scaling``).

        With :meth:`set_model`, :meth:`set_bias` and
        :meth:`set_iteration_number`, a fresh object then continues another
        object's run exactly.

        Parameters
        ----------
        scaling : array_like of shape (d + 1,)
            Finite values > 0 (copied); the last scales the bias coordinate.
        updates : int
            >= 0; the leaky average's r becomes ``2 + updates``.

        Raises
        ------
        ValueError
            Wrong length or values out of range (nothing changes).
        RuntimeError
            For solvers other than ``"sgdqn"``.
        """
        cdef SsSvm *p = self._writer("set_scaling")
        cdef cnp.ndarray B = _as_float_vector(scaling, "scaling", ss_svm_get_dimension(p) + 1,
                                              "d + 1 values")
        u = _as_int(updates, "updates")
        if not (0 <= u <= _INT64_MAX):
            raise ValueError(f"updates must be an integer >= 0, got {updates!r}")
        if ss_svm_get_scaling(p) == NULL:
            raise RuntimeError(f"set_scaling applies to the solver 'sgdqn', not "
                               f"{self.get_solver()!r}")
        self._writer_check("set_scaling")  # again: converting the argument ran Python
        status = ss_svm_set_scaling(p, <const double *>cnp.PyArray_DATA(B), <int64_t>u)
        if status == SS_ERR_BAD_ARG:
            raise ValueError("scaling must hold finite values > 0" + self._detail())
        self._check(status, "scaling", None)

    def reset_scaling(self):
        """SGD-QN: set B back to ``1 / lambda`` and restart its average.

        Raises
        ------
        RuntimeError
            For solvers other than ``"sgdqn"``.
        """
        cdef SsSvm *p = self._writer("reset_scaling")
        self._check(ss_svm_reset_scaling(p), "scaling", None)

    def calibrate_t0(self, candidates=None):
        """Choose t0 as Bordes, Bottou and Gallinari do (``ss_svm_calibrate_t0``).

        From the present state, one pass over a random 10 % sample of the
        data (``ceil(n / 10)`` examples, drawn from the seed) is run with
        each candidate t0; the candidate whose primal objective on the sample
        is lowest is set with :meth:`set_t0`. The model, bias, iteration
        number and scaling are restored after each trial: only t0 changes.
        The GIL is released. Solvers ``"sgd"``, ``"svmsgd2"``, ``"sgdqn"``.

        Parameters
        ----------
        candidates : sequence of float or None, default None
            Values of t0, each finite and > 1; None for ``10**1 .. 10**10``.

        Returns
        -------
        dict
            ``t0`` (the value chosen), ``candidates`` and ``objectives``
            (arrays; ``inf`` where a trial diverged).

        Raises
        ------
        ValueError
            Empty or out-of-range candidates; labels not valid for the loss.
        RuntimeError
            Another solver, no data, or training running on this SVM.
        FloatingPointError
            Every candidate diverged (t0 is left unchanged).
        """
        cdef SsSvm *p = self._writer("calibrate_t0")
        cdef cnp.ndarray cand
        cdef cnp.ndarray objectives
        cdef SsStatus status
        cdef int64_t m
        if candidates is None:
            cand = np.logspace(1, SS_SVM_CALIBRATION_GRID, SS_SVM_CALIBRATION_GRID)
        else:
            if isinstance(candidates, (str, bytes)):
                raise TypeError("candidates must be a sequence of numbers")
            try:
                cand = np.ascontiguousarray(np.asarray(candidates, dtype=np.float64).reshape(-1))
            except (TypeError, ValueError) as e:
                raise TypeError(f"candidates must be a sequence of numbers: {e}") from None
            if cand.shape[0] == 0:
                raise ValueError("candidates must not be empty")
            if not (np.all(np.isfinite(cand)) and np.all(cand > 1)):
                raise ValueError(f"each candidate t0 must be {_RANGES['t0']}, got "
                                 f"{candidates!r}")
        m = cand.shape[0]
        objectives = np.empty(m, dtype=np.float64)
        self._enter_training("cannot calibrate while train() is running on this SVM",
                             "calibrate_t0")
        try:
            with nogil:
                status = ss_svm_calibrate_t0(p, <const double *>cnp.PyArray_DATA(cand), m,
                                             <double *>cnp.PyArray_DATA(objectives))
        finally:
            self._leave_training()
        if status != SS_OK:
            _raise_status(status, self._last_error())
        self._t0_set = True
        return {"t0": ss_svm_get_t0(p), "candidates": cand.copy(), "objectives": objectives}

    def set_loss(self, loss):
        """Set the loss.

        Parameters
        ----------
        loss : {"hinge", "hinge2", "squared_hinge", "logistic", "l1", "l2"}
            ``"hinge"``: max(0, 1 - z); ``"hinge2"`` (alias
            ``"squared_hinge"``): max(0, 1 - z)^2, without a factor 1/2;
            ``"logistic"``: log(1 + exp(-z)); z = y s; the regression
            losses ``"l1"``: abs(y - s) and ``"l2"``: (y - s)^2.
            Default ``"hinge"``. With SDCA, changing the loss restarts the
            dual variables at 0.

        Raises
        ------
        ValueError
            Unknown name (the loss is left unchanged).
        TypeError
            Not a string.
        """
        cdef SsSvm *p = self._writer("set_loss")
        if not isinstance(loss, str):
            raise TypeError(f"loss must be a string, one of {_valid(_LOSSES)}, got "
                            f"{type(loss).__name__}")
        if loss not in _LOSSES:
            raise ValueError(f"loss must be one of {_valid(_LOSSES)}, got {loss!r}")
        if self.get_solver() in _QUASI_NEWTON and loss in _NON_DIFFERENTIABLE:
            raise ValueError(_non_differentiable_message(self.get_solver(), loss))
        self._check(ss_svm_set_loss(p, <SsLoss>_LOSSES[loss]), "loss", loss)

    def get_loss(self):
        """The loss, by its canonical name.

        Returns
        -------
        str
            ``"hinge"``, ``"hinge2"``, ``"logistic"``, ``"l1"`` or ``"l2"``.
        """
        return _LOSS_NAMES.get(<int>ss_svm_get_loss(self._reader()), "unknown")

    def set_weights(self, weights):
        """Set per-example weights c_i (copied), or restore uniform weights.

        Parameters
        ----------
        weights : array_like of shape (n,) or None
            Finite values >= 0, one per example. None restores the default
            (all 1). :meth:`set_data` clears the weights.

        Raises
        ------
        ValueError
            Wrong length, negative or non-finite values (weights unchanged).
        """
        cdef SsSvm *p = self._writer("set_weights")
        cdef cnp.ndarray w
        cdef int64_t n = ss_svm_get_num_data(p)
        if weights is None:
            self._check(ss_svm_set_weights(p, NULL), "weights", None)
            return
        if n == 0:
            raise RuntimeError("this SVM has no data; call set_data(X, y) before set_weights")
        w = _as_float_vector(weights, "weights", n, "one per example")
        self._writer_check("set_weights")  # again: converting the argument ran Python
        status = ss_svm_set_weights(p, <const double *>cnp.PyArray_DATA(w))
        if status == SS_ERR_BAD_ARG:
            raise ValueError(f"weights must be {n} finite values >= 0" + self._detail())
        self._check(status, "weights", None)

    def get_weights(self):
        """A copy of the per-example weights, or None for uniform weights.

        Returns
        -------
        ndarray of shape (n,) or None
        """
        cdef SsSvm *p = self._reader()
        cdef const double *w = ss_svm_get_weights(p)
        if w == NULL:
            return None
        return _copy_doubles(w, ss_svm_get_num_data(p))

    def set_model(self, model):
        """Set the model w (copied); with set_bias and set_iteration_number it warm-starts.

        Parameters
        ----------
        model : array_like of shape (d,)
            Finite values.

        Raises
        ------
        ValueError
            Wrong length or non-finite values (the model is left unchanged).
        """
        cdef SsSvm *p = self._writer("set_model")
        cdef int64_t d = ss_svm_get_dimension(p)
        cdef cnp.ndarray w = _as_float_vector(model, "model", d, "the dimension")
        self._writer_check("set_model")  # again: converting the argument ran Python
        status = ss_svm_set_model(p, <const double *>cnp.PyArray_DATA(w))
        if status == SS_ERR_BAD_STATE:
            raise RuntimeError("the sdca solver derives its model from the dual variables: "
                               "use set_dual_variables instead of set_model")
        if status == SS_ERR_BAD_ARG:
            raise ValueError(f"model must be {d} finite values" + self._detail())
        self._check(status, "model", None)

    def set_dual_variables(self, alpha):
        """SDCA: set the dual variables (copied); the model and bias follow from them.

        ``w~ = 1/(lambda n) sum_i alpha_i (x_i, B)``. Together with the same
        seed and :meth:`set_iteration_number`, this restarts SDCA exactly.

        Parameters
        ----------
        alpha : array_like of shape (n,)
            Finite, each in its loss's domain (``y_i alpha_i / c_i`` in [0, 1]
            for hinge and logistic, >= 0 for hinge2, ``abs(alpha_i / c_i) <= 1``
            for l1).

        Raises
        ------
        ValueError
            Wrong length, non-finite or out of the loss's domain.
        RuntimeError
            The solver is not SDCA.
        """
        cdef SsSvm *p = self._writer("set_dual_variables")
        if ss_svm_get_dual_variables(p) == NULL:
            raise RuntimeError("set_dual_variables needs the sdca solver, this SVM uses "
                               f"{self.get_solver()!r}")
        cdef int64_t n = ss_svm_get_num_data(p)
        cdef cnp.ndarray a = _as_float_vector(alpha, "alpha", n, "the number of examples")
        self._writer_check("set_dual_variables")  # again: converting the argument ran Python
        status = ss_svm_set_dual_variables(p, <const double *>cnp.PyArray_DATA(a))
        if status == SS_ERR_BAD_ARG:
            raise ValueError(f"alpha must be {n} finite values, each in the domain of the "
                             f"{self.get_loss()} loss's conjugate" + self._detail())
        self._check(status, "dual_variables", None)

    def shift_sdca_model(self, shift, bias_shift=0.0):
        """SDCA: add ``(shift, bias_shift)`` to the model derived from the dual variables.

        The model becomes ``w = shift + 1/(lambda n) sum_i alpha_i x_i`` and
        ``b = bias_shift + B^2/(lambda n) sum_i alpha_i`` until it is next
        rebuilt from the dual variables (:meth:`set_dual_variables`, a restart
        of the dual, :meth:`set_lambda`, :meth:`set_bias_multiplier`,
        :meth:`set_data`). :meth:`train` then maximises the dual of the shifted
        problem, the local subproblem of CoCoA+ (:mod:`stochsvm.dask`); the
        duality gap it reports is that problem's.

        Parameters
        ----------
        shift : array_like of shape (d,)
            Finite values added to the model.
        bias_shift : float, default 0
            Finite, added to the bias.

        Raises
        ------
        ValueError
            Wrong length or non-finite values.
        RuntimeError
            The solver is not SDCA.
        """
        cdef SsSvm *p = self._writer("shift_sdca_model")
        if ss_svm_get_dual_variables(p) == NULL:
            raise RuntimeError("shift_sdca_model needs the sdca solver, this SVM uses "
                               f"{self.get_solver()!r}")
        cdef cnp.ndarray r = _as_float_vector(shift, "shift", ss_svm_get_dimension(p),
                                              "the dimension")
        cdef double rb = _as_float(bias_shift, "bias_shift")
        self._writer_check("shift_sdca_model")  # again: converting the argument ran Python
        status = ss_svm_shift_sdca_model(p, <const double *>cnp.PyArray_DATA(r), rb)
        if status == SS_ERR_BAD_ARG:
            raise ValueError("shift and bias_shift must be finite" + self._detail())
        self._check(status, "shift", None)

    def set_shrinking(self, enabled):
        """SDCA: turn shrinking on (the default) or off (``ss_svm_set_shrinking``).

        With the hinge and squared hinge losses, SDCA skips examples whose dual
        variable sits at a bound it is expected to keep (LIBLINEAR's heuristic);
        their visits still count as iterations, so only the cost of an epoch
        changes. All examples come back when the active ones have converged,
        and the duality gap is always computed over all examples. The state is
        kept between :meth:`train` calls and reset when the dual variables are
        set or restarted, or by this call. Turn it off for restarts from
        :meth:`set_dual_variables` that must continue exactly.

        Parameters
        ----------
        enabled : bool
        """
        if not isinstance(enabled, (bool, np.bool_)):
            raise TypeError(f"enabled must be a bool, got {type(enabled).__name__}")
        cdef SsSvm *p = self._writer("set_shrinking")
        self._check_knob(ss_svm_set_shrinking(p, 1 if enabled else 0), "enabled", enabled)

    def get_shrinking(self):
        """True if SDCA shrinking is on (the default).

        Returns
        -------
        bool
        """
        return bool(ss_svm_get_shrinking(self._reader()))

    def set_newton_fallback(self, enabled):
        """The certified Newton finish: on, off or ``"auto"`` (``ss_svm_set_newton_fallback``).

        With a smooth loss (``hinge2``, ``logistic``, ``l2``), a run of
        SDCA, SGD, SVMSGD2, SGD-QN, RES or LRES that would end without meeting
        its tolerance (on its iteration cap, or earlier when its stall rule
        finds that it cannot meet it within the cap) continues with a primal
        truncated Newton method from the model it reached, to the relative
        gap ``(P - D) / max(P, D) <= epsilon`` certified by the dual point
        ``alpha_i = -c_i loss'(y_i, s_i)``; status ``converged`` only when
        certified. SDCA's dual variables are then set from that point, so the
        next :meth:`train` continues SDCA from there; the primal solvers keep
        their schedule's iteration, SGD-QN's scaling and RES's curvature
        (docs/stopping.rst). The statistics' ``num_newton_iterations`` counts
        its iterations. With the hinge and l1 losses (SDCA, SGD, SVMSGD2,
        SGD-QN) the finish is Newton's method on the smoothed loss,
        certified by the loss's own duality gap; the SGD family then also
        hands over where its objective window fires, which these losses
        cannot certify (docs/stopping.rst).

        Parameters
        ----------
        enabled : bool or "auto"
            True: whenever a run ends uncertified; False: never; ``"auto"``
            (the default): as True for SDCA's smooth losses, and for its
            hinge and l1 and the primal solvers only while the iteration
            cap is the object's default (after
            :meth:`set_max_num_iterations` a run ends on the cap it was
            given, a cheap rough model as asked).
        """
        mode = _finish_mode(enabled)
        cdef SsSvm *p = self._writer("set_newton_fallback")
        self._check_knob(ss_svm_set_newton_fallback(p, mode), "enabled", enabled)
        self._newton_fallback_set = _finish_mode_name(mode)

    def get_newton_fallback(self):
        """The Newton finish's mode: True (SDCA's default), False, or
        ``"auto"`` (the primal solvers' default; :meth:`set_newton_fallback`).

        Returns
        -------
        bool or "auto"
        """
        return _finish_mode_name(ss_svm_get_newton_fallback(self._reader()))

    def get_num_shrunk(self):
        """SDCA: the number of examples shrinking skips at present (0 otherwise).

        Returns
        -------
        int
        """
        return int(ss_svm_get_num_shrunk(self._reader()))

    def get_dual_variables(self):
        """SDCA: a float64 copy of the dual variables alpha, or None for other solvers.

        The model is ``w~(alpha)``, except after a run stopped on its cap
        (the best point on the ray through it) and after a converged run
        whose diagnostics measured a lower model (an earlier one, or with the
        hinge and l1 losses the tail average of the epochs' models): that
        model is returned, with the gap ``P(model) - D(alpha)``, and the next
        :meth:`train` continues from ``alpha`` and ``w~(alpha)``
        (docs/sdca.rst, "The best model").

        Returns
        -------
        ndarray of shape (n,) or None
        """
        cdef SsSvm *p = self._reader()
        cdef const double *a = ss_svm_get_dual_variables(p)
        if a == NULL:
            return None
        return _copy_doubles(a, ss_svm_get_num_data(p))

    def get_model(self):
        """A float64 copy of the model w.

        Returns
        -------
        ndarray of shape (d,)
        """
        cdef SsSvm *p = self._reader()
        return _copy_doubles(ss_svm_get_model(p), ss_svm_get_dimension(p))

    def set_bias(self, bias):
        """Set the bias b, the additive term of the score.

        Independent of the order of :meth:`set_bias_multiplier`.

        Parameters
        ----------
        bias : float
            Finite.

        Raises
        ------
        ValueError
            Non-finite (the bias is left unchanged).
        """
        cdef SsSvm *p = self._writer("set_bias")
        status = ss_svm_set_bias(p, _as_float(bias, "bias"))
        if status == SS_ERR_BAD_STATE:
            raise RuntimeError("the sdca solver learns the bias from the dual variables "
                               "(bias multiplier > 0): use set_dual_variables")
        self._check(status, "bias", bias)

    def get_bias(self):
        """The bias b.

        Returns
        -------
        float
        """
        return ss_svm_get_bias(self._reader())

    def set_iteration_number(self, t):
        """Set the number of iterations already done; SGD's schedule continues from it.

        Parameters
        ----------
        t : int
            >= 0, and at most ``2**63 - 1 - get_max_num_iterations()`` (room
            for one train call: the counter would otherwise saturate and
            train stop short). Set it with the model and the bias to
            warm-start a fresh object.

        Raises
        ------
        ValueError
            Negative, or no room left (the value is left unchanged).
        """
        cdef SsSvm *p = self._writer("set_iteration_number")
        v = _as_int64(t, "iteration_number")
        room = _INT64_MAX - ss_svm_get_max_num_iterations(p)
        if v > room:   # the counter would saturate: train() would stop short, silently
            raise ValueError(f"iteration_number must leave room for max_num_iterations = "
                             f"{_INT64_MAX - room} more iterations (at most {room}), got {t!r}")
        self._check(ss_svm_set_iteration_number(p, <int64_t>v), "iteration_number", t)

    def get_iteration_number(self):
        """Iterations done in total (warm-start offset included).

        Returns
        -------
        int
        """
        return ss_svm_get_iteration_number(self._reader())

    def poll_iteration_number(self):
        """The iteration number as the running :meth:`train` last published
        it: the one method another thread may call during training (no lock;
        a relaxed atomic read in C), for progress displays. It trails the
        true count by at most 16384 iterations (updated at every epoch end,
        diagnostic and interrupt poll); between trainings, the value at the
        end of the last one (0 before the first).

        Returns
        -------
        int
        """
        return ss_svm_poll_iteration_number(self._ptr())

    def set_seed(self, seed):
        """Set the seed of the object's random generator.

        The visiting order of epoch e is a function of (seed, e) only.

        Parameters
        ----------
        seed : int
            In [0, 2**64). Default 0.

        Raises
        ------
        ValueError
            Out of range (the seed is left unchanged).
        """
        cdef SsSvm *p = self._writer("set_seed")
        v = _check_seed(seed)
        if v is None:
            raise TypeError("seed must be an integer in [0, 2**64), got None")
        self._check(ss_svm_set_seed(p, <uint64_t>v), "seed", seed)

    def set_num_threads(self, num_threads):
        """Threads for this one model, an integer >= 1 (default 1).

        The order-free passes -- the scores of every diagnostic (objective,
        duality gap) and :meth:`decision_function` -- split their rows over
        this many threads; the results are bit-identical for any count. The
        solvers' steps stay serial. A core built without POSIX threads runs
        serially whatever the count. A pickle keeps the count; a process
        forked from this one trains on threads of its own
        (docs/embedding.rst)."""
        cdef SsSvm *p = self._writer("set_num_threads")
        v = _as_int(num_threads, "num_threads")
        if not (1 <= v <= 1024):
            raise ValueError(f"num_threads must be an integer in [1, 1024], got {num_threads!r}")
        self._check(ss_svm_set_num_threads(p, <int>v), "num_threads", num_threads)

    def get_num_threads(self):
        """The thread count set (default 1)."""
        return ss_svm_get_num_threads(self._reader())

    def set_shuffle(self, shuffle):
        """Visit each epoch in a fresh random permutation (True, the default) or
        in data order (False), as Bottou's SVMSGD2 and SGD-QN programs do on
        data shuffled once beforehand.

        Data order reads the rows sequentially: on data larger than the
        caches an epoch is several times faster (covtype: 10 ms against 48 ms
        for SVMSGD2). Shuffle the rows once yourself if their order is not
        random. The order of epoch e stays a function of (seed, e).

        Parameters
        ----------
        shuffle : bool
        """
        cdef SsSvm *p = self._writer("set_shuffle")
        if not isinstance(shuffle, (bool, np.bool_)):
            raise TypeError(f"shuffle must be True or False, got {shuffle!r}")
        self._check(ss_svm_set_shuffle(p, 1 if shuffle else 0), "shuffle", shuffle)

    def set_visit_order(self, order):
        """How each epoch visits the examples: ``"permutation"`` (a fresh
        uniform permutation, the default), ``"interleaved"`` (blocks of 256
        consecutive rows in a fresh random order, read 4 at a time side by
        side: a row of each block in turn, each block's rows in data order),
        ``"blocks"`` (blocks of 256 consecutive rows in a random order, each
        block's rows in a random order) or ``"data"`` (0, 1, ..., n-1, as
        ``set_shuffle(False)``). The order of epoch e stays a function of
        (seed, e).

        On data larger than the caches a random order costs: on covtype an
        epoch of SVMSGD2 takes about 5x the data-order epoch with the
        permutation, 2.4x with ``"blocks"`` and 1.2x with ``"interleaved"``,
        which reads the data as four sequential streams. With the permutation
        every visit is a uniform draw of the examples not yet seen; the two
        block orders visit memory neighbours together, which on a file sorted
        by class mixes the classes less well (see
        ``bench/results/visit_order.md``).

        Parameters
        ----------
        order : {"permutation", "interleaved", "blocks", "data"}
        """
        cdef SsSvm *p = self._writer("set_visit_order")
        if not isinstance(order, str) or order not in _VISIT_ORDERS:
            raise ValueError(f"visit_order must be one of 'data', 'permutation', 'blocks', "
                             f"'interleaved', got {order!r}")
        cdef int code = _VISIT_ORDERS.index(order)
        _check_status(ss_svm_set_visit_order(p, <SsVisitOrder>code), "visit_order", order)

    def get_visit_order(self):
        """The visiting order in force: ``"permutation"``, ``"interleaved"``, ``"blocks"`` or
        ``"data"``."""
        return _VISIT_ORDERS[ss_svm_get_visit_order(self._reader())]

    def get_shuffle(self):
        """True if epochs visit a random permutation (the default).

        Returns
        -------
        bool
        """
        return bool(ss_svm_get_shuffle(self._reader()))

    def get_seed(self):
        """Seed of the object's random generator.

        Returns
        -------
        int
        """
        return ss_svm_get_seed(self._reader())

    def set_diagnostic_function(self, function):
        """Set the function called at every diagnostic, or remove it.

        Parameters
        ----------
        function : callable or None
            Called on the training thread as ``function(statistics)`` every
            :meth:`get_diagnostic_frequency` iterations and at the end of
            each run, with the statistics dict of :meth:`get_statistics`
            (status ``'training'`` during a run). It may call any getter of
            the SVM, but no setter. A truthy return value stops training
            (status ``'interrupted'``; :meth:`train` returns normally). An
            exception stops training and is re-raised by :meth:`train`.

        Raises
        ------
        TypeError
            If ``function`` is neither callable nor None.
        """
        cdef SsSvm *p = self._writer("set_diagnostic_function")
        if function is None:
            self._check(ss_svm_set_diagnostic_function(p, NULL, NULL), "diagnostic_function",
                          None)
        elif callable(function):
            self._check(ss_svm_set_diagnostic_function(p, _diagnostic_trampoline, <void *>self),
                          "diagnostic_function", None)
        else:
            raise TypeError(f"diagnostic function must be callable or None, got "
                            f"{type(function).__name__}")
        self._callback = function

    def get_diagnostic_function(self):
        """The diagnostic function, or None.

        Returns
        -------
        callable or None
        """
        self._ptr()
        return self._callback

    def get_solver(self):
        """The solver's name.

        Returns
        -------
        str
            ``"sgd"``, ``"sdca"``, ``"svmsgd2"``, ``"sgdqn"`` or ``"none"``.
        """
        return _SOLVER_NAMES.get(<int>ss_svm_get_solver(self._ptr()), "unknown")

    def get_dimension(self):
        """The dimension d (number of features).

        Returns
        -------
        int
        """
        return ss_svm_get_dimension(self._ptr())

    def get_num_data(self):
        """The number of examples n (0 for an SVM without data).

        Returns
        -------
        int
        """
        return ss_svm_get_num_data(self._ptr())

    def get_scores(self):
        """A copy of the scores ``s_i = <w, x_i> + b`` at the last diagnostic.

        Returns
        -------
        ndarray of shape (n,)

        Raises
        ------
        RuntimeError
            Before the first :meth:`train` (or after :meth:`set_data`).
        """
        cdef SsSvm *p = self._reader()
        cdef const double *s = ss_svm_get_scores(p)
        if s == NULL:
            raise RuntimeError("no scores yet: call train() first (scores are computed at "
                               "every diagnostic)")
        return _copy_doubles(s, ss_svm_get_num_data(p))

    def get_statistics(self):
        """Statistics of the last diagnostic.

        Returns
        -------
        dict
            ``status`` (``'untrained'``, ``'training'``, ``'converged'``,
            ``'max_iterations'``, ``'interrupted'`` or ``'error'``),
            ``iteration`` (total, warm start included), ``epoch``,
            ``objective`` (primal E(w, b)), ``regularizer``, ``loss``,
            ``dual_objective`` and ``duality_gap`` (NaN where the solver has
            no dual), ``scores_variation`` (inf at the first diagnostic) and
            ``elapsed_time`` (seconds since the start of the train call) and
            ``num_step_backoffs`` (SGD, SVMSGD2, SGD-QN at their default
            t0, RES and LRES at their default eps0: restarts from w = 0 with
            shorter steps, docs/stopping.rst) and ``num_newton_iterations``
            (a smooth loss: iterations of the Newton finish in the last
            train call, :meth:`set_newton_fallback`; with status
            ``'converged'`` the finish was certified, with
            ``'max_iterations'`` it was not) and ``sdca_model`` (SDCA: the
            model returned, ``'dual'`` for w~(alpha), ``'earlier'`` for an
            earlier diagnostic's of lower objective and ``'average'`` for the
            tail average (a converged run, docs/sdca.rst "The best model"),
            ``'ray'`` for the best point of the ray through w~(alpha) (a run
            stopped on its cap), ``'newton'`` for the Newton fallback's model
            (a run that handed over, :meth:`set_newton_fallback`, until the
            next train rebuilds w~(alpha)); None for other solvers and before
            training).
            Before the first train (status ``'untrained'``) every figure but
            ``iteration``, ``epoch`` and ``elapsed_time`` is NaN.
            An unpickled SVM reports the statistics saved with it until it
            is trained again.
        """
        cdef SsSvm *p = self._reader()
        cdef const SsSvmStatistics *st = ss_svm_get_statistics(p)
        if st.status == SS_SVM_STATUS_UNTRAINED and self._saved_statistics is not None:
            return dict(self._saved_statistics)
        return _statistics_dict(st, p)

    # -- RES and LRES (include/stochsvm/res.h) -------------------------------

    def set_res_minibatch_size(self, L):
        """RES/LRES: minibatch size L (``ss_svm_set_res_minibatch_size``).

        Parameters
        ----------
        L : int
            >= 1. Default 5. Iterations still count examples: a step is taken
            every L examples (the last minibatch of an epoch may be shorter).
        """
        cdef SsSvm *p = self._writer("set_res_minibatch_size")
        v = _as_int64(L, "res_minibatch_size")
        self._check_knob(ss_svm_set_res_minibatch_size(p, <int64_t>v), "res_minibatch_size", L)

    def get_res_minibatch_size(self):
        """RES/LRES minibatch size L (int)."""
        return ss_svm_get_res_minibatch_size(self._reader())

    def set_res_delta(self, delta):
        """RES/LRES: curvature floor delta >= 0 (every eigenvalue of Bhat stays >= delta).

        Parameters
        ----------
        delta : float
            Finite, >= 0. Default 1e-3. Keep it below lambda; 0 (with gamma 0)
            is plain stochastic BFGS.
        """
        cdef SsSvm *p = self._writer("set_res_delta")
        self._check_knob(ss_svm_set_res_delta(p, _as_float(delta, "res_delta")), "res_delta", delta)

    def get_res_delta(self):
        """RES/LRES curvature floor delta (float)."""
        return ss_svm_get_res_delta(self._reader())

    def set_res_gamma(self, gamma):
        """RES/LRES: minimum progress Gamma >= 0; the direction is (Bhat^-1 + Gamma I) s.

        Parameters
        ----------
        gamma : float
            Finite, >= 0. Default ``1e-4 / b0`` (the paper's 1e-4 at b0 = 1).
        """
        cdef SsSvm *p = self._writer("set_res_gamma")
        self._check_knob(ss_svm_set_res_gamma(p, _as_float(gamma, "res_gamma")), "res_gamma", gamma)
        self._res_explicit.add("res_gamma")

    def get_res_gamma(self):
        """RES/LRES minimum progress Gamma (float)."""
        return ss_svm_get_res_gamma(self._reader())

    def set_res_eps0(self, eps0):
        """RES/LRES: initial step eps0 of ``eps_t = eps0 tau / (tau + t)``.

        Parameters
        ----------
        eps0 : float
            Finite, > 0. Default 0.1 (docs/res.rst, "Defaults and safeguards"). An
            eps0 set here is never changed: the step back-off (docs/stopping.rst)
            acts at the default only.
        """
        cdef SsSvm *p = self._writer("set_res_eps0")
        self._check_knob(ss_svm_set_res_eps0(p, _as_float(eps0, "res_eps0")), "res_eps0", eps0)
        self._res_explicit.add("res_eps0")

    def get_res_eps0(self):
        """RES/LRES initial step eps0 (float)."""
        return ss_svm_get_res_eps0(self._reader())

    def set_res_tau(self, tau):
        """RES/LRES: step decay tau of ``eps_t = eps0 tau / (tau + t)`` (t counts steps).

        Parameters
        ----------
        tau : float
            > 0; ``float("inf")`` gives the constant step eps0. Default 100.
        """
        cdef SsSvm *p = self._writer("set_res_tau")
        self._check_knob(ss_svm_set_res_tau(p, _as_float(tau, "res_tau")), "res_tau", tau)

    def get_res_tau(self):
        """RES/LRES step decay tau (float)."""
        return ss_svm_get_res_tau(self._reader())

    def set_res_initial_curvature(self, b0):
        """RES/LRES: b0 of the initial curvature ``Bhat_0 = b0 I`` (must exceed delta).

        Takes effect when the curvature is (re)initialised: at the first
        training, or after :meth:`reset_res_curvature`.

        Parameters
        ----------
        b0 : float
            Finite, > 0. Default: the data's diagonal Bhat_0 (docs/res.rst).
        """
        cdef SsSvm *p = self._writer("set_res_initial_curvature")
        self._check_knob(ss_svm_set_res_initial_curvature(p, _as_float(b0, "res_initial_curvature")),
                      "res_initial_curvature", b0)
        self._res_explicit.add("res_initial_curvature")

    def get_res_initial_curvature(self):
        """RES/LRES b0 in force (float; default: the mean of the data's diagonal Bhat_0)."""
        return ss_svm_get_res_initial_curvature(self._reader())

    def set_lres_memory(self, m):
        """LRES: number m of curvature pairs kept. Changing it forgets the pairs.

        Parameters
        ----------
        m : int
            In [1, 1024] (SS_LRES_MAX_MEMORY). Default 10.
        """
        cdef SsSvm *p = self._writer("set_lres_memory")
        v = _as_int64(m, "lres_memory")
        self._check_knob(ss_svm_set_lres_memory(p, <int64_t>v), "lres_memory", m)

    def get_lres_memory(self):
        """LRES memory m (int)."""
        return ss_svm_get_lres_memory(self._reader())

    def get_curvature_statistics(self):
        """RES/LRES: counts of curvature updates since the curvature was last reset.

        Returns
        -------
        dict
            ``updates`` (pairs taken), ``skips`` (pairs with v^T rtilde too
            small, e.g. when delta exceeds the curvature along v) and
            ``restarts`` (RES: Bhat reset to Bhat_0 after rounding broke its
            positive definiteness).
        """
        cdef SsSvm *p = self._reader()
        return {"updates": ss_svm_get_res_num_curvature_updates(p),
                "skips": ss_svm_get_res_num_curvature_skips(p),
                "restarts": ss_svm_get_res_num_curvature_restarts(p)}

    def get_res_curvature_state(self):
        """RES/LRES: a copy of the curvature, for a warm start.

        Returns
        -------
        ndarray
            RES: Bhat, shape (D, D) with D = dimension + 1 (the bias
            coordinate last). LRES: a flat array of 1 + 2 m D values: the
            number k of stored pairs, m rows of v, then m rows of
            rhat = rtilde + delta v (oldest first, rows past k zero).

        Raises
        ------
        RuntimeError
            For other solvers.
        """
        cdef SsSvm *p = self._reader()
        cdef int64_t size = ss_svm_get_res_curvature_state_size(p)
        cdef cnp.ndarray out
        if size == 0:
            raise RuntimeError(f"the {self.get_solver()!r} solver has no curvature state "
                               f"(only 'res' and 'lres' do)")
        out = np.empty(size, dtype=np.float64)
        _check_status(ss_svm_get_res_curvature_state(p, <double *>cnp.PyArray_DATA(out)),
                      "curvature_state", None)
        if self.get_solver() == "res":
            D = ss_svm_get_dimension(p) + 1
            return out.reshape(D, D)
        return out

    def set_res_curvature_state(self, state):
        """RES/LRES: set the curvature (copied), in the layout of :meth:`get_res_curvature_state`.

        With :meth:`set_model`, :meth:`set_bias` and :meth:`set_iteration_number`
        this continues a run exactly in a fresh object.

        Raises
        ------
        ValueError
            Wrong size, non-finite values, RES: Bhat not symmetric positive
            definite, LRES: a bad pair count or a pair with v^T rtilde <= 0.
        RuntimeError
            For other solvers.
        """
        cdef SsSvm *p = self._writer("set_res_curvature_state")
        cdef int64_t size = ss_svm_get_res_curvature_state_size(p)
        if size == 0:
            raise RuntimeError(f"the {self.get_solver()!r} solver has no curvature state "
                               f"(only 'res' and 'lres' do)")
        cdef cnp.ndarray a = _as_float_vector(np.asarray(state).reshape(-1), "state", size,
                                              "the curvature state size")
        self._writer_check("set_res_curvature_state")  # again: converting the argument ran Python
        status = ss_svm_set_res_curvature_state(p, <const double *>cnp.PyArray_DATA(a))
        if status == SS_ERR_BAD_ARG:
            raise ValueError("invalid curvature state: RES needs a finite, symmetric, positive "
                             "definite Bhat; LRES a pair count 0..m and pairs with v^T r > 0" + self._detail())
        self._check(status, "curvature_state", None)

    def _get_res_parameters(self):
        """The RES/LRES parameters and curvature state, for pickling."""
        params = {name: getattr(self, "get_" + name)() for name in _RES_PARAMETERS}
        for name in ("res_gamma", "res_initial_curvature", "res_eps0"):   # None: the default
            if name not in self._res_explicit:
                params[name] = None
        if self.get_solver() in _QUASI_NEWTON:
            params["curvature_state"] = self.get_res_curvature_state()
        return params

    def _set_res_parameters(self, params):
        for name in _RES_PARAMETERS:       # memory first: it resets the LRES pairs
            if name == "lres_memory" and self.get_solver() != "lres":
                continue
            if params[name] is None or (name == "res_initial_curvature" and
                                        params[name] == 1.0 + params["res_delta"]):
                continue                   # a default (older pickles: b0 = 1 + delta)
            getattr(self, "set_" + name)(params[name])
        if params.get("curvature_state") is not None:
            self.set_res_curvature_state(params["curvature_state"])

    def reset_res_curvature(self):
        """RES/LRES: forget the curvature (Bhat = Bhat_0, no LRES pairs) and the counters."""
        cdef SsSvm *p = self._writer("reset_res_curvature")
        self._check_knob(ss_svm_reset_res_curvature(p), "curvature", None)


# ---------------------------------------------------------------------------
#                                 Helpers
# ---------------------------------------------------------------------------

cdef object _copy_doubles(const double *src, int64_t count):
    cdef cnp.ndarray out = np.empty(count, dtype=np.float64)
    if count > 0:
        memcpy(cnp.PyArray_DATA(out), src, <size_t>count * sizeof(double))
    return out


def _non_differentiable_message(solver, loss):
    # the differentiable loss of the same task: a regressor takes only l1 and l2
    fix = ("loss='l2' (the squared loss)" if loss in _REGRESSION_LOSSES else
           "loss='hinge2' (the squared hinge) or loss='logistic'")
    return (f"the {solver} solver needs a differentiable loss ('hinge2', 'logistic' or 'l2'); "
            f"{loss!r} is not differentiable: use {fix}, or another solver")


def _valid(mapping):
    return ", ".join(repr(k) for k in mapping)


cdef SsSolver _solver_from_name(solver) except *:
    if not isinstance(solver, str) or solver not in _SOLVERS:
        raise ValueError(f"solver must be one of {_valid(_SOLVERS)}, got {solver!r}")
    return <SsSolver>_SOLVERS[solver]


cdef double _check_lambda(value) except? -1.0:
    lam = _as_float(value, "lambda_")
    if not (SS_LAMBDA_MIN <= lam <= SS_LAMBDA_MAX):
        raise ValueError(f"lambda_ must be {_RANGES['lambda']}, got {value!r}")
    return lam


def _check_seed(seed):
    if seed is None:
        return None
    v = _as_int(seed, "seed")
    if not (0 <= v < 2 ** 64):
        raise ValueError(f"seed must be an integer in [0, 2**64), got {seed!r}")
    return v


cdef _raise_new_failure(SsStatus status):
    if status == SS_ERR_ALLOC or status == SS_OK:
        raise MemoryError("could not allocate the SVM")
    if status == SS_ERR_BAD_DATA:
        raise ValueError("X or y was rejected by the C core (NaN or infinity, or labels other "
                         "than -1/+1)")
    raise ValueError("invalid arguments for SVM: "
                     + ss_status_string(status).decode("utf-8", "replace"))


cdef int _check_status(SsStatus status, str name, value) except -1:
    if status == SS_OK:
        return 0
    if status == SS_ERR_BAD_ARG:
        rng = _RANGES.get(name)
        if rng is None:
            raise ValueError(f"invalid {name}: {value!r}")
        raise ValueError(f"{name} must be {rng}, got {value!r}")
    if status == SS_ERR_BAD_DATA:
        raise ValueError(f"invalid {name}: {ss_status_string(status).decode('utf-8', 'replace')}")
    if status == SS_ERR_ALLOC:
        raise MemoryError(f"out of memory while setting {name}")
    if status == SS_ERR_BAD_STATE:
        raise RuntimeError(f"cannot set {name} in the present state: "
                           + ss_status_string(status).decode("utf-8", "replace"))
    raise RuntimeError(f"setting {name} failed: "
                       + ss_status_string(status).decode("utf-8", "replace"))
