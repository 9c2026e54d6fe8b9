"""The closing ray (src/core/linear/sdca_ray.c, src/core/kernel/kernel_ray.c):
a run of linear SDCA, kernel Pegasos or BSGD stopped on its cap returns the
model t* w of least primal objective on the ray t >= 0 through its own, so
never one above the zero model's objective (issue 17's "diverged" runs: raw
badly scaled features at C = 1e3, docs/stopping.rst).

Objectives are computed here in numpy from the returned model.
"""

import warnings

import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning
from sklearn.metrics.pairwise import rbf_kernel

import stochsvm
from stochsvm import KernelSVMClassifier, LinearSVMClassifier
from stochsvm.datasets import make_unscaled


def _loss(loss, margins):
    if loss == "hinge":
        return np.maximum(0.0, 1.0 - margins)
    if loss == "hinge2":
        return np.maximum(0.0, 1.0 - margins) ** 2
    return np.logaddexp(0.0, -margins)


def _objective(X, y, w, b, lam, loss):
    return 0.5 * lam * (w @ w + b * b) + float(np.mean(_loss(loss, y * (X @ w + b))))


@pytest.fixture(scope="module")
def unscaled():
    X, y = make_unscaled(n=240, d=8)
    return np.ascontiguousarray(X, dtype=np.float64), np.where(y == np.unique(y)[1], 1.0, -1.0)


@pytest.mark.parametrize("loss", ["hinge", "hinge2", "logistic"])
def test_sdca_capped_run_is_the_best_of_its_ray(unscaled, loss):
    X, y = unscaled
    n = X.shape[0]
    lam = 1.0 / (1e3 * n)
    zero = float(np.mean(_loss(loss, np.zeros(n))))
    rays = 0
    for epochs in (2, 4, 8):
        svm = stochsvm.SVM(X, y, lam, solver="sdca", loss=loss)
        svm.set_epsilon(0)
        svm.set_max_num_iterations(epochs * n)
        stats = svm.train()
        w, b = svm.get_model(), svm.get_bias()
        P = _objective(X, y, w, b, lam, loss)
        assert stats["status"] == "max_iterations"
        assert P <= zero
        assert stats["objective"] == pytest.approx(P, rel=1e-9)
        assert stats["duality_gap"] == pytest.approx(stats["objective"] - stats["dual_objective"])
        # w = t w(alpha), t >= 0, no worse than w(alpha)
        alpha = svm.get_dual_variables()
        wa, ba = X.T @ alpha / (lam * n), alpha.sum() / (lam * n)
        Pa = _objective(X, y, wa, ba, lam, loss)
        assert P <= Pa * (1 + 1e-12)
        t = b / ba
        assert t >= 0
        np.testing.assert_allclose(w, t * wa, rtol=1e-9, atol=1e-300)
        np.testing.assert_array_equal(svm.get_scores(), svm.decision_function(X))
        rays += Pa > zero
    assert rays > 0  # w(alpha) itself was above the zero model: the ray mattered


def test_sdca_continues_from_its_dual_state(unscaled):
    """A run read in the middle (ray taken) continues bit for bit as one
    that was not."""
    X, y = unscaled
    lam = 1.0 / (1e3 * X.shape[0])
    whole = stochsvm.SVM(X, y, lam, solver="sdca", loss="hinge2")
    split = stochsvm.SVM(X, y, lam, solver="sdca", loss="hinge2")
    for svm in (whole, split):
        svm.set_epsilon(0)
    whole.set_max_num_iterations(9 * X.shape[0])
    split.set_max_num_iterations(4 * X.shape[0])
    whole.train()
    split.train()
    split.set_max_num_iterations(5 * X.shape[0])
    split.train()
    np.testing.assert_array_equal(whole.get_dual_variables(), split.get_dual_variables())
    np.testing.assert_array_equal(whole.get_model(), split.get_model())
    assert whole.get_bias() == split.get_bias()


@pytest.mark.parametrize("loss", ["hinge", "hinge2", "logistic"])
def test_sdca_estimator_never_ends_above_the_zero_model(unscaled, loss):
    X, y = unscaled
    if loss == "hinge":
        with pytest.warns(ConvergenceWarning, match="max_iter=5"):
            est = LinearSVMClassifier(solver="sdca", loss=loss, C=1e3, max_iter=5).fit(X, y)
    else:  # the smooth losses continue with Newton to the tol (newton.c): no warning
        est = LinearSVMClassifier(solver="sdca", loss=loss, C=1e3, max_iter=5).fit(X, y)
        assert est._stats[0]["status"] == "converged"
    lam = 1.0 / (1e3 * X.shape[0])
    P = _objective(X, y, est.coef_[0], est.intercept_[0], lam, loss)
    assert P <= float(np.mean(_loss(loss, np.zeros(len(y)))))


@pytest.mark.parametrize("solver", ["pegasos", "bsgd"])
def test_kernel_capped_run_is_not_above_the_zero_model(unscaled, solver):
    """Pegasos' and BSGD's iterate after 20 epochs at C = 1e3 on raw
    features is in its 1/(lambda t) transient, above the zero model's
    objective; the ray returns t* f."""
    X, y = unscaled
    C, n = 1e3, X.shape[0]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        est = KernelSVMClassifier(solver=solver, C=C, max_iter=20).fit(X, y)
    svm = est._svms[0]
    stats = svm.get_statistics()
    sv, coef = np.asarray(svm.get_support_vectors()), svm.get_coefficients()
    assert svm.get_bias() == 0
    f = rbf_kernel(X, sv, gamma=est.gamma_) @ coef
    P = 0.5 / (C * n) * coef @ rbf_kernel(sv, sv, gamma=est.gamma_) @ coef \
        + float(np.mean(np.maximum(0.0, 1.0 - y * f)))
    assert stats["status"] == "max_iterations"
    assert P <= 1.0 + 1e-12
    assert stats["objective"] == pytest.approx(P, rel=1e-9)


def test_sdca_ray_that_certifies_reports_converged():
    """A capped run whose ray meets the stop reports converged (issue 17).

    Raw digits, class 0 against the rest at C = 1e3 (bench/defaults.py's
    split), epsilon 1e-10, no Newton fallback: neither w(alpha) nor the tail
    average meets the stop within the cap, the ray through w(alpha) does.
    The certificate is recomputed here: P of the returned model and D of the
    returned dual variables, both in numpy."""
    from sklearn.datasets import load_digits
    from sklearn.model_selection import train_test_split

    X, y = load_digits(return_X_y=True)
    X, _, y, _ = train_test_split(X, y, test_size=0.25, random_state=0, stratify=y)
    X = np.ascontiguousarray(X, dtype=np.float64)
    y = np.where(y == 0, 1.0, -1.0)
    n, eps = X.shape[0], 1e-10
    lam = 1.0 / (1e3 * n)
    svm = stochsvm.SVM(X, y, lam, solver="sdca", loss="hinge")
    svm.set_newton_fallback(False)
    svm.set_epsilon(eps)
    svm.set_max_num_iterations(10**7)
    stats = svm.train()
    assert stats["iteration"] == 10**7  # it ran to its cap
    assert stats["sdca_model"] == "ray"
    assert stats["status"] == "converged"
    P = _objective(X, y, svm.get_model(), svm.get_bias(), lam, "hinge")
    assert stats["objective"] == pytest.approx(P, rel=1e-9)
    alpha = svm.get_dual_variables()
    assert np.all(alpha * y >= 0) and np.all(alpha * y <= 1)  # the hinge's box
    wa, ba = X.T @ alpha / (lam * n), alpha.sum() / (lam * n)
    D = float(np.mean(alpha * y)) - 0.5 * lam * (wa @ wa + ba * ba)
    assert P - D <= 2 * eps * D  # (the slack: rounding of the two sums)
    # w(alpha) alone does not certify: the ray made the difference
    assert _objective(X, y, wa, ba, lam, "hinge") - D > 10 * eps * D
