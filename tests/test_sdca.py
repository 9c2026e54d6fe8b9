"""SDCA: the exact optimum of LIBLINEAR on a9a and ijcnn1 (certified by our
duality gap), per-example weights against replication, and Python errors.

LIBLINEAR with ``-B 1 -c C``, C = 1/(lambda n), minimises (1/(lambda n)) times
our objective with bias multiplier 1 (see liblinear_reference.py), so both have the
same minimiser; both objectives are computed here in numpy.

The benchmark tests need $STOCHSVM_DATA/{a9a,ijcnn1}.train.xz and
liblinear-official; they skip without them unless STOCHSVM_REQUIRE_DATA=1.
"""

import time

import numpy as np
import pytest

import stochsvm
from liblinear_reference import benchmark, liblinear, objective

LAMBDA = 1e-4
EPSILON = 1e-7      # duality gap at which SDCA stops
MAX_EPOCHS = 300
REL_TOL = 1e-4      # relative distance to LIBLINEAR's optimum

# loss -> LIBLINEAR dual solver: -s 3 L1-loss SVC, -s 1 L2-loss SVC, -s 7 dual LR.
LIBLINEAR_SOLVER = {"hinge": 3, "hinge2": 1, "logistic": 7}


@pytest.mark.parametrize("loss", ["hinge", "hinge2", "logistic"])
@pytest.mark.parametrize("name", ["a9a", "ijcnn1"])
def test_sdca_reaches_liblinear_optimum(name, loss):
    X, y = benchmark(name)
    n = X.shape[0]
    t0 = time.perf_counter()
    wl, bl = liblinear(X, y, LIBLINEAR_SOLVER[loss], LAMBDA, 1e-8)
    t_liblinear = time.perf_counter() - t0
    reference = objective(X, y, wl, bl, LAMBDA, loss)

    svm = stochsvm.SVM(X, y, LAMBDA, solver="sdca", seed=0, loss=loss)
    svm.set_bias_multiplier(1.0)
    svm.set_epsilon(EPSILON)
    svm.set_max_num_iterations(MAX_EPOCHS * n)
    t0 = time.perf_counter()
    stats = svm.train()
    t_ours = time.perf_counter() - t0
    ours = objective(X, y, svm.get_model(), svm.get_bias(), LAMBDA, loss)
    gap = stats["duality_gap"]
    print(f"\n{name} {loss}: sdca {ours:.12g} gap {gap:.3g} status {stats['status']} "
          f"epochs {stats['epoch']} ({stats['iteration']} it) {t_ours:.2f}s; "
          f"liblinear {reference:.12g} {t_liblinear:.2f}s; "
          f"rel diff {ours / reference - 1:+.3g}")

    assert stats["objective"] == pytest.approx(ours, rel=1e-9)
    assert stats["duality_gap"] == pytest.approx(stats["objective"] - stats["dual_objective"],
                                                 abs=1e-12)
    assert gap >= 0
    if loss == "hinge":
        # Measured (seed 0): the hinge gap decays slowly without shrinking and
        # 300 epochs end above EPSILON (a9a 1.3e-5, ijcnn1 1.6e-7); the gap
        # still certifies the REL_TOL goal.
        assert stats["status"] in ("converged", "max_iterations"), stats
        assert gap <= REL_TOL * ours, stats
    else:
        assert stats["status"] == "converged", stats
        assert gap < EPSILON
    # No worse than LIBLINEAR's optimum...
    assert ours <= reference * (1 + REL_TOL), (ours, reference)
    # ... and our dual objective is a valid lower bound on every primal value,
    # LIBLINEAR's included: it certifies ours where LIBLINEAR is less
    # converged. (LIBLINEAR is not asserted to be within REL_TOL of ours: its
    # -s 3 run on a9a draws its order from C's unseeded rand(), and one CI run
    # ended 1.15e-4 above our certified optimum, another within 1e-4.)
    assert ours - gap <= reference + 1e-9, (ours, gap, reference)


def _blobs(n, d, seed):
    rng = np.random.default_rng(seed)
    y = np.where(np.arange(n) % 2 == 0, 1.0, -1.0)
    X = rng.uniform(-1, 1, size=(n, d))
    X[:, 0] += 0.4 * y  # overlapping classes: not separable
    return X, y


@pytest.mark.parametrize("loss", ["hinge", "hinge2", "logistic"])
def test_weights_equal_replication(loss):
    n, d, lam = 30, 3, 0.05
    X, y = _blobs(n, d, 3)
    c = np.random.default_rng(4).integers(1, 4, size=n).astype(np.float64)
    reps = c.astype(int)
    Xr, yr = np.repeat(X, reps, axis=0), np.repeat(y, reps)
    n2 = Xr.shape[0]
    assert n2 == c.sum() and n2 > n

    weighted = stochsvm.SVM(X, y, lam, solver="sdca", seed=1, loss=loss)
    weighted.set_weights(c)
    replicated = stochsvm.SVM(Xr, yr, lam * n / n2, solver="sdca", seed=1, loss=loss)
    for svm, rows in ((weighted, n), (replicated, n2)):
        svm.set_bias_multiplier(1.0)
        svm.set_epsilon(1e-14)  # ||w - w*||^2 <= 2 gap / lambda: 1e-10 is too loose for 1e-6
        svm.set_max_num_iterations(20000 * rows)
        stats = svm.train()
        assert stats["status"] == "converged", stats
        assert -1e-14 <= stats["duality_gap"] < 1e-10  # rounding can make it -1e-16
    np.testing.assert_allclose(weighted.get_model(), replicated.get_model(), rtol=0, atol=1e-6)
    assert weighted.get_bias() == pytest.approx(replicated.get_bias(), abs=1e-6)
    # Same problem up to the factor n/n2: the objectives agree after scaling.
    assert weighted.get_statistics()["objective"] == pytest.approx(
        replicated.get_statistics()["objective"] * n2 / n, rel=1e-8)


def test_sdca_python_errors():
    X, y = _blobs(20, 2, 0)
    svm = stochsvm.SVM(X, y, 0.1, solver="sdca", seed=0)
    with pytest.raises(RuntimeError, match="set_dual_variables"):
        svm.set_model(np.zeros(2))
    alpha = svm.get_dual_variables()
    assert alpha is not None and alpha.shape == (20,) and not alpha.any()

    sgd = stochsvm.SVM(X, y, 0.1, solver="sgd", seed=0)
    assert sgd.get_dual_variables() is None

    y_reg = X @ np.array([1.5, -0.5]) + 0.25
    for loss in ("l1", "l2"):
        reg = stochsvm.SVM(X, y_reg, 0.1, solver="sdca", seed=0, loss=loss)
        reg.set_epsilon(1e-9)
        reg.set_max_num_iterations(10 ** 6)
        stats = reg.train()
        assert stats["status"] == "converged"
        assert 0 <= stats["duality_gap"] < 1e-9
    with pytest.raises(ValueError):
        stochsvm.SVM(X, y_reg, 0.1, solver="sdca", seed=0, loss="hinge")


def test_sdca_shrinking_python():
    X, y = _blobs(400, 3, 5)
    X[:, 0] += 1.5 * y  # mostly separated: many dual variables end at 0
    objectives = {}
    for shrinking in (True, False):
        svm = stochsvm.SVM(X, y, 0.01, solver="sdca", seed=2)
        assert svm.get_shrinking() is True  # the default
        svm.set_shrinking(shrinking)
        assert svm.get_shrinking() is shrinking
        svm.set_epsilon(1e-11)
        svm.set_max_num_iterations(5000 * 400)
        most = []
        svm.set_diagnostic_function(lambda st, s=svm: most.append(s.get_num_shrunk()))
        stats = svm.train()
        assert stats["status"] == "converged", stats
        objectives[shrinking] = stats["objective"]
        assert (max(most) > 200) if shrinking else (max(most) == 0)
        # pickling keeps the setting
        import pickle
        assert pickle.loads(pickle.dumps(svm)).get_shrinking() is shrinking
    assert objectives[True] == pytest.approx(objectives[False], abs=1e-10)

    svm = stochsvm.SVM(X, y, 0.01, solver="sdca")
    with pytest.raises(TypeError, match="enabled"):
        svm.set_shrinking(1)
    sgd = stochsvm.SVM(X, y, 0.01, solver="sgd")
    with pytest.raises(ValueError, match="set_shrinking applies to solver sdca, this object's "
                                         "solver is sgd"):
        sgd.set_shrinking(True)
    sgd.train()
    assert sgd.get_num_shrunk() == 0


@pytest.mark.parametrize("loss", ["hinge", "hinge2"])
def test_sdca_shrinking_default_stop_is_certified_in_numpy(loss):
    """The default schedule (the diagnostic budget and the steps' gap estimate
    that asks for early checks) stops only where the relative duality gap of
    all n examples is <= tol: recomputed here in numpy from the returned model
    and dual variables, with uneven weights (shrunk examples included)."""
    X, y = _blobs(3000, 6, 11)
    c = 0.5 + (np.arange(3000) % 5) * 0.25
    lam, tol = 1.0 / 3000, 1e-4
    svm = stochsvm.SVM(X, y, lam, solver="sdca", seed=3, loss=loss)
    svm.set_bias_multiplier(1.0)
    svm.set_weights(c)
    svm.set_epsilon(tol)
    svm.set_max_num_iterations(5000 * 3000)
    stats = svm.train()
    assert stats["status"] == "converged", stats
    w, b, alpha = svm.get_model(), svm.get_bias(), np.asarray(svm.get_dual_variables())
    m = y * (X @ w + b)
    beta = y * alpha / c  # in [0, 1] for the hinge, >= 0 for the squared hinge
    reg = 0.5 * lam * (w @ w + b * b)
    if loss == "hinge":
        P = reg + np.mean(c * np.maximum(0, 1 - m))
        D = np.mean(c * beta) - reg
    else:
        P = reg + np.mean(c * np.maximum(0, 1 - m) ** 2)
        D = np.mean(c * (beta - beta ** 2 / 4)) - reg
    assert P - D <= tol * D * (1 + 1e-9)
    assert P == pytest.approx(stats["objective"], rel=1e-10)


@pytest.mark.parametrize("loss", ["hinge", "hinge2", "logistic", "l2", "l1"])
def test_watching_does_not_change_the_model(loss):
    """A diagnostic function sees the diagnostics the run makes anyway. It
    used to put SDCA on the epoch schedule, so watching moved the stop: the
    command line's progress lines (a diagnostic function) trained another
    model than ``-q`` (a9a: 211 epochs against 215; on these 60 rows every
    loss stopped elsewhere, l2 at the cap instead of epoch 20)."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 3))
    if loss in ("l1", "l2"):
        y = X @ np.array([1.0, -0.5, 0.2]) + 0.3 * rng.normal(size=60)
    else:
        y = np.where(X[:, 0] + 0.8 * rng.normal(size=60) > 0, 1.0, -1.0)
    runs = []
    for watch in (False, True):
        svm = stochsvm.SVM(X, y, 1.0 / len(y), solver="sdca", loss=loss)
        seen = []
        if watch:
            svm.set_diagnostic_function(lambda stats: seen.append(stats["iteration"]) and False)
        stats = svm.train()
        runs.append((stats["iteration"], stats["status"], svm.get_model().tobytes(),
                     svm.get_bias()))
        if watch:
            assert seen and seen[-1] == stats["iteration"]  # it did watch, to the end
    assert runs[0] == runs[1]
