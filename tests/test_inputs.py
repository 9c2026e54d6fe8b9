"""The input matrix: dtypes, layouts, sparse formats, and every rejected input."""

import numpy as np
import pytest
import scipy.sparse as sp

from _helpers import make_problem
from stochsvm import SVM

LAMBDA = 1e-2


def fit(X, y, iterations=3000, **kwargs):
    svm = SVM(X, y, LAMBDA, **kwargs)
    svm.set_epsilon(0)
    svm.set_max_num_iterations(iterations)
    svm.train()
    return svm.get_model(), svm.get_bias()


@pytest.fixture
def half_zeros():
    return make_problem(n=600, d=15, seed=4, sparsity=0.5)


def test_float32_float64_dense_and_csr_agree(half_zeros):
    X, y = half_zeros
    X32 = X.astype(np.float32)
    w64, b64 = fit(X, y)
    w32, b32 = fit(X32, y)
    c64, cb64 = fit(sp.csr_matrix(X), y)
    c32, cb32 = fit(sp.csr_matrix(X32), y)
    assert np.abs(w64).max() > 0.1  # a real model, not a trivial one
    # float32 and float64 data differ by rounding only
    np.testing.assert_allclose(w32, w64, rtol=0, atol=1e-5)
    assert abs(b32 - b64) <= 1e-5
    # dense and CSR: the same arithmetic on the same nonzeros
    np.testing.assert_allclose(c64, w64, rtol=0, atol=1e-12)
    assert abs(cb64 - b64) <= 1e-12
    np.testing.assert_allclose(c32, w32, rtol=0, atol=1e-12)
    assert abs(cb32 - b32) <= 1e-12


def test_float32_is_not_upcast(half_zeros):
    # float32 data are read as float32: the result differs from the float64
    # run on the same (rounded) values only by the model arithmetic, i.e. not
    # at all, whereas float64 data that are not representable in float32 give
    # a (slightly) different model.
    X, y = half_zeros
    X32 = X.astype(np.float32)
    w32, _ = fit(X32, y)
    w_rounded, _ = fit(X32.astype(np.float64), y)
    np.testing.assert_array_equal(w32, w_rounded)
    w64, _ = fit(X, y)
    assert not np.array_equal(w32, w64)


@pytest.mark.parametrize("dtype", [np.int8, np.int32, np.int64, np.uint16, np.float16])
def test_other_real_dtypes_are_cast_to_float64(small_problem, dtype):
    X, y = small_problem
    # unsigned types get non-negative values: wrapped ones (65535) make SGD diverge
    low = 0 if np.issubdtype(dtype, np.unsignedinteger) else -100
    Xq = np.clip(np.round(X * 3), low, 100).astype(dtype)
    w, b = fit(Xq, y)
    w_ref, b_ref = fit(Xq.astype(np.float64), y)
    np.testing.assert_array_equal(w, w_ref)
    assert b == b_ref


def test_bool_is_cast_to_float64(small_problem):
    X, y = small_problem
    Xb = X > 0
    w, b = fit(Xb, y)
    w_ref, b_ref = fit(Xb.astype(np.float64), y)
    np.testing.assert_array_equal(w, w_ref)
    assert b == b_ref


def test_fortran_order_and_strided_views(problem):
    X, y = problem
    w_ref, b_ref = fit(X, y)
    # Fortran order: copied to C order
    w, b = fit(np.asfortranarray(X), y)
    np.testing.assert_array_equal(w, w_ref)
    assert b == b_ref
    # a column slice of a wider array: rows contiguous, row stride > d
    wide = np.zeros((X.shape[0], X.shape[1] + 7))
    wide[:, 3:3 + X.shape[1]] = X
    w, b = fit(wide[:, 3:3 + X.shape[1]], y)
    np.testing.assert_array_equal(w, w_ref)
    assert b == b_ref
    # every other row
    w, b = fit(X[::2], y[::2])
    w_ref2, b_ref2 = fit(np.ascontiguousarray(X[::2]), y[::2])
    np.testing.assert_array_equal(w, w_ref2)
    assert b == b_ref2
    # non-unit element stride and reversed rows: copied
    w, b = fit(np.ascontiguousarray(wide[:, ::-1])[:, ::-1][:, 3:3 + X.shape[1]], y)
    np.testing.assert_array_equal(w, w_ref)
    w, b = fit(X[::-1], y[::-1])
    w_ref3, _ = fit(np.ascontiguousarray(X[::-1]), y[::-1])
    np.testing.assert_array_equal(w, w_ref3)


def test_contiguous_rows_are_borrowed_not_copied(problem):
    # The object reads the caller's memory: zeroing X after construction
    # leaves nothing to learn from (the hinge step on x = 0 is zero).
    X, y = problem
    X = X.copy()
    svm = SVM(X, y, LAMBDA)
    X[:] = 0.0
    svm.set_bias_multiplier(0)
    svm.train()
    np.testing.assert_array_equal(svm.get_model(), np.zeros(X.shape[1]))
    # same for a row-strided view of a wider array
    X2, y2 = problem
    wide = np.zeros((X2.shape[0], X2.shape[1] + 2))
    wide[:, :X2.shape[1]] = X2
    svm = SVM(wide[:, :X2.shape[1]], y2, LAMBDA)
    wide[:] = 0.0
    svm.set_bias_multiplier(0)
    svm.train()
    np.testing.assert_array_equal(svm.get_model(), np.zeros(X2.shape[1]))


def test_the_object_keeps_the_data_alive(problem):
    X, y = problem
    w_ref, b_ref = fit(X, y)
    svm = SVM(X.copy(), y.copy(), LAMBDA)   # the only references are the object's
    svm.set_epsilon(0)
    svm.set_max_num_iterations(3000)
    import gc
    gc.collect()
    svm.train()
    np.testing.assert_array_equal(svm.get_model(), w_ref)


def test_read_only_arrays(problem):
    X, y = problem
    w_ref, b_ref = fit(X, y)
    Xr, yr = X.copy(), y.copy()
    Xr.setflags(write=False)
    yr.setflags(write=False)
    w, b = fit(Xr, yr)
    np.testing.assert_array_equal(w, w_ref)
    assert b == b_ref
    S = sp.csr_matrix(X)
    for a in (S.data, S.indices, S.indptr):
        a.setflags(write=False)
    w, b = fit(S, yr)
    np.testing.assert_allclose(w, w_ref, rtol=0, atol=1e-12)


def test_lists_are_accepted(small_problem):
    X, y = small_problem
    w_ref, b_ref = fit(X, y)
    w, b = fit(X.tolist(), y.tolist())
    np.testing.assert_array_equal(w, w_ref)
    assert b == b_ref


def _shuffled_csr(X, seed):
    """The CSR matrix of X with the column indices of every row in random order."""
    S = sp.csr_matrix(X)
    rng = np.random.default_rng(seed)
    data, indices = S.data.copy(), S.indices.copy()
    for i in range(S.shape[0]):
        lo, hi = S.indptr[i], S.indptr[i + 1]
        p = rng.permutation(hi - lo) + lo
        data[lo:hi], indices[lo:hi] = data[p], indices[p]
    return sp.csr_matrix((data, indices, S.indptr.copy()), shape=S.shape)


def test_unsorted_csr_indices_are_sorted_on_a_copy(sparse_problem):
    X, y = sparse_problem
    w_ref, b_ref = fit(sp.csr_matrix(X), y)
    U = _shuffled_csr(X, seed=5)
    before = (U.data.copy(), U.indices.copy(), U.indptr.copy())
    assert not np.all(np.diff(U.indices[U.indptr[0]:U.indptr[1]]) > 0)
    w, b = fit(U, y)
    np.testing.assert_array_equal(w, w_ref)
    assert b == b_ref
    # the caller's matrix is left exactly as it was
    np.testing.assert_array_equal(U.data, before[0])
    np.testing.assert_array_equal(U.indices, before[1])
    np.testing.assert_array_equal(U.indptr, before[2])


def test_duplicate_csr_entries_are_summed_on_a_copy(sparse_problem):
    X, y = sparse_problem
    S = sp.csr_matrix(X)
    w_ref, b_ref = fit(S, y)
    # split every stored value v into v/4 + 3v/4, stored twice in the row
    n = S.shape[0]
    rows_data, rows_idx, indptr = [], [], [0]
    for i in range(n):
        lo, hi = S.indptr[i], S.indptr[i + 1]
        v, j = S.data[lo:hi], S.indices[lo:hi]
        rows_data.append(np.concatenate([0.25 * v, 0.75 * v]))
        rows_idx.append(np.concatenate([j, j]))
        indptr.append(indptr[-1] + 2 * (hi - lo))
    D = sp.csr_matrix((np.concatenate(rows_data), np.concatenate(rows_idx), np.array(indptr)),
                      shape=S.shape)
    nnz_before = D.data.shape[0]
    w, b = fit(D, y)
    np.testing.assert_allclose(w, w_ref, rtol=0, atol=1e-12)
    assert D.data.shape[0] == nnz_before


@pytest.mark.parametrize("fmt", ["csc", "coo", "lil", "dok", "bsr"])
def test_other_sparse_formats(sparse_problem, fmt):
    X, y = sparse_problem
    w_ref, b_ref = fit(sp.csr_matrix(X), y)
    w, b = fit(sp.csr_matrix(X).asformat(fmt), y)
    np.testing.assert_array_equal(w, w_ref)
    assert b == b_ref


def test_sparse_arrays_and_index_dtypes(sparse_problem):
    X, y = sparse_problem
    w_ref, b_ref = fit(sp.csr_matrix(X), y)
    A = sp.csr_array(X)
    w, b = fit(A, y)
    np.testing.assert_array_equal(w, w_ref)
    A64 = sp.csr_array((A.data, A.indices.astype(np.int64), A.indptr.astype(np.int64)),
                       shape=A.shape)
    assert A64.indices.dtype == np.int64
    w, b = fit(A64, y)
    np.testing.assert_array_equal(w, w_ref)
    # integer sparse data is cast to float64
    Ai = sp.csr_matrix(np.round(X * 4).astype(np.int32))
    w, b = fit(Ai, y)
    w_ref_i, _ = fit(Ai.astype(np.float64), y)
    np.testing.assert_array_equal(w, w_ref_i)


def test_sparse_matrix_with_empty_rows(sparse_problem):
    X, y = sparse_problem
    X = X.copy()
    X[::7] = 0.0
    w_ref, b_ref = fit(X, y)
    w, b = fit(sp.csr_matrix(X), y)
    np.testing.assert_allclose(w, w_ref, rtol=0, atol=1e-12)


# ---------------------------------------------------------------------------
#                               Rejected inputs
# ---------------------------------------------------------------------------

def _bad_x_cases():
    X, _ = make_problem(n=30, d=4, seed=9)
    nan = X.copy()
    nan[3, 2] = np.nan
    inf = X.copy()
    inf[5, 1] = -np.inf
    return {
        "nan": (nan, ValueError, "X contains NaN or infinity"),
        "inf": (inf, ValueError, "X contains NaN or infinity"),
        "nan-csr": (sp.csr_matrix(nan), ValueError, "X contains NaN or infinity"),
        "inf-csr32": (sp.csr_matrix(inf.astype(np.float32)), ValueError,
                      "X contains NaN or infinity"),
        "1-d": (X[:, 0], ValueError, "X must be a 2-D array"),
        "3-d": (X.reshape(30, 2, 2), ValueError, "X must be a 2-D array"),
        "complex": (X.astype(np.complex128), TypeError, "X has a complex dtype"),
        "object": (X.astype(object), TypeError, "X has dtype object"),
        "str": (X.astype(str), TypeError, "X has dtype <U"),
    }


@pytest.mark.parametrize("case", list(_bad_x_cases()))
def test_bad_x_is_rejected(case):
    X, exc, match = _bad_x_cases()[case]
    y = np.where(np.arange(30) % 2 == 0, 1.0, -1.0)
    with pytest.raises(exc, match=match):
        SVM(X, y, LAMBDA)


def test_empty_x_is_rejected():
    with pytest.raises(ValueError, match=r"X is empty \(shape \(0, 5\)\)"):
        SVM(np.zeros((0, 5)), np.zeros(0), LAMBDA)
    with pytest.raises(ValueError, match=r"X is empty \(shape \(5, 0\)\)"):
        SVM(np.zeros((5, 0)), np.ones(5), LAMBDA)
    with pytest.raises(ValueError, match=r"X is empty"):
        SVM(sp.csr_matrix((0, 5)), np.zeros(0), LAMBDA)
    with pytest.raises(ValueError, match=r"X is empty"):
        SVM(sp.csr_matrix((5, 0)), np.ones(5), LAMBDA)


@pytest.mark.parametrize("labels,match", [
    ([np.nan], r"y contains NaN or infinity"),
    ([np.inf], r"y contains NaN or infinity"),
    ([0, 1], r"found \{0, 1\}.*2\*y - 1"),
    ([1, 2], r"labels -1 and \+1, found \{1, 2\}"),
    ([-1, 0, 1], r"found \{-1, 0, 1\}"),
    ([0.5, -1], r"found \{-1, 0.5\}"),
])
def test_bad_labels_are_rejected(small_problem, labels, match):
    X, y = small_problem
    y = np.resize(np.asarray(labels, dtype=float), X.shape[0])
    if np.isnan(labels[0]) or np.isinf(labels[0]):
        y = np.where(np.arange(X.shape[0]) % 2 == 0, 1.0, -1.0)
        y[4] = labels[0]
    with pytest.raises(ValueError, match=match):
        SVM(X, y, LAMBDA)


def test_bool_labels_get_the_conversion_hint(small_problem):
    X, y = small_problem
    with pytest.raises(ValueError, match=r"2\*y - 1"):
        SVM(X, y > 0, LAMBDA)


def test_label_shape_and_type(small_problem):
    X, y = small_problem
    with pytest.raises(ValueError, match=r"y has 199 labels but X has 200 rows"):
        SVM(X, y[:-1], LAMBDA)
    with pytest.raises(ValueError, match=r"y must be a 1-D array.*y.ravel\(\)"):
        SVM(X, y[:, None], LAMBDA)
    with pytest.raises(TypeError, match=r"y must contain the numbers -1 and \+1"):
        SVM(X, y.astype(str), LAMBDA)
    with pytest.raises(TypeError, match=r"y must contain"):
        SVM(X, y.astype(complex), LAMBDA)


@pytest.mark.parametrize("lam,exc,match", [
    (0, ValueError, r"lambda_ must be a number in \[1e-150, 1e150\], got 0"),
    (-1, ValueError, r"lambda_ must be a number in \[1e-150, 1e150\], got -1"),
    (np.nan, ValueError, r"lambda_ must be a number in \[1e-150, 1e150\], got nan"),
    (np.inf, ValueError, r"lambda_ must be a number in \[1e-150, 1e150\], got inf"),
    ("a", TypeError, r"lambda_ must be a real number, got str"),
    (None, TypeError, r"lambda_ must be a real number, got NoneType"),
    (True, TypeError, r"lambda_ must be a real number, got a boolean"),
])
def test_bad_lambda_is_rejected(small_problem, lam, exc, match):
    X, y = small_problem
    with pytest.raises(exc, match=match):
        SVM(X, y, lam)


def test_lambda_accepts_numpy_scalars(small_problem):
    X, y = small_problem
    assert SVM(X, y, np.float32(0.5)).get_lambda() == 0.5
    assert SVM(X, y, np.int64(2)).get_lambda() == 2.0


@pytest.mark.parametrize("solver", ["foo", "SGD ", "", None, 1])
def test_bad_solver_is_rejected(small_problem, solver):
    X, y = small_problem
    with pytest.raises(ValueError, match=r"solver must be one of 'sgd', 'sdca', 'none'"):
        SVM(X, y, LAMBDA, solver=solver)


@pytest.mark.parametrize("seed,exc,match", [
    (-1, ValueError, r"seed must be an integer in \[0, 2\*\*64\)"),
    (2 ** 64, ValueError, r"seed must be an integer in \[0, 2\*\*64\)"),
    ("1", TypeError, r"seed must be an integer"),
    (1.5, ValueError, r"seed must be an integer in"),
])
def test_bad_seed_is_rejected(small_problem, seed, exc, match):
    X, y = small_problem
    with pytest.raises(exc, match=match):
        SVM(X, y, LAMBDA, seed=seed)


def test_extreme_seeds_are_accepted(small_problem):
    X, y = small_problem
    assert SVM(X, y, LAMBDA, seed=2 ** 64 - 1).get_seed() == 2 ** 64 - 1
    assert SVM(X, y, LAMBDA, seed=np.uint64(7)).get_seed() == 7
    assert SVM(X, y, LAMBDA).get_seed() == 0


def test_malformed_csr_is_rejected(small_problem):
    X, y = small_problem
    S = sp.csr_matrix(X)
    bad = sp.csr_matrix((S.data.copy(), S.indices.copy(), S.indptr.copy()), shape=S.shape)
    bad.indices[3] = X.shape[1] + 2      # out of range, bypassing scipy's checks
    with pytest.raises(ValueError, match=r"X is not a valid CSR matrix"):
        SVM(bad, y, LAMBDA)
    bad64 = sp.csr_matrix((S.data.copy(), S.indices.astype(np.int64), S.indptr.copy()),
                          shape=S.shape)
    bad64.indices[3] = -1
    with pytest.raises(ValueError, match=r"X is not a valid CSR matrix"):
        SVM(bad64, y, LAMBDA)


def test_set_data_validates_like_the_constructor(small_problem):
    X, y = small_problem
    svm = SVM(X, y, LAMBDA)
    with pytest.raises(ValueError, match=r"X has 4 features \(columns\), but this SVM has "
                                         r"dimension 5"):
        svm.set_data(X[:, :4], y)
    bad = X.copy()
    bad[0, 0] = np.nan
    with pytest.raises(ValueError, match=r"X contains NaN or infinity"):
        svm.set_data(bad, y)
    with pytest.raises(ValueError, match=r"2\*y - 1"):
        svm.set_data(X, (y + 1) / 2)
    with pytest.raises(ValueError, match=r"y has 10 labels but X has 200 rows"):
        svm.set_data(X, y[:10])
    # the object still has its original data
    assert svm.get_num_data() == 200
    svm.set_data(X[:50], y[:50])
    assert svm.get_num_data() == 50
    svm.train()
    assert svm.get_scores().shape == (50,)


def test_decision_function_inputs(problem):
    X, y = problem
    svm = SVM(X, y, LAMBDA)
    svm.train()
    w, b = svm.get_model(), svm.get_bias()
    expected = X @ w + b
    np.testing.assert_allclose(svm.decision_function(X), expected, rtol=0, atol=1e-12)
    np.testing.assert_allclose(svm.decision_function(sp.csr_matrix(X)), expected, rtol=0,
                               atol=1e-12)
    np.testing.assert_allclose(svm.decision_function(np.asfortranarray(X)), expected, rtol=0,
                               atol=1e-12)
    np.testing.assert_allclose(svm.decision_function(X.astype(np.float32)),
                               X.astype(np.float32).astype(np.float64) @ w + b,
                               rtol=0, atol=1e-12)
    assert svm.decision_function(np.zeros((0, X.shape[1]))).shape == (0,)
    with pytest.raises(ValueError, match=r"X has 19 features \(columns\), but this SVM has "
                                         r"dimension 20"):
        svm.decision_function(X[:, :19])
    with pytest.raises(ValueError, match=r"reshape\(1, -1\)"):
        svm.decision_function(X[0])
    with pytest.raises(ValueError, match=r"X contains NaN or infinity"):
        svm.decision_function(np.full((2, X.shape[1]), np.nan))


def test_scores_that_overflow_are_an_error_not_inf():
    """A finite model too large for the data (set_model of 1e308 values):
    decision_function returned inf and nan, and predict signs of them."""
    rng = np.random.default_rng(0)
    X = rng.standard_normal((20, 3))
    y = np.where(X[:, 0] > 0, 1.0, -1.0)
    svm = SVM(X, y, 0.1)
    svm.set_model(np.full(3, 1e308))
    with pytest.raises(ValueError, match="score of row .* of X is .*: its values times the "
                                         "model overflow"):
        svm.decision_function(X)
    svm.set_model(np.ones(3))
    assert np.isfinite(svm.decision_function(X)).all()


def test_c_decision_statuses_become_python_errors():
    """The C decision functions say when a score is not finite
    (tests/c/test_score_overflow.c): SS_ERR_NUMERIC, an overflow, names the
    row; SS_ERR_BAD_DATA, X turned non-finite while it was scored (the
    borrowed array, changed by another thread), says so; SS_OK returns
    the scores as they are."""
    from stochsvm._svm import _scores_or_raise

    scores = np.array([1.0, np.inf, -2.0])
    with pytest.raises(ValueError, match="score of row 1 of X is inf: its values times"):
        _scores_or_raise(5, scores)               # SS_ERR_NUMERIC
    with pytest.raises(ValueError, match="X holds a value that is not finite: its array "
                                         "changed while it was being scored"):
        _scores_or_raise(3, np.array([np.nan]))   # SS_ERR_BAD_DATA
    ok = np.array([1.0, 2.0])
    assert _scores_or_raise(0, ok) is ok


def test_rbf_scores_of_rows_whose_squares_overflow_are_an_error():
    """An rbf score of a row whose squared norm overflows (1e308): the
    distance was NaN, counted as 0, K = 1: a finite wrong score (0.583 for
    [1e308, 0, ...] where [1e300, 0, ...] scored 0), no error, in
    KernelSVM and through a model file (stochsvm predict)."""
    from stochsvm import KernelSVM

    rng = np.random.default_rng(0)
    X = rng.standard_normal((40, 3))
    y = np.where(X[:, 0] > 0, 1.0, -1.0)
    svm = KernelSVM(X, y, 0.1, kernel="rbf", gamma=0.5)
    svm.train()
    far = X[:3].copy()
    far[1] = [1e308, 0.0, 0.0]
    with pytest.raises(ValueError, match="score of row 1 of X is nan"):
        svm.decision_function(far)
    # 1e300: the squared norm is inf, the dots finite, the distance inf:
    # K = 0 for every support vector, the score the bias (right)
    far[1] = [1e300, 0.0, 0.0]
    assert svm.decision_function(far)[1] == svm.get_bias()


def test_estimators_and_predict_refuse_scores_that_overflow(tmp_path):
    """A finite row of 1.5e308 against a model: the linear estimators
    returned inf and predicted a class, the kernel ones NaN and classes_[0],
    and `stochsvm predict` wrote a label with status 0."""
    pytest.importorskip("sklearn")
    from stochsvm import KernelSVMClassifier, LinearSVMClassifier, LinearSVMRegressor
    from stochsvm.cli import main
    from stochsvm.model_file import save_model

    rng = np.random.default_rng(0)
    X = rng.standard_normal((60, 3))
    y = np.where(X[:, 0] + X[:, 1] > 0, 1, 0)
    far = X[:3].copy()
    for est in (LinearSVMClassifier(), LinearSVMRegressor(), KernelSVMClassifier(kernel="linear")):
        est.fit(X, 10.0 * (X[:, 0] + X[:, 1]) if isinstance(est, LinearSVMRegressor) else y)
        coef = est.coef_.ravel() if hasattr(est, "coef_") else np.ones(3)
        far[1] = 1.5e308 * np.where(coef >= 0, 1.0, -1.0)
        for call in (est.decision_function if hasattr(est, "decision_function") else est.predict,
                     est.predict):
            with pytest.raises(ValueError, match="score of row 1 of X is .*: its values times the "
                                                 "model overflow"):
                call(far)
    model = tmp_path / "m.ssvm"
    save_model(LinearSVMClassifier().fit(X, y), model)
    data = tmp_path / "far.svm"
    far[1] = 1.5e308
    data.write_text("".join(f"{t} " + " ".join(f"{j + 1}:{v:.17g}" for j, v in enumerate(row))
                            + "\n" for t, row in zip(y[:3], far)))
    assert main(["predict", str(model), str(data), str(tmp_path / "out")]) != 0
