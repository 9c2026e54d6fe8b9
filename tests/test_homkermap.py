"""The homogeneous kernel map from Python: parameters, the map against the
exact kernels, the explicit expansion (dense, sparse, dtypes), training on
the fly against training on the explicit expansion (SGD and SDCA, dense and
CSR, float32 and float64), prediction, pickling, set_data and threads."""

import pickle
import threading

import numpy as np
import pytest
import scipy.sparse as sp

from stochsvm import SVM, HomogeneousKernelMap, homkermap


def histograms(n=300, d=6, seed=0, zeros=0.3):
    """Non-negative rows that sum to 1, some entries zero. Label +1 when the
    first bin lies in a band around 0.15 (a non-monotone rule no linear model
    can follow), with 5% of the labels flipped."""
    rng = np.random.default_rng(seed)
    X = rng.gamma(0.7, size=(n, d))
    X[rng.random((n, d)) < zeros] = 0.0
    X[X.sum(axis=1) == 0, 0] = 1.0
    X /= X.sum(axis=1, keepdims=True)
    y = np.where(np.abs(np.log(X[:, 0] + 1e-3) - np.log(0.15)) < 0.7, 1.0, -1.0)
    y[rng.random(n) < 0.05] *= -1
    return np.ascontiguousarray(X), y


def exact_kernel(kernel, x, y):
    x, y = np.asarray(x, float), np.asarray(y, float)
    if kernel == "intersection":
        return np.minimum(x, y)
    if kernel == "chi2":
        return 2 * x * y / (x + y)
    return 0.5 * x * np.log2((x + y) / x) + 0.5 * y * np.log2((x + y) / y)


# ---------------------------------------------------------------------------
#                               The map itself
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("kwargs, exc, pattern", [
    (dict(kernel="rbf"), ValueError, r"kernel must be one of"),
    (dict(kernel=3), ValueError, r"kernel must be one of"),
    (dict(window="hann"), ValueError, r"window must be one of"),
    (dict(order=-1), ValueError, r"order must be an integer in \[0, 64\]"),
    (dict(order=65), ValueError, r"order must be an integer in \[0, 64\]"),
    (dict(order=1.5), ValueError, r"order must be an integer in \[0, 64\], got 1.5"),
    (dict(order="2"), TypeError, r"order must be an integer, got str"),
    (dict(gamma=0), ValueError, r"gamma must be a finite number > 0"),
    (dict(gamma=np.nan), ValueError, r"gamma must be a finite number > 0"),
    (dict(period=-1.0), ValueError, r"period must be a finite number > 0 or None"),
    (dict(period=np.inf), ValueError, r"period must be a finite number > 0 or None"),
])
def test_bad_parameters(kwargs, exc, pattern):
    with pytest.raises(exc, match=pattern):
        HomogeneousKernelMap(**kwargs)


def test_properties_and_vlfeat_names():
    hom = HomogeneousKernelMap("KCHI2", order=2, window="Uniform")
    assert (hom.kernel, hom.order, hom.gamma, hom.window, hom.dimension) == (
        "chi2", 2, 1.0, "uniform", 5)
    assert hom.period == pytest.approx(5.86 * np.sqrt(2) + 3.65)  # VLFeat's automatic rule
    assert hom.frequencies == (0, 1, 2)
    assert HomogeneousKernelMap("kl1").kernel == HomogeneousKernelMap("kinters").kernel == "intersection"
    assert HomogeneousKernelMap("kjs").kernel == "js"
    assert HomogeneousKernelMap(period=3.0).period == 3.0
    assert eval(repr(hom), {"HomogeneousKernelMap": HomogeneousKernelMap}) == hom
    assert pickle.loads(pickle.dumps(hom)) == hom
    assert hash(pickle.loads(pickle.dumps(hom))) == hash(hom)


@pytest.mark.parametrize("kernel, order, bound", [
    # worst |<Psi(x), Psi(y)> - k(x, y)| / sqrt(xy) over x, y in [0.1, 1];
    # measured 0.0016 (chi2), 0.0013 (js), 0.087 (intersection: a kink at x = y)
    ("chi2", 3, 0.003), ("js", 3, 0.003), ("intersection", 3, 0.1),
])
def test_map_approximates_kernel(kernel, order, bound):
    hom = HomogeneousKernelMap(kernel, order=order)
    grid = np.logspace(-1, 0, 21)
    psi = hom(grid)
    assert psi.shape == (21, 2 * order + 1)
    approx = psi @ psi.T
    exact = exact_kernel(kernel, grid[:, None], grid[None, :])
    assert np.max(np.abs(approx - exact) / np.sqrt(np.outer(grid, grid))) < bound


def _signature(kernel, l):
    """K(l) = k(e^(l/2), e^(-l/2)), l >= 0, written from the kernels' definitions."""
    x, y = np.exp(l / 2), np.exp(-l / 2)
    if kernel == "intersection":
        return y
    if kernel == "chi2":
        return 2 * x * y / (x + y)
    # (x/2) log2((x+y)/x) + (y/2) log2((x+y)/y) with x+y over x = 1 + e^-l
    return 0.5 * x * np.log1p(np.exp(-l)) / np.log(2) + 0.5 * y * np.log1p(np.exp(l)) / np.log(2)


def _rectangular_coefficient(kernel, period, m):
    """c_m = (2/P) int_0^{P/2} K(l) cos(m L l) dl by 40-point Gauss-Legendre on
    pieces of length 1/4 up to min(P/2, 200) (beyond 200 every K is below
    1e-40): an independent reference for the core's closed form / Simpson rule."""
    nodes, weights = np.polynomial.legendre.leggauss(40)
    b = min(period / 2, 200.0)
    edges = np.linspace(0, b, max(2, int(np.ceil(b / 0.25)) + 1))
    lo, hi = edges[:-1, None], edges[1:, None]
    l = (lo + hi) / 2 + (hi - lo) / 2 * nodes[None, :]
    w = 2 * np.pi / period * m
    values = _signature(kernel, l) * np.cos(w * l) * (hi - lo) / 2 * weights[None, :]
    return 2 / period * np.sum(values)


@pytest.mark.parametrize("kernel", ["intersection", "chi2", "js"])
@pytest.mark.parametrize("period", [2.0, 5.0, 60.0, 300.0, 1e3, 1e6, 1e12])
def test_rectangular_coefficients_against_quadrature(kernel, period):
    """The rectangular window at every period, huge ones included. Before the
    fix the Simpson nodes were P/2048 apart, stepped over the signature (width
    about 1) for periods beyond about 1e3, and at P = 1e12 the coefficients
    were wrong by factors up to 1e7."""
    hom = HomogeneousKernelMap(kernel, order=3, period=period)
    c = hom.coefficients ** 2 / np.array([1.0, 2.0, 2.0, 2.0])
    want = [_rectangular_coefficient(kernel, period, m) for m in hom.frequencies]
    np.testing.assert_allclose(c, want, rtol=1e-9, atol=1e-9 * want[0])
    # at huge periods the window no longer matters: the uniform window's closed form
    if period >= 1e3:
        uniform = HomogeneousKernelMap(kernel, order=3, period=period, window="uniform")
        np.testing.assert_allclose(hom.coefficients, uniform.coefficients, rtol=1e-12)


def test_map_of_zero_negative_and_shapes():
    hom = HomogeneousKernelMap("js", order=2)
    assert np.all(hom(0.0) == 0) and hom(0.0).shape == (5,)
    np.testing.assert_array_equal(hom(-0.3), -hom(0.3))
    assert hom(np.zeros((2, 3))).shape == (2, 3, 5)
    with pytest.raises(ValueError, match="NaN or infinity"):
        hom([0.1, np.nan])


def test_transform_layout_dense_sparse_and_dtypes():
    X, _ = histograms(n=20, d=4)
    hom = HomogeneousKernelMap("chi2", order=1)
    E = hom.transform(X)
    assert E.shape == (20, 12) and E.dtype == np.float64
    # VLFeat's layout: column j becomes columns 3j, 3j+1, 3j+2
    np.testing.assert_array_equal(E[:, 3:6], hom(X[:, 1]))
    np.testing.assert_array_equal(homkermap(X, "chi2", order=1), E)
    # float32 in, float32 out (the map is computed in double, then rounded)
    E32 = hom.transform(X.astype(np.float32))
    assert E32.dtype == np.float32
    np.testing.assert_allclose(E32, hom.transform(X.astype(np.float32).astype(np.float64)), rtol=1e-6)
    # sparse in, sparse out, same values; csr_array stays an array
    S = hom.transform(sp.csr_matrix(X))
    assert sp.issparse(S) and S.format == "csr" and S.shape == (20, 12)
    np.testing.assert_array_equal(S.toarray(), E)
    assert isinstance(hom.transform(sp.csr_array(X)), sp.sparray)
    # a column-major input and an empty matrix
    np.testing.assert_array_equal(hom.transform(np.asfortranarray(X)), E)
    assert hom.transform(np.zeros((0, 4))).shape == (0, 12)


# ---------------------------------------------------------------------------
#                  Training on the fly equals the explicit map
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("solver, loss", [("sgd", "hinge"), ("sdca", "hinge"), ("sdca", "logistic"),
                                          ("svmsgd2", "hinge"), ("sgdqn", "logistic")])
@pytest.mark.parametrize("layout", ["dense", "csr"])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_on_the_fly_equals_explicit(solver, loss, layout, dtype):
    """Also SVMSGD2 and SGD-QN, whose skip follows the density: the map's
    counted as dense (skip 16), the explicit matrix's as it is (here 25)."""
    X, y = histograms()
    X[X < np.quantile(X, 0.35)] = 0      # a third of the bins empty: zeros map to zeros
    X = X.astype(dtype)
    hom = HomogeneousKernelMap("chi2", order=2)
    # the explicit expansion of the same (float32-rounded) values, in float64
    E = hom.transform(X.astype(np.float64))
    if layout == "csr":
        X, E = sp.csr_matrix(X), sp.csr_matrix(E)
    n = X.shape[0]
    models = []
    for data, kwargs in ((X, dict(homkermap=hom)), (E, {})):
        svm = SVM(data, y, 1e-3, solver=solver, loss=loss, seed=3, **kwargs)
        svm.set_epsilon(0)
        svm.set_max_num_iterations(5 * n)
        stats = svm.train()
        models.append((svm.get_model(), svm.get_bias(), stats["objective"], svm))
    (w1, b1, p1, s1), (w2, b2, p2, s2) = models
    assert s1.get_dimension() == s2.get_dimension() == X.shape[1] * 5
    scale = np.max(np.abs(w2))
    np.testing.assert_allclose(w1, w2, rtol=0, atol=1e-7 * scale)
    assert b1 == pytest.approx(b2, abs=1e-7 * max(1, abs(b2)))
    assert p1 == pytest.approx(p2, rel=1e-9)
    # prediction takes the unmapped data and applies the map
    np.testing.assert_allclose(s1.decision_function(X), s2.decision_function(E), atol=1e-9)


def test_map_makes_a_nonlinear_problem_separable():
    """A band rule on one bin: the linear model does no better than the
    majority class (measured 0.70), the chi2 map does (measured 0.92)."""
    X, y = histograms(n=2000, seed=1)
    Xt, yt = histograms(n=2000, seed=2)
    accuracy = {}
    for name, kwargs in (("linear", {}), ("chi2", dict(homkermap=dict(kernel="chi2", order=2)))):
        svm = SVM(X, y, 1e-4, solver="sdca", **kwargs)
        svm.set_epsilon(1e-6)
        svm.set_max_num_iterations(100 * len(y))
        svm.train()
        accuracy[name] = np.mean(svm.predict(Xt) == yt)
    assert accuracy["chi2"] > accuracy["linear"] + 0.1


def test_svm_map_errors_pickle_and_set_data():
    X, y = histograms(n=100, d=3)
    with pytest.raises(TypeError, match="homkermap must be None, a HomogeneousKernelMap or a dict"):
        SVM(X, y, 0.1, homkermap="chi2")
    with pytest.raises(ValueError, match="unknown parameter"):
        SVM(X, y, 0.1, homkermap=dict(kernel="chi2", oder=3))
    svm = SVM(X, y, 0.1, solver="sdca", homkermap=dict(kernel="js", order=1))
    assert svm.get_homkermap() == HomogeneousKernelMap("js", order=1)
    assert svm.get_dimension() == 9
    svm.train()
    with pytest.raises(ValueError, match=r"X has 9 features .* expects 3: its kernel map turns each into 3"):
        svm.decision_function(np.zeros((2, 9)))
    with pytest.raises(ValueError, match=r"X has 4 features .* expects 3"):
        svm.set_data(np.ones((5, 4)) / 4, np.ones(5))
    clone = pickle.loads(pickle.dumps(svm))
    assert clone.get_homkermap() == svm.get_homkermap()
    np.testing.assert_array_equal(clone.decision_function(X), svm.decision_function(X))
    clone.set_data(X, y)  # the map is applied to the new data too
    stats = clone.train()
    w, b = clone.get_model(), clone.get_bias()
    margins = y * (svm.get_homkermap().transform(X) @ w + b)
    primal = 0.05 * (w @ w + b * b) + np.maximum(0, 1 - margins).mean()
    assert stats["objective"] == pytest.approx(primal, rel=1e-12)
    assert SVM(X, y, 0.1).get_homkermap() is None


def test_one_map_shared_by_concurrent_trainings():
    """The map holds no scratch space: trainings in threads sharing one map
    give the same models as one after the other."""
    hom = HomogeneousKernelMap("chi2", order=3)
    problems = [histograms(n=400, seed=s) for s in range(4)]

    def train(k, out):
        X, y = problems[k]
        svm = SVM(X, y, 1e-3, solver="sgd", homkermap=hom)
        svm.set_epsilon(0)
        svm.set_max_num_iterations(20 * len(y))
        svm.train()
        out[k] = svm.get_model()

    sequential, parallel = {}, {}
    for k in range(4):
        train(k, sequential)
    threads = [threading.Thread(target=train, args=(k, parallel)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for k in range(4):
        np.testing.assert_array_equal(parallel[k], sequential[k])


@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("dtype, big", [(np.float64, 1e300), (np.float32, 1e38)])
def test_transform_refuses_an_overflowing_map(sparse, dtype, big):
    # |x|**(gamma/2) overflowed to inf (float32: in the final cast), returned silently.
    X = np.array([[0.5, big], [1.0, 2.0]], dtype=dtype)
    X = sp.csr_matrix(X) if sparse else X
    with pytest.raises(ValueError, match=f"the map overflows in {np.dtype(dtype).name}"):
        homkermap(X, gamma=4.0)
    Z = homkermap(X, gamma=1.0)                 # the same values are fine at gamma 1
    assert np.isfinite(Z.toarray() if sparse else Z).all()


def test_call_and_scores_refuse_an_overflowing_map():
    """transform refused the overflow, but the map's __call__ returned inf,
    and an SVM with the map on the fly scored inf and predicted +1."""
    hom = HomogeneousKernelMap("chi2", order=1, gamma=4.0)
    with pytest.raises(ValueError, match="the map overflows in float64"):
        hom([0.5, 1e300])
    assert np.isfinite(hom([0.5, 1e30])).all()
    X, y = histograms(n=60)
    svm = SVM(X, y, 1e-2, solver="sdca", homkermap=hom)
    svm.train()
    far = X[:2].copy()
    far[1, 0] = 1e300
    with pytest.raises(ValueError, match="score of row 1 of X is (inf|-inf|nan): its values, "
                                         "mapped, times the model overflow"):
        svm.decision_function(far)
    with pytest.raises(ValueError, match="score of row 1"):
        svm.predict(far)
    assert np.isfinite(svm.decision_function(X)).all()
