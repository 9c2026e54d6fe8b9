"""Linear SDCA's logistic coordinate step against scipy's exact 1-D minimiser
(the step: src/core/common/loss.h, ss_logistic_dual_update; docs/sdca.rst).

Each visit of example i maximises the dual along alpha_i: with s the score,
A = ||x~_i||^2 / (lambda n) and beta = y_i alpha_i' in (0, 1), it minimises

    f(beta) = y s (beta - beta0) + A/2 (beta - beta0)^2 + beta log beta + (1 - beta) log(1 - beta).

The run is cut into single steps (train with a cap of one iteration, in
data order), and each new beta is compared with scipy's bounded Brent
minimiser of f from the state before the step. The step ends on a series
step from logit(beta0) of at most 0.05 (error about 1.2 sigma' |d|^4 <= 7.5e-6
sigma') or on a Halley finish (1e-6 sigma'): beta must be within 1e-5
sigma'(beta*) of the minimiser, where a Newton step of the same length
(error about sigma' d^2 / 2, up to 1.2e-3 sigma') would not be.
"""

import numpy as np
import pytest
from scipy.optimize import minimize_scalar

from stochsvm import SVM


def exact_beta(ys, beta0, A):
    def f(beta):
        return ys * (beta - beta0) + 0.5 * A * (beta - beta0) ** 2 + beta * np.log(beta) + (1 - beta) * np.log1p(-beta)

    return minimize_scalar(f, bounds=(1e-12, 1 - 1e-12), method="bounded", options={"xatol": 1e-14}).x


@pytest.mark.parametrize("lam", [0.05, 0.5])
def test_each_logistic_step_is_the_exact_coordinate_maximiser(lam):
    rng = np.random.default_rng(3)
    n, d = 12, 4
    X = rng.normal(size=(n, d))
    y = np.where(X @ rng.normal(size=d) + 0.8 * rng.normal(size=n) > 0, 1.0, -1.0)
    svm = SVM(X, y, lam, solver="sdca", loss="logistic")
    svm.set_bias_multiplier(1.0)
    svm.set_shuffle(False)
    svm.set_epsilon(0)
    svm.set_newton_fallback(False)
    Xb = np.hstack([X, np.ones((n, 1))])
    A = (Xb * Xb).sum(1) / (lam * n)
    worst, long_steps = 0.0, 0
    for t in range(8 * n):
        i = t % n
        alpha = svm.get_dual_variables().copy() if t else np.zeros(n)
        w = Xb.T @ alpha / (lam * n)  # w~(alpha), the model the step reads
        beta0 = y[i] * alpha[i]
        svm.set_max_num_iterations(1)
        svm.train()
        beta = y[i] * svm.get_dual_variables()[i]
        ref = exact_beta(y[i] * (Xb[i] @ w), beta0, A[i])
        err = abs(beta - ref) / (ref * (1 - ref))
        worst = max(worst, err)
        if t >= n:  # (beta0 in (0, 1): the series step's range, or beyond)
            long_steps += abs(np.log(beta / (1 - beta)) - np.log(beta0 / (1 - beta0))) > 0.01
    assert worst <= 1e-5, worst
    assert long_steps >= n  # (steps where a low-order step would show its error)
