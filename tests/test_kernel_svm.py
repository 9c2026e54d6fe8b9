"""The kernel SVM: kernels against scikit-learn, the SBP water filling against a
sorting reference, solvers against exact references (scipy L-BFGS-B on the dual,
LIBSVM through scikit-learn's SVC), layouts, warm start, pickling, errors."""

import os
import pickle
import threading

import numpy as np
import pytest
import scipy.optimize
import scipy.sparse as sp

from _helpers import assert_stats_equal
from _helpers import blobs as _blobs
from _helpers import rbf as _rbf
from stochsvm import KernelSVM, find_gamma, find_gamma_and_bias, kernel_matrix


# ---------------------------------------------------------------------------
#                                   Kernels
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("kernel,params", [
    ("linear", {}),
    ("rbf", {"gamma": 0.3}),
    ("poly", {"gamma": 0.5, "coef0": 1.0, "degree": 3}),
    ("sigmoid", {"gamma": 0.1, "coef0": -0.5}),
])
@pytest.mark.parametrize("layout", ["dense", "csr"])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_kernel_matrix_matches_sklearn(kernel, params, layout, dtype):
    from sklearn.metrics.pairwise import pairwise_kernels
    rng = np.random.default_rng(1)
    X = rng.normal(size=(15, 7)) * (rng.random((15, 7)) < 0.6)
    Y = rng.normal(size=(11, 7)) * (rng.random((11, 7)) < 0.6)
    X, Y = X.astype(dtype), Y.astype(dtype)
    ref = pairwise_kernels(X.astype(np.float64), Y.astype(np.float64), metric=kernel, **params)
    A, B = (sp.csr_matrix(X), sp.csr_matrix(Y)) if layout == "csr" else (X, Y)
    K = kernel_matrix(A, B, kernel=kernel, **params)
    np.testing.assert_allclose(K, ref, rtol=1e-10, atol=1e-12)


def test_kernel_matrix_sigma2_and_default_gamma():
    X, _ = _blobs(20, 3)
    np.testing.assert_allclose(kernel_matrix(X, sigma2=2.0), _rbf(X, X, 0.25), rtol=1e-12)
    np.testing.assert_allclose(kernel_matrix(X), _rbf(X, X, 1 / 3), rtol=1e-12)
    with pytest.raises(ValueError, match="gamma or sigma2"):
        kernel_matrix(X, gamma=1.0, sigma2=1.0)
    with pytest.raises(ValueError, match="kernel must be one of"):
        kernel_matrix(X, kernel="laplacian")
    for bad in (-1.0, 0.0, np.inf, np.nan):
        with pytest.raises(ValueError, match="gamma must be"):  # (inf once named coef0)
            kernel_matrix(X, gamma=bad)
    with pytest.raises(ValueError, match="coef0 must be"):
        kernel_matrix(X, kernel="poly", coef0=np.inf)
    with pytest.raises(ValueError, match="features"):
        kernel_matrix(X, X[:, :2])


# ---------------------------------------------------------------------------
#                          Water filling vs sorting
# ---------------------------------------------------------------------------

def _gamma_by_sorting(c, volume):
    a = np.sort(c)
    csum = np.cumsum(a)
    k = np.arange(1, a.size + 1)
    levels = (volume + csum) / k
    ok = np.append(levels[:-1] <= a[1:], True)
    return levels[np.argmax(ok)]


def _gamma_bias_by_sorting(y, c, volume):
    a, d = np.sort(c[y > 0]), np.sort(c[y < 0])
    K = min(a.size, d.size)
    ks = np.arange(K)
    sa = np.concatenate([[0], np.cumsum(a)[:K - 1]])
    sd = np.concatenate([[0], np.cumsum(d)[:K - 1]])
    need = ks * (a[:K] + d[:K]) - sa - sd
    k = np.nonzero(need <= volume)[0].max()
    D = (volume - need[k]) / (k + 1)
    ga = a[k + 1] - a[k] if k + 1 < a.size else np.inf
    gd = d[k + 1] - d[k] if k + 1 < d.size else np.inf
    du = 0.5 * (max(0.0, D - gd) + min(ga, D))
    u, v = a[k] + du, d[k] + D - du
    return 0.5 * (u + v), 0.5 * (v - u), k + 1


def _random_case(rng):
    n = int(rng.integers(2, 300))
    mode = rng.integers(4)
    if mode == 0:
        c = rng.normal(size=n)
    elif mode == 1:
        c = rng.integers(-3, 4, size=n).astype(float)     # many ties
    elif mode == 2:
        c = np.full(n, rng.normal())                       # all equal
    else:
        c = np.round(rng.normal(size=n), 1) * 10.0 ** rng.integers(-3, 4)
    y = np.where(rng.random(n) < rng.uniform(0.1, 0.9), 1.0, -1.0)
    y[0], y[-1] = 1.0, -1.0
    volume = n * 10 ** rng.uniform(-4, 0.5)
    return c, y, volume


def test_find_gamma_matches_sorting_reference():
    rng = np.random.default_rng(2)
    for _ in range(3000):
        c, _, volume = _random_case(rng)
        gamma = find_gamma(c, volume)
        ref = _gamma_by_sorting(c, volume)
        assert gamma == pytest.approx(ref, rel=1e-10, abs=1e-10 * (1 + np.abs(c).max()))
        poured = np.maximum(0, gamma - c).sum()
        assert poured == pytest.approx(volume, rel=1e-9, abs=1e-9 * (1 + np.abs(c).max()))


def test_find_gamma_and_bias_matches_sorting_reference():
    rng = np.random.default_rng(3)
    for _ in range(3000):
        c, y, volume = _random_case(rng)
        gamma, bias, k = find_gamma_and_bias(y, c, volume)
        rg, rb, rk = _gamma_bias_by_sorting(y, c, volume)
        scale = 1 + np.abs(c).max()
        assert gamma == pytest.approx(rg, rel=1e-10, abs=1e-10 * scale)
        assert bias == pytest.approx(rb, rel=1e-10, abs=1e-10 * scale)
        assert k == rk
        h = c + y * bias
        assert np.maximum(0, gamma - h).sum() == pytest.approx(volume, rel=1e-8, abs=1e-8 * scale)
        # gamma is the best level over all biases: no bias pours less at this level
        for b in (bias - 0.1, bias + 0.1):
            assert np.maximum(0, gamma - (c + y * b)).sum() >= volume * (1 - 1e-9)


def test_water_filling_errors():
    with pytest.raises(ValueError, match="volume"):
        find_gamma([1.0, 2.0], 0.0)
    with pytest.raises(ValueError, match="NaN"):
        find_gamma([1.0, np.nan], 1.0)
    with pytest.raises(ValueError, match="both classes"):
        find_gamma_and_bias([1, 1], [0.0, 1.0], 1.0)
    with pytest.raises(ValueError, match="-1 and \\+1"):
        find_gamma_and_bias([1, 2], [0.0, 1.0], 1.0)


# ---------------------------------------------------------------------------
#                         Solvers against references
# ---------------------------------------------------------------------------

def test_kernel_sdca_reaches_the_dual_optimum_of_lbfgsb():
    """Kernel SDCA's dual objective equals the box-QP optimum computed by
    scipy's L-BFGS-B to 1e-6 relative, and its alpha is that optimum."""
    X, y = _blobs(200, 5, seed=4, sep=0.6)
    lam, gamma = 1.0 / 200, 0.2
    n = len(y)
    C = 1 / (lam * n)
    Q = (y[:, None] * y[None, :]) * _rbf(X, X, gamma)

    def negdual(a):
        Qa = Q @ a
        return 0.5 * a @ Qa - a.sum(), Qa - 1

    res = scipy.optimize.minimize(negdual, np.full(n, C / 2), jac=True, method="L-BFGS-B",
                                  bounds=[(0, C)] * n,
                                  options={"ftol": 1e-15, "gtol": 1e-12, "maxiter": 20000})
    ref = -lam * res.fun
    svm = KernelSVM(X, y, lam, solver="sdca", gamma=gamma, seed=3)
    svm.set_epsilon(1e-12)
    svm.set_max_num_iterations(500 * n)
    st = svm.train()
    assert st["status"] == "converged"
    assert st["dual_objective"] == pytest.approx(ref, rel=1e-6)
    assert st["primal_objective"] == pytest.approx(ref, rel=1e-6)
    np.testing.assert_allclose(svm.get_dual_variables(), res.x, atol=1e-3 * C)
    # The decision function is the expansion sum_i alpha_i y_i K(x_i, .).
    alpha = svm.get_dual_variables()
    np.testing.assert_allclose(svm.decision_function(X), _rbf(X, X, gamma) @ (alpha * y),
                               rtol=1e-9, atol=1e-9)


def test_pegasos_and_perceptron_learn():
    X, y = _blobs(300, 3, seed=5, sep=1.5)
    for solver in ("pegasos", "perceptron", "sbp"):
        svm = KernelSVM(X, y, 1e-2, solver=solver, sigma2=2.0, seed=1)
        svm.set_max_num_iterations(5 * len(y))
        st = svm.train()
        assert st["training_error"] < 0.15, solver
        assert st["num_kernel_evaluations"] > 0
        assert np.mean(svm.predict(X) == y) == pytest.approx(1 - st["training_error"])


def test_pegasos_approaches_the_regularized_optimum():
    X, y = _blobs(150, 3, seed=6, sep=0.7)
    lam = 0.05
    ref = KernelSVM(X, y, lam, solver="sdca", sigma2=1.0)
    ref.set_epsilon(1e-10)
    ref.set_max_num_iterations(1000 * len(y))
    opt = ref.train()["primal_objective"]
    peg = KernelSVM(X, y, lam, solver="pegasos", sigma2=1.0, seed=2)
    peg.set_max_num_iterations(200 * len(y))
    got = peg.train()["primal_objective"]
    assert opt <= got < opt * 1.03


def test_sbp_approaches_the_hard_margin_solution():
    """On separable data with a tiny slack budget the SBP's margin approaches the
    hard-margin SVM's 1 / ||w*|| (LIBSVM via SVC with a huge C, with bias)."""
    from sklearn.svm import SVC
    X, y = _blobs(80, 2, seed=7, sep=3.0)
    gamma = 0.5
    svc = SVC(C=1e8, kernel="rbf", gamma=gamma, tol=1e-6).fit(X, y)
    assert np.all(y * svc.decision_function(X) > 0.99)     # separable, hard margin
    coef = svc.dual_coef_.ravel()
    sv = X[svc.support_]
    hard_margin = 1 / np.sqrt(coef @ _rbf(sv, sv, gamma) @ coef)

    svm = KernelSVM(X, y, 1.0, solver="sbp", gamma=gamma, seed=0)
    svm.set_unregularized_bias(True)
    svm.set_nu(1e-6)
    svm.set_max_num_iterations(4000)
    margins = []
    svm.set_diagnostic_frequency(1000)
    svm.set_diagnostic_function(lambda st: margins.append(st["margin"]))
    svm.train()
    # The slack-constrained margin with a tiny budget approaches the hard margin.
    assert margins[-1] == pytest.approx(hard_margin, rel=0.05)
    assert margins[-1] >= margins[0] - 1e-12
    assert np.all(svm.predict(X) == y)


@pytest.mark.parametrize("solver", ["sbp", "sdca", "pegasos", "perceptron"])
def test_dense_and_csr_give_the_same_model(solver):
    X, y = _blobs(100, 6, seed=8, sep=0.5)
    X[np.abs(X) < 0.5] = 0
    models = []
    for A in (X, sp.csr_matrix(X), X.astype(np.float32), sp.csr_matrix(X.astype(np.float32))):
        svm = KernelSVM(A, y, 0.01, solver=solver, sigma2=3.0, seed=5)
        svm.set_max_num_iterations(3 * len(y))
        svm.train()
        models.append((svm.get_support_indices(), svm.get_coefficients(), svm.decision_function(X)))
    # float32 values are not the float64 ones: dense and CSR are compared
    # within each element type, the two types loosely.
    for a, b in ((0, 1), (2, 3)):
        np.testing.assert_array_equal(np.sort(models[a][0]), np.sort(models[b][0]))
        np.testing.assert_allclose(models[a][2], models[b][2], rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(models[0][2], models[2][2], rtol=1e-3, atol=1e-3)


def test_precomputed_kernel_matches_rbf():
    X, y = _blobs(80, 3, seed=9)
    G = _rbf(X, X, 0.4)
    a = KernelSVM(X, y, 0.02, solver="sbp", gamma=0.4, seed=1)
    b = KernelSVM(G, y, 0.02, solver="sbp", kernel="precomputed", seed=1)
    for s in (a, b):
        # nu set: compare the kernels alone, not the warm-ups' estimates
        s.set_nu(0.01)
        s.set_max_num_iterations(300)
        s.train()
    np.testing.assert_allclose(a.get_coefficients(), b.get_coefficients(), rtol=1e-9)
    Xt, _ = _blobs(10, 3, seed=10)
    np.testing.assert_allclose(a.decision_function(Xt), b.decision_function(_rbf(Xt, X, 0.4)),
                               rtol=1e-9, atol=1e-12)
    with pytest.raises(ValueError, match="square"):
        KernelSVM(X, y, 0.1, kernel="precomputed")


def test_nu_from_model_matches_its_definition():
    X, y = _blobs(100, 3, seed=11)
    lam = 0.01
    ref = KernelSVM(X, y, lam, solver="sdca", sigma2=1.0)
    ref.train()
    f = ref.decision_function(X)
    alpha = ref.get_dual_variables()
    w2 = (alpha * y) @ _rbf(X, X, 0.5) @ (alpha * y)
    expected = np.maximum(0, 1 - y * f).mean() / np.sqrt(w2)
    assert ref.nu_from_model() == pytest.approx(expected, rel=1e-10)


# ---------------------------------------------------------------------------
#                     Object conventions: warm start, pickle, errors
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("solver", ["sbp", "sdca", "pegasos", "perceptron"])
def test_warm_start_is_bitwise(solver):
    X, y = _blobs(90, 3, seed=12)
    a = KernelSVM(X, y, 0.02, solver=solver, sigma2=1.0, seed=4)
    b = KernelSVM(X, y, 0.02, solver=solver, sigma2=1.0, seed=4)
    a.set_max_num_iterations(200)
    b.set_max_num_iterations(100)
    a.train()
    b.train()
    b.train()
    assert b.get_iteration_number() == 200
    np.testing.assert_array_equal(a.get_coefficients(), b.get_coefficients())
    np.testing.assert_array_equal(a.get_dual_variables(), b.get_dual_variables())
    assert a.get_num_kernel_evaluations() == b.get_num_kernel_evaluations()


@pytest.mark.parametrize("sparse", [False, True])
def test_pickle_keeps_the_model(sparse):
    X, y = _blobs(60, 4, seed=13)
    A = sp.csr_matrix(X) if sparse else X
    svm = KernelSVM(A, y, 0.05, solver="sbp", sigma2=2.0, seed=3)
    svm.set_unregularized_bias(True)
    svm.set_nu(0.05)
    svm.set_max_num_iterations(200)
    svm.train()
    clone = pickle.loads(pickle.dumps(svm))
    assert clone.get_solver() == "sbp" and clone.get_unregularized_bias()
    assert clone.get_nu() == 0.05 and clone.get_max_num_iterations() == 200
    np.testing.assert_array_equal(clone.decision_function(A), svm.decision_function(A))
    assert_stats_equal(clone.get_statistics(), svm.get_statistics())
    with pytest.raises(RuntimeError, match="no data"):
        clone.train()
    clone.set_data(A, y)
    clone.train()


def test_errors_name_the_argument():
    X, y = _blobs(30, 2)
    with pytest.raises(ValueError, match="solver must be one of"):
        KernelSVM(X, y, 0.1, solver="smo")
    with pytest.raises(ValueError, match="lambda_"):
        KernelSVM(X, y, 0.0)
    with pytest.raises(ValueError, match="-1 and \\+1"):
        KernelSVM(X, y * 2, 0.1)
    with pytest.raises(ValueError, match="NaN"):
        KernelSVM(np.where(X > 1, np.nan, X), y, 0.1)
    svm = KernelSVM(X, y, 0.1, sigma2=1.0)
    for setter, bad in [("set_nu", 0.0), ("set_eta0", -1.0), ("set_epsilon", -1.0),
                        ("set_lambda", float("nan")), ("set_max_num_iterations", 0),
                        ("set_diagnostic_frequency", 0)]:
        with pytest.raises(ValueError, match=setter[4:]):
            getattr(svm, setter)(bad)
    with pytest.raises(TypeError):
        svm.set_nu("big")
    with pytest.raises(ValueError, match="unregularized_bias=True needs the solver 'sbp'"):
        KernelSVM(X, y, 0.1, solver="pegasos").set_unregularized_bias(True)
    with pytest.raises(ValueError, match="columns"):
        svm.decision_function(X[:, :1])
    one_class = KernelSVM(X, np.ones_like(y), 0.1)
    one_class.set_unregularized_bias(True)
    with pytest.raises(ValueError, match="both classes"):
        one_class.train()


def test_diagnostic_callback_can_stop_and_score():
    X, y = _blobs(100, 3, seed=14)
    svm = KernelSVM(X, y, 0.01, solver="sbp", sigma2=1.0)
    svm.set_diagnostic_frequency(10)
    seen = []

    def cb(st):
        seen.append(np.mean(svm.predict(X) == y))
        return len(seen) == 3

    svm.set_diagnostic_function(cb)
    st = svm.train()
    assert st["status"] == "interrupted" and st["iteration"] == 30
    assert len(seen) == 3


def test_training_releases_the_gil():
    """While a worker thread trains, the main thread keeps running Python code
    (no gap between its time stamps as long as the training itself)."""
    import time
    from concurrent.futures import ThreadPoolExecutor

    X, y = _blobs(1500, 5, seed=15)
    svm = KernelSVM(X, y, 0.01, solver="sbp", sigma2=1.0)
    svm.set_max_num_iterations(3000)
    svm.set_diagnostic_frequency(10 ** 9)
    with ThreadPoolExecutor(max_workers=1) as pool:
        future = pool.submit(svm.train)
        stamps = [time.perf_counter()]
        while not future.done():
            stamps.append(time.perf_counter())
        stats = future.result()
    elapsed = stats["elapsed_time"]
    assert elapsed > 0.05
    assert np.max(np.diff(stamps)) < 0.5 * elapsed


# ---------------------------------------------------------------------------
#                      a9a: SBP with a bias against LIBSVM
# ---------------------------------------------------------------------------

@pytest.mark.slow
def test_sbp_with_bias_matches_libsvm_accuracy_on_a9a():
    """Paper's settings with an unregularized bias (sigma^2 = 100,
    lambda = 1/(100 n), nu = 5.79e-4) on the first 4000 a9a examples: the SBP's
    test accuracy after two epochs is within 0.5% of LIBSVM's (SVC, C = 1/(lambda n))."""
    data = os.environ.get("STOCHSVM_DATA")
    if not data:
        pytest.skip("STOCHSVM_DATA is not set (the a9a files are needed)")
    from sklearn.svm import SVC

    from stochsvm._testing import load_benchmark
    X, y, Xt, yt = load_benchmark("a9a")
    n = 4000
    X, y = X[:n], y[:n]
    lam = 1 / (100 * n)
    svc = SVC(C=1 / (lam * n), kernel="rbf", gamma=1 / 200).fit(X, y)
    svc_acc = np.mean(svc.predict(Xt) == yt)
    sbp = KernelSVM(X, y, lam, solver="sbp", sigma2=100.0, seed=0)
    sbp.set_unregularized_bias(True)
    sbp.set_nu(5.79e-4)
    sbp.set_max_num_iterations(2 * n)
    sbp.train()
    sbp_acc = np.mean(sbp.predict(Xt) == yt)
    assert abs(sbp_acc - svc_acc) <= 0.005, (sbp_acc, svc_acc)


_OWN_SETTINGS = {"set_nu": ("sbp",), "set_eta0": ("sbp",), "set_budget": ("bsca", "bsgd"),
                 "set_budget_maintenance": ("bsca", "bsgd")}
_VALUES = {"set_nu": 0.2, "set_eta0": 0.5, "set_budget": 7, "set_budget_maintenance": "remove"}


@pytest.mark.parametrize("solver", ["sbp", "pegasos", "sdca", "perceptron", "bsca", "bsgd"])
def test_a_setting_of_another_solver_is_refused_not_ignored(solver):
    # The kernel object took set_nu on SDCA, set_budget on the SBP and the like
    # and ignored them; the linear object refuses its solvers' own settings.
    X, y = _blobs(40, 3, seed=2)
    svm = KernelSVM(X, y, 0.05, solver=solver, gamma=0.5)
    getters = {"set_nu": svm.get_nu, "set_eta0": svm.get_eta0, "set_budget": svm.get_budget,
               "set_budget_maintenance": svm.get_budget_maintenance}
    for setter, solvers in _OWN_SETTINGS.items():
        value = _VALUES[setter]
        if solver in solvers:
            getattr(svm, setter)(value)
            assert getters[setter]() == value
        else:
            before = getters[setter]()
            with pytest.raises(ValueError, match=f"applies to .*'{solver}'"):
                getattr(svm, setter)(value)
            assert getters[setter]() == before
    if solver != "sbp":
        svm.set_nu(None)  # forgetting a nu: nothing to do, so no error either
    svm.set_max_num_iterations(40)
    svm.train()
    # a pickle restores the settings each solver has, and an old pickle's
    # budget fields (written for every solver) do not break the others
    state = svm.__reduce__()[1][0]
    assert "budget" in state and "budget_maintenance" in state
    again = pickle.loads(pickle.dumps(svm))
    assert again.get_solver() == solver
    if solver in ("bsca", "bsgd"):
        assert (again.get_budget(), again.get_budget_maintenance()) == (7, "remove")
    if solver == "sbp":
        assert (again.get_nu(), again.get_eta0()) == (0.2, 0.5)
    np.testing.assert_array_equal(again.decision_function(X), svm.decision_function(X))


@pytest.mark.parametrize("setting", [{"nu": 0.1}, {"eta0": 0.5}])
@pytest.mark.parametrize("solver", ["pegasos", "sdca", "perceptron", "bsca", "bsgd"])
def test_the_estimator_refuses_the_sbps_settings_for_other_solvers(solver, setting):
    from stochsvm import KernelSVMClassifier
    X, y = _blobs(40, 3, seed=2)
    name = next(iter(setting))
    with pytest.raises(ValueError, match=f"{name} is the SBP's setting; solver='{solver}'"):
        KernelSVMClassifier(solver=solver, **setting).fit(X, y)
    KernelSVMClassifier(solver="sbp", **setting).fit(X, y)


def test_docstrings_state_the_defaults_in_force():
    # set_max_num_iterations said "default 10 n" (it is 100 n), set_epsilon
    # "SDCA's duality-gap threshold" (every solver but the Perceptron reads
    # it), and the class said SDCA learns no bias.
    import re

    X, y = _blobs(40, seed=1)
    n = X.shape[0]
    epochs = int(re.search(r"default (\d+) n", KernelSVM.set_max_num_iterations.__doc__).group(1))
    eps = float(re.search(r"default ([0-9.e-]+) for every", KernelSVM.set_epsilon.__doc__).group(1))
    for solver in ("sbp", "pegasos", "sdca", "perceptron", "bsca", "bsgd"):
        svm = KernelSVM(X, y, 1e-2, solver=solver, kernel="rbf", gamma=1.0)
        assert svm.get_max_num_iterations() == epochs * n, solver
        assert svm.get_epsilon() == eps, solver
    for name in ("SDCA", "BSCA", "Pegasos", "BSGD", "SBP", "Perceptron"):
        assert name in KernelSVM.set_epsilon.__doc__
    assert "SDCA and BSCA can\n    learn an unregularized bias" in KernelSVM.__doc__
    svm = KernelSVM(X, y, 1e-2, solver="sdca", kernel="rbf", gamma=1.0)
    svm.set_unregularized_bias(True)           # the class docstring's claim
