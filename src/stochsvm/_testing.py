"""Benchmark and test plumbing: NOT part of the stochsvm API.

This module serves the project's own test suite and benchmark scripts
(``tests/``, ``bench/``). It may change or disappear in any release; nothing
here is documented for users, and ``import stochsvm`` never loads it.

It reads the benchmark data sets (a9a, w8a, ijcnn1, covtype.binary,
reuters_lasvm, as LIBSVM text files compressed with xz) from the benchmark
data directory named by the environment variable ``$STOCHSVM_DATA``, prepares
them the way the project's measurements were made (labels mapped to -1/+1,
test matrices given the training dimension, covtype scaled per column and
split 80/20), and keeps the parsed files in a cache (``$STOCHSVM_CACHE``,
default ``~/.cache/stochsvm``).
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from stochsvm.datasets import load_libsvm

__all__ = ["BENCHMARKS", "data_dir", "load_benchmark"]

#: Benchmark name -> (training file, test file or None) in ``$STOCHSVM_DATA``.
BENCHMARKS = {
    "a9a": ("a9a.train.xz", "a9a.test.xz"),
    "w8a": ("w8a.train.xz", "w8a.test.xz"),
    "ijcnn1": ("ijcnn1.train.xz", "ijcnn1.test.xz"),
    "covtype.binary": ("covtype.binary.xz", None),
    "reuters_lasvm": ("reuters_lasvm.train.xz", "reuters_lasvm.test.xz"),
}
_ALIASES = {"covtype": "covtype.binary"}


def data_dir(required=True):
    """The folder named by ``$STOCHSVM_DATA`` as a Path.

    Returns None when the variable is unset and ``required`` is false; raises
    a ``FileNotFoundError`` naming the variable otherwise.
    """
    value = os.environ.get("STOCHSVM_DATA", "")
    if not value:
        if not required:
            return None
        raise FileNotFoundError(
            "the environment variable STOCHSVM_DATA is not set: point it at the folder "
            "holding the benchmark files (a9a.train.xz, ...), see bench/README.md")
    path = Path(value).expanduser()
    if not path.is_dir():
        if not required:
            return None
        raise FileNotFoundError(f"STOCHSVM_DATA={value!r} is not a folder")
    return path


def _cache_dir():
    value = os.environ.get("STOCHSVM_CACHE", "")
    return Path(value).expanduser() if value else Path.home() / ".cache" / "stochsvm"


def _file_key(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()[:32]


def _load_cached(path: Path, dtype, cache: bool):
    """load_libsvm(path) through an .npz cache keyed by the file's sha256."""
    if not cache:
        return load_libsvm(path, dtype=dtype)
    cdir = _cache_dir()
    key = f"{path.name}-{_file_key(path)}-{np.dtype(dtype).name}.npz"
    target = cdir / key
    if target.is_file():
        try:
            with np.load(target) as z:
                X = sp.csr_matrix((z["data"], z["indices"], z["indptr"]), shape=tuple(z["shape"]))
                return X, z["y"]
        except Exception:  # a damaged cache entry: parse again and rewrite it
            pass
    X, y = load_libsvm(path, dtype=dtype)
    try:
        cdir.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=cdir, suffix=".tmp")
        with os.fdopen(fd, "wb") as f:
            np.savez(f, data=X.data, indices=X.indices, indptr=X.indptr,
                     shape=np.asarray(X.shape, dtype=np.int64), y=y)
        os.replace(tmp, target)
    except OSError:  # a read-only home is not an error: work without the cache
        pass
    return X, y


def _to_pm1(y, name):
    classes = np.unique(y)
    if classes.size != 2:
        raise ValueError(f"{name}: expected two classes, found {classes.size}: {classes[:5]}")
    return np.where(y == classes[1], 1.0, -1.0)


def load_benchmark(name, dtype=np.float64, cache=True):
    """Load one of the shared benchmark sets, prepared for a binary linear SVM.

    Parameters
    ----------
    name : str
        ``"a9a"``, ``"w8a"``, ``"ijcnn1"``, ``"covtype.binary"`` (or
        ``"covtype"``) or ``"reuters_lasvm"``. The files are read from the
        folder named by the environment variable ``STOCHSVM_DATA``.
    dtype : numpy dtype, default float64
        Value dtype of the returned CSR matrices.
    cache : bool, default True
        Keep the parsed files as ``.npz`` in ``$STOCHSVM_CACHE`` (default
        ``~/.cache/stochsvm``), keyed by the sha256 of the compressed file,
        so later loads skip the text parsing.

    Returns
    -------
    X_train, y_train, X_test, y_test
        CSR matrices with the same number of columns, and float64 labels in
        {-1, +1} (the larger original label becomes +1).

    Notes
    -----
    covtype.binary has no test file. Every column is divided by its largest
    absolute value over all 581,012 rows (so values lie in [0, 1], [-1, 1] for
    the one column with negatives), the rows are permuted with
    ``np.random.default_rng(0).permutation(n)``, and the last 20 %
    (``round(0.2 n)`` rows) of that order is the test set.
    """
    key = _ALIASES.get(name, name)
    if key not in BENCHMARKS:
        raise ValueError(f"unknown benchmark {name!r}; choose one of {sorted(BENCHMARKS)}")
    folder = data_dir(required=True)
    train_file, test_file = BENCHMARKS[key]
    paths = [folder / train_file] + ([folder / test_file] if test_file else [])
    for p in paths:
        if not p.is_file():
            raise FileNotFoundError(f"{p.name} is missing from STOCHSVM_DATA={str(folder)!r}")
    dtype = np.dtype(dtype)

    X, y = _load_cached(paths[0], dtype, cache)
    if test_file is None:
        y = _to_pm1(y, key)
        scale = np.asarray(abs(X).max(axis=0).toarray()).ravel()
        scale[scale == 0] = 1.0
        X = (X @ sp.diags(1.0 / scale)).tocsr().astype(dtype, copy=False)
        X.sort_indices()
        n = X.shape[0]
        n_test = int(round(0.2 * n))
        perm = np.random.default_rng(0).permutation(n)
        train, test = perm[: n - n_test], perm[n - n_test:]
        return X[train], y[train], X[test], y[test]

    X_test, y_test = _load_cached(paths[1], dtype, cache)
    d = X.shape[1]
    if X_test.shape[1] > d:
        raise ValueError(f"{paths[1].name} has {X_test.shape[1]} features, more than the "
                         f"training file's {d}")
    X_test = sp.csr_matrix((X_test.data, X_test.indices, X_test.indptr), shape=(X_test.shape[0], d))
    classes = np.unique(y)
    if classes.size != 2:
        raise ValueError(f"{key}: expected two classes, found {classes.size}")
    return X, np.where(y == classes[1], 1.0, -1.0), X_test, np.where(y_test == classes[1], 1.0, -1.0)
