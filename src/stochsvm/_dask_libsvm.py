"""LIBSVM files as Dask arrays of CSR row blocks: :func:`stochsvm.dask.read_libsvm`.

Plain files are split into byte ranges of ``blocksize``; a block owns every
line that *starts* inside its range (it skips the partial line at its start
and finishes the one crossing its end), so every line is read exactly once
and no worker reads a whole file. Compressed files (``.xz``, ``.lzma``,
``.gz``, ``.bz2``) cannot be entered in the middle: each is one block.

Each block is parsed on a worker by the in-memory reader's parser
(:func:`stochsvm.datasets.load_libsvm`) with raw indices, and kept there
(persisted). The driver then only gathers three numbers per block (rows,
smallest and largest index) to fix the global feature count and whether
indices start at 0 or 1; the final CSR blocks are views of the parsed ones.
"""

import glob
import os
import re
from pathlib import Path

import numpy as np

from stochsvm import datasets

#: Compressed suffixes: one block per file.
_COMPRESSED = tuple(datasets._OPENERS)


def _expand(paths):
    """The files named by paths (a path, a glob or a list of either), sorted per pattern."""
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    files = []
    for pattern in paths:
        pattern = os.fspath(pattern)
        matches = sorted(glob.glob(pattern)) if glob.has_magic(pattern) else [pattern]
        if not matches:
            raise FileNotFoundError(f"read_libsvm: no file matches {pattern!r}")
        for path in matches:
            if not os.path.isfile(path):
                raise FileNotFoundError(f"read_libsvm: no such regular file: {path!r}")
            files.append(path)
    if not files:
        raise ValueError("read_libsvm: paths is empty")
    return files


def _blocks(path, blocksize):
    """(path, start, end) byte ranges of one file; end None: to the end."""
    if path.lower().endswith(_COMPRESSED):
        return [(path, 0, None)]
    size = os.path.getsize(path)
    return [(path, start, min(start + blocksize, size))
            for start in range(0, max(size, 1), blocksize)]


def _read_text(path, start, end):
    """The bytes of the lines starting in [start, end), and the byte position of
    the first (None for a compressed file, read whole)."""
    if end is None:
        return datasets._read_bytes(Path(path)), None
    with open(path, "rb") as f:
        if start > 0:
            f.seek(start - 1)
            f.readline()  # the rest of the line that started before this block
        position = f.tell()
        text = f.read(max(0, end - position))
        if text and not text.endswith(b"\n"):
            text += f.readline()  # the line crossing the end is this block's
    return text, position


def _first_line(path, position):
    """The 1-based number of the line starting at byte position (counted on error only)."""
    if not position:  # a compressed file, or the start of a plain one
        return 1
    count = 0
    with open(path, "rb") as f:
        while f.tell() < position:
            count += f.read(min(1 << 24, position - f.tell())).count(b"\n")
    return count + 1


def read_block(path, start, end, dtype):
    """Parse one block with raw indices (index k is column k): (X, y)."""
    text, position = _read_text(path, start, end)
    try:
        return datasets._parse(text, None, dtype, first_index=0)
    except ValueError as exc:
        message = str(exc)
        match = re.match(r"line (\d+): (.*)", message, re.S)
        if match is None:  # pragma: no cover - the parser always names the line
            raise ValueError(f"{path}: {message}") from None
        line = _first_line(path, position) + int(match.group(1)) - 1
        raise ValueError(f"{path}, line {line}: {match.group(2)}") from None


def block_summary(block):
    """(rows, smallest index, largest index) of a parsed block (-1, -1 without entries)."""
    X, _ = block
    if X.nnz == 0:
        return X.shape[0], -1, -1
    return X.shape[0], int(X.indices.min()), int(X.indices.max())


def block_matrix(block, shift, n_features):
    """The block's rows as CSR with columns index - shift, n_features wide."""
    import scipy.sparse as sp

    X, _ = block
    indices = X.indices - X.indices.dtype.type(shift) if shift else X.indices
    return sp.csr_matrix((X.data, indices, X.indptr), shape=(X.shape[0], n_features))


def block_labels(block):
    return block[1]


def read_libsvm(paths, blocksize="64MiB", n_features=None, zero_based="auto",
                dtype=np.float64):
    """Read LIBSVM/SVMlight files into Dask arrays of CSR row blocks, on the cluster.

    Parameters
    ----------
    paths : str, path or list of them
        Files or glob patterns (``"data/part-*.svm.xz"``), read in the given
        order (each pattern's matches sorted). The workers open the files:
        they must see the same paths (a shared file system). ``.xz``,
        ``.lzma``, ``.gz`` and ``.bz2`` files are decompressed, one block per
        file; plain files are split at line boundaries.
    blocksize : int or str, default "64MiB"
        Bytes of a plain file per block (row chunk); ``"256MiB"``, ``2**26``.
    n_features : int, optional
        Number of columns; by default the largest index (plus one for
        0-based files). Give the training data's when reading a test set.
    zero_based : bool or "auto", default "auto"
        Whether index 0 is the first column. ``"auto"``: 0-based if any
        index 0 occurs in any file, else 1-based (LIBSVM's convention).
    dtype : float32 or float64, default float64
        Dtype of the values.

    Returns
    -------
    X : dask array of shape (n, n_features), CSR blocks
    y : dask array of shape (n,), float64 labels

    Both are backed by blocks parsed and held in the workers' memory (the
    current ``distributed.Client``; without one, the local scheduler).

    Raises
    ------
    FileNotFoundError
        A path or pattern that names no regular file.
    ValueError
        A malformed line (the message names the file and the line), an
        index out of range, bad arguments.
    """
    import dask
    import dask.array as da
    import scipy.sparse as sp
    from dask.utils import parse_bytes

    size = parse_bytes(blocksize) if isinstance(blocksize, str) else blocksize
    if isinstance(size, bool) or not isinstance(size, (int, np.integer)) or size < 1:
        raise ValueError(f"blocksize must be a positive number of bytes, got {blocksize!r}")
    if zero_based not in (True, False, "auto"):
        raise ValueError(f"zero_based must be True, False or 'auto', got {zero_based!r}")
    dtype = np.dtype(dtype)
    if dtype not in (np.float32, np.float64):
        raise ValueError(f"dtype must be float32 or float64, got {dtype}")
    if n_features is not None and (isinstance(n_features, bool) or int(n_features) != n_features
                                   or n_features < 1):
        raise ValueError(f"n_features must be a positive integer, got {n_features!r}")

    ranges = [r for path in _expand(paths) for r in _blocks(path, int(size))]
    read = dask.delayed(read_block, pure=True)
    parsed = dask.persist(*[read(path, start, end, dtype) for path, start, end in ranges])
    summaries = dask.compute(*[dask.delayed(block_summary)(b) for b in parsed])
    rows = [s[0] for s in summaries]
    lows = [s[1] for s in summaries if s[1] >= 0]
    highs = [s[2] for s in summaries if s[2] >= 0]
    if zero_based == "auto":
        zero_based = bool(lows) and min(lows) == 0
    if not zero_based and lows and min(lows) == 0:
        where = next(path for (path, _, _), s in zip(ranges, summaries) if s[1] == 0)
        raise ValueError(f"{where}: feature index 0 in a file read with zero_based=False")
    shift = 0 if zero_based else 1
    needed = (max(highs) + 1 - shift) if highs else 1
    if n_features is None:
        n_features = needed
    elif needed > n_features:
        raise ValueError(f"the files have feature index {max(highs)}, more than "
                         f"n_features={n_features} columns (zero_based={zero_based})")
    n_features = int(n_features)
    meta = sp.csr_matrix((0, n_features), dtype=dtype)
    X = da.concatenate([
        da.from_delayed(dask.delayed(block_matrix)(b, shift, n_features),
                        shape=(n, n_features), dtype=dtype, meta=meta)
        for b, n in zip(parsed, rows)])
    y = da.concatenate([
        da.from_delayed(dask.delayed(block_labels)(b), shape=(n,), dtype=np.float64,
                        meta=np.empty(0))
        for b, n in zip(parsed, rows)])
    return X, y
