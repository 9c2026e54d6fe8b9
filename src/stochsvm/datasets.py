"""Data sets: a LIBSVM text reader and seeded generators of synthetic problems.

The entry points:

``load_libsvm(path, n_features=None, dtype=np.float64)``
    Read a LIBSVM/SVMlight text file (``label idx:val idx:val ...``, 1-based
    indices) into a ``scipy.sparse.csr_matrix`` and a label vector. Files ending
    in ``.xz``, ``.gz`` or ``.bz2`` are decompressed on the fly.

``make_classification(n, d, seed=0, noise=0.05, dtype=np.float64)``
    A seeded, dense, linearly separable problem with a fraction of flipped labels.

``make_nonlinear(n, d, seed=0, noise=0.02, dtype=np.float64)``
    A seeded problem that no linear rule solves but an additive kernel does.

``make_sparse_classification(n, d, density, seed=0, ...)``
    A seeded, sparse, RCV1-like text problem: power-law feature frequencies,
    tf-idf values, unit-norm rows, a noisy linear ground truth.

``make_unscaled``, ``make_outlier``, ``make_separable``, ``make_imbalanced``
    Small seeded worst cases for default parameters (``WORST_CASES`` maps their
    names to them): features spanning 1e-3..1e4, one row 100x the median norm,
    a separable set with a margin, a 1:20 class imbalance.
"""

from __future__ import annotations

import bz2
import gzip
import lzma
import re
import zlib
from pathlib import Path

import numpy as np
import scipy.sparse as sp

__all__ = ["load_libsvm", "make_classification", "make_nonlinear", "make_sparse_classification",
           "make_uniform_overlap", "make_unscaled", "make_outlier", "make_separable",
           "make_imbalanced", "WORST_CASES"]

# --------------------------------------------------------------------------
#                                LIBSVM reader
# --------------------------------------------------------------------------

_OPENERS = {".xz": lzma.open, ".lzma": lzma.open, ".gz": gzip.open, ".bz2": bz2.open}

# Bytes that separate tokens (the C locale's isspace, as LIBSVM's reader uses).
_WHITESPACE = np.zeros(256, dtype=bool)
_WHITESPACE[[ord(c) for c in " \t\n\r\v\f"]] = True


def _read_bytes(path: Path) -> bytes:
    """The file's bytes, decompressed by its suffix. A corrupt or truncated
    compressed file is a ValueError naming it (the decompressors raise
    OSError, EOFError, lzma.LZMAError or zlib.error); failing to open the file
    stays an OSError."""
    opener = _OPENERS.get(path.suffix.lower())
    if opener is None:
        with open(path, "rb") as f:
            return f.read()
    with opener(path, "rb") as f:
        try:
            return f.read()
        except (OSError, EOFError, lzma.LZMAError, zlib.error) as exc:
            raise ValueError(f"{path}: not a valid {path.suffix} file ({exc})") from None


_MAX_FAST_WIDTH = 20  # sign, 15 digits, a point, and some leading zeros


def _parse_decimal(buf, s, e, integer=False):
    """Vectorised decimal parse of the byte fields buf[s:e].

    Handles an optional sign, digits and at most one decimal point (none
    with ``integer``), with at most 15 digits: the mantissa is then an exact
    integer below 2**53 and the power of ten is exact, so one IEEE division
    gives the correctly rounded double (the exact fast path of strtod).
    Returns (values, ok); fields that are not ok (exponents, long mantissas,
    inf/nan, junk, a point in an integer) are left to the caller.
    ``buf`` must extend at least max(e - s) bytes past the last field.
    """
    points = not integer
    n = s.size
    values = np.zeros(n, dtype=np.float64)
    ok = np.ones(n, dtype=bool)
    if n == 0:
        return values, ok
    length = e - s
    # Longer fields cannot be exact here (> 15 digits): leave them to the caller.
    widest = min(int(length.max()), _MAX_FAST_WIDTH)
    ok[length > widest] = False
    # Fields of equal length are parsed together, one byte column at a time.
    order = np.argsort(length, kind="stable")
    bounds = np.searchsorted(length[order], np.arange(1, widest + 2))
    for width in range(1, widest + 1):
        group = order[bounds[width - 1]:bounds[width]]
        if group.size == 0:
            continue
        gs = s[group]
        mant = np.zeros(group.size, dtype=np.int64)
        frac = np.zeros(group.size, dtype=np.int64)
        ndig = np.zeros(group.size, dtype=np.int64)
        seen_dot = np.zeros(group.size, dtype=bool)
        gok = np.ones(group.size, dtype=bool)
        neg = np.zeros(group.size, dtype=bool)
        for k in range(width):
            c = buf[gs + k]
            d = c - np.uint8(48)           # wraps for non-digits
            digit = d < 10
            if k == 0:
                neg = c == ord("-")
                sign = neg | (c == ord("+"))
                seen_dot = (c == ord(".")) & points
                gok &= digit | sign | seen_dot
                mant = np.where(digit, d, 0).astype(np.int64)
                ndig += digit
                continue
            dot = (c == ord(".")) & points
            gok &= digit | (dot & ~seen_dot)
            mant = np.where(digit, mant * 10 + d, mant)
            frac += digit & seen_dot
            ndig += digit
            seen_dot |= dot
        gok &= (ndig >= 1) & (ndig <= 15)
        v = mant.astype(np.float64)
        v /= 10.0 ** frac
        np.negative(v, out=v, where=neg)
        values[group] = v
        ok[group] = gok
    return values, ok


def _parse_fields(text, buf, s, e):
    """Numbers in the fields buf[s:e]; None if one is not a number."""
    values, ok = _parse_decimal(buf, s, e)
    rest = np.flatnonzero(~ok)  # exponents, long mantissas, junk
    if rest.size:
        tokens = [text[a:b] for a, b in zip(s[rest].tolist(), e[rest].tolist())]
        try:
            values[rest] = np.array(tokens).astype(np.float64)
        except ValueError:
            return None
    return values


def _fast_parse(text: bytes):
    """Vectorised parse. Returns (labels, row_lengths, indices, values, line_numbers)
    or None when anything looks wrong (the slow parser then finds the line)."""
    empty = (np.empty(0), np.empty(0, np.int64), np.empty(0), np.empty(0), np.empty(0, np.int64))
    buf = np.frombuffer(text, dtype=np.uint8)
    if buf.size == 0:
        return empty
    ws = _WHITESPACE[buf]
    # A token starts at a non-space byte after a space (or at 0) and ends
    # before a space (or at the end).
    solid = ~ws
    starts = np.flatnonzero(solid & np.concatenate(([True], ws[:-1])))
    ends = np.flatnonzero(solid & np.concatenate((ws[1:], [True]))) + 1
    del ws, solid
    ntok = starts.size
    if ntok == 0:
        return empty
    newlines = np.flatnonzero(buf == ord("\n"))
    colons = np.flatnonzero(buf == ord(":"))
    # 0-based physical line of every token, and which tokens open a line.
    tok_line = np.searchsorted(newlines, starts)
    first = np.empty(ntok, dtype=bool)
    first[0] = True
    np.not_equal(tok_line[1:], tok_line[:-1], out=first[1:])
    # A label has no colon, a feature exactly one.
    feat = np.flatnonzero(~first)
    if colons.size != feat.size or not np.array_equal(
            np.searchsorted(starts, colons, side="right") - 1, feat):
        return None
    pad = int((ends - starts).max())
    buf = np.concatenate((buf, np.full(pad, 32, dtype=np.uint8)))
    labels = _parse_fields(text, buf, starts[first], ends[first])
    fs = starts[feat]
    if labels is None or np.any(colons == fs) or np.any(colons + 1 == ends[feat]):
        return None
    # Indices: plain digit strings ('1.0:' is not an index: the slow parser says so).
    idx, ok = _parse_decimal(buf, fs, colons, integer=True)
    if not ok.all() or np.any(buf[fs] == ord("-")) or np.any(buf[fs] == ord("+")):
        return None
    values = _parse_fields(text, buf, colons + 1, ends[feat])
    if values is None:
        return None
    row_lengths = np.diff(np.append(np.flatnonzero(first), ntok)) - 1
    return labels, row_lengths, idx, values, tok_line[first] + 1


#: A feature index as LIBSVM's strtol reads it: an optional sign and digits.
_INTEGER = re.compile(rb"[+-]?[0-9]+")


def _slow_parse(text: bytes):
    """Line-by-line parse that names the first malformed line."""
    labels, lengths, indices, values, lines = [], [], [], [], []
    for lineno, raw in enumerate(text.split(b"\n"), start=1):
        line = raw.split(b"#", 1)[0].strip()
        if not line:
            continue
        tokens = line.split()
        if b":" in tokens[0]:
            raise ValueError(f"line {lineno}: the line must start with a label, "
                             f"found {tokens[0].decode(errors='replace')!r}")
        try:
            label = float(tokens[0])
        except ValueError:
            raise ValueError(f"line {lineno}: the label {tokens[0].decode(errors='replace')!r} "
                             "is not a number") from None
        count = 0
        for tok in tokens[1:]:
            key, sep, val = tok.partition(b":")
            if not sep or not key or not val or b":" in val:
                raise ValueError(f"line {lineno}: expected 'index:value', found "
                                 f"{tok.decode(errors='replace')!r}")
            if key == b"qid":
                continue
            try:
                if not _INTEGER.fullmatch(key):   # int() also takes '1_0'
                    raise ValueError
                idx = int(key)
                v = float(val)
            except ValueError:
                raise ValueError(f"line {lineno}: cannot read {tok.decode(errors='replace')!r} "
                                 "as 'integer index:number'") from None
            indices.append(idx)
            values.append(v)
            count += 1
        labels.append(label)
        lengths.append(count)
        lines.append(lineno)
    return (np.asarray(labels, dtype=np.float64), np.asarray(lengths, dtype=np.int64),
            np.asarray(indices, dtype=np.float64), np.asarray(values, dtype=np.float64),
            np.asarray(lines, dtype=np.int64))


def _line_of_entry(row_lengths, line_numbers, k):
    """Physical line of the k-th stored entry."""
    row = np.searchsorted(np.cumsum(row_lengths), k, side="right")
    return int(line_numbers[row])


def load_libsvm(path, n_features=None, dtype=np.float64):
    """Read a LIBSVM/SVMlight text file.

    Parameters
    ----------
    path : str or os.PathLike
        The file. A ``.xz``, ``.lzma``, ``.gz`` or ``.bz2`` suffix selects the
        decompressor. Lines are ``label index:value index:value ...`` with
        1-based, integer indices (digits, an optional sign: ``1.0:`` is
        refused); ``#`` starts a comment, ``qid:`` entries are
        skipped and blank lines are ignored. A line with only a label is a row
        of zeros.
    n_features : int, optional
        Number of columns. By default the largest index in the file. Pass the
        training matrix's dimension when reading a test file, whose largest
        index can be smaller.
    dtype : numpy dtype, default float64
        Dtype of the stored values (``np.float32`` or ``np.float64``).

    Returns
    -------
    X : scipy.sparse.csr_matrix of shape (n, n_features)
        Sorted indices, no duplicates; explicit zeros in the file are kept.
    y : numpy.ndarray of shape (n,), float64
        The labels as written in the file.

    Raises
    ------
    FileNotFoundError
        If the file does not exist.
    ValueError
        On a malformed line (the message gives its 1-based line number), an
        index below 1, a repeated index on a line, a non-finite value, an
        index above ``n_features``, or a corrupt or truncated compressed file.
    """
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"no such file: {str(path)!r}")
    dtype = np.dtype(dtype)
    if dtype not in (np.float32, np.float64):
        raise ValueError(f"dtype must be float32 or float64, not {dtype}")
    if n_features is not None:
        if isinstance(n_features, bool) or int(n_features) != n_features or n_features < 1:
            raise ValueError(f"n_features must be a positive integer, not {n_features!r}")
        n_features = int(n_features)
    text = _read_bytes(path)
    try:
        return _parse(text, n_features, dtype)
    except ValueError as exc:
        raise ValueError(f"{path}: {exc}") from None


def _parse(text: bytes, n_features, dtype, first_index=1):
    """Parse LIBSVM text; feature index ``first_index`` is column 0 (the
    distributed reader, :mod:`stochsvm.dask`, also reads 0-based files)."""
    nul = text.find(b"\0")
    if nul >= 0:  # a binary file, or a corrupt one: C's readers would stop there
        line = text.count(b"\n", 0, nul) + 1
        raise ValueError(f"line {line}: a NUL byte (not a LIBSVM text file, or a corrupt one)")
    if text.startswith(b"\xef\xbb\xbf"):  # what some editors write first: LIBSVM rejects it too
        raise ValueError("line 1: the file starts with a UTF-8 byte-order mark (BOM); save it "
                         "without one (as plain UTF-8 or ASCII)")
    # Comments and query ids are rare: drop them first so the fast path applies.
    if b"#" in text:
        text = re.sub(rb"#[^\n]*", b"", text)
    if b"qid:" in text:
        text = re.sub(rb"(?<=\s)qid:\S*", b"", text)
    parsed = _fast_parse(text)
    if parsed is None:
        parsed = _slow_parse(text)  # raises with a line number if a line is bad
    labels, row_lengths, indices, values, line_numbers = parsed

    if not np.all(np.isfinite(labels)):
        k = int(np.flatnonzero(~np.isfinite(labels))[0])
        raise ValueError(f"line {line_numbers[k]}: the label is not finite")
    bad = ~np.isfinite(values)
    if bad.any():
        k = int(np.flatnonzero(bad)[0])
        raise ValueError(f"line {_line_of_entry(row_lengths, line_numbers, k)}: "
                         "a feature value is not finite")
    bad = ((indices < first_index) | (indices != np.floor(indices))
           | (indices > np.iinfo(np.int32).max))
    if bad.any():
        k = int(np.flatnonzero(bad)[0])
        raise ValueError(f"line {_line_of_entry(row_lengths, line_numbers, k)}: feature index "
                         f"{indices[k]:.17g} is invalid (indices are integers from "
                         f"{first_index} to {np.iinfo(np.int32).max})")
    cols = (indices - first_index).astype(np.int32)
    max_index = int(cols.max()) + 1 if cols.size else 0
    if n_features is None:
        n_features = max(max_index, 1)
    elif max_index > n_features:
        k = int(np.argmax(cols))
        raise ValueError(f"line {_line_of_entry(row_lengths, line_numbers, k)}: feature index "
                         f"{max_index} is larger than n_features={n_features}")

    n = labels.size
    indptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(row_lengths, out=indptr[1:])
    # Within a row, indices must increase; sort rows that do not, reject repeats.
    if cols.size > 1:
        step = np.diff(cols.astype(np.int64))
        row_start = np.zeros(cols.size, dtype=bool)
        row_start[indptr[1:-1][indptr[1:-1] < cols.size]] = True
        not_increasing = (step <= 0) & ~row_start[1:]
        if not_increasing.any():
            order = np.lexsort((cols, np.repeat(np.arange(n), row_lengths)))
            cols_sorted = cols[order]
            dup = (np.diff(cols_sorted.astype(np.int64)) == 0) & ~row_start[1:]
            if dup.any():
                k = int(order[np.flatnonzero(dup)[0] + 1])
                raise ValueError(f"line {_line_of_entry(row_lengths, line_numbers, k)}: "
                                 f"feature index {int(cols[k]) + first_index} appears twice")
            cols, values = cols_sorted, values[order]
    index_dtype = np.int32 if indptr[-1] <= np.iinfo(np.int32).max else np.int64
    X = sp.csr_matrix((values.astype(dtype, copy=False), cols.astype(index_dtype, copy=False),
                       indptr.astype(index_dtype, copy=False)), shape=(n, n_features))
    X.has_sorted_indices = True
    return X, labels


# --------------------------------------------------------------------------
#                              Synthetic problems
# --------------------------------------------------------------------------

def _check_generator(n, d, noise, dtype):
    """The generators' common arguments, checked: (n, d, dtype)."""
    n, d = int(n), int(d)
    if n < 1 or d < 1:
        raise ValueError(f"n and d must be >= 1, got n={n}, d={d}")
    if not 0.0 <= noise < 0.5:
        raise ValueError(f"noise must be in [0, 0.5), got {noise}")
    dtype = np.dtype(dtype)
    if dtype not in (np.float32, np.float64):
        raise ValueError(f"dtype must be float32 or float64, not {dtype}")
    return n, d, dtype


def make_classification(n, d, seed=0, noise=0.05, bias=0.5, dtype=np.float64, return_coef=False):
    """A seeded, dense binary problem: a linear rule plus label noise.

    Rows are drawn i.i.d. from N(0, I/d), so ``||x_i||`` is close to 1 (the
    scale at which the default SGD step sizes are meant to work). A direction
    ``w*`` is drawn uniformly on the unit sphere and scaled to norm
    ``sqrt(d)``, so the clean score ``<w*, x> + bias`` is roughly standard
    normal. The label is its sign; then a fraction ``noise`` of the labels,
    chosen at random, is flipped. With ``noise=0`` the problem is linearly
    separable (with bias).

    Parameters
    ----------
    n, d : int
        Number of rows (examples) and columns (features), both >= 1.
    seed : int, default 0
        Seed of ``numpy.random.default_rng``; the output is a function of
        ``(n, d, seed, noise, bias, dtype)`` only.
    noise : float in [0, 0.5), default 0.05
        Fraction of flipped labels; the best linear rule errs on about this
        fraction.
    bias : float, default 0.5
        Offset of the true rule (makes the classes unbalanced).
    dtype : numpy dtype, default float64
        ``np.float32`` or ``np.float64``; the samples are drawn in that dtype.
    return_coef : bool, default False
        Also return ``(w_star, bias)``.

    Returns
    -------
    X : ndarray of shape (n, d), C-contiguous
    y : ndarray of shape (n,), float64, values in {-1, +1}
    (w_star, bias) : only with ``return_coef=True``
    """
    n, d, dtype = _check_generator(n, d, noise, dtype)
    rng = np.random.default_rng(seed)
    w = rng.standard_normal(d)
    w *= np.sqrt(d) / np.linalg.norm(w)
    X = rng.standard_normal((n, d), dtype=dtype)
    X *= dtype.type(1.0 / np.sqrt(d))
    score = X @ w.astype(dtype) + bias
    y = np.where(score >= 0, 1.0, -1.0)
    if noise > 0:
        flip = rng.random(n) < noise
        y[flip] = -y[flip]
    if return_coef:
        return X, y, (w, float(bias))
    return X, y


def make_nonlinear(n, d, seed=0, noise=0.02, dtype=np.float64):
    """A seeded binary problem no linear rule solves, but an additive kernel does.

    Rows are drawn uniformly from ``[0, 1)^d`` (non-negative, as the
    histograms additive kernels are made for). The clean label is the sign of
    ``sum_j sin(3 pi x_j) - 2 d / (3 pi)``, a sum of non-monotone functions of
    the coordinates centred on its mean, so the classes are about balanced.
    Then a fraction ``noise`` of the labels is flipped. By symmetry (x_j and
    1/3 - x_j... have equal sines on each arch) a linear rule does no better
    than chance; a linear SVM on a homogeneous kernel map of the intersection
    kernel (:class:`stochsvm.HomogeneousKernelMap`, order 5) reaches about 90%
    accuracy with d = 10.

    Parameters
    ----------
    n, d : int
        Number of rows and columns, both >= 1.
    seed : int, default 0
        Seed of ``numpy.random.default_rng``.
    noise : float in [0, 0.5), default 0.02
        Fraction of flipped labels.
    dtype : numpy dtype, default float64
        ``np.float32`` or ``np.float64``.

    Returns
    -------
    X : ndarray of shape (n, d), C-contiguous, values in [0, 1)
    y : ndarray of shape (n,), float64, values in {-1, +1}
    """
    n, d, dtype = _check_generator(n, d, noise, dtype)
    rng = np.random.default_rng(seed)
    X = rng.random((n, d), dtype=dtype)
    score = np.sin(3 * np.pi * X.astype(np.float64)).sum(axis=1) - 2 * d / (3 * np.pi)
    y = np.where(score >= 0, 1.0, -1.0)
    if noise > 0:
        flip = rng.random(n) < noise
        y[flip] = -y[flip]
    return X, y


def _power_law_quantile(u, d, exponent):
    """The inverse CDF of the density proportional to (x + 1)^-exponent on [0, d]."""
    if exponent == 1.0:
        return np.expm1(u * np.log1p(d))
    e = 1.0 - exponent
    return (1.0 + u * ((d + 1.0) ** e - 1.0)) ** (1.0 / e) - 1.0


def _tokens_per_row(d, mean_nnz, exponent):
    """Tokens K per row whose expected number of distinct features,
    sum_j 1 - exp(-K p_j), is mean_nnz (p_j: the mass of [j, j + 1))."""
    x = np.arange(d + 1, dtype=np.float64)
    if exponent == 1.0:
        cdf = np.log1p(x) / np.log1p(d)
    else:
        e = 1.0 - exponent
        cdf = ((x + 1.0) ** e - 1.0) / ((d + 1.0) ** e - 1.0)
    p = np.diff(cdf)
    lo, hi = mean_nnz, mean_nnz
    while np.sum(-np.expm1(-hi * p)) < mean_nnz and hi < 1e3 * d:
        hi *= 2.0
    for _ in range(100):
        mid = 0.5 * (lo + hi)
        if np.sum(-np.expm1(-mid * p)) < mean_nnz:
            lo = mid
        else:
            hi = mid
    return hi


def make_sparse_classification(n, d, density, seed=0, noise=0.05, exponent=1.0,
                               dtype=np.float64, return_coef=False):
    """A seeded, sparse, RCV1-like binary problem (CSR, unit-norm tf-idf rows).

    Built to stand in for RCV1 (Lewis et al. 2004) at the scale Bordes,
    Bottou and Gallinari (2009) use, 781,265 x 47,152 with density 0.0016,
    without the real file:

    * **Power-law feature frequencies.** Each token of a document is a
      feature ``j = floor(x)``, ``x`` drawn from the density proportional to
      ``(x + 1)^-exponent`` on ``[0, d)`` (Zipf's law for ``exponent = 1``):
      feature 0 is the most frequent.
    * **Term counts.** Row ``i`` has ``k_i ~ 1 + Poisson(K - 1)`` tokens, K
      chosen so that the expected number of *distinct* features per row is
      ``density * d``; a feature drawn ``tf`` times gets the count ``tf``.
      The realised density ``X.nnz / (n * d)`` is within a few percent of
      ``density`` (densities above about 0.3 cannot be reached and fall
      short).
    * **tf-idf values.** ``x_ij = (1 + log tf_ij) * log((n + 1) / df_j)``
      with ``df_j`` the number of rows holding ``j``; then every row is
      scaled to unit Euclidean norm (as RCV1's published vectors).
    * **A noisy linear ground truth.** ``w*`` has i.i.d. standard normal
      entries; the label is the sign of ``<w*, x_i> - m``, ``m`` the median
      score (balanced classes), and a fraction ``noise`` of the labels is
      then flipped.

    The matrix is canonical CSR (sorted, unique column indices). Each row's
    tokens are drawn already sorted (normalised sums of exponential
    spacings), so no sort is needed: RCV1's size (about 60 million
    non-zeros) takes about 15 s and 3 GB of temporary memory.

    Parameters
    ----------
    n, d : int
        Rows (examples) and columns (features), both >= 1; ``d < 2**31``.
    density : float in (0, 1]
        Target fraction of non-zeros; every row has at least one.
    seed : int, default 0
        Seed of ``numpy.random.default_rng``: the output is a function of
        the arguments only.
    noise : float in [0, 0.5), default 0.05
        Fraction of flipped labels.
    exponent : float >= 0, default 1.0
        Power of the feature-frequency law (0: uniform frequencies).
    dtype : numpy dtype, default float64
        ``np.float32`` or ``np.float64`` for the values.
    return_coef : bool, default False
        Also return ``(w_star, threshold)``: the clean rule is
        ``sign(X @ w_star - threshold)``.

    Returns
    -------
    X : scipy.sparse.csr_matrix of shape (n, d)
    y : ndarray of shape (n,), float64 in {-1, +1}
    (w_star, threshold) : only with ``return_coef=True``

    Raises
    ------
    ValueError
        Out-of-range arguments.
    """
    n, d = int(n), int(d)
    if n < 1 or d < 1:
        raise ValueError(f"n and d must be >= 1, got n={n}, d={d}")
    if d >= 2 ** 31:
        raise ValueError(f"d must be < 2**31 (int32 column indices), got {d}")
    density = float(density)
    if not 0.0 < density <= 1.0:
        raise ValueError(f"density must be in (0, 1], got {density}")
    if not 0.0 <= noise < 0.5:
        raise ValueError(f"noise must be in [0, 0.5), got {noise}")
    exponent = float(exponent)
    if not (np.isfinite(exponent) and exponent >= 0):
        raise ValueError(f"exponent must be a finite number >= 0, got {exponent}")
    dtype = np.dtype(dtype)
    if dtype not in (np.float32, np.float64):
        raise ValueError(f"dtype must be float32 or float64, not {dtype}")
    rng = np.random.default_rng(seed)
    mean_nnz = max(1.0, density * d)
    K = _tokens_per_row(d, mean_nnz, exponent)

    # k_i tokens per row, drawn sorted: row i takes k_i + 1 exponential
    # spacings; the partial sums over the total are k_i sorted uniforms.
    k = 1 + rng.poisson(K - 1.0, size=n)
    seg_end = np.cumsum(k + 1)
    C = np.cumsum(rng.standard_exponential(int(seg_end[-1])))
    base = np.concatenate(([0.0], C[seg_end[:-1] - 1]))
    span = C[seg_end - 1] - base
    keep = np.ones(C.size, dtype=bool)
    keep[seg_end - 1] = False
    u = C[keep]
    del C, keep
    u -= np.repeat(base, k)
    u /= np.repeat(span, k)
    token = np.minimum(_power_law_quantile(u, d, exponent), d - 1).astype(np.int32)
    del u
    # Merge repeats (adjacent within a row): tf = run lengths.
    row_start = np.concatenate(([0], np.cumsum(k)[:-1]))
    first = np.ones(token.size, dtype=bool)
    first[1:] = token[1:] != token[:-1]
    first[row_start] = True
    starts = np.flatnonzero(first)
    tf = np.diff(np.append(starts, token.size)).astype(np.float64)
    col = token[starts]
    del token, starts
    indptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.add.reduceat(first.astype(np.int64), row_start), out=indptr[1:])
    del first

    df = np.bincount(col, minlength=d).astype(np.float64)
    idf = np.log((n + 1.0) / np.maximum(df, 1.0))
    values = (1.0 + np.log(tf)) * idf[col]
    del tf
    norms = np.sqrt(np.add.reduceat(values * values, indptr[:-1]))
    values /= np.repeat(norms, np.diff(indptr))
    X = sp.csr_matrix((values.astype(dtype, copy=False), col, indptr), shape=(n, d))
    X.has_sorted_indices = True

    w_star = rng.standard_normal(d)
    score = X @ w_star.astype(dtype)
    threshold = float(np.median(score))
    y = np.where(score > threshold, 1.0, -1.0)
    if noise > 0:
        flip = rng.random(n) < noise
        y[flip] = -y[flip]
    if return_coef:
        return X, y, (w_star, threshold)
    return X, y


def make_uniform_overlap(n, d, seed=0, dtype=np.float64):
    """The synthetic data of Mokhtari & Ribeiro's RES paper (section 4).

    Half of the rows belong to class -1 and half to class +1 (the first
    ``n // 2`` rows are -1, the rest +1; with n odd the extra row is +1). Each
    of the d coordinates of a row is independent and uniform on
    [-0.8, 0.2] for class -1 and on [-0.2, 0.8] for class +1. The classes
    overlap on the cube [-0.2, 0.2]^d, where both densities are equal. The
    clairvoyant linear rule, the sign of the coordinate sum, is right with
    probability ``1 - (0.2 d)**d / d!`` for d <= 5 (the sum of uniforms is
    Irwin-Hall distributed): 98.29% for d = 4, the paper's "98%". The
    Bayes-optimal rule, not linear, errs only on the cube: ``1 - 0.4**d / 2``.

    Parameters
    ----------
    n, d : int
        Number of rows and features, both >= 1.
    seed : int, default 0
        Seed of ``numpy.random.default_rng``.
    dtype : numpy dtype, default float64

    Returns
    -------
    X : ndarray of shape (n, d)
    y : ndarray of shape (n,), float64, values in {-1, +1}
    """
    n, d = int(n), int(d)
    if n < 1 or d < 1:
        raise ValueError(f"n and d must be >= 1, got n={n}, d={d}")
    rng = np.random.default_rng(seed)
    y = np.ones(n)
    y[: n // 2] = -1.0
    X = rng.uniform(-0.8, 0.2, size=(n, d)) + 0.6 * (y[:, None] > 0)
    return np.ascontiguousarray(X, dtype=dtype), y


# --------------------------------------------------------------------------
#                   Worst cases for default parameters
# --------------------------------------------------------------------------
#
# Each is make_classification's problem (rows about unit norm, a noisy linear
# rule) bent in one way that default step sizes, stopping rules and caps tend
# to handle badly. They are small on purpose: a test trains every solver on
# them in seconds.

def make_unscaled(n=600, d=12, seed=0, noise=0.05, low=1e-3, high=1e4, dtype=np.float64):
    """Features in unrelated units: column standard deviations from ``low`` to ``high``.

    make_classification's problem with column ``j`` multiplied so that its
    standard deviation is ``low * (high/low)**(j/(d-1))`` (log-spaced; the
    defaults span seven decades, as raw measurements in different units do).
    The labels are unchanged, so every feature carries signal: the small
    ones through large weights, which ``lambda/2 ||w||^2`` penalises most.

    Parameters
    ----------
    n : int, default 600
    d : int >= 2, default 12
    seed : int, default 0
    noise : float in [0, 0.5), default 0.05
        Fraction of flipped labels.
    low, high : float, 0 < low <= high, defaults 1e-3 and 1e4
        Smallest and largest column standard deviation.
    dtype : numpy dtype, default float64

    Returns
    -------
    X : ndarray of shape (n, d)
    y : ndarray of shape (n,), values in {-1, +1}
    """
    if int(d) < 2:
        raise ValueError(f"d must be >= 2 for a span of scales, got d={d}")
    if not (0 < low <= high and np.isfinite(high)):
        raise ValueError(f"need 0 < low <= high < inf, got low={low}, high={high}")
    X, y = make_classification(n, d, seed=seed, noise=noise, dtype=dtype)
    scales = np.logspace(np.log10(low), np.log10(high), X.shape[1]) * np.sqrt(X.shape[1])
    X *= scales.astype(X.dtype)
    return X, y


def make_outlier(n=600, d=12, seed=0, noise=0.05, factor=100.0, dtype=np.float64):
    """One row, ``n // 2``, scaled to ``factor`` times the median row norm.

    Everything else is make_classification's problem. The outlier keeps its
    label and direction; its squared norm, ``factor**2`` times the typical
    one, is what step sizes derived from the largest norm (or from ``R^2``)
    see.

    Parameters
    ----------
    n : int >= 1, default 600
    d : int >= 1, default 12
    seed : int, default 0
    noise : float in [0, 0.5), default 0.05
    factor : float > 0, default 100
        Norm of the outlier row over the median norm of the rows.
    dtype : numpy dtype, default float64

    Returns
    -------
    X : ndarray of shape (n, d)
    y : ndarray of shape (n,), values in {-1, +1}
    """
    if not (factor > 0 and np.isfinite(factor)):
        raise ValueError(f"factor must be a finite number > 0, got {factor}")
    X, y = make_classification(n, d, seed=seed, noise=noise, dtype=dtype)
    norms = np.linalg.norm(X, axis=1)
    i = X.shape[0] // 2
    if norms[i] > 0:
        X[i] *= X.dtype.type(factor * np.median(norms) / norms[i])
    return X, y


def make_separable(n=600, d=12, seed=0, margin=0.1, dtype=np.float64):
    """A linearly separable problem with geometric margin at least ``margin``.

    make_classification's problem without label noise; the rows closer than
    ``margin`` to the true hyperplane are moved along its normal, away from
    it, to distance ``margin`` on their own side. The rows have norm about 1,
    so at large C the SVM's solution is the hard-margin one, where dual
    solvers must drive many dual variables to their bounds.

    Parameters
    ----------
    n : int >= 1, default 600
    d : int >= 1, default 12
    seed : int, default 0
    margin : float >= 0, default 0.1
    dtype : numpy dtype, default float64

    Returns
    -------
    X : ndarray of shape (n, d)
    y : ndarray of shape (n,), values in {-1, +1}
    (the rule ``sign(<w*, x> + b*)`` of make_classification's
    ``return_coef`` separates them)
    """
    if not (margin >= 0 and np.isfinite(margin)):
        raise ValueError(f"margin must be a finite number >= 0, got {margin}")
    X, y, (w, b) = make_classification(n, d, seed=seed, noise=0.0, dtype=np.float64,
                                       return_coef=True)
    norm = np.linalg.norm(w)
    distance = (X @ w + b) / norm * y  # >= 0: every row is on its own side
    short = np.maximum(margin - distance, 0.0)
    X += (short * y)[:, None] * (w / norm)
    return np.ascontiguousarray(X, dtype=dtype), y


def make_imbalanced(n=630, d=12, seed=0, ratio=20, noise=0.02, dtype=np.float64):
    """One positive for every ``ratio`` negatives, exactly.

    make_classification's rows; the ``round(n / (ratio + 1))`` rows of
    largest true score are the positives. Label noise swaps labels in pairs
    (``round(noise * n_positive)`` positives become negative and as many
    negatives positive), so the class counts stay exact.

    Parameters
    ----------
    n : int >= ratio + 1, default 630
    d : int >= 1, default 12
    seed : int, default 0
    ratio : int >= 1, default 20
        Negatives per positive.
    noise : float in [0, 0.5), default 0.02
        Swapped pairs, as a fraction of the positives.
    dtype : numpy dtype, default float64

    Returns
    -------
    X : ndarray of shape (n, d)
    y : ndarray of shape (n,), values in {-1, +1}
    """
    if not (isinstance(ratio, (int, np.integer)) and ratio >= 1):
        raise ValueError(f"ratio must be an integer >= 1, got {ratio!r}")
    if int(n) < ratio + 1:
        raise ValueError(f"n must be >= ratio + 1 = {ratio + 1}, got n={n}")
    X, _, (w, _) = make_classification(n, d, seed=seed, noise=noise, dtype=dtype,
                                       return_coef=True)
    n = X.shape[0]
    n_pos = int(round(n / (ratio + 1)))
    y = -np.ones(n)
    y[np.argsort(X.astype(np.float64) @ w)[n - n_pos:]] = 1.0
    swaps = int(round(noise * n_pos))
    if swaps:
        rng = np.random.default_rng([seed, 1])
        pos = rng.choice(np.flatnonzero(y > 0), swaps, replace=False)
        neg = rng.choice(np.flatnonzero(y < 0), swaps, replace=False)
        y[pos], y[neg] = -1.0, 1.0
    return X, y


#: The worst cases by name (for benchmarks and tests that loop over them).
WORST_CASES = {"unscaled": make_unscaled, "outlier": make_outlier,
               "separable": make_separable, "imbalanced": make_imbalanced}
