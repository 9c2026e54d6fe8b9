"""CoCoA+ on one partition: the worker side of :mod:`stochsvm.dask`'s default solver.

The problem is SDCA's (``sdca.c``) over all ``N`` rows, augmented rows
``x~_i = (x_i, B)`` and ``w~ = (w, b / B)``::

    P(w~)    = lambda/2 ||w~||^2 + 1/N sum_i c_i loss(y_i, <w~, x~_i>)
    D(alpha) = -lambda/2 ||w~(alpha)||^2 - 1/N sum_i c_i loss*(-alpha_i / c_i, y_i),
    w~(alpha) = 1/(lambda N) sum_i alpha_i x~_i = sum_k v_k,

with ``v_k = 1/(lambda N) A_k alpha_[k]`` the contribution of partition k's
rows (``n_k`` of them, ``K`` partitions). CoCoA+ (Ma et al. 2015; Smith et
al. 2018) with added updates (gamma = 1) and ``sigma' = K``: in a round every
partition, from the global ``w~``, approximately maximises its subproblem

    G_k(d) = -1/N sum_{i in k} c_i loss*(-(alpha_i + d_i) / c_i, y_i)
             - lambda/(2K) ||w~||^2 - 1/N <w~, A_k d> - lambda K/2 ||A_k d / (lambda N)||^2

and the driver adds every ``v_k`` change to ``w~``. With
``lambda' = lambda N / (K n_k)`` (so ``lambda' n_k = lambda N / K``) and
``u = w~ + K A_k d / (lambda N)``,

    (N / n_k) G_k(d) = -1/n_k sum_{i in k} c_i loss*(-(alpha_i + d_i) / c_i, y_i)
                       - lambda'/2 ||u||^2 + const,

which is exactly SDCA's dual on the local rows with ``lambda'``, dual
variables ``alpha_[k] + d`` and its model ``1/(lambda' n_k) A_k (alpha_[k] + d)``
shifted by ``r = w~ - K v_k`` (``SVM.shift_sdca_model``). So a round is: set
the partition's dual variables (SDCA rebuilds ``K v_k``), shift the model to
``w~``, run ``local_epochs`` epochs of SDCA, and return the new
``v_k = (K v_k + (u_end - w~)) / K``. The bias is learned like the other
coordinates (bias multiplier B, regularised), as on one machine.

Before training, the round evaluates the partition's terms of the duality
gap at the round's ``w~`` and the partition's present ``alpha_[k]``: the sums
``sum c_i loss(y_i, <w~, x~_i>)`` and ``sum c_i loss*(-alpha_i / c_i, y_i)``.

The dual variables live on the partition object in the worker's memory,
stamped with the round that produced them. A partition rebuilt by Dask
(its worker died) or a stale copy of it starts again from the dual
variables it has (zero when rebuilt) and says so: ``w~`` stays the exact
sum of the contributions the partitions return, so the fit remains correct
and only loses that partition's progress.
"""

import time

import numpy as np

from stochsvm._svm import SVM


def _xlogx(x):
    out = np.zeros_like(x)
    positive = x > 0
    out[positive] = x[positive] * np.log(x[positive])
    return out


def loss_sum(loss, y, scores, c):
    """``sum_i c_i loss(y_i, s_i)`` (the loss formulas of ``svm.h``)."""
    if loss == "hinge":
        values = np.maximum(0.0, 1.0 - y * scores)
    elif loss == "hinge2":
        values = np.maximum(0.0, 1.0 - y * scores) ** 2
    elif loss == "logistic":
        values = np.logaddexp(0.0, -y * scores)
    elif loss == "l1":
        values = np.abs(y - scores)
    elif loss == "l2":
        values = (y - scores) ** 2
    else:  # pragma: no cover - the estimators check the loss
        raise ValueError(f"unknown loss {loss!r}")
    return float(values.sum() if c is None else c @ values)


def conjugate_sum(loss, y, alpha, c):
    """``sum_i c_i loss*(-alpha_i / c_i, y_i)`` over the rows with c_i > 0
    (``ss_loss_conjugate``; alpha is in its domain: SDCA keeps it there)."""
    if c is not None:
        keep = c > 0
        y, alpha, c = y[keep], alpha[keep], c[keep]
    else:
        c = np.ones_like(alpha)
    if loss in ("hinge", "l1"):
        values = -y * alpha
    elif loss in ("hinge2", "l2"):
        values = -y * alpha + alpha * alpha / (4.0 * c)
    elif loss == "logistic":
        beta = np.clip(y * alpha / c, 0.0, 1.0)
        values = c * (_xlogx(beta) + _xlogx(1.0 - beta))
    else:  # pragma: no cover
        raise ValueError(f"unknown loss {loss!r}")
    return float(values.sum())


def _local_svm(part, config, k):
    """Partition part's SDCA object of problem k, lambda' = lambda N / (K n_k) (cached)."""
    key = ("cocoa", k, config["fit_id"])
    svm = part.cached_svm(key)
    if svm is None:
        lam = config["lambda"] * config["N"] / (config["K"] * part.n)
        svm = SVM(part.X, part.labels(config, k), lam, solver="sdca",
                  seed=config["seed"] + part.index, loss=config["loss"])
        svm.set_bias_multiplier(config["bias_multiplier"])
        if part.weights is not None:
            svm.set_weights(part.weights)
        svm.set_epsilon(0.0)
        iterations = config["local_epochs"] * part.n
        svm.set_max_num_iterations(iterations)
        svm.set_diagnostic_frequency(iterations)
        part.cache_svm(key, svm)
    return svm


def cocoa_round(part, coef, intercept, round_number, config, train=True):
    """One CoCoA+ round on one partition (see the module documentation).

    Parameters: the global model ``coef`` (P, d) and ``intercept`` (P,) of
    the P problems, the round number (dual variables stamped with
    ``round_number - 1`` are the expected ones), the fit's configuration;
    ``train=False`` evaluates only.

    Returns a dict: ``n``, ``loss`` and ``conjugate`` (P sums at the
    round's model and dual variables), ``coef``/``intercept`` (the
    partition's new contributions ``v_k``), ``restarted`` (the dual
    variables were not the expected ones), ``worker`` (where they now are:
    the next round runs there), ``cpu_time``.
    """
    start = time.process_time()
    K = config["K"]
    duals, stamp = part.duals.get(config["fit_id"], (None, 0))
    restarted = stamp != round_number - 1
    if duals is None:
        duals = [np.zeros(part.n) for _ in range(config["num_problems"])]
    losses, conjugates, contributions, biases, new_duals = [], [], [], [], []
    for k in range(config["num_problems"]):
        y = part.labels(config, k).astype(np.float64, copy=False)
        svm = _local_svm(part, config, k)
        svm.set_dual_variables(duals[k])
        own, own_bias = svm.get_model(), svm.get_bias()  # K v_k
        svm.shift_sdca_model(coef[k] - own, intercept[k] - own_bias)
        # <w~, x~_i> by the C core's row kernels (float32 blocks are not copied)
        scores = svm.decision_function(part.X)
        losses.append(loss_sum(config["loss"], y, scores, part.weights))
        conjugates.append(conjugate_sum(config["loss"], y, duals[k], part.weights))
        if not train:
            continue
        svm.set_iteration_number((round_number - 1) * config["local_epochs"] * part.n)
        svm.train()
        contributions.append((own + svm.get_model() - coef[k]) / K)
        biases.append((own_bias + svm.get_bias() - intercept[k]) / K)
        new_duals.append(svm.get_dual_variables())
    if train:
        part.duals[config["fit_id"]] = (new_duals, round_number)
    return {"n": part.n, "loss": np.array(losses), "conjugate": np.array(conjugates),
            "worker": _worker_address(),
            "coef": np.vstack(contributions) if train else None,
            "intercept": np.array(biases) if train else None,
            "restarted": bool(restarted), "cpu_time": time.process_time() - start}


def _worker_address():
    """The address of the worker running this task (None outside a worker)."""
    try:
        from distributed import get_worker

        return get_worker().address
    except (ImportError, ValueError):
        return None


def duality_gap(results, coef, intercept, lam, B, N):
    """(primal, dual) per problem from the partitions' sums at (coef, intercept)."""
    squared_norm = np.sum(coef * coef, axis=1)
    if B > 0:
        squared_norm = squared_norm + (intercept / B) ** 2
    regularizer = 0.5 * lam * squared_norm
    primal = regularizer + sum(res["loss"] for res in results) / N
    dual = -regularizer - sum(res["conjugate"] for res in results) / N
    return primal, dual
