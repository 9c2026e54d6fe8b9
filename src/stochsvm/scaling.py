"""Feature scaling fitted on a training set and kept with the model, as
LIBSVM's ``svm-scale`` does it (``stochsvm train --scale``).

A scaler is a dict ``{"method", "offset", "scale"}`` that maps a row ``x``
to ``(x - offset) * scale``, column by column:

``minmax``
    each column's training range to ``[-1, 1]`` (``svm-scale``'s default).
    It shifts zeros, so sparse data becomes dense.
``maxabs``
    each column divided by its largest absolute value: values in
    ``[-1, 1]``, zeros stay zeros, sparse data stays sparse.
``standard``
    zero mean and unit variance per column (dense).

A column the method cannot scale (zero range for minmax, all zeros for
maxabs, zero variance for standard, up to rounding: a std of a few ulps of
the column's values) is left as it is. In a model file the scaler is the
``SCAL`` section (see ``docs/model_file.rst``), which the C core writes and
reads like every other section: a critical section, so a reader that does
not know it refuses the file instead of scoring unscaled features.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

__all__ = ["METHODS", "fit_scaler", "apply_scaler", "scaling_hint"]

METHODS = ("minmax", "maxabs", "standard")

#: Dense results larger than this many values are refused (use maxabs on sparse data).
MAX_DENSE_VALUES = 10 ** 8


#: A std at most this many times a column's max |x| is rounding noise: the
#: column is constant (the std of values 1 ulp apart is below eps / 2).
_NOISE = 4 * np.finfo(np.float64).eps

#: Rows (dense) or stored values (sparse) converted to float64 at a time.
_BLOCK = 1 << 16


def _column_stats(X):
    """(min, max, max |x|, mean, std) of every column in float64, zeros included.

    The std comes from values centred on the mean (two passes, the second
    corrected by the mean of the residuals), not from E[x^2] - E[x]^2, which
    cancels to noise when the mean is large beside the spread. Every column
    is divided by its max |x| first, so that no sum or square overflows; the
    data are converted to float64 a block at a time, never copied whole."""
    n, d = X.shape
    if sp.issparse(X):
        X = sp.csr_matrix(X)
        if not X.has_canonical_format:   # duplicates summed, on a copy
            X = X.copy()
            X.sum_duplicates()
        low = X.min(axis=0).toarray().ravel().astype(np.float64)
        high = X.max(axis=0).toarray().ravel().astype(np.float64)
    else:
        low, high = X.min(axis=0).astype(np.float64), X.max(axis=0).astype(np.float64)
    peak = np.maximum(np.abs(low), np.abs(high))
    unit = np.where(peak > 0, peak, 1.0)
    mean = _column_sums(X, lambda v, cols: v / unit[cols]) / n
    centred = _column_sums(X, lambda v, cols: v / unit[cols] - mean[cols])
    squares = _column_sums(X, lambda v, cols: (v / unit[cols] - mean[cols]) ** 2)
    if sp.issparse(X):   # the implicit zeros, centred: 0 - mean each
        zeros = n - np.bincount(X.indices, minlength=d)
        centred -= zeros * mean
        squares += zeros * mean ** 2
    var = np.maximum(squares - centred ** 2 / n, 0.0) / n
    return low, high, peak, mean * unit, np.sqrt(var) * unit


def _column_sums(X, f):
    """The column sums of ``f(values in float64, their column numbers)``
    over the rows of dense ``X`` or the stored values of CSR ``X``."""
    d = X.shape[1]
    if not sp.issparse(X):
        cols = np.arange(d)
        return sum((f(X[i:i + _BLOCK].astype(np.float64), cols).sum(axis=0)
                    for i in range(0, X.shape[0], _BLOCK)), np.zeros(d))
    total = np.zeros(d)
    for i in range(0, X.nnz, _BLOCK):
        part = X.indices[i:i + _BLOCK]
        total += np.bincount(part, f(X.data[i:i + _BLOCK].astype(np.float64), part), d)
    return total


def fit_scaler(X, method):
    """The scaler of ``method`` (one of :data:`METHODS`) fitted on the rows of ``X``.

    Parameters
    ----------
    X : ndarray or scipy sparse matrix of shape (n, d), n >= 1
    method : {"minmax", "maxabs", "standard"}

    Returns
    -------
    dict with ``method`` and the float64 vectors ``offset`` and ``scale`` (d values).
    """
    if method not in METHODS:
        raise ValueError(f"method must be one of {', '.join(METHODS)}, got {method!r}")
    if X.shape[0] < 1:
        raise ValueError("X has no rows to fit a scaler on")
    low, high, peak, mean, std = _column_stats(X)
    d = X.shape[1]
    offset, spread = np.zeros(d), np.ones(d)
    if method == "minmax":   # halved first: high - low may overflow
        offset, spread = high / 2 + low / 2, high / 2 - low / 2
    elif method == "maxabs":
        spread = peak
    else:
        # A constant column's std is rounding noise, a few ulps of its
        # values at most, and must not be inverted into a huge scale.
        offset, spread = mean, np.where(std > _NOISE * peak, std, 0.0)
    with np.errstate(divide="ignore", over="ignore"):
        inverse = 1.0 / spread
    constant = ~((spread > 0) & np.isfinite(inverse))   # a subnormal spread too
    offset = np.where(constant, 0.0, offset)
    scale = np.where(constant, 1.0, inverse)
    return {"method": method, "offset": offset, "scale": scale}


def apply_scaler(X, scaler):
    """``(X - offset) * scale``: sparse stays sparse (CSR) when no offset
    moves a zero; otherwise a dense C-contiguous array. float32 stays float32."""
    offset, scale = scaler["offset"], scaler["scale"]
    if X.shape[1] != offset.shape[0]:
        raise ValueError(f"the scaler has {offset.shape[0]} features, X {X.shape[1]}")
    dtype = X.dtype if X.dtype in (np.float32, np.float64) else np.float64
    if sp.issparse(X) and not offset.any():
        return sp.csr_matrix(X.multiply(scale.astype(dtype)).tocsr(), dtype=dtype)
    if sp.issparse(X):
        if X.shape[0] * X.shape[1] > MAX_DENSE_VALUES:
            raise ValueError(f"{scaler['method']} scaling makes this sparse {X.shape[0]} x "
                             f"{X.shape[1]} matrix dense; use maxabs, which keeps zeros")
        X = X.toarray()
    out = (np.asarray(X, dtype=np.float64) - offset) * scale
    return np.ascontiguousarray(out, dtype=dtype)


def _occupied_column_ranges(X):
    """max - min (zeros included) of the columns that hold a stored value,
    in column order. For sparse X it reads only the stored entries: no
    array of d values, so a file whose largest feature index is far beyond
    its entries costs the hint nothing (10^8 columns and 4 entries took
    7 GB through the per-column statistics of every column)."""
    if not sp.issparse(X):
        X = np.asarray(X, dtype=np.float64)
        return X.max(axis=0) - X.min(axis=0)
    X = sp.csr_matrix(X)
    used, inverse = np.unique(X.indices, return_inverse=True)
    if used.size == 0:
        return np.zeros(0)
    compact = sp.csr_matrix((X.data, inverse.ravel(), X.indptr), shape=(X.shape[0], used.size))
    high = compact.max(axis=0).toarray().ravel().astype(np.float64)
    low = compact.min(axis=0).toarray().ravel().astype(np.float64)
    return high - low


def scaling_hint(X, kernel=None, gamma=None):
    """A one-line hint when ``X`` looks badly scaled for training, else None:
    column ranges spanning more than three orders of magnitude, or (for an
    RBF kernel) ``gamma ||x||^2`` far from 1 for a typical row."""
    ranges = _occupied_column_ranges(X)
    ranges = ranges[ranges > 0]
    if ranges.size >= 2 and ranges.max() > 1e3 * ranges.min():
        return (f"hint: the feature ranges span {ranges.min():.3g} to {ranges.max():.3g}; "
                f"try --scale minmax (or maxabs, which keeps sparse data sparse)")
    if kernel == "rbf" and X.shape[0] > 0:
        sq = np.asarray(X.multiply(X).sum(axis=1) if sp.issparse(X)
                        else np.einsum("ij,ij->i", X, X, dtype=np.float64)).ravel()
        typical = float(np.median(sq)) * (gamma if gamma is not None else 1.0 / X.shape[1])
        if typical > 1e2 or 0 < typical < 1e-2:
            return (f"hint: gamma ||x||^2 is about {typical:.3g} for a typical row (the RBF "
                    f"kernel sees every pair as {'far apart' if typical > 1 else 'equal'}); "
                    f"try --scale minmax or another --gamma")
    return None
