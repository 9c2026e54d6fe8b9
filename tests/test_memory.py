"""The no-copy promise and bounded temporaries (issue 21, item 6).

float32 data are read as float32: neither training nor prediction may make a
float64 (or any) copy of X. NumPy reports its buffers to ``tracemalloc``, so
the peak it traces while a call runs bounds every array the Python layer
makes; a copy of X would at least double it. (The C core allocates with
``malloc`` and borrows X; its per-example arrays are checked by
``bench/memory.py``, not here.)
"""

import tracemalloc
import warnings

import numpy as np
import pytest
import scipy.sparse as sp

from stochsvm import SVM, KernelSVMClassifier, LinearSVMClassifier, LinearSVMRegressor
from stochsvm._solvers import LINEAR
from stochsvm._svm import _csr_is_canonical


def traced_peak(fn):
    """The peak of the memory tracemalloc traces while ``fn()`` runs."""
    tracemalloc.start()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")   # max_iter reached: not the subject here
            fn()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


@pytest.fixture(scope="module")
def dense32():
    rng = np.random.default_rng(0)
    X = rng.random((60_000, 20), dtype=np.float32)   # 4.8 MB; a float64 copy is 9.6 MB
    y = np.where(X[:, 0] + 0.1 * rng.standard_normal(X.shape[0]) > 0.5, 1, -1)
    return X, y


# The per-example arrays of the Python layer (label vectors, np.unique's sorted
# copy of y): 8 bytes each; allow a few.
PER_EXAMPLE = 48


@pytest.mark.parametrize("solver", LINEAR)
def test_linear_fit_does_not_copy_float32(dense32, solver):
    X, y = dense32
    est = LinearSVMClassifier(solver=solver, max_iter=1, tol=0)
    peak = traced_peak(lambda: est.fit(X, y))
    assert peak < 0.5 * X.nbytes + PER_EXAMPLE * X.shape[0], peak
    assert np.shares_memory(est._last_data.X, X)


def test_linear_object_does_not_copy_float32(dense32):
    X, y = dense32
    peak = traced_peak(lambda: SVM(X, y.astype(np.float64), 1e-3).train())
    assert peak < 0.5 * X.nbytes, peak


def test_linear_prediction_does_not_copy_float32(dense32):
    X, y = dense32
    clf = LinearSVMClassifier(max_iter=1, tol=0).fit(X, y)
    reg = LinearSVMRegressor(max_iter=1, tol=0).fit(X, y.astype(np.float64))
    # the scores (8 bytes per example) and float64 blocks of 8192 rows
    bound = 0.5 * X.nbytes + 8 * X.shape[0]
    for fn in (clf.decision_function, clf.predict, reg.predict):
        assert traced_peak(lambda: fn(X)) < bound, fn
    # blocks change nothing: the scores of float32 X are those of its float64 copy
    X64 = X.astype(np.float64)
    np.testing.assert_array_equal(clf.decision_function(X), clf.decision_function(X64))
    np.testing.assert_array_equal(reg.predict(X), reg.predict(X64))
    np.testing.assert_array_equal(reg.predict(X[:8193]), X64[:8193] @ reg.coef_ + reg.intercept_)


def test_linear_prediction_csr_float32(dense32):
    X, y = dense32
    Xs = sp.csr_matrix(X[:20_000])
    clf = LinearSVMClassifier(max_iter=1, tol=0).fit(Xs, y[:20_000])
    np.testing.assert_array_equal(clf.decision_function(Xs),
                                  clf.decision_function(Xs.astype(np.float64)))


def test_kernel_fit_does_not_copy_float32():
    rng = np.random.default_rng(1)
    X = rng.random((3000, 200), dtype=np.float32)       # 2.4 MB
    y = np.where(X[:, 0] > 0.5, 1, -1)
    for solver in ("sdca", "bsgd"):
        est = KernelSVMClassifier(solver=solver, max_iter=1, tol=0, budget=None
                                  if solver == "sdca" else 100)
        peak = traced_peak(lambda: est.fit(X, y))
        assert peak < 0.5 * X.nbytes, (solver, peak)
        assert traced_peak(lambda: est.decision_function(X)) < 0.5 * X.nbytes, solver


def test_csr_structure_check_is_bounded():
    # The CSR converter copies indptr and indices (memory safety: the C core
    # never walks an index array the caller can change) but checks them in
    # blocks: its temporaries do not grow with the number of stored entries.
    rng = np.random.default_rng(2)
    X = sp.random(200_000, 60, density=0.2, format="csr", random_state=rng, dtype=np.float32)
    assert X.has_sorted_indices
    structure = X.indices.nbytes + 8 * (X.shape[0] + 1)
    peak = traced_peak(lambda: SVM(X, np.ones(X.shape[0]), 1e-3))
    assert peak < structure + 0.25 * X.data.nbytes + 16 * X.shape[0], (peak, structure)


def _canonical_reference(indptr, indices):
    return all(np.all(np.diff(indices[indptr[i]:indptr[i + 1]]) > 0)
               for i in range(len(indptr) - 1))


@pytest.mark.parametrize("seed", range(40))
def test_csr_canonical_check_in_blocks(seed):
    # Small blocks, rows that straddle them, empty rows, and one unsorted or
    # duplicated pair anywhere (block edges included).
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 30))
    lengths = rng.integers(0, 6, size=n)
    indptr = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
    indices = np.concatenate([np.sort(rng.choice(50, size=k, replace=False))
                              for k in lengths]).astype(np.int32)
    if indices.size >= 2 and seed % 2:
        k = int(rng.integers(0, indices.size - 1))
        indices[k + 1] = indices[k] if seed % 4 == 1 else indices[k] - 1
    expected = _canonical_reference(indptr, indices)
    for block in (1, 2, 3, 7, 1 << 20):
        assert _csr_is_canonical(indptr, indices, block=block) == expected, block
