# cython: language_level=3, boundscheck=False, wraparound=False, embedsignature=True
"""Model files through the C core (``include/stochsvm/model_file.h``).

Converts between a plain ``dict`` of NumPy arrays and ``SsModel``, and calls
the core's encoder, decoder and atomic writer, so that Python and C read and
write the same bytes. The friendly API is :mod:`stochsvm.model_file`.
"""

import os

import numpy as np

cimport numpy as cnp
from libc.stdint cimport int32_t, int64_t
from libc.string cimport memcpy

from stochsvm._core cimport *

cnp.import_array()

#: The format version the core writes (and the newest it reads).
FORMAT_VERSION = SS_MODEL_FILE_VERSION

KINDS = {"linear": SS_MODEL_LINEAR, "kernel": SS_MODEL_KERNEL}
TASKS = {"binary": SS_TASK_BINARY, "one_vs_rest": SS_TASK_ONE_VS_REST,
         "regression": SS_TASK_REGRESSION}
KERNELS = {"linear": SS_MODEL_KERNEL_LINEAR, "rbf": SS_MODEL_KERNEL_RBF,
           "poly": SS_MODEL_KERNEL_POLYNOMIAL, "sigmoid": SS_MODEL_KERNEL_SIGMOID}
#: The SCAL section's methods: the codes of stochsvm.scaling.METHODS, from 1.
SCALINGS = {"minmax": 1, "maxabs": 2, "standard": 3}


class ModelFileError(ValueError):
    """A file that is not a valid stochsvm model file: not one at all,
    truncated, corrupted (checksum mismatch) or inconsistent."""


class ModelFileVersionError(ModelFileError):
    """A model file written in a newer format than this version reads."""


def _name_of(table, value, what):
    for name, code in table.items():
        if code == value:
            return name
    raise ModelFileError(f"unknown {what} code {value}")


cdef _raise(SsStatus status, bytes message, what):
    text = message.split(b"\0", 1)[0].decode("utf-8", "replace") or ss_status_string(status).decode()
    if status == SS_ERR_VERSION:
        raise ModelFileVersionError(f"{what}{text}")
    if status == SS_ERR_FORMAT:
        raise ModelFileError(f"{what}{text}")
    if status == SS_ERR_IO:
        raise OSError(f"{what}{text}")
    if status == SS_ERR_ALLOC:
        raise MemoryError(f"{what}{text}")
    raise ValueError(f"invalid model: {text}")


cdef class _Model:
    """Holds an SsModel that borrows the arrays of a dict (kept alive here)."""
    cdef SsModel model
    cdef list keep
    cdef bytes metadata

    def __cinit__(self):
        ss_model_init(&self.model)
        self.keep = []

    cdef double *_f64(self, value, name, shape):
        cdef cnp.ndarray a = np.ascontiguousarray(value, dtype=np.float64)
        got = (<object>a).shape
        if got != shape:
            raise ValueError(f"model {name} has shape {got}, expected {shape}")
        self.keep.append(a)
        return <double *>cnp.PyArray_DATA(a)

    def fill(self, dict d):
        kind = d["kind"]
        if kind not in KINDS:
            raise ValueError(f"model kind must be one of {list(KINDS)}, got {kind!r}")
        if d["task"] not in TASKS:
            raise ValueError(f"model task must be one of {list(TASKS)}, got {d['task']!r}")
        cdef SsModel *m = &self.model
        m.kind = KINDS[kind]
        m.task = TASKS[d["task"]]
        m.dimension = int(d["dimension"])
        biases = np.atleast_1d(np.asarray(d["biases"], dtype=np.float64))
        k = biases.shape[0]
        m.num_outputs = k
        labels = d.get("labels")
        m.num_classes = 0 if labels is None else len(labels)
        if labels is not None:
            m.labels = self._f64(labels, "labels", (m.num_classes,))
        m.loss = int(d.get("loss", 0))
        m.lambda_ = float(d.get("lambda", 0.0))
        m.bias_multiplier = float(d.get("bias_multiplier", 1.0))
        m.biases = self._f64(biases, "biases", (k,))
        hkm = d.get("homkermap")
        if hkm is not None:
            m.has_homkermap = 1
            m.homkermap_kernel = int(hkm["kernel"])
            m.homkermap_window = int(hkm["window"])
            m.homkermap_gamma = float(hkm["gamma"])
            m.homkermap_order = int(hkm["order"])
            m.homkermap_period = float(hkm["period"])
        cdef cnp.ndarray indptr, indices
        if kind == "linear":
            D = ss_model_weight_dimension(m)
            if D < 1:
                raise ValueError("invalid homogeneous kernel map parameters")
            m.weights = self._f64(d["weights"], "weights", (k, D))
        else:
            if d["kernel"] not in KERNELS:
                raise ValueError(f"kernel must be one of {list(KERNELS)}, got {d['kernel']!r}")
            m.kernel = KERNELS[d["kernel"]]
            m.gamma = float(d.get("gamma", 0.0))
            m.coef0 = float(d.get("coef0", 0.0))
            m.degree = int(d.get("degree", 0))
            indptr = np.ascontiguousarray(d["sv_indptr"], dtype=np.int64)
            indices = np.ascontiguousarray(d["sv_indices"], dtype=np.int32)
            sv = indptr.shape[0] - 1
            if indptr.ndim != 1 or indices.ndim != 1 or sv < 0 or indptr[sv] != indices.shape[0]:
                raise ValueError("support vectors: indptr and indices do not agree")
            self.keep += [indptr, indices]
            m.num_support_vectors = sv
            m.sv_indptr = <int64_t *>cnp.PyArray_DATA(indptr)
            m.sv_indices = <int32_t *>cnp.PyArray_DATA(indices)
            m.sv_values = self._f64(d["sv_values"], "sv_values", (indices.shape[0],))
            m.coefficients = self._f64(d["coefficients"], "coefficients", (k, sv))
        scaler = d.get("scaling")
        if scaler is not None:  # SCAL: written by the core, as every other section
            if scaler.get("method") not in SCALINGS:
                raise ValueError(f"scaling method must be one of {list(SCALINGS)}, got "
                                 f"{scaler.get('method')!r}")
            m.scaling = SCALINGS[scaler["method"]]
            m.scaling_offset = self._f64(scaler["offset"], "scaling offsets", (m.dimension,))
            m.scaling_scale = self._f64(scaler["scale"], "scaling scales", (m.dimension,))
        meta = d.get("metadata")
        if meta is not None:
            self.metadata = meta.encode("utf-8")
            if b"\0" in self.metadata:
                raise ValueError("metadata must not contain NUL characters")
            m.metadata = self.metadata
        cdef char message[512]
        message[0] = 0
        cdef SsStatus status = ss_model_validate(m, message, sizeof(message))
        if status != SS_OK:
            _raise(status, message[:sizeof(message)], "")


def encode(dict d):
    """The bytes of the model described by ``d`` (see :mod:`stochsvm.model_file`)."""
    cdef _Model holder = _Model()
    holder.fill(d)
    cdef size_t size = 0
    ss_model_encoded_size(&holder.model, &size)
    out = bytearray(size)
    cdef unsigned char[::1] view = out
    cdef SsStatus status = ss_model_encode(&holder.model, &view[0] if size else NULL, size)
    if status != SS_OK:
        raise ValueError(ss_status_string(status).decode())
    return bytes(out)


def save(dict d, path):
    """Write the model atomically to ``path`` (the core's ss_model_save)."""
    cdef _Model holder = _Model()
    holder.fill(d)
    cdef bytes p = os.fsencode(path)
    if b"\0" in p:
        raise ValueError(f"{path!r}: path contains a NUL character")
    cdef char message[1024]
    message[0] = 0
    cdef SsStatus status = ss_model_save(&holder.model, p, message, sizeof(message))
    if status != SS_OK:
        _raise(status, message[:sizeof(message)], "")


cdef cnp.ndarray _copy_f64(const double *p, Py_ssize_t n):
    cdef cnp.ndarray a = np.empty(n, dtype=np.float64)
    if n:
        memcpy(cnp.PyArray_DATA(a), p, n * sizeof(double))
    return a


def decode(data, source="model file"):
    """The dict of the model encoded in ``data`` (bytes); ``source`` names it in errors."""
    cdef const unsigned char[::1] view = memoryview(data).cast("B")
    cdef SsModel m
    cdef char message[512]
    message[0] = 0
    cdef Py_ssize_t size = view.shape[0]
    cdef SsStatus status = ss_model_decode(&m, &view[0] if size else NULL, size, message,
                                           sizeof(message))
    if status != SS_OK:
        _raise(status, message[:sizeof(message)], f"{source}: ")
    cdef cnp.ndarray indptr, indices
    try:
        k = m.num_outputs
        d = {
            "format_version": FORMAT_VERSION,
            "kind": _name_of(KINDS, m.kind, "kind"),
            "task": _name_of(TASKS, m.task, "task"),
            "dimension": m.dimension,
            "labels": _copy_f64(m.labels, m.num_classes) if m.num_classes else None,
            "loss": m.loss,
            "lambda": m.lambda_,
            "bias_multiplier": m.bias_multiplier,
            "biases": _copy_f64(m.biases, k),
            "homkermap": None,
            "metadata": None,
            "scaling": None,
        }
        if m.scaling:  # SCAL
            d["scaling"] = {"method": _name_of(SCALINGS, m.scaling, "scaling"),
                            "offset": _copy_f64(m.scaling_offset, m.dimension),
                            "scale": _copy_f64(m.scaling_scale, m.dimension)}
        if m.metadata != NULL:
            try:
                d["metadata"] = m.metadata.decode("utf-8")
            except UnicodeDecodeError as exc:
                raise ModelFileError(f"{source}: the metadata section is not UTF-8 text "
                                     f"({exc.reason} at byte {exc.start})") from None
        if m.has_homkermap:
            d["homkermap"] = {"kernel": m.homkermap_kernel, "window": m.homkermap_window,
                              "gamma": m.homkermap_gamma, "order": m.homkermap_order,
                              "period": m.homkermap_period}
        if m.kind == SS_MODEL_LINEAR:
            D = ss_model_weight_dimension(&m)
            d["weights"] = _copy_f64(m.weights, k * D).reshape(k, D)
        else:
            sv = m.num_support_vectors
            nnz = m.sv_indptr[sv]
            indptr = np.empty(sv + 1, dtype=np.int64)
            memcpy(cnp.PyArray_DATA(indptr), m.sv_indptr, (sv + 1) * sizeof(int64_t))
            indices = np.empty(nnz, dtype=np.int32)
            if nnz:
                memcpy(cnp.PyArray_DATA(indices), m.sv_indices, nnz * sizeof(int32_t))
            d.update(kernel=_name_of(KERNELS, m.kernel, "kernel"), gamma=m.gamma, coef0=m.coef0,
                     degree=m.degree, sv_indptr=indptr, sv_indices=indices,
                     sv_values=_copy_f64(m.sv_values, nnz),
                     coefficients=_copy_f64(m.coefficients, k * sv).reshape(k, sv))
        return d
    finally:
        ss_model_free(&m)


def decision_function(dict d, X):
    """Scores of the rows of ``X`` (a scipy CSR matrix or a 2-D array) under
    the model ``d``, computed by the core (``ss_model_decision_function``, the
    code C programs use; it applies ``d["scaling"]`` to the rows): shape (n, k)."""
    from stochsvm._svm import _prepare_matrix, _scores_or_raise

    cdef _Model holder = _Model()
    holder.fill(d)
    cdef SsData data
    cdef SsStatus status
    cdef cnp.ndarray values, indptr, indices
    # Checked, converted and (the CSR structure) copied as for training: the
    # caller's matrix is never modified (its indices were sorted in place).
    layout, values, indptr, indices, n, dim, stride = _prepare_matrix(
        X if hasattr(X, "ndim") and X.ndim == 2 else np.atleast_2d(X), "X")
    if values.dtype != np.float64:   # the core's model scores float64 data
        values = np.ascontiguousarray(values, dtype=np.float64)
        stride = dim
    if layout == SS_LAYOUT_CSR:
        status = ss_data_init_csr(&data, SS_DTYPE_FLOAT64, cnp.PyArray_DATA(values),
                                  <const int64_t *>cnp.PyArray_DATA(indptr),
                                  <const int32_t *>cnp.PyArray_DATA(indices), n, dim)
    else:
        status = ss_data_init_dense(&data, SS_DTYPE_FLOAT64, cnp.PyArray_DATA(values),
                                    n, dim, stride)
    if status != SS_OK:
        raise ValueError(f"X: {ss_status_string(status).decode()} (it needs at least one row and "
                         f"column, finite values)")
    if data.dimension != holder.model.dimension:
        raise ValueError(f"X has {data.dimension} features, the model {holder.model.dimension}")
    k = holder.model.num_outputs
    cdef cnp.ndarray out = np.empty((data.num_data, k), dtype=np.float64)
    with nogil:
        status = ss_model_decision_function(&holder.model, &data, <double *>cnp.PyArray_DATA(out))
    if status == SS_ERR_NUMERIC or status == SS_ERR_BAD_DATA:
        return _scores_or_raise(status, out, d.get("homkermap") is not None)
    if status != SS_OK:
        raise ValueError(ss_status_string(status).decode())
    return out
