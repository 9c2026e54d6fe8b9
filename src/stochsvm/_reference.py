"""Exact references for linear problems, written without the C core: the
objective computed one way for every solver, and Newton's method on the
primal with a certified lower bound. The tests and the benchmarks compare
the solvers against them (they are not part of the public API).

Newton's method is the oracle where LIBLINEAR's coordinate descent cannot
be one: on unscaled features its dual solver (-s 3) ends on its iteration
cap far above the optimum (25x on wine at C = 100 even after a million
passes), while the Jacobi-scaled Newton steps below do not see the units.
"""

import math

import numpy as np
import scipy.sparse as sp

def loss_values(loss, y, s):
    if loss == "hinge":
        return np.maximum(0.0, 1.0 - y * s)
    if loss == "hinge2":
        return np.maximum(0.0, 1.0 - y * s) ** 2
    if loss == "logistic":
        return np.logaddexp(0.0, -y * s)
    if loss == "l1":
        return np.abs(y - s)
    return (y - s) ** 2


def linear_objective(X, y, w, b, lam, loss):
    """P = lambda/2 (||w||^2 + b^2) + mean loss (bias multiplier 1)."""
    s = np.asarray(X @ w).ravel() + b
    return 0.5 * lam * (float(w @ w) + b * b) + float(np.mean(loss_values(loss, y, s)))



def _smoothed(loss, y, s, delta):
    """Per-example loss, first and second derivatives in the score s, with the
    kinks of hinge and l1 rounded off over a width delta (Huber): the
    smoothed loss is <= the loss and within delta/2 of it."""
    if loss in ("hinge", "hinge2", "logistic"):
        m = y * s
        if loss == "hinge":
            u = 1.0 - m
            quad = (u > 0) & (u < delta)
            value = np.where(u >= delta, u - delta / 2, np.where(quad, u * u / (2 * delta), 0.0))
            d1 = -y * np.where(u >= delta, 1.0, np.where(quad, u / delta, 0.0))
            return value, d1, np.where(quad, 1.0 / delta, 0.0)
        if loss == "hinge2":
            u = np.maximum(0.0, 1.0 - m)
            return u * u, -2.0 * y * u, 2.0 * (u > 0)
        sig = 0.5 * (1.0 + np.tanh(-m / 2))  # 1 / (1 + exp(m)), without overflow
        return np.logaddexp(0.0, -m), -y * sig, sig * (1.0 - sig)
    r = s - y
    if loss == "l1":
        a = np.abs(r)
        quad = a < delta
        return (np.where(quad, r * r / (2 * delta), a - delta / 2),
                np.where(quad, r / delta, np.sign(r)), np.where(quad, 1.0 / delta, 0.0))
    return r * r, 2.0 * r, np.full_like(r, 2.0)


def _dual_bound(loss, y, XaT, lam, d1):
    """A lower bound on P* from the smoothed loss's derivative d1, a feasible
    dual point of the true problem. hinge: a_i = -y_i d1_i in [0, 1],
    D = mean a - ||sum a_i y_i x_i||^2 / (2 lam n^2); l1: a_i = d1_i in [-1, 1],
    D = -mean a_i y_i - ||sum a_i x_i||^2 / (2 lam n^2)."""
    n = len(y)
    if loss == "hinge":
        a = -y * d1
        u = XaT @ (a * y)
        return a.mean() - (u @ u) / (2 * lam * n * n)
    u = XaT @ d1
    return -(d1 @ y) / n - (u @ u) / (2 * lam * n * n)


def newton_model(X, y, lam, loss):
    """Newton's method on the primal in (w, b) (Jacobi-scaled: blind to the
    features' units), through a continuation in the smoothing width for hinge
    and l1 (stopped when no example is left in the rounded region). Returns
    (w, b, lower_bound). The bound: for the smooth losses the objective is
    lam-strongly convex, so P* >= P(v) - ||grad P(v)||^2 / (2 lam); for hinge
    and l1 the best dual bound of the stages (see _dual_bound)."""
    n, d = X.shape
    if sp.issparse(X):
        Xa = sp.hstack([X, np.ones((n, 1))], format="csr")
        XaT = Xa.T.tocsr()
    else:
        Xa = np.hstack([X, np.ones((n, 1))])
        XaT = Xa.T
    v = np.zeros(d + 1)
    smoothed = loss in ("hinge", "l1")
    deltas = [10.0 ** -k for k in range(-2, 12)] if smoothed else [None]

    def evaluate(v, delta):
        value, d1, d2 = _smoothed(loss, y, Xa @ v, delta)
        return 0.5 * lam * (v @ v) + value.mean(), lam * v + XaT @ d1 / n, d1, d2

    best, lower = (math.inf, v), -math.inf
    for delta in deltas:
        converged = False
        for _ in range(100):
            P, g, d1, d2 = evaluate(v, delta)
            rows = d2 > 0
            H = lam * np.eye(d + 1)
            if np.any(rows):
                Xr = Xa[rows]
                weighted = (Xr.multiply(d2[rows, None] / n) if sp.issparse(Xr)
                            else Xr * (d2[rows, None] / n))
                H += np.asarray((Xr.T @ weighted).todense() if sp.issparse(Xr) else Xr.T @ weighted)
            # Jacobi scaling: features spanning 1e-3..1e4 leave H's condition
            # number to the data's correlations, not their units
            scale = 1.0 / np.sqrt(np.diag(H))
            Hs = H * scale[:, None] * scale[None, :]
            try:  # Hs is symmetric positive definite (lambda I + a PSD part)
                step = scale * np.linalg.solve(Hs, -g * scale)
            except np.linalg.LinAlgError:
                try:
                    step = scale * np.linalg.lstsq(Hs, -g * scale, rcond=None)[0]
                except np.linalg.LinAlgError:  # LAPACK's SVD gave up (w8a, tiny delta)
                    break
            if not np.all(np.isfinite(step)):
                break
            if -(g @ step) <= 1e-15 * max(1.0, abs(P)):  # the Newton decrement
                converged = True
                break
            t = 1.0
            while t > 1e-12 and evaluate(v + t * step, delta)[0] > P + 1e-4 * t * (g @ step):
                t /= 2
            if t <= 1e-12:
                break
            v = v + t * step
        if not smoothed:
            return v[:d], float(v[d]), P - (g @ g) / (2 * lam)
        true = linear_objective(X, y, v[:d], float(v[d]), lam, loss)
        if true < best[0]:
            best = (true, v.copy())
        if converged:
            lower = max(lower, _dual_bound(loss, y, XaT, lam, d1))
        if not converged or not np.any(d2 > 0):
            break
    v = best[1]
    return v[:d], float(v[d]), lower
