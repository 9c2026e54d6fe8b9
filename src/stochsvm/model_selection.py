"""Cross-validation folds and parameter grids, as LIBSVM's ``svm-train -v``
and ``grid.py`` use them; the command line's ``train -v K`` and ``grid``
(``stochsvm._cli_select``) are built on these. Nothing here needs
scikit-learn (whose ``StratifiedKFold`` and ``GridSearchCV`` work with the
estimators too).
"""

from __future__ import annotations

import numpy as np

__all__ = ["stratified_folds", "log2_range"]


def stratified_folds(y, k, seed=0, stratify=True):
    """The fold (0 to k - 1) of every example: seeded, and stratified by label.

    Each label's examples are shuffled with ``numpy.random.default_rng(seed)``
    and dealt to the folds in turn, the next label starting where the last one
    stopped, so every fold holds each class in about its overall proportion
    and the fold sizes differ by at most one. ``stratify=False`` (regression)
    deals one shuffled sequence of all the examples.

    Parameters
    ----------
    y : array of shape (n,)
        Labels (or targets when ``stratify`` is false).
    k : int
        Number of folds, 2 <= k <= n.
    seed : int, default 0
        Seed of the shuffles.
    stratify : bool, default True

    Returns
    -------
    folds : ndarray of shape (n,), int64

    Raises ValueError for a bad ``k``, and for NaN labels when ``stratify``.
    """
    y = np.asarray(y)
    n = y.shape[0]
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or not 2 <= k <= n:
        raise ValueError(f"k must be an integer in [2, n = {n}], got {k!r}")
    missing = np.flatnonzero(y != y)   # NaN: no class np.unique and == agree on
    if stratify and missing.size:
        raise ValueError(f"y has {missing.size} NaN label{'s' if missing.size > 1 else ''} "
                         f"(the first at index {missing[0]}); folds are stratified by label: "
                         f"drop those examples or give them a label")
    rng = np.random.default_rng(seed)
    groups = [np.flatnonzero(y == c) for c in np.unique(y)] if stratify else [np.arange(n)]
    folds = np.empty(n, dtype=np.int64)
    start = 0
    for members in groups:
        members = rng.permutation(members)
        folds[members] = (start + np.arange(members.size)) % k
        start = (start + members.size) % k
    return folds


def log2_range(spec, what="grid"):
    """The exponents of a LIBSVM ``grid.py`` range ``"begin,end,step"``.

    ``"-5,15,2"`` gives -5, -3, ..., 15 (``end`` included when the steps land
    on it); a negative step counts down (``"3,-15,-2"``); one number gives a
    single point. The grid's values are ``2 ** exponent``.

    Raises ValueError naming ``what`` for a malformed range.
    """
    try:
        parts = [float(p) for p in str(spec).split(",")]
    except ValueError:
        raise ValueError(f"{what} must be 'begin,end,step' numbers, got {spec!r}") from None
    if len(parts) == 1:
        parts = [parts[0], parts[0], 1.0]
    if len(parts) != 3 or not all(np.isfinite(parts)):
        raise ValueError(f"{what} must be 'begin,end,step' (finite numbers), got {spec!r}")
    begin, end, step = parts
    if step == 0 or (end - begin) * step < 0:
        raise ValueError(f"{what}: the step {step:g} does not lead from {begin:g} to {end:g}")
    count = int(np.floor((end - begin) / step + 1e-9)) + 1
    if count > 1000:
        raise ValueError(f"{what}: {count} points; at most 1000")
    exponents = [begin + i * step for i in range(count)]
    worst = max(exponents, key=abs)
    if not -1074 <= worst <= 1023:  # 2 ** worst would overflow (an OverflowError) or be 0
        raise ValueError(f"{what}: 2^{worst:g} is not a finite number > 0; the exponents must "
                         f"lie in [-1074, 1023]")
    return exponents
