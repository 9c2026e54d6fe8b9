"""Model files: save a trained model, load it in Python or in C.

The format (``docs/model_file.rst``, ``include/stochsvm/model_file.h``) is
binary, portable and versioned, and the C core both writes and reads it, so a
model trained here can be deployed from a C program (``ss_model_load``,
``ss_model_predict``). Files are written atomically (a temporary file beside
the target, flushed, then renamed over it); only a regular file is replaced
(symbolic links are followed, mode, owner and hard links kept) and only a
regular file is read, so that a FIFO or device can neither hang nor flood
the reader. A file that is not a model file, is truncated or corrupted, or
whose metadata or saved parameters are invalid raises
:class:`ModelFileError` (a ``ValueError``) naming the file; one written by a
newer version raises :class:`ModelFileVersionError`.

``save_model(model, path)``
    Save a :class:`~stochsvm.LinearSVMClassifier`,
    :class:`~stochsvm.LinearSVMRegressor`, :class:`~stochsvm.kernel.KernelSVMClassifier`
    (a kernel expansion) or :class:`~stochsvm.SVM`.
``load_model(path)``
    The saved object back: a fitted estimator (which can predict, and
    continue training with ``partial_fit`` as after pickling) or an SVM
    without data.
``read_model(path)``
    The file's content as a plain ``dict`` of NumPy arrays (``kind``,
    ``task``, ``dimension``, ``labels``, ``weights`` or the kernel expansion,
    ``biases``, ``metadata``...), without importing scikit-learn.

The estimators' parameters and string class labels travel in the file's
metadata section as JSON; the C side keeps it as text and ignores it.

Each estimator class owns its conversion: it is registered with
:func:`register` and has ``_to_model_file()`` (the model dict it writes,
built with :func:`estimator_metadata`) and ``_from_model_file(d, meta)``
(the fitted estimator back, built with :func:`restore_estimator`). This module
dispatches on the class name written in the metadata (``python_class``) and
knows no estimator itself; it handles the :class:`~stochsvm.SVM` object,
which is not an estimator.
"""

import importlib
import json
import os
import stat

import numpy as np
import scipy.sparse as sp

from stochsvm import _svm
from stochsvm._model_file import (FORMAT_VERSION, ModelFileError, ModelFileVersionError, decode,
                                  encode, save)

__all__ = ["save_model", "load_model", "read_model", "model_bytes", "ModelFileError",
           "ModelFileVersionError", "FORMAT_VERSION", "register"]

#: SsLoss codes of the built-in losses (include/stochsvm/svm.h).
LOSS_CODES = {"hinge": 0, "hinge2": 1, "l1": 2, "l2": 3, "logistic": 4}
_LOSS_NAMES = {code: name for name, code in LOSS_CODES.items()}


def _jsonable(value):
    """Parameters as JSON values (NumPy scalars to Python; dict keys kept as pairs)."""
    if isinstance(value, dict):
        return {"__pairs__": [[_jsonable(k), _jsonable(v)] for k, v in value.items()]}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if isinstance(value, np.generic):
        return value.item()
    return value


def _from_json(value):
    if isinstance(value, dict) and "__pairs__" in value:
        return {_from_json(k): _from_json(v) for k, v in value["__pairs__"]}
    if isinstance(value, dict):  # the parameters: a dict parameter (class_weight) inside
        return {k: _from_json(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_from_json(v) for v in value]
    return value


def _homkermap_dict(hkm):
    if hkm is None:
        return None
    return {"kernel": int(_svm._HOM_KERNELS[hkm.kernel]), "window": int(_svm._HOM_WINDOWS[hkm.window]),
            "gamma": hkm.gamma, "order": hkm.order, "period": hkm.period}


def _homkermap_object(d):
    if d is None:
        return None
    kernel = {int(v): k for k, v in _svm._HOM_KERNELS.items()}[d["kernel"]]
    window = {int(v): k for k, v in _svm._HOM_WINDOWS.items()}[d["window"]]
    return _svm.HomogeneousKernelMap(kernel=kernel, order=d["order"], gamma=d["gamma"],
                                     period=d["period"], window=window)


def _svm_dict(svm):
    st = svm.__reduce__()[1][0]  # the pickled state: parameters and model
    meta = {"python_class": "stochsvm.SVM", "svm_state": {
        key: _jsonable(st[key]) for key in ("solver", "epsilon", "bias_learning_rate", "t0",
                                            "seed", "shrinking", "iteration_number")}}
    hkm = svm.get_homkermap()
    dimension = svm.get_dimension() // (hkm.dimension if hkm is not None else 1)  # input features
    return {"kind": "linear", "task": "binary", "dimension": dimension,
            "labels": [-1.0, 1.0], "loss": LOSS_CODES.get(st["loss"], 100),
            "lambda": st["lambda"], "bias_multiplier": st["bias_multiplier"],
            "homkermap": _homkermap_dict(hkm),
            "weights": st["model"][None, :], "biases": [st["bias"]],
            "metadata": json.dumps(meta)}


def labels_for_file(classes):
    """(float labels for the file, JSON description of the classes)."""
    classes = np.asarray(classes)
    numeric = classes.dtype.kind in "biuf"
    if numeric and np.array_equal(classes.astype(np.float64).astype(classes.dtype), classes):
        return classes.astype(np.float64), {"values": classes.tolist(), "dtype": classes.dtype.str}
    return np.arange(len(classes), dtype=np.float64), {"values": classes.tolist(),
                                                       "dtype": classes.dtype.str}


#: The estimator classes whose models the files hold, by the name written in
#: the metadata (``python_class``): filled by :func:`register`.
_CLASSES = {}
#: The modules that register estimator classes, imported when a file names
#: one of their classes before they were imported.
_ESTIMATOR_MODULES = ("stochsvm.linear", "stochsvm.kernel")


def register(kind, tasks):
    """Class decorator: save_model writes the class's models (``kind``
    "linear" or "kernel", of the ``tasks`` given) and load_model reads them
    back, through the class's ``_to_model_file()`` and
    ``_from_model_file(d, meta)``."""

    def decorate(cls):
        cls._model_file_name = f"{cls.__module__}.{cls.__name__}"
        cls._model_file_kind, cls._model_file_tasks = kind, tuple(tasks)
        _CLASSES[cls._model_file_name] = cls
        return cls

    return decorate


def _registered(name):
    """The registered class of the metadata's ``python_class``, or None."""
    module = name.rpartition(".")[0]
    if name not in _CLASSES and module in _ESTIMATOR_MODULES:
        importlib.import_module(module)
    return _CLASSES.get(name)


def estimator_metadata(est, **extra):
    """The metadata every estimator writes: its class, parameters (by their
    current names), input width, epochs and class labels, plus ``extra``."""
    params = est._renamed_params(est.get_params())
    if isinstance(params.get("random_state"), (np.random.RandomState, np.random.Generator)):
        params["random_state"] = est._svms[0].get_seed()   # the seed this fit drew from it
    meta = {"python_class": est._model_file_name,
            "params": {k: _jsonable(v) for k, v in params.items()},
            "n_features_in": int(est.n_features_in_), "n_iter": int(getattr(est, "n_iter_", 0))}
    if hasattr(est, "feature_names_in_"):
        meta["feature_names_in"] = [str(f) for f in est.feature_names_in_]
    if hasattr(est, "probA_"):  # probability=True: the Platt sigmoids, as train --probability
        meta["platt"] = [[float(a), float(b)] for a, b in zip(est.probA_, est.probB_)]
    return {**meta, **extra}


def platt_sigmoids(meta, outputs, source):
    """The Platt sigmoids ``[(A, B), ...]`` the metadata holds (``platt``:
    written by ``probability=True`` estimators and ``stochsvm train
    --probability``), one per output; None when it holds none. Anything else
    there raises :class:`ModelFileError` naming ``source`` (None: a
    ValueError, which :func:`load_model` reports as invalid saved parameters,
    naming the file)."""
    platt = meta.get("platt")
    if platt is None:
        return None
    ok = (isinstance(platt, list) and len(platt) == outputs
          and all(isinstance(p, list) and len(p) == 2
                  and all(isinstance(v, (int, float)) and not isinstance(v, bool)
                          and np.isfinite(v) for v in p) for p in platt))
    if not ok:
        what = (f"the metadata's platt is not {outputs} pair(s) of finite numbers (A, B), one "
                f"per output of the model")
        raise ModelFileError(f"{source}: {what}") if source is not None else ValueError(what)
    return [(float(a), float(b)) for a, b in platt]


def metadata_numbers(meta, key, length, integers=False):
    """The metadata's ``key``: None when absent (or null), else a list of
    ``length`` finite non-negative numbers (``integers``: integers); anything
    else raises ValueError, which :func:`load_model` reports naming the file."""
    values = meta.get(key)
    if values is None:
        return None
    kinds = int if integers else (int, float)
    if not (isinstance(values, list) and len(values) == length
            and all(isinstance(v, kinds) and not isinstance(v, bool) and np.isfinite(v)
                    and v >= 0 for v in values)):
        what = "integers" if integers else "finite numbers"
        raise ValueError(f"the metadata's {key} is not a list of {length} non-negative {what}")
    return values


def restore_estimator(cls, d, meta):
    """An estimator of ``cls`` with the saved parameters (old names read as
    the new ones) and the fitted attributes every estimator shares."""
    est = cls(**cls._renamed_params(_from_json(meta.get("params", {}))))
    classes = meta.get("classes")
    if d["task"] != "regression":
        est.classes_ = (np.asarray(classes["values"], dtype=np.dtype(classes["dtype"]))
                        if classes else d["labels"])
    est.n_features_in_ = d["dimension"]
    if "feature_names_in" in meta:
        names = meta["feature_names_in"]
        if not (isinstance(names, list) and len(names) == d["dimension"]
                and all(isinstance(f, str) for f in names)):
            raise ValueError(f"the metadata's feature_names_in is not a list of "
                             f"{d['dimension']} names (strings), one per feature of the model")
        est.feature_names_in_ = np.asarray(names, dtype=object)
    n_iter = meta.get("n_iter", 0)
    if isinstance(n_iter, bool) or not isinstance(n_iter, int) or n_iter < 0:
        raise ValueError(f"the metadata's n_iter is not a non-negative integer (got {n_iter!r})")
    est.n_iter_ = n_iter
    sigmoids = platt_sigmoids(meta, len(d["biases"]), None)
    if sigmoids is not None and getattr(est, "probability", False):
        est.probA_ = np.array([a for a, _ in sigmoids])
        est.probB_ = np.array([b for _, b in sigmoids])
    return est


def kernel_expansion(svms, dimension, return_indices=False, return_order=False):
    """One kernel expansion for several KernelSVM outputs: the union of their
    support vectors (by training index), as a CSR matrix, and the k x m
    coefficients (0 where an output does not use a vector); with
    ``return_indices``, also the training index of every vector (-1: not a
    training row, e.g. a merged budget vector); with ``return_order``, also
    each output's vectors as their rows of the matrix, in the output's own
    order. A precomputed kernel's outputs have indices and no vectors: the
    matrix then has no rows."""
    rows, index_of, coef, order = [], {}, [], []
    for c, svm in enumerate(svms):
        sv = svm.get_support_vectors()  # None: a precomputed kernel (indices only)
        sv = sp.csr_matrix(sv) if sv is not None else None
        order.append({})   # the output's rows, in its order (a dict keeps it)
        for j, (i, beta) in enumerate(zip(svm.get_support_indices(), svm.get_coefficients())):
            key = int(i) if i >= 0 else ("output", c, j)  # not a training row: its own entry
            if key not in index_of:
                index_of[key] = len(rows)
                rows.append(sv[j] if sv is not None else None)
            coef.append((c, index_of[key], beta))
            order[c][index_of[key]] = None
    coefficients = np.zeros((len(svms), len(rows)))
    for c, j, beta in coef:
        coefficients[c, j] += beta
    vectors = [r for r in rows if r is not None]
    S = sp.vstack(vectors, format="csr") if vectors else sp.csr_matrix((0, dimension))
    S.sort_indices()
    S.eliminate_zeros()
    out = (S, coefficients)
    if return_indices:
        out += (np.array([k if isinstance(k, int) else -1 for k in index_of], dtype=np.int64),)
    if return_order:
        out += ([np.fromiter(o, dtype=np.int64, count=len(o)) for o in order],)
    return out


def kernel_model_dict(svms, task, labels, dimension, metadata, exact=False):
    """The model dict of trained KernelSVM objects (one per output).

    ``exact``: the metadata also says how :func:`kernel_svms_of_file` rebuilds
    SVMs that score bit for bit as ``svms`` (a kernel score is a sum over the
    support vectors, in their order, of kernels computed on dense or CSR
    rows): ``dense_support_vectors`` when the vectors are dense (the budget
    solvers' always are), and ``support_order``, each output's rows of the
    file's expansion in the output's order, when that is not the expansion's
    order of its nonzero coefficients (one-vs-rest)."""
    S, coefficients, order = kernel_expansion(svms, dimension, return_order=True)
    if exact:
        metadata = dict(metadata)
        if isinstance(svms[0].get_support_vectors(), np.ndarray):
            metadata["dense_support_vectors"] = True
        if any(not np.array_equal(o, np.flatnonzero(row)) for o, row in zip(order, coefficients)):
            metadata["support_order"] = [o.tolist() for o in order]
    kern = svms[0].get_kernel()
    return {"kind": "kernel", "task": task, "dimension": dimension, "labels": labels,
            "loss": LOSS_CODES["hinge"], "lambda": svms[0].get_lambda(), "bias_multiplier": 0.0,
            "kernel": kern["kernel"], "gamma": kern["gamma"], "coef0": kern["coef0"],
            "degree": kern["degree"], "sv_indptr": S.indptr, "sv_indices": S.indices,
            "sv_values": S.data, "coefficients": coefficients,
            "biases": [svm.get_bias() for svm in svms], "metadata": json.dumps(metadata)}


def kernel_svms_of_file(d, meta):
    """Each output's (support vectors, coefficients) of a decoded kernel model
    file: the rows of its nonzero coefficients, or those ``support_order``
    names in that order, dense when ``dense_support_vectors`` (see
    :func:`kernel_model_dict`); None for an output without vectors. A
    malformed hint raises ValueError."""
    m, k = d["sv_indptr"].size - 1, len(d["biases"])
    S = sp.csr_matrix((d["sv_values"], d["sv_indices"], d["sv_indptr"]), shape=(m, d["dimension"]))
    dense = meta.get("dense_support_vectors", False)
    order = meta.get("support_order")
    if not isinstance(dense, bool):
        raise ValueError("the metadata's dense_support_vectors is not true or false")
    if order is not None and not (isinstance(order, list) and len(order) == k
                                  and all(isinstance(o, list) for o in order)):
        raise ValueError(f"the metadata's support_order is not {k} list(s), one per output")
    out = []
    for c in range(k):
        nonzero = np.flatnonzero(d["coefficients"][c])
        keep = nonzero
        if order is not None:
            if not all(isinstance(j, int) and not isinstance(j, bool) and 0 <= j < m
                       for j in order[c]):
                raise ValueError(f"the metadata's support_order of output {c} holds other than "
                                 f"row numbers below {m}")
            keep = np.array(order[c], dtype=np.int64)
            if np.unique(keep).size != keep.size or np.setdiff1d(nonzero, keep).size:
                raise ValueError(f"the metadata's support_order of output {c} repeats a row or "
                                 f"leaves out a row of a nonzero coefficient")
        vectors = None
        if keep.size:
            vectors = S[keep].toarray() if dense else S[keep]
        out.append((vectors, d["coefficients"][c][keep]))
    return out


def model_dict(model):
    """The plain-data description of a trained model (what :func:`save_model` writes)."""
    if isinstance(model, _svm.SVM):
        return _svm_dict(model)
    if isinstance(model, dict):
        return model
    if getattr(type(model), "_model_file_name", None) in _CLASSES:
        return model._to_model_file()
    raise TypeError(f"cannot save a {type(model).__name__}: expected a stochsvm estimator, "
                    f"an SVM or a model dict")


def model_bytes(model):
    """The bytes :func:`save_model` would write."""
    return encode(model_dict(model))


def save_model(model, path):
    """Write a trained model to ``path`` atomically (see the module's docstring).

    Parameters
    ----------
    model : LinearSVMClassifier, LinearSVMRegressor, KernelSVMClassifier, SVM or dict
    path : str or os.PathLike

    Raises
    ------
    ValueError
        The estimator is not fitted, or the model is invalid (non-finite weights...).
    OSError
        The file could not be written (the previous file, if any, is unchanged).
    """
    path = _check_path(path, TypeError)
    save(model_dict(model), path)   # a feature scaler (stochsvm.scaling) too: its SCAL section


def _check_path(path, wrong_type=ModelFileError):
    """``path`` as str or bytes: a name, never a file descriptor, without NUL
    (``wrong_type``: the exception for a path that is not a name)."""
    if isinstance(path, (bool, int)) or not isinstance(path, (str, bytes, os.PathLike)):
        raise wrong_type(f"{path!r}: path must be a file name (str or os.PathLike), got "
                         f"{type(path).__name__}")
    path = os.fspath(path)
    if ("\0" if isinstance(path, str) else b"\0") in path:
        raise ValueError(f"{path!r}: path contains a NUL character")
    return path


#: The first bytes of every model file (docs/model_file.rst).
SIGNATURE = b"\x89SSVM\r\n\x1a"


def read_file(path, what="model file", signature=b""):
    """The bytes of the regular file ``path``, read with a size bound.

    FIFOs, devices and other non-regular files are refused before reading
    (opening without blocking), so that ``/dev/zero`` or a FIFO cannot hang
    the reader or exhaust memory; a file that grows while being read is
    refused too. A file that does not start with ``signature`` is not read
    further: its first bytes are returned (a large foreign file costs
    nothing).
    """
    name = os.fsdecode(path)
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise ModelFileError(f"{name}: not a regular file (a {what} must be one)")
        size = st.st_size
        chunks, got = [], 0
        if signature:
            head = os.read(fd, len(signature))
            if head != signature:
                return head
            chunks, got = [head], len(head)
        while got <= size:
            chunk = os.read(fd, min(1 << 24, size + 1 - got))
            if not chunk:
                break
            chunks.append(chunk)
            got += len(chunk)
    finally:
        os.close(fd)
    if got > size:
        raise ModelFileError(f"{name}: the file grew while it was read")
    return b"".join(chunks)


def _metadata_json(text, path):
    """The parameters in the metadata: a JSON object; ``{}`` for plain text.

    The C API allows any UTF-8 text. Text that starts like JSON (``{`` or
    ``[``) must be a JSON object; other text is kept in ``metadata`` only.
    """
    if not text or text.lstrip()[:1] not in ("{", "["):
        return {}
    try:
        value = json.loads(text)
    except RecursionError:
        raise ModelFileError(f"{path}: the metadata section is JSON nested too deeply") from None
    except ValueError as exc:
        raise ModelFileError(f"{path}: the metadata section is not JSON ({exc})") from None
    if not isinstance(value, dict):
        raise ModelFileError(f"{path}: the metadata section is JSON but not an object "
                             f"(got {type(value).__name__})")
    return value


def read_model(path):
    """The content of a model file as a plain ``dict`` (scikit-learn is not imported).

    ``metadata`` is the metadata text (None if absent); ``metadata_json`` the
    JSON object it holds, or ``{}`` when it is plain text (as C programs may
    write).

    Raises
    ------
    FileNotFoundError, OSError
        The file cannot be read.
    ModelFileError
        Not a model file (or not a regular file, or ``path`` is not a file
        name), truncated, corrupted or inconsistent (the message names the
        file and says which).
    ModelFileVersionError
        Written by a newer format version.
    """
    path = _check_path(path)
    data = read_file(path, signature=SIGNATURE)
    name = os.fsdecode(path)
    d = decode(data, source=name)   # "scaling": None, or the scaler the model was trained after
    d["metadata_json"] = _metadata_json(d["metadata"], name)
    _check_classes(d, name)
    return d


def _check_classes(d, name):
    """The metadata's classes (their values and dtype, which the file's
    float labels cannot hold) must be the file's labels, as
    :func:`labels_for_file` wrote them: C programs score with the labels, so
    a file whose two disagree would predict other classes in C and Python."""
    classes = d["metadata_json"].get("classes")
    if classes is None or d["labels"] is None:
        return
    try:
        values = np.asarray(classes["values"], dtype=np.dtype(classes["dtype"]))
        expected, _ = labels_for_file(values)
        same = values.ndim == 1 and np.array_equal(expected, np.asarray(d["labels"]))
    except (KeyError, TypeError, ValueError, OverflowError):
        raise ModelFileError(f"{name}: the metadata's classes are not a list of values with "
                             f"a NumPy dtype") from None
    if not same:
        raise ModelFileError(f"{name}: the metadata's classes {values.tolist()} do not match "
                             f"the file's labels {np.asarray(d['labels']).tolist()} (C programs "
                             f"score with the labels)")


#: The (kind, tasks) of the SVM object's models.
_SVM_MODELS = ("linear", ("binary",))


def load_model(path):
    """The object saved in ``path``: a fitted estimator, or an :class:`~stochsvm.SVM`
    without data. A model saved from C names no class: it loads as an SVM
    when it is a binary linear model of labels -1 and 1, else as the plain
    dict of :func:`read_model`. A model with a feature scaling (``stochsvm
    train --scale``) loads as that dict too (``d["scaling"]`` holds it), since
    neither an SVM nor an estimator applies it: they would score the raw
    features unscaled.

    Raises
    ------
    as :func:`read_model`; also :class:`ModelFileError` when the metadata
    names a class that does not match the model, or parameters that class
    refuses.
    """
    d = read_model(path)
    name = os.fsdecode(path)
    meta = d["metadata_json"]
    cls = meta.get("python_class")
    if cls is not None and not isinstance(cls, str):
        raise ModelFileError(f"{name}: the metadata's python_class is not a string")
    target = _registered(cls) if cls is not None else None
    if target is not None or cls == "stochsvm.SVM":
        kind, tasks = (_SVM_MODELS if target is None
                       else (target._model_file_kind, target._model_file_tasks))
        if d["kind"] != kind or d["task"] not in tasks:
            raise ModelFileError(f"{name}: the metadata names {cls}, which does not hold a "
                                 f"{d['kind']} {d['task']} model")
        if target is not None and not isinstance(meta.get("params"), dict):
            raise ModelFileError(f"{name}: the metadata names {cls} but has no params object")
        if d["scaling"] is not None:
            raise ModelFileError(f"{name}: the metadata names {cls}, which cannot apply the "
                                 "file's feature scaling (SCAL); read it with read_model")
    try:
        if target is not None:
            return target._from_model_file(d, meta)   # checks the saved parameters
        return _svm_object(d, meta, cls)
    except (KeyError, TypeError, ValueError, IndexError, AttributeError, OverflowError,
            RuntimeError) as exc:
        if isinstance(exc, ModelFileError):
            raise
        raise ModelFileError(f"{name}: the saved parameters are invalid ({exc})") from None


def _svm_object(d, meta, cls):
    """The SVM object of a decoded model file named ``stochsvm.SVM`` (or, without
    a class, a binary linear model of labels -1 and 1); other files: ``d``."""
    if cls == "stochsvm.SVM" or (cls is None and d["task"] == "binary" and d["kind"] == "linear"
                                 and list(d["labels"]) == [-1.0, 1.0] and d["scaling"] is None):
        st = meta.get("svm_state", {})
        svm = _svm._restore_svm({
            "solver": st.get("solver", "sgd"), "dimension": d["weights"].shape[1],
            "lambda": d["lambda"] if d["lambda"] > 0 else 1.0, "epsilon": st.get("epsilon", 1e-2),
            "bias_multiplier": d["bias_multiplier"], "bias_learning_rate": st.get("bias_learning_rate", 1.0),
            "t0": st.get("t0"), "loss": _LOSS_NAMES.get(d["loss"], "hinge"), "seed": st.get("seed", 0),
            "shrinking": st.get("shrinking", True), "model": d["weights"][0], "bias": d["biases"][0],
            "iteration_number": st.get("iteration_number", 0),
            "homkermap": _homkermap_object(d["homkermap"])})
        return svm
    return d
