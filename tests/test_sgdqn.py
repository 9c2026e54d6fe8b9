"""SVMSGD2 and SGD-QN (Bordes, Bottou, Gallinari 2009) and the t0 calibration.

The replay tests force the visit order by giving the object one example at a
time (``set_data`` keeps model, bias, iteration number and SGD-QN's scaling)
and compare with a plain NumPy transcription of the paper's pseudo-code.
"""

import pickle

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.exceptions import ConvergenceWarning

import liblinear_reference as ref
from _helpers import make_problem
from stochsvm import SVM, svmtrain


def _dloss(loss, y, s):
    z = y * s
    if loss == "hinge2":
        return -2.0 * y * (1.0 - z) if z < 1 else 0.0
    if loss == "logistic":
        return -y / (1.0 + np.exp(z))
    return -y if z < 1 else 0.0


def paper_reference(solver, X, y, order, lam, t0, skip, Bm, rate, loss):
    """The paper's Figures 1 (SVMSGD2) and 2 (SGD-QN), literally, on
    W = (w, w_b) and xt = (x, Bm); the bias coordinate's steps times rate."""
    d = X.shape[1]
    W = np.zeros(d + 1)
    D = np.full(d + 1, 1.0 / lam)
    mult = np.ones(d + 1)
    mult[d] = rate
    count, update_b, r = skip, False, 2.0
    Bs = []
    for t, i in enumerate(order):
        xt = np.append(X[i], Bm)
        g = _dloss(loss, y[i], W @ xt)
        W_old = W.copy()
        if solver == "svmsgd2":
            W = W - mult * (g / (lam * (t + t0))) * xt
        else:
            W = W - mult * (g / (t + t0)) * D * xt
        if solver == "sgdqn" and update_b:
            g_new = _dloss(loss, y[i], W @ xt)
            p = (lam * W + g_new * xt) - (lam * W_old + g * xt)  # g_t(w_new) - g_t(w_old)
            dw = W - W_old
            with np.errstate(divide="ignore", invalid="ignore"):
                ratio = np.where((xt != 0) & (p != 0), dw / p, 1.0 / lam)
            D = np.maximum(D + 2.0 / r * (ratio - D), 0.5 / lam)  # the paper: 1e-2 (sgdqn.c)
            r += 1
            update_b = False
        count -= 1
        if count <= 0:
            if solver == "svmsgd2":
                W = W - mult * (skip / (t + t0)) * W
            else:
                W = W - mult * (skip / (t + t0)) * lam * D * W
            count = skip
            update_b = True
        Bs.append(D.copy())
    return W[:d], Bm * W[d], D, Bs


@pytest.mark.parametrize("solver", ["svmsgd2", "sgdqn"])
@pytest.mark.parametrize("loss,skip,Bm", [("hinge2", 3, 1.0), ("logistic", 4, 2.0),
                                          ("hinge", 2, 1.0), ("hinge2", 1, 0.0)])
def test_forced_order_matches_paper_pseudocode(solver, loss, skip, Bm):
    X, y = make_problem(n=30, d=6, seed=3, sparsity=0.4)
    lam, t0, rate, steps = 0.05, 20.0, 0.5, 50
    order = np.random.default_rng(1).integers(0, X.shape[0], size=steps)
    svm = SVM(X[:1], y[:1], lam, solver=solver, loss=loss)
    svm.set_t0(t0)
    svm.set_skip(skip)
    svm.set_bias_multiplier(Bm)
    svm.set_bias_learning_rate(rate)
    svm.set_epsilon(0)
    svm.set_max_num_iterations(1)
    w_ref, b_ref, D_ref, Bs = paper_reference(solver, X, y, order, lam, t0, skip, Bm, rate, loss)
    for i in order:
        svm.set_data(X[i:i + 1], y[i:i + 1])
        svm.train()
    assert svm.get_iteration_number() == steps
    scale = max(np.abs(w_ref).max(), abs(b_ref))
    assert scale > 0.1  # the model moved
    np.testing.assert_allclose(svm.get_model(), w_ref, rtol=0, atol=1e-12 * scale)
    assert abs(svm.get_bias() - b_ref) <= 1e-12 * scale
    if solver == "sgdqn":
        np.testing.assert_allclose(svm.get_scaling(), D_ref, rtol=1e-12, atol=0)
        if loss != "hinge":
            assert np.abs(D_ref - 1.0 / lam).max() > 1e-3 / lam  # B was re-estimated
    else:
        assert svm.get_scaling() is None


def test_scaling_stays_within_bounds():
    X, y = make_problem(n=800, d=15, seed=4, sparsity=0.5)
    X[:, 3] *= 30.0  # one large feature, where the estimate gets small
    lam = 1e-3
    for loss in ("hinge2", "logistic", "hinge"):
        svm = SVM(sp.csr_matrix(X), y, lam, solver="sgdqn", loss=loss)
        svm.set_skip(2)
        svm.set_epsilon(0)
        svm.set_max_num_iterations(5 * X.shape[0])
        mins = []

        def watch(stats):
            B = svm.get_scaling()
            assert B.min() >= 0.5 / lam and B.max() <= (1 + 1e-12) / lam
            mins.append(B.min())

        svm.set_diagnostic_frequency(97)
        svm.set_diagnostic_function(watch)
        svm.train()
        assert len(mins) > 10
        if loss == "hinge2":
            assert min(mins) < 0.9 / lam


@pytest.mark.parametrize("solver", ["svmsgd2", "sgdqn"])
def test_converges_to_liblinear_squared_hinge_optimum(solver):
    X, y = make_problem(n=2000, d=20, seed=5, sparsity=0.3)
    X /= np.linalg.norm(X, axis=1)[:, None]  # unit-norm rows, as tf-idf data
    lam = 1e-2
    Xs = sp.csr_matrix(X)
    w_ll, b_ll = ref.liblinear(Xs, y, 2, lam, 1e-10)  # -s 2: L2-loss primal, to 1e-10
    optimum = ref.objective(Xs, y, w_ll, b_ll, lam, "hinge2")
    svm = SVM(Xs, y, lam, solver=solver, loss="hinge2")
    svm.set_epsilon(0)
    svm.set_max_num_iterations(30 * X.shape[0])
    stats = svm.train()
    e = ref.objective(Xs, y, svm.get_model(), svm.get_bias(), lam, "hinge2")
    assert abs(stats["objective"] - e) <= 1e-12 * e
    assert optimum - 1e-9 <= e <= 1.01 * optimum


@pytest.mark.parametrize("solver", ["svmsgd2", "sgdqn"])
def test_dense_equals_csr(solver):
    X, y = make_problem(n=300, d=12, seed=6, sparsity=0.7)
    models = []
    for data in (X, sp.csr_matrix(X), X.astype(np.float32), sp.csr_matrix(X.astype(np.float32))):
        svm = SVM(data, y, 1e-2, solver=solver, loss="hinge2")
        svm.set_max_num_iterations(5 * X.shape[0])
        svm.train()
        models.append((svm.get_skip(), svm.get_model(), svm.get_bias()))
    assert models[0][0] == models[1][0] == round(16 / np.mean(X != 0)) > 16
    for dense, csr in ((0, 1), (2, 3)):  # float64, then float32
        assert models[dense][0] == models[csr][0]
        np.testing.assert_allclose(models[csr][1], models[dense][1], rtol=0, atol=1e-12)
        assert abs(models[csr][2] - models[dense][2]) <= 1e-12


@pytest.mark.parametrize("solver", ["svmsgd2", "sgdqn"])
def test_warm_start_split_is_exact(solver):
    X, y = make_problem(n=100, d=8, seed=7, sparsity=0.5)
    a = SVM(X, y, 1e-2, solver=solver, loss="hinge2", seed=3)
    b = SVM(X, y, 1e-2, solver=solver, loss="hinge2", seed=3)
    for s in (a, b):
        s.set_epsilon(0)
        s.set_skip(9)
    a.set_max_num_iterations(2 * 157)
    b.set_max_num_iterations(157)
    a.train()
    b.train()
    b.train()
    assert b.get_iteration_number() == 2 * 157
    assert np.array_equal(a.get_model(), b.get_model())
    assert a.get_bias() == b.get_bias()
    if solver == "sgdqn":
        assert np.array_equal(a.get_scaling(), b.get_scaling())


def test_calibrate_t0_and_auto():
    X, y = make_problem(n=500, d=10, seed=8)
    svm = SVM(X, y, 1e-3, solver="sgdqn", loss="hinge2")
    model = svm.get_model()
    result = svm.calibrate_t0()
    assert np.array_equal(result["candidates"], 10.0 ** np.arange(1, 11))
    k = int(np.argmin(result["objectives"]))
    assert result["t0"] == svm.get_t0() == result["candidates"][k]
    assert np.array_equal(svm.get_model(), model) and svm.get_iteration_number() == 0
    assert np.ptp(result["objectives"]) > 0
    # the same choice through svmtrain(t0="auto")
    with pytest.warns(ConvergenceWarning, match="max_num_iterations=500"):  # one epoch
        w, b, info, _ = svmtrain(X, y, 1e-3, solver="sgdqn", loss="hinge2", t0="auto",
                                 max_num_iterations=500)
    again = SVM(X, y, 1e-3, solver="sgdqn", loss="hinge2")
    again.set_t0(result["t0"])
    again.set_max_num_iterations(500)
    again.train()
    np.testing.assert_array_equal(w, again.get_model())
    custom = svm.calibrate_t0([5.0, 1e3])
    assert custom["t0"] in (5.0, 1e3) and custom["objectives"].shape == (2,)


def test_bad_inputs():
    X, y = make_problem(n=50, d=4, seed=9)
    svm = SVM(X, y, 0.1, solver="svmsgd2")
    for bad in (0, -1):
        with pytest.raises(ValueError, match="skip"):
            svm.set_skip(bad)
    with pytest.raises(TypeError):
        svm.set_skip("3")
    with pytest.raises(ValueError, match="integer"):
        svm.set_skip(2.5)
    assert svm.get_skip() == 16
    svm.set_skip(5)
    assert svm.get_skip() == 5
    svm.unset_skip()
    assert svm.get_skip() == 16
    with pytest.raises(RuntimeError, match="scaling"):
        svm.reset_scaling()
    for bad in ([], [1.0], [np.nan, 10.0], [10.0, np.inf]):
        with pytest.raises(ValueError):
            svm.calibrate_t0(bad)
    with pytest.raises(TypeError):
        svm.calibrate_t0("abc")
    with pytest.raises(RuntimeError, match="sdca"):
        SVM(X, y, 0.1, solver="sdca").calibrate_t0()
    with pytest.raises(ValueError, match="solver"):
        SVM(X, y, 0.1, solver="sgd-qn")
    with pytest.raises(ValueError, match="t0"):
        svmtrain(X, y, 0.1, solver="sgdqn", t0="fast")
    with pytest.raises(ValueError, match="auto"):
        svmtrain(X, y, 0.1, solver="sdca", t0="auto")
    bad_y = y.copy()
    bad_y[0] = 0.5
    odd = SVM(X, bad_y, 0.1, solver="sgdqn", loss="l2")
    odd.set_loss("hinge")
    with pytest.raises(ValueError, match="labels"):
        odd.calibrate_t0()
    with pytest.raises(ValueError, match="labels"):
        odd.train()


def test_pickle_and_fresh_object_continue_exactly():
    X, y = make_problem(n=60, d=4, seed=10, sparsity=0.3)
    svm = SVM(X, y, 0.1, solver="sgdqn", loss="hinge2")
    svm.set_skip(7)
    svm.set_epsilon(0)
    svm.set_max_num_iterations(100)
    svm.train()
    assert svm.get_scaling_updates() == 14  # t = 7, 14, ..., 98
    back = pickle.loads(pickle.dumps(svm))
    assert back.get_solver() == "sgdqn" and back.get_skip() == 7
    np.testing.assert_array_equal(back.get_model(), svm.get_model())
    np.testing.assert_array_equal(back.get_scaling(), svm.get_scaling())
    assert back.get_scaling_updates() == 14
    fresh = SVM(X, y, 0.1, solver="sgdqn", loss="hinge2")
    fresh.set_skip(7)
    fresh.set_model(svm.get_model())
    fresh.set_bias(svm.get_bias())
    fresh.set_iteration_number(svm.get_iteration_number())
    fresh.set_scaling(svm.get_scaling(), svm.get_scaling_updates())
    back.set_data(X, y)
    for other in (back, fresh):
        other.set_epsilon(0)
        other.set_max_num_iterations(100)
        other.train()
    svm.train()
    for other in (back, fresh):
        np.testing.assert_array_equal(other.get_model(), svm.get_model())
        assert other.get_bias() == svm.get_bias()
        np.testing.assert_array_equal(other.get_scaling(), svm.get_scaling())


def test_set_scaling_rejects():
    X, y = make_problem(n=20, d=3, seed=11)
    svm = SVM(X, y, 0.1, solver="sgdqn")
    good = np.full(4, 5.0)
    for bad in (np.full(3, 5.0), np.array([5.0, 0.0, 5.0, 5.0]), np.array([5.0, np.nan, 5, 5])):
        with pytest.raises(ValueError, match="scaling"):
            svm.set_scaling(bad, 0)
    with pytest.raises(ValueError, match="updates"):
        svm.set_scaling(good, -1)
    with pytest.raises(TypeError):
        svm.set_scaling(["a"] * 4, 0)
    assert np.all(svm.get_scaling() == 10.0)
    svm.set_scaling(good, 3)
    assert np.all(svm.get_scaling() == 5.0) and svm.get_scaling_updates() == 3
    with pytest.raises(RuntimeError, match="sgdqn"):
        SVM(X, y, 0.1, solver="svmsgd2").set_scaling(good, 0)


@pytest.mark.parametrize("solver", ["svmsgd2", "sgdqn", "sgd"])
def test_data_order(solver):
    X, y = make_problem(n=25, d=5, seed=12, sparsity=0.3)
    lam, t0 = 0.05, 20.0
    svm = SVM(X, y, lam, solver=solver, loss="hinge2")
    assert svm.get_shuffle() is True
    svm.set_shuffle(False)
    assert svm.get_shuffle() is False
    svm.set_t0(t0)
    if solver != "sgd":  # the skip is a knob of svmsgd2 and sgdqn only
        svm.set_skip(3)
    svm.set_epsilon(0)
    svm.set_max_num_iterations(2 * X.shape[0])
    svm.train()
    if solver != "sgd":
        order = np.tile(np.arange(X.shape[0]), 2)
        w_ref, b_ref, D_ref, _ = paper_reference(solver, X, y, order, lam, t0, 3, 1.0, 1.0,
                                                 "hinge2")
        scale = max(np.abs(w_ref).max(), abs(b_ref))
        np.testing.assert_allclose(svm.get_model(), w_ref, rtol=0, atol=1e-12 * scale)
        assert abs(svm.get_bias() - b_ref) <= 1e-12 * scale
    shuffled = SVM(X, y, lam, solver=solver, loss="hinge2")
    shuffled.set_t0(t0)
    shuffled.set_epsilon(0)
    shuffled.set_max_num_iterations(2 * X.shape[0])
    shuffled.train()
    assert not np.array_equal(shuffled.get_model(), svm.get_model())
    back = pickle.loads(pickle.dumps(svm))
    assert back.get_shuffle() is False
    with pytest.raises(TypeError, match="shuffle"):
        svm.set_shuffle(0)


def test_concurrent_fits_equal_serial_fits():
    import threading

    X, y = make_problem(n=3000, d=30, seed=13, sparsity=0.5)
    Xs = sp.csr_matrix(X)

    def fit(solver, seed):
        svm = SVM(Xs, y, 1e-3, solver=solver, loss="hinge2", seed=seed)
        svm.set_epsilon(0)
        svm.set_max_num_iterations(5 * X.shape[0])
        svm.train()
        return svm.get_model(), svm.get_bias()

    jobs = [(solver, seed) for solver in ("svmsgd2", "sgdqn") for seed in (0, 1)]
    serial = [fit(*job) for job in jobs]
    results = [None] * len(jobs)

    def run(k):
        results[k] = fit(*jobs[k])

    threads = [threading.Thread(target=run, args=(k,)) for k in range(len(jobs))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for (w, b), (w2, b2) in zip(serial, results):
        assert np.array_equal(w, w2) and b == b2
    assert not np.array_equal(serial[0][0], serial[1][0])  # the seeds matter


def _digits_with_outlier():
    """scikit-learn's digits scaled to [0, 1], even against odd, with the
    row of largest norm scaled to 100x the median squared norm."""
    from sklearn.datasets import load_digits
    X, y = load_digits(return_X_y=True)
    X = X / 16.0
    norms = (X ** 2).sum(axis=1)
    k = int(np.argmax(norms))
    outlier = X.copy()
    outlier[k] *= np.sqrt(100 * np.median(norms) / norms[k])
    return X, outlier, np.where(y % 2 == 0, 1.0, -1.0)


@pytest.mark.parametrize("solver", ["svmsgd2", "sgdqn"])
@pytest.mark.parametrize("loss", ["hinge2", "logistic"])
def test_default_t0_ignores_an_outlier_row(solver, loss):
    """One row at 100x the median squared norm used to raise the default t0
    (sized by max ||x||^2) 50-fold: tiny steps, a "converged" stop at epoch 2
    at 3.3x (SGD-QN) the optimum. t0 now follows a 99 % quantile of the
    norms, and 30 epochs end near the optimum."""
    X, Xo, y = _digits_with_outlier()
    lam = 1.0 / len(y)
    clean_t0 = SVM(X, y, lam, solver=solver, loss=loss).get_t0()
    svm = SVM(Xo, y, lam, solver=solver, loss=loss)
    assert svm.get_t0() <= 1.5 * clean_t0
    Xs = sp.csr_matrix(Xo)
    w_ll, b_ll = ref.liblinear(Xs, y, 2 if loss == "hinge2" else 0, lam, 1e-9)
    optimum = ref.objective(Xs, y, w_ll, b_ll, lam, loss)
    stats = svm.train()                        # all defaults
    if stats["status"] == "converged":
        assert stats["objective"] <= 1.5 * optimum
    svm = SVM(Xo, y, lam, solver=solver, loss=loss)
    svm.set_epsilon(0)
    svm.set_max_num_iterations(30 * len(y))
    svm.train()
    e = ref.objective(Xs, y, svm.get_model(), svm.get_bias(), lam, loss)
    assert optimum * (1 - 1e-9) <= e <= 1.15 * optimum


@pytest.mark.parametrize("solver", ["svmsgd2", "sgdqn"])
def test_default_t0_follows_row_norms_for_the_hinge(solver):
    """Unscaled features (breast cancer: up to 4e3, ||x||^2 up to 2e7): the
    hinge's default t0 was 2/lambda whatever the norms, a first step that
    moved scores by 1e7; 30 epochs ended at 6000x LIBLINEAR's objective. It
    is now max(2, R^2 + B^2) / lambda (R^2 a 99 % quantile)."""
    from sklearn.datasets import load_breast_cancer
    X, y = load_breast_cancer(return_X_y=True)
    y = np.where(y == 1, 1.0, -1.0)
    lam = 1.0 / len(y)
    svm = SVM(X, y, lam, solver=solver)
    r2 = np.quantile((X ** 2).sum(axis=1), 0.99, method="inverted_cdf") + 1.0
    assert svm.get_t0() == pytest.approx(r2 / lam, rel=1e-12)
    svm.set_epsilon(0)
    svm.set_max_num_iterations(30 * len(y))
    svm.train()
    Xs = sp.csr_matrix(X)
    P_star = ref.objective(Xs, y, *ref.liblinear(Xs, y, 3, lam, 1e-9), lam, "hinge")
    # 3.1-3.2x P* after these 30 plain epochs on raw features (no Newton
    # finish: max_num_iterations is the cap), where 2/lambda gave 6000x.
    assert ref.objective(Xs, y, svm.get_model(), svm.get_bias(), lam, "hinge") <= 4 * P_star
