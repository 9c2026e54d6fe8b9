#!/usr/bin/env python3
"""Linear SDCA with a dual line search along alpha -> s alpha (issue 17, the "ray step").

SDCA's model is linear in its dual variables, w~(alpha) = 1/(lambda n) sum_i
alpha_i x~_i, so along the ray s alpha the model is s w~(alpha) and, with
beta_i = y_i alpha_i (unit weights), the dual is a function of s alone:

    D(s alpha) = -lambda/2 s^2 ||w~(alpha)||^2 + 1/n sum_i g(s beta_i),

g(b) = b (hinge, s beta_i <= 1), b - b^2/4 (squared hinge), the entropy
-b log b - (1 - b) log(1 - b) (logistic, s beta_i < 1). D is concave in s:
a quadratic with its maximiser in closed form (clipped to the box), or for
the logistic loss a 1-D Newton solve. Every s alpha is dual feasible, so
moving to the maximiser is a genuine ascent step that keeps w~ = w~(alpha).

This script measures whether taking that step during a run makes the
returned model better, on the sets where linear SDCA ends above the zero
model's objective (``unscaled``, LIBSVM's ``breast-cancer``) and on
ordinary ones. The step is emulated through the object API as the hook at
the end of an epoch takes it: train one epoch per call
(``set_max_num_iterations(n)``; a run split into calls equals the run in
one call), and at the end of the epochs 1, 2, 3, 4, 6, 9, 13, 19, ... (each
the last times 1.5, rounded down) read alpha, solve for s, and if the step
raises D by more than 1e-3 D, set s alpha (``set_dual_variables``). The
library's own step (src/core/linear/sdca_ray.c) is kept off in the emulated
runs by shifting the model by zero (``shift_sdca_model``: a shifted model
takes no step), again after each ``set_dual_variables``. Runs:

* ``off``: no step;
* ``ray``: the step at each scheduled epoch;
* ``ray if P > P(0)``: the step only while the model is worse than the zero
  model (P(w~) above P(0));
* ``... from epoch 100``: that, from epoch 100 on;
* ``rescue``: that, and only a step with s >= 1e3 (alpha three decades too
  small): the rule the library adopted;
* ``library``: the library's default run (its own step), which must equal
  ``rescue``.

Every run uses the estimator's settings (bias multiplier 1, lambda = 1/(C n),
seed 0) and its default cap (100 epochs or the epochs of 3e7 units of work,
whichever is more), with no stopping test (tol 0). The oracle is
bench/defaults.py's (LIBLINEAR left out, as in ``--quick``: stochsvm's SDCA
run tightly and the Jacobi-scaled Newton method). Multi-class sets are
reduced to their first class against the rest.

Usage:  STOCHSVM_DATA=../shared/data nice python bench/sdca_ray.py [--out FILE]
"""

import argparse
import platform
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import defaults as suite  # noqa: E402

SETS = ("unscaled", "breast-cancer", "breast_cancer", "wine", "digits (0-4 v 5-9)")
CS = (1e-3, 1.0, 1e3)
LOSSES = ("hinge", "hinge2", "logistic")
VARIANTS = ("off", "ray", "ray if P > P(0)", "... from epoch 100", "rescue", "library")
MIN_GAIN = 1e-3
MIN_SCALE = 1e3


def schedule(epochs):
    """The epochs 1, 2, 3, 4, 6, 9, ... up to `epochs`."""
    out, e = set(), 1
    while e <= epochs:
        out.add(e)
        e = max(e + 1, e + e // 2)
    return out


def _entropy(b):
    with np.errstate(divide="ignore", invalid="ignore"):
        return -np.where(b > 0, b * np.log(b), 0.0) - np.where(b < 1, (1 - b) * np.log1p(-b), 0.0)


def ray_dual(s, lam_norm2, beta, loss):
    """D(s alpha) (unit weights, regularized bias)."""
    b = s * beta
    g = {"hinge": b, "hinge2": b - b * b / 4}.get(loss)
    return -0.5 * lam_norm2 * s * s + float(np.mean(_entropy(b) if g is None else g))


def ray_maximiser(lam_norm2, beta, loss):
    """The s in the box that maximises D(s alpha)."""
    top = beta.max()
    if loss == "hinge2":
        return beta.mean() / (lam_norm2 + beta @ beta / (2 * len(beta)))
    s_max = 1 / top if top > 0 else np.inf
    if loss == "hinge":
        return min(max(beta.mean() / lam_norm2, 0.0), s_max)
    lo, hi, s = 0.0, s_max, min(1.0, 0.5 * s_max)  # logistic: safeguarded Newton
    for _ in range(60):
        p = s * beta[beta > 0]
        slope = -lam_norm2 * s + np.sum(beta[beta > 0] * (np.log1p(-p) - np.log(p))) / len(beta)
        curve = -lam_norm2 - np.sum(beta[beta > 0] ** 2 / (p * (1 - p))) / len(beta)
        lo, hi = (s, hi) if slope > 0 else (lo, s)
        new = s - slope / curve
        new = new if lo < new < hi else 0.5 * (lo + hi)
        if abs(new - s) <= 1e-12 * s:
            return new
        s = new
    return s


def run(p, yb, C, loss, variant, epochs):
    """One run; (P, test accuracy, steps taken)."""
    from stochsvm import SVM

    n = p.X.shape[0]
    lam = 1.0 / (C * n)
    svm = SVM(p.X, yb, lam, solver="sdca", loss=loss, seed=0)
    svm.set_bias_multiplier(1.0)
    svm.set_epsilon(0)

    def library_off():
        svm.shift_sdca_model(np.zeros(p.X.shape[1]), 0.0)

    if variant != "library":
        library_off()
    steps = 0
    if variant in ("off", "library"):
        svm.set_max_num_iterations(epochs * n)
        svm.train()
    else:
        when, zero = schedule(epochs), suite.zero_objective(yb, loss)
        svm.set_max_num_iterations(n)
        for e in range(1, epochs + 1):
            svm.train()
            if e not in when or (variant in ("... from epoch 100", "rescue") and e < 100):
                continue
            w, b = np.asarray(svm.get_model()), svm.get_bias()
            if variant != "ray" and suite.linear_objective(p.X, yb, w, b, lam, loss) <= zero:
                continue
            alpha = np.asarray(svm.get_dual_variables())
            lam_norm2 = lam * (w @ w + b * b)
            if not lam_norm2 > 0:
                continue
            beta = yb * alpha
            s = ray_maximiser(lam_norm2, beta, loss)
            if variant == "rescue" and s < MIN_SCALE:
                continue
            gain = ray_dual(s, lam_norm2, beta, loss) - ray_dual(1.0, lam_norm2, beta, loss)
            if gain > MIN_GAIN * abs(ray_dual(1.0, lam_norm2, beta, loss)):
                svm.set_dual_variables(np.clip(s * alpha, -1.0, 1.0) if loss != "hinge2"
                                       else s * alpha)
                library_off()
                steps += 1
    w, b = np.asarray(svm.get_model()), svm.get_bias()
    P = suite.linear_objective(p.X, yb, w, b, lam, loss)
    y_test = np.where(p.y_test == np.unique(p.y)[1], 1, -1)
    return P, float(np.mean(np.where(p.X_test @ w + b > 0, 1, -1) == y_test)), steps


def problems():
    from sklearn import datasets as skd

    from stochsvm.datasets import make_unscaled

    out = {"unscaled": suite._split("unscaled", *make_unscaled()),
           "breast-cancer": suite._shared("breast-cancer")}
    X, y = skd.load_breast_cancer(return_X_y=True)
    out["breast_cancer"] = suite._split("breast_cancer", X, y)
    X, y = skd.load_wine(return_X_y=True)
    out["wine"] = suite._split("wine", X, (y == 0).astype(int))  # class 0 against the rest
    X, y = skd.load_digits(return_X_y=True)
    out["digits (0-4 v 5-9)"] = suite._split("digits (0-4 v 5-9)", X, (y >= 5).astype(int))
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default="bench/results/sdca_ray.md")
    args = ap.parse_args(argv)
    start = time.time()
    rows, cache = [], {}
    for name, p in problems().items():
        yb = p.binary_targets[0]
        per_epoch = p.X.size + p.X.shape[0]
        epochs = max(100, int(np.ceil(3e7 / per_epoch)))
        for C in CS:
            for loss in LOSSES:
                oracle = suite.linear_oracle(p, C, loss, cache, liblinear=False)
                P_star, zero = oracle.objectives[0], oracle.zeros[0]
                y_test = np.where(p.y_test == np.unique(p.y)[1], 1, -1)
                o_acc = float(np.mean(np.where(oracle.scores[:, 0] > 0, 1, -1) == y_test))
                cells = []
                for v in VARIANTS:
                    P, acc, steps = run(p, yb, C, loss, v, epochs)
                    flag = " D" if P > zero else ""
                    cells.append(f"{P / P_star:.4g}{flag} / {100 * (o_acc - acc):+.1f}"
                                 + (f" ({steps})" if v not in ("off", "library") else ""))
                row = f"| {name} | {C:g} | {loss} | {zero / P_star:.3g} | {epochs} | " + " | ".join(cells) + " |"
                print(row, flush=True)
                rows.append(row)
    import os

    load = os.getloadavg()
    head = (f"# Linear SDCA with the ray step alpha -> s alpha\n\nProduced by `nice python "
            f"bench/sdca_ray.py` ({time.time() - start:.0f} s; load average at the end "
            f"{load[0]:.2f} {load[1]:.2f} {load[2]:.2f} on 2 shared cores; {platform.machine()}, "
            f"Python {platform.python_version()}). Method: the script's docstring. Each cell: "
            f"P / P* (D: above the zero model's objective) / the oracle's test accuracy minus "
            f"ours in points (steps taken).\n\n"
            "| data | C | loss | P(0)/P* | epochs | " + " | ".join(VARIANTS) + " |\n"
            "|---|---|---|---|---|" + "---|" * len(VARIANTS) + "\n")
    Path(args.out).write_text(head + "\n".join(rows) + "\n")


if __name__ == "__main__":
    main()
