"""Probabilities from SVM scores: Platt scaling.

Platt (1999) fits ``P(y = +1 | f) = 1 / (1 + exp(A f + B))`` to scores ``f``
by maximum likelihood against smoothed targets ``t+ = (N+ + 1)/(N+ + 2)`` and
``t- = 1/(N- + 2)``; the scores must not be the ones of the examples the SVM
was trained on, or the sigmoid is overconfident, so they come from an
internal cross-validation (``stochsvm train --probability``; LIBSVM's ``-b 1``
and scikit-learn's ``SVC(probability=True)`` do the same). The fit follows
the Newton method with backtracking of Lin, Lin and Weng, *A note on Platt's
probabilistic outputs for support vector machines* (Machine Learning 68,
2007), which evaluates ``log(1 + exp(.))`` without overflow.

Several outputs (one-vs-rest) get one sigmoid each, and the probabilities of
a row are normalised to sum to 1.
"""

from __future__ import annotations

import numpy as np

__all__ = ["fit_platt", "platt_probability", "log_platt_probability", "normalise_logs",
           "class_probabilities"]


def _objective(A, B, f, t):
    """The negative log-likelihood sum_i t_i z_i + log(1 + exp(-z_i)),
    z = A f + B (P(+1) = 1 / (1 + exp(z))), computed without overflow."""
    z = A * f + B
    return float(np.sum(t * z + np.logaddexp(0.0, -z)))


def fit_platt(scores, y, max_iter=100, tol=1e-5):
    """Platt's sigmoid ``(A, B)`` for ``scores`` and labels ``y`` in {-1, +1}.

    Parameters
    ----------
    scores : array of shape (n,)
        Held-out decision values.
    y : array of shape (n,)
        -1 or +1 (both present or not).

    Returns
    -------
    (A, B) : floats, with ``P(+1 | f) = 1 / (1 + exp(A f + B))`` (A < 0 when
    larger scores mean the positive class).
    """
    f = np.asarray(scores, dtype=np.float64).ravel()
    y = np.asarray(y).ravel()
    if f.shape != y.shape or f.size == 0:
        raise ValueError(f"scores and y must be non-empty and of one length, got {f.size} "
                         f"and {y.size}")
    if not np.isfinite(f).all():
        raise ValueError("scores must be finite")
    positive = y > 0
    n_pos, n_neg = int(positive.sum()), int((~positive).sum())
    t = np.where(positive, (n_pos + 1.0) / (n_pos + 2.0), 1.0 / (n_neg + 2.0))
    A, B = 0.0, float(np.log((n_neg + 1.0) / (n_pos + 1.0)))
    value = _objective(A, B, f, t)
    sigma = 1e-12  # keeps the Hessian positive definite
    for _ in range(max_iter):
        p = platt_probability(f, A, B)
        d1, d2 = t - p, p * (1 - p)
        g = np.array([np.dot(f, d1), d1.sum()])
        if np.abs(g).max() < tol:
            break
        H = np.array([[np.dot(f * f, d2) + sigma, np.dot(f, d2)],
                      [np.dot(f, d2), d2.sum() + sigma]])
        dA, dB = -np.linalg.solve(H, g)
        step, slope = 1.0, float(g @ np.array([dA, dB]))
        while step >= 1e-10:
            newA, newB = A + step * dA, B + step * dB
            new = _objective(newA, newB, f, t)
            if new < value + 1e-4 * step * slope:
                A, B, value = newA, newB, new
                break
            step /= 2
        else:
            break  # no decrease along the Newton direction: at the optimum to rounding
    return float(A), float(B)


def platt_probability(scores, A, B):
    """``1 / (1 + exp(A f + B))`` for every score ``f``, without overflow."""
    z = A * np.asarray(scores, dtype=np.float64) + B
    e = np.exp(-np.abs(z))
    return np.where(z >= 0, e / (1 + e), 1 / (1 + e))


def log_platt_probability(scores, A, B):
    """``log(1 / (1 + exp(A f + B)))`` for every score ``f``: ``-softplus(A f
    + B)``, finite where the probability itself underflows to 0."""
    z = A * np.asarray(scores, dtype=np.float64) + B
    return -(np.maximum(z, 0) + np.log1p(np.exp(-np.abs(z))))


def normalise_logs(L):
    """Rows proportional to ``exp(L)`` that sum to 1 (``L``: log values, one
    row per example), taken relative to each row's largest: where every
    value of a row lies below exp's range (scores below about -745) the row
    keeps its order instead of 0 / 0."""
    E = np.exp(L - L.max(axis=1, keepdims=True))
    return E / E.sum(axis=1, keepdims=True)


def class_probabilities(scores, sigmoids):
    """Class probabilities of a binary model (one column of scores, one
    sigmoid: columns P(negative class), P(positive class)) or of a
    one-vs-rest model (one column and sigmoid per class, each row normalised
    to sum to 1)."""
    scores = np.asarray(scores, dtype=np.float64)
    if scores.ndim != 2 or scores.shape[1] != len(sigmoids):
        raise ValueError(f"{len(sigmoids)} sigmoids for scores of shape {scores.shape}")
    if len(sigmoids) == 1:
        (A, B), = sigmoids
        p = platt_probability(scores[:, 0], A, B)
        return np.column_stack([1 - p, p])
    # one-vs-rest: normalised in logs (far-out rows underflowed to 0 / 0, then to
    # a uniform row whose argmax was class 0 whatever the scores)
    return normalise_logs(np.column_stack([log_platt_probability(scores[:, k], A, B)
                                           for k, (A, B) in enumerate(sigmoids)]))
