"""Per-example weights of stochsvm.KernelSVM (ss_kernel_svm_set_weights):
the weighted optimum of SDCA and BSCA against an independent scipy L-BFGS-B
solution of the weighted box QP, weight 2 == a duplicated row, weight 0 ==
a removed row, the weighted primal reported, SBP's refusal, bad weights."""

import numpy as np
import pytest

from _helpers import weighted_box_qp

import stochsvm


def _problem(n=200, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 2))
    y = np.where(X[:, 0] * X[:, 1] + 0.3 * rng.normal(size=n) > 0, 1.0, -1.0)
    return X, y


def _train(X, y, lam, solver, weights=None, gamma=0.5):
    svm = stochsvm.KernelSVM(X, y, lam, solver=solver, gamma=gamma)
    if solver == "bsca":
        svm.set_unregularized_bias(False)  # the weighted box QP has no sum y alpha = 0
        svm.set_budget(len(y) + 1)
    if weights is not None:
        svm.set_weights(weights)
    svm.set_epsilon(1e-12)
    svm.set_max_num_iterations(2000 * len(y))
    svm.set_diagnostic_frequency(100 * len(y))
    return svm, svm.train()


@pytest.mark.parametrize("solver", ["sdca", "bsca"])
def test_weighted_optimum_matches_scipy(solver):
    X, y = _problem()
    n, lam, gamma = len(y), 0.01, 0.5
    C = 1.0 / (lam * n)
    c = np.random.default_rng(1).choice([0.0, 0.5, 1.0, 3.0], size=n)
    svm, stats = _train(X, y, lam, solver, c, gamma)
    ref, alpha_ref = weighted_box_qp(X, y, gamma, C, c)
    # the solver's dual (C scaling: D / lambda) and primal reach the oracle's optimum
    assert stats["dual_objective"] / lam == pytest.approx(ref, rel=1e-6)
    assert stats["primal_objective"] / lam == pytest.approx(ref, rel=1e-6)
    alpha = svm.get_dual_variables()
    assert np.all(alpha <= c * C * (1 + 1e-12)) and np.all(alpha[c == 0] == 0)
    # the reported primal is the weighted one, recomputed from the scores
    f = svm.decision_function(X)
    primal = stats["regularizer"] + (c * np.maximum(0, 1 - y * f)).mean()
    assert stats["primal_objective"] == pytest.approx(primal, rel=1e-9)
    # and differs from the unweighted optimum
    ref1, _ = weighted_box_qp(X, y, gamma, C, np.ones(n))
    assert abs(ref1 - ref) > 1e-3 * abs(ref)


@pytest.mark.parametrize("solver", ["sdca", "bsca"])
def test_weight_two_equals_duplicate_and_zero_equals_removal(solver):
    X, y = _problem(120, seed=3)
    n, lam = len(y), 0.02
    C = 1.0 / (lam * n)
    w = np.ones(n)
    dup = np.arange(0, n, 7)
    w[dup] = 2.0
    _, a = _train(X, y, lam, solver, w)
    Xd, yd = np.vstack([X, X[dup]]), np.concatenate([y, y[dup]])
    lam_d = 1.0 / (C * len(yd))
    _, b = _train(Xd, yd, lam_d, solver)
    assert a["primal_objective"] / lam == pytest.approx(b["primal_objective"] / lam_d, rel=1e-6)
    assert a["dual_objective"] / lam == pytest.approx(b["dual_objective"] / lam_d, rel=1e-6)

    w = np.ones(n)
    w[dup] = 0.0
    svm, a = _train(X, y, lam, solver, w)
    keep = np.setdiff1d(np.arange(n), dup)
    lam_r = 1.0 / (C * len(keep))
    ref, b = _train(X[keep], y[keep], lam_r, solver)
    assert a["primal_objective"] / lam == pytest.approx(b["primal_objective"] / lam_r, rel=1e-6)
    np.testing.assert_allclose(svm.decision_function(X), ref.decision_function(X),
                               rtol=1e-4, atol=1e-4)


def test_sbp_refuses_weights_and_bad_weights_are_refused():
    X, y = _problem(40)
    sbp = stochsvm.KernelSVM(X, y, 0.01, solver="sbp")
    with pytest.raises(ValueError, match="sbp"):
        sbp.set_weights(np.ones(40))
    sbp.set_weights(None)  # uniform weights are the default, always accepted
    svm = stochsvm.KernelSVM(X, y, 0.01, solver="pegasos")
    svm.set_weights(np.full(40, 2.0))
    for bad in (np.ones(39), -np.ones(40), np.full(40, np.nan), np.full(40, np.inf),
                np.ones((40, 1))):
        with pytest.raises(ValueError, match="weights"):
            svm.set_weights(bad)
    with pytest.raises(TypeError, match="weights"):
        svm.set_weights(np.array(["a"] * 40))
    np.testing.assert_array_equal(svm.get_weights(), np.full(40, 2.0))  # unchanged
    svm.set_data(X, y)
    assert svm.get_weights() is None
