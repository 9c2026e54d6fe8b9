"""RES and LRES (regularized stochastic BFGS, Mokhtari & Ribeiro; include/stochsvm/res.h).

Oracles: scipy.optimize.minimize on the same smooth objective, a textbook
BFGS written here in numpy, numpy's eigenvalues of the curvature, and the
paper's data distribution.
"""

import math
import pickle
import warnings

import numpy as np
import pytest
import scipy.optimize
import scipy.special
import scipy.stats
from sklearn.exceptions import ConvergenceWarning

import stochsvm
from stochsvm.datasets import make_uniform_overlap


def _problem(seed, n=300, d=5):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    y = np.where(X @ rng.standard_normal(d) + 0.3 * rng.standard_normal(n) > 0, 1.0, -1.0)
    return X, y


def _objective(X, y, lam, loss, wt):
    """lambda/2 (||w||^2 + w_b^2) + mean loss, bias multiplier 1 (w_b = b)."""
    w, b = wt[:-1], wt[-1]
    z = y * (X @ w + b)
    if loss == "hinge2":
        losses = np.maximum(0.0, 1.0 - z) ** 2
    else:
        losses = np.logaddexp(0.0, -z)
    return 0.5 * lam * (w @ w + b * b) + losses.mean()


def _scipy_optimum(X, y, lam, loss):
    d = X.shape[1]
    res = scipy.optimize.minimize(lambda wt: _objective(X, y, lam, loss, wt), np.zeros(d + 1),
                                  method="L-BFGS-B", options={"gtol": 1e-12, "ftol": 1e-15})
    return res.fun


@pytest.mark.parametrize("solver", ["res", "lres"])
@pytest.mark.parametrize("loss", ["hinge2", "logistic"])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_reaches_scipy_optimum(solver, loss, seed):
    X, y = _problem(seed)
    lam = 1e-2
    f_star = _scipy_optimum(X, y, lam, loss)
    svm = stochsvm.SVM(X, y, lam, solver=solver, loss=loss, seed=seed)
    svm.set_res_minibatch_size(150)
    svm.set_res_delta(lam / 2)
    svm.set_res_eps0(1.0)
    svm.set_res_tau(10.0)
    svm.set_epsilon(0)
    svm.set_max_num_iterations(300 * len(y))
    stats = svm.train()
    # our objective, recomputed independently from the returned model
    wt = np.append(svm.get_model(), svm.get_bias())
    f = _objective(X, y, lam, loss, wt)
    assert f == pytest.approx(stats["objective"], rel=1e-12)
    assert f_star <= f <= f_star * (1 + 1e-3)
    assert svm.get_curvature_statistics()["updates"] > 0


def _min_eigenvalue(B):
    return np.linalg.eigvalsh(B).min()


@pytest.mark.parametrize("delta", [1e-3, 5e-2])
def test_curvature_spd_with_floor(delta):
    """Bhat stays symmetric positive definite with eigenvalues >= delta over many
    steps, also when delta exceeds lambda and curvature updates are skipped."""
    X, y = make_uniform_overlap(2000, 6, seed=3)
    lam = 1e-2
    svm = stochsvm.SVM(X, y, lam, solver="res", loss="hinge2", seed=1)
    svm.set_res_delta(delta)
    svm.set_max_num_iterations(100)
    svm.set_epsilon(0)
    smallest = []
    for _ in range(40):
        svm.train()
        B = svm.get_res_curvature_state()
        assert np.array_equal(B, B.T)
        smallest.append(_min_eigenvalue(B))
    stats = svm.get_curvature_statistics()
    assert stats["updates"] >= 100 and stats["restarts"] == 0
    assert min(smallest) >= delta * (1 - 1e-9)
    if delta > lam:
        assert stats["skips"] > 0        # the floor exceeds the curvature along some v


def test_delta_zero_equals_textbook_bfgs():
    """delta = Gamma = 0, the full data as minibatch and a unit step on the
    quadratic objective of the l2 loss: RES is textbook BFGS."""
    rng = np.random.default_rng(4)
    n, d, lam = 40, 4, 0.1
    X = rng.standard_normal((n, d))
    y = rng.standard_normal(n)
    svm = stochsvm.SVM(X, y, lam, solver="res", loss="l2")
    svm.set_bias_multiplier(0)
    svm.set_res_delta(0)
    svm.set_res_gamma(0)
    svm.set_res_eps0(1.0)
    svm.set_res_tau(math.inf)
    svm.set_res_minibatch_size(n)
    svm.set_res_initial_curvature(2.0)
    svm.set_max_num_iterations(n)          # one step per train call
    svm.set_epsilon(0)

    def grad(w):
        return lam * w + 2.0 / n * X.T @ (X @ w - y)

    w, B = np.zeros(d), 2.0 * np.eye(d)
    for _ in range(6):
        g = grad(w)
        w_new = w - np.linalg.solve(B, g)
        s, r = w_new - w, grad(w_new) - g
        B = B - np.outer(B @ s, B @ s) / (s @ B @ s) + np.outer(r, r) / (s @ r)
        w = w_new
        svm.train()
        np.testing.assert_allclose(svm.get_model(), w, rtol=1e-9, atol=1e-12)
        state = svm.get_res_curvature_state()
        np.testing.assert_allclose(state[:d, :d], B, rtol=1e-9, atol=1e-12)
        assert state[d, d] == 2.0 and not state[d, :d].any()


@pytest.mark.parametrize("solver", ["res", "lres"])
def test_split_training_equals_whole_and_fresh_object_continues(solver):
    X, y = make_uniform_overlap(503, 7, seed=5)      # 503 = 100 L + 3: a short last minibatch
    lam = 1e-3

    def make():
        svm = stochsvm.SVM(X, y, lam, solver=solver, seed=9)
        svm.set_res_delta(5e-4)
        svm.set_epsilon(0)
        # eps0 set: no step back-off. (LRES's objective here is 7.6 after
        # 750 steps, above the zero model's; at the default eps0 the run
        # backs off at its next diagnostic, which the fresh object below,
        # whose history starts at that model, does not take.)
        svm.set_res_eps0(svm.get_res_eps0())
        return svm

    whole = make()
    whole.set_max_num_iterations(1500)
    whole.train()
    half = make()
    half.set_max_num_iterations(750)
    half.train()
    state = (half.get_model(), half.get_bias(), half.get_iteration_number(),
             half.get_res_curvature_state())
    half.train()
    assert np.array_equal(whole.get_model(), half.get_model())
    assert whole.get_bias() == half.get_bias()
    assert np.array_equal(whole.get_res_curvature_state(), half.get_res_curvature_state())

    fresh = make()
    fresh.set_model(state[0])
    fresh.set_bias(state[1])
    fresh.set_iteration_number(state[2])
    fresh.set_res_curvature_state(state[3])
    fresh.set_max_num_iterations(750)
    fresh.train()
    np.testing.assert_allclose(fresh.get_model(), whole.get_model(), rtol=1e-12, atol=1e-14)
    assert fresh.get_bias() == pytest.approx(whole.get_bias(), rel=1e-12, abs=1e-14)

    # without the curvature the continuation differs: the state matters
    cold = make()
    cold.set_model(state[0])
    cold.set_bias(state[1])
    cold.set_iteration_number(state[2])
    cold.set_max_num_iterations(750)
    cold.train()
    assert not np.allclose(cold.get_model(), whole.get_model(), rtol=1e-6)


@pytest.mark.parametrize("solver", ["res", "lres"])
def test_sparse_and_float32_agree_with_dense(solver):
    import scipy.sparse as sp
    X, y = make_uniform_overlap(400, 5, seed=6)
    X[X < 0] = 0.0
    X = X.astype(np.float32).astype(np.float64)    # values exact in float32
    models = []
    for data in (X, sp.csr_matrix(X), X.astype(np.float32), sp.csr_matrix(X.astype(np.float32))):
        svm = stochsvm.SVM(data, y, 1e-2, solver=solver, seed=2)
        svm.set_max_num_iterations(1000)
        svm.train()
        models.append(svm.get_model())
    # CSR and dense rows sum their inner products in different orders; 200
    # quasi-Newton steps amplify that rounding to a few 1e-12 (LRES)
    for model in models[1:]:
        np.testing.assert_allclose(model, models[0], rtol=1e-10, atol=1e-14)


@pytest.mark.parametrize("solver", ["res", "lres"])
def test_concurrent_training_equals_serial(solver):
    import threading
    X, y = make_uniform_overlap(3000, 6, seed=8)

    def make(seed):
        svm = stochsvm.SVM(X, y, 1e-3, solver=solver, seed=seed)
        svm.set_max_num_iterations(3 * len(y))
        svm.set_epsilon(0)
        return svm

    serial = []
    for seed in range(4):
        svm = make(seed)
        svm.train()
        serial.append(svm.get_model())
    svms = [make(seed) for seed in range(4)]
    threads = [threading.Thread(target=svm.train) for svm in svms]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for svm, model in zip(svms, serial):
        assert np.array_equal(svm.get_model(), model)


@pytest.mark.parametrize("solver", ["res", "lres"])
def test_non_differentiable_losses_rejected(solver):
    X, y = make_uniform_overlap(50, 3)
    with pytest.raises(ValueError, match="differentiable"):
        stochsvm.SVM(X, y, 1e-2, solver=solver, loss="hinge")
    svm = stochsvm.SVM(X, y, 1e-2, solver=solver)
    assert svm.get_loss() == "hinge2"
    for loss in ("hinge", "l1"):
        with pytest.raises(ValueError, match="differentiable"):
            svm.set_loss(loss)
    assert svm.get_loss() == "hinge2"
    svm.set_loss("logistic")
    assert svm.get_loss() == "logistic"


@pytest.mark.parametrize("solver", ["res", "lres"])
def test_non_differentiable_losses_are_told_the_loss_of_their_task(solver):
    """l1 was told to use 'hinge2' or 'logistic', which the regressor
    refuses: a regression loss is told l2, a classification loss hinge2."""
    X, y = make_uniform_overlap(50, 3)
    with pytest.raises(ValueError, match="use loss='hinge2'") as hinge:
        stochsvm.SVM(X, y, 1e-2, solver=solver, loss="hinge")
    with pytest.raises(ValueError, match="use loss='l2'") as l1:
        stochsvm.LinearSVMRegressor(solver=solver, loss="l1").fit(X, y)
    assert "logistic'" in str(hinge.value) and "hinge2'" not in str(l1.value).split("use")[1]
    with warnings.catch_warnings():   # the advice works (a short run: its cap is no matter)
        warnings.simplefilter("ignore", ConvergenceWarning)
        stochsvm.LinearSVMRegressor(solver=solver, loss="l2", max_iter=2).fit(X, y)


@pytest.mark.parametrize("setter, bad, exc", [
    ("set_res_minibatch_size", 0, ValueError),
    ("set_res_minibatch_size", -3, ValueError),
    ("set_res_minibatch_size", 2.5, ValueError),
    ("set_res_delta", -1e-3, ValueError),
    ("set_res_delta", math.nan, ValueError),
    ("set_res_delta", math.inf, ValueError),
    ("set_res_gamma", -1.0, ValueError),
    ("set_res_gamma", math.nan, ValueError),
    ("set_res_eps0", 0.0, ValueError),
    ("set_res_eps0", math.inf, ValueError),
    ("set_res_tau", 0.0, ValueError),
    ("set_res_tau", -5.0, ValueError),
    ("set_res_tau", math.nan, ValueError),
    ("set_res_initial_curvature", 0.0, ValueError),
    ("set_res_initial_curvature", math.inf, ValueError),
    ("set_lres_memory", 0, ValueError),
    ("set_lres_memory", 2 ** 40, ValueError),
    ("set_res_delta", "0.1", TypeError),
    ("set_res_minibatch_size", None, TypeError),
])
def test_bad_setter_values_rejected(setter, bad, exc):
    X, y = make_uniform_overlap(50, 3)
    svm = stochsvm.SVM(X, y, 1e-2, solver="lres")
    name = setter.replace("set_", "", 1)
    before = getattr(svm, "get_" + name)()
    with pytest.raises(exc, match=name if exc is ValueError else None):
        getattr(svm, setter)(bad)
    assert getattr(svm, "get_" + name)() == before


def test_defaults_and_roundtrip():
    X, y = make_uniform_overlap(50, 3)
    svm = stochsvm.SVM(X, y, 1e-2, solver="res")
    assert (svm.get_res_minibatch_size(), svm.get_res_delta(), svm.get_res_eps0(),
            svm.get_res_tau(), svm.get_lres_memory()) == (5, 1e-3, 0.1, 100.0, 10)
    # Bhat_0 = diag(delta + lambda + 2 mean_i x~_ij^2) (squared hinge: curvature 2),
    # b0 its mean, Gamma = 1e-4 / b0
    Xt = np.hstack([X, np.ones((len(y), 1))])
    diag = 1e-3 + 1e-2 + 2 * np.mean(Xt ** 2, axis=0)
    np.testing.assert_allclose(svm.get_res_curvature_state(), np.diag(diag), rtol=1e-12, atol=0)
    assert svm.get_res_initial_curvature() == pytest.approx(diag.mean(), rel=1e-12)
    assert svm.get_res_gamma() == pytest.approx(1e-4 / diag.mean(), rel=1e-12)
    svm.set_res_tau(math.inf)
    assert svm.get_res_tau() == math.inf
    svm.set_res_initial_curvature(3.0)
    svm.reset_res_curvature()
    np.testing.assert_array_equal(svm.get_res_curvature_state(), 3.0 * np.eye(4))


def test_initial_curvature_must_exceed_delta():
    X, y = make_uniform_overlap(50, 3)
    svm = stochsvm.SVM(X, y, 1e-2, solver="res")
    svm.set_res_initial_curvature(0.5)
    svm.set_res_delta(0.5)
    with pytest.raises(ValueError, match="initial curvature"):
        svm.train()


def test_curvature_state_validation():
    X, y = make_uniform_overlap(50, 3)
    res = stochsvm.SVM(X, y, 1e-2, solver="res")
    bad = np.eye(4)
    bad[0, 1] = 0.5                       # not symmetric
    with pytest.raises(ValueError, match="symmetric"):
        res.set_res_curvature_state(bad)
    with pytest.raises(ValueError, match="symmetric"):
        res.set_res_curvature_state(-np.eye(4))       # not positive definite
    with pytest.raises(ValueError):
        res.set_res_curvature_state(np.eye(3))        # wrong size
    initial = res.get_res_curvature_state()               # still Bhat_0, diagonal
    np.testing.assert_array_equal(initial, np.diag(np.diag(initial)))

    lres = stochsvm.SVM(X, y, 1e-2, solver="lres")
    lres.set_lres_memory(2)
    state = np.zeros(1 + 2 * 2 * 4)
    state[0] = 3                          # more pairs than the memory
    with pytest.raises(ValueError):
        lres.set_res_curvature_state(state)
    state[0] = 1
    state[1:5] = [1, 0, 0, 0]
    state[9:13] = [-1, 0, 0, 0]           # v^T r < 0
    with pytest.raises(ValueError):
        lres.set_res_curvature_state(state)
    state[9:13] = [2, 0, 0, 0]
    lres.set_res_curvature_state(state)
    np.testing.assert_array_equal(lres.get_res_curvature_state(), state)

    sgd = stochsvm.SVM(X, y, 1e-2, solver="sgd")
    with pytest.raises(RuntimeError, match="curvature"):
        sgd.get_res_curvature_state()


def test_interruption_and_statistics():
    X, y = make_uniform_overlap(500, 4, seed=1)
    svm = stochsvm.SVM(X, y, 1e-3, solver="res", seed=0)
    svm.set_bias_multiplier(0)
    svm.set_diagnostic_frequency(50)
    svm.set_max_num_iterations(500)
    svm.set_epsilon(0)
    seen = []
    svm.set_diagnostic_function(lambda st: seen.append(st["iteration"]) or len(seen) == 3)
    stats = svm.train()
    assert stats["status"] == "interrupted" and seen == [50, 100, 150]
    assert svm.get_iteration_number() == 150
    assert svm.get_bias() == 0.0


def test_generator_matches_paper_distribution():
    n, d = 20000, 4
    X, y = make_uniform_overlap(n, d, seed=11)
    assert X.shape == (n, d) and (y == -1).sum() == n // 2 and (y == 1).sum() == n // 2
    neg, pos = X[y < 0], X[y > 0]
    assert neg.min() >= -0.8 and neg.max() <= 0.2 and pos.min() >= -0.2 and pos.max() <= 0.8
    for j in range(d):
        assert scipy.stats.kstest(neg[:, j], "uniform", args=(-0.8, 1.0)).pvalue > 1e-3
        assert scipy.stats.kstest(pos[:, j], "uniform", args=(-0.2, 1.0)).pvalue > 1e-3
    corr = np.corrcoef(neg, rowvar=False)
    assert np.abs(corr - np.eye(d)).max() < 0.05          # independent coordinates
    # the clairvoyant linear rule sign(sum x): a sum of d uniforms is Irwin-Hall,
    # P(class -1 misclassified) = P(IH_d > 0.8 d) = P(IH_d < 0.2 d) = (0.2 d)^d / d!
    # for 0.2 d <= 1; d = 4: 98.29%, the paper's "98%"
    acc = np.mean(np.where(X.sum(axis=1) >= 0, 1.0, -1.0) == y)
    expected = 1 - (0.2 * d) ** d / math.factorial(d)
    assert expected == pytest.approx(0.9829, abs=1e-4)
    assert acc == pytest.approx(expected, abs=0.003)
    # the Bayes rule (not linear) errs only on the overlap cube, half the time
    in_cube = np.all(np.abs(X) <= 0.2, axis=1)
    assert in_cube.mean() == pytest.approx(0.4 ** d, abs=0.003)


@pytest.mark.parametrize("solver", ["res", "lres"])
def test_res_beats_sgd_on_paper_problem(solver):
    """The paper's Fig. 1 setting (d = 4), one run: after 2500 feature vectors
    RES is below SGD with the same step sizes (computed here in numpy)."""
    X, y = make_uniform_overlap(10000, 4, seed=0)
    lam = 1e-3
    svm = stochsvm.SVM(X, y, lam, solver=solver, seed=0)
    svm.set_bias_multiplier(0)
    svm.set_max_num_iterations(2500)
    svm.set_epsilon(0)
    f_res = svm.train()["objective"]
    # SGD, L = 1, eps_t = eps0 tau / (tau + t), the same visiting order is not needed
    rng = np.random.default_rng(0)
    w = np.zeros(4)
    for t, i in enumerate(rng.integers(0, len(y), 2500)):
        z = y[i] * (X[i] @ w)
        g = lam * w - (2 * max(0.0, 1 - z) * y[i]) * X[i]
        w -= 3e-2 * 100 / (100 + t) * g
    f_sgd = 0.5 * lam * w @ w + np.mean(np.maximum(0, 1 - y * (X @ w)) ** 2)
    assert f_res < f_sgd


def test_pickle_keeps_res_parameters():
    X, y = make_uniform_overlap(100, 3)
    svm = stochsvm.SVM(X, y, 1e-2, solver="lres")
    svm.set_res_minibatch_size(7)
    svm.set_res_delta(2e-3)
    svm.set_res_gamma(0)
    svm.set_res_eps0(0.1)
    svm.set_res_tau(math.inf)
    svm.set_res_initial_curvature(4.0)
    svm.set_lres_memory(3)
    svm.train()
    back = pickle.loads(pickle.dumps(svm))
    assert back.get_solver() == "lres"
    for name in ("res_minibatch_size", "res_delta", "res_gamma", "res_eps0", "res_tau",
                 "res_initial_curvature", "lres_memory"):
        assert getattr(back, "get_" + name)() == getattr(svm, "get_" + name)()
    np.testing.assert_array_equal(back.get_res_curvature_state(), svm.get_res_curvature_state())


def test_res_refuses_too_many_features_and_names_lres():
    """RES keeps a d x d matrix factorised every step: above its limit it
    refuses with a ValueError pointing to LRES (found by fuzzing: tens of
    thousands of features asked for gigabytes); LRES trains there."""
    rng = np.random.default_rng(0)
    X = rng.random((20, 1100))
    y = np.where(X[:, 0] > 0.5, 1.0, -1.0)
    with pytest.raises(ValueError, match=r"at most 1024 features.*solver='lres'"):
        stochsvm.SVM(X, y, 0.1, solver="res").train()
    assert np.isfinite(stochsvm.SVM(X, y, 0.1, solver="lres").train()["objective"])


# ---------------------------------------------------------------------------
# Defaults on data nobody tuned them to (issue 17): no divergence, no stall
# ---------------------------------------------------------------------------

def _digits():
    from sklearn.datasets import load_digits
    X, y = load_digits(return_X_y=True)
    return X.astype(np.float64), np.where(y % 2 == 0, 1.0, -1.0)


def _with_outlier(X, factor=100.0):
    """X with its largest row scaled to `factor` times the median squared norm."""
    X = X.copy()
    norms = (X ** 2).sum(axis=1)
    k = int(np.argmax(norms))
    X[k] *= math.sqrt(factor * np.median(norms) / norms[k])
    return X


def _wide_scales(n=1000, d=20, seed=0):
    """Features spanning 1e-3 .. 1e4 (feature j scaled by 10^(-3 + 7 j / (d - 1)))."""
    X, y = _problem(seed, n, d)
    return X * 10.0 ** np.linspace(-3, 4, d), y


def _defaults_problem(name):
    if name == "scales":
        return _wide_scales()
    X, y = _digits()
    return {"digits": X, "digits/16": X / 16, "digits/16+outlier": _with_outlier(X / 16)}[name], y


def _exact_optimum(X, y, lam, loss):
    """min of _objective by L-BFGS with the exact gradient, on columns scaled
    to unit RMS (the optimum does not depend on this change of variables)."""
    Xt = np.hstack([X, np.ones((len(y), 1))])
    scale = np.sqrt(np.mean(Xt ** 2, axis=0))
    scale[scale == 0] = 1.0               # all-zero columns (digits' borders)
    Z = Xt / scale

    def f(v):
        w = v / scale                        # w~ with Z v = Xt w~
        z = y * (Z @ v)
        if loss == "hinge2":
            r = np.maximum(0.0, 1.0 - z)
            value, dz = np.mean(r ** 2), -2 * r
        else:
            value, dz = np.mean(np.logaddexp(0.0, -z)), -scipy.special.expit(-z)
        grad_w = lam * w
        return 0.5 * lam * w @ w + value, grad_w / scale + Z.T @ (dz * y) / len(y)

    res = scipy.optimize.minimize(f, np.zeros(Xt.shape[1]), jac=True, method="L-BFGS-B",
                                  options={"maxiter": 50000, "gtol": 1e-13, "ftol": 1e-16})
    return res.fun


@pytest.mark.parametrize("solver", ["res", "lres"])
@pytest.mark.parametrize("name", ["digits", "digits/16", "digits/16+outlier", "scales"])
def test_defaults_never_diverge_and_approach_the_optimum(solver, name):
    """Nothing set but lambda = 1/n: before the data-derived Bhat_0 and the
    step safeguard, unscaled digits (||x||^2 up to 4e3) diverged to 1e31 and
    the 1e-3 .. 1e4 features stalled at 2.1x the optimum."""
    X, y = _defaults_problem(name)
    lam = 1.0 / len(y)
    f_star = _exact_optimum(X, y, lam, "hinge2")
    svm = stochsvm.SVM(X, y, lam, solver=solver)
    svm.set_epsilon(0)
    svm.set_max_num_iterations(len(y))   # one epoch per train() call
    history = []
    for _ in range(20):
        svm.train()
        f = _objective(X, y, lam, "hinge2", np.append(svm.get_model(), svm.get_bias()))
        history.append(f)
        assert math.isfinite(f) and f <= 1.0      # w = 0 scores 1: never above it
    assert f_star <= history[-1] <= 1.5 * f_star, (history[-1] / f_star, history)


@pytest.mark.parametrize("solver", ["res", "lres"])
def test_safeguard_contains_a_far_too_long_explicit_step(solver):
    """eps0 = 1e3 is honoured, but a step that would raise its own minibatch
    objective is halved until it does not, and every step stays in the ball
    ||w~||^2 <= 2 F(0) / lambda that holds the minimiser: the model stays
    bounded (it reached 1e108 before the safeguard). The objective can still
    be large in that ball; the run driver then stops with its divergence
    error, which is the right answer for a step this long."""
    X, y = _digits()
    lam = 1.0 / len(y)
    svm = stochsvm.SVM(X, y, lam, solver=solver)
    svm.set_res_eps0(1e3)
    assert svm.get_res_eps0() == 1e3
    svm.set_epsilon(0)
    svm.set_max_num_iterations(len(y))
    for _ in range(5):
        try:
            svm.train()
        except FloatingPointError as error:
            assert "eps0" in str(error)
        wt = np.append(svm.get_model(), svm.get_bias())
        assert math.isfinite(_objective(X, y, lam, "hinge2", wt))
        assert wt @ wt <= 2 * 1.0 / lam * (1 + 1e-12)   # F(0) = 1 for the squared hinge


@pytest.mark.parametrize("solver", ["res", "lres"])
def test_pickle_keeps_the_data_derived_defaults(solver):
    """b0 and Gamma follow the data unless set: a pickled object must not
    freeze them into explicit values (LRES recomputes its diagonal Bhat_0 at
    every train call, and continued differently by 0.57 before)."""
    X, y = make_uniform_overlap(500, 4, seed=1)
    X = X * np.array([1.0, 10.0, 100.0, 0.1])
    svm = stochsvm.SVM(X, y, 1e-2, solver=solver)
    svm.set_epsilon(0)
    svm.set_max_num_iterations(500)
    svm.train()
    back = pickle.loads(pickle.dumps(svm))
    back.set_data(X, y)
    svm.train()
    back.train()
    np.testing.assert_array_equal(back.get_model(), svm.get_model())
