#!/usr/bin/env python3
"""Linear SDCA on unscaled features: how far the dual coordinate steps get, against LIBLINEAR.

Issue 17's unseen-data suite (bench/defaults.py) finds linear SDCA at its
defaults (100 epochs, relative gap 1e-3) far from the optimum on raw data:
wine, breast_cancer and the ``unscaled`` worst case (features spanning
1e-3..1e4). This script measures, per binary problem, with the hinge loss
and a regularized bias of multiplier 1 (lambda = 1/(C n)):

* the exact optimum P*: the lower objective of the Jacobi-scaled Newton
  method of stochsvm/_reference.py (`newton_model`, with its certified lower
  bound: ``cert`` = (P* - bound) / P*), LIBLINEAR at eps 1e-9 and every
  SDCA iterate measured below;
* LIBLINEAR's dual coordinate descent (``-s 3 -B 1``, the same algorithm) at
  eps 1e-9 and at its default 0.1: its iterations (epochs over its active
  set) and P / P*. ``cap`` marks a run that ended on LIBLINEAR's built-in
  iteration cap (its "reaching max number of iterations" warning);
* stochsvm's SDCA (seed 0, shrinking on, epsilon 0) continued epoch by
  epoch up to --max-epochs: P / P* after 100 epochs (the estimators' cap),
  the first measured epoch with P <= 1.02 P*, the first with a relative
  duality gap <= 1e-3 (the default stop), and P / P* at the end;
* ``C R^2``: C times the largest squared row norm with the bias (R^2 =
  max ||x_i||^2 + 1). SDCA's bound for the hinge loss (Shalev-Shwartz and
  Zhang 2013) is of order n + C R^2 n / epsilon_gap coordinate steps for a
  gap epsilon_gap of the C-scaled problem: it grows with the scale of the
  features, and so does what is measured here;
* the same after scikit-learn's StandardScaler (``--scaled``): a different
  problem (the regularizer sees other units), shown to separate the data's
  scaling from the algorithm.

Epochs are measured at 1..20, then every 10 to 200, every 100 to 2000,
every 1000 after (so "epochs to" is an upper bound on that grid).

Usage:  nice python bench/linear_sdca_unscaled.py [--max-epochs 20000]
        [--output bench/results/linear_sdca_unscaled.md]
"""

import argparse
import os
import platform
import sys
import tempfile
import time

import numpy as np
import scipy.sparse as sp

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import defaults as suite  # noqa: E402  (bench/defaults.py: data, objectives, Newton oracle)
from _output import out_path  # noqa: E402 (bench/)

CS = (1e-3, 10.0, 1e3)
TARGET = 1.02
GAP_TOL = 1e-3


def liblinear(X, y, C, eps):
    """(w, b, iterations, hit_cap, seconds) of LIBLINEAR -s 3 -B 1, its
    console output captured to read the iteration count."""
    from liblinear import liblinearutil as ll

    saved = os.dup(1)
    with tempfile.TemporaryFile() as out:
        os.dup2(out.fileno(), 1)
        try:
            start = time.process_time()
            model = ll.train(ll.problem(y, sp.csr_matrix(X)),
                             ll.parameter(f"-s 3 -c {C!r} -B 1 -e {eps!r}"))
            seconds = time.process_time() - start
        finally:
            sys.stdout.flush()
            os.dup2(saved, 1)
            os.close(saved)
        out.seek(0)
        text = out.read().decode()
    w, b = model.get_decfun()
    w, b = np.asarray(w, dtype=np.float64), float(b)
    if model.get_labels()[0] != 1:
        w, b = -w, -b
    counts = [line.split("=")[-1].strip() for line in text.splitlines() if "#iter" in line]
    return w, b, int(counts[-1]) if counts else -1, "max number of iterations" in text, seconds


def epoch_grid(max_epochs):
    e = 0
    while e < max_epochs:
        e += 1 if e < 20 else 10 if e < 200 else 100 if e < 2000 else 1000
        yield min(e, max_epochs)


def sdca_trace(X, y, lam, max_epochs):
    """[(epoch, P, relative gap)] of one SDCA run continued epoch by epoch."""
    from stochsvm import SVM

    n = X.shape[0]
    svm = SVM(X, y, lam, solver="sdca", loss="hinge", seed=0)
    svm.set_epsilon(0.0)
    trace = []
    for e in epoch_grid(max_epochs):
        svm.set_max_num_iterations(e * n)
        stats = svm.train()
        P = suite.linear_objective(X, y, svm.get_model(), svm.get_bias(), lam, "hinge")
        scale = max(abs(stats["objective"]), abs(stats["dual_objective"]))
        trace.append((e, P, stats["duality_gap"] / scale))
    return trace


def problems(scaled):
    from sklearn import datasets as skd
    from sklearn.preprocessing import StandardScaler

    from stochsvm.datasets import WORST_CASES

    out = []
    for name, loader in (("wine", skd.load_wine), ("breast_cancer", skd.load_breast_cancer)):
        out.append(suite._split(name, *loader(return_X_y=True)))
    out.append(suite._split("unscaled", *WORST_CASES["unscaled"]()))
    if scaled:
        for p in list(out):
            X = StandardScaler().fit_transform(p.X)
            out.append(suite.Problem(p.name + " (scaled)", X, p.y, p.X_test, p.y_test))
    return out


def fmt(value):
    return "-" if value is None else f"{value:.4g}" if isinstance(value, float) else str(value)


def rows(max_epochs, scaled, log):
    out = []
    for p in problems(scaled):
        n = p.X.shape[0]
        R2 = float(np.max(np.einsum("ij,ij->i", p.X, p.X))) + 1.0
        for C in CS:
            lam = 1.0 / (C * n)
            for k, y in enumerate(p.binary_targets):
                wn, bn, lower = suite.newton_model(p.X, y, lam, "hinge")
                P_newton = suite.linear_objective(p.X, y, wn, bn, lam, "hinge")
                runs = {eps: liblinear(p.X, y, C, eps) for eps in (1e-9, 0.1)}
                P_ll = {eps: suite.linear_objective(p.X, y, r[0], r[1], lam, "hinge")
                        for eps, r in runs.items()}
                trace = sdca_trace(p.X, y, lam, max_epochs)
                P_star = min([P_newton, *P_ll.values()] + [P for _, P, _ in trace])
                at100 = next(P for e, P, _ in trace if e >= 100) / P_star
                to_target = next((e for e, P, _ in trace if P <= TARGET * P_star), None)
                to_gap = next((e for e, _, g in trace if g <= GAP_TOL), None)
                ll_text = {eps: f"{r[2]}{' cap' if r[3] else ''} / {P_ll[eps] / P_star:.4g}"
                           for eps, r in runs.items()}
                row = (f"| {p.name} | {k} | {C:g} | {C * R2:.3g} | {(P_star - lower) / P_star:.1e} "
                       f"| {ll_text[1e-9]} | {ll_text[0.1]} | {at100:.4g} | {fmt(to_target)} "
                       f"| {fmt(to_gap)} | {trace[-1][1] / P_star:.4g} | {trace[-1][2]:.2g} |")
                print(row, file=log, flush=True)
                out.append(row)
    return out


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--max-epochs", type=int, default=20000)
    parser.add_argument("--no-scaled", action="store_true", help="leave out the scaled copies")
    parser.add_argument("--output", default=out_path("linear_sdca_unscaled.md"))
    args = parser.parse_args(argv)
    start = time.perf_counter()
    table = rows(args.max_epochs, not args.no_scaled, sys.stderr)
    load = os.getloadavg()
    text = (f"# Linear SDCA on unscaled features, against LIBLINEAR's dual coordinate descent\n\n"
            f"Produced by `nice python bench/linear_sdca_unscaled.py --max-epochs {args.max_epochs}` "
            f"({time.perf_counter() - start:.0f} s; load average at the end {load[0]:.2f} "
            f"{load[1]:.2f} {load[2]:.2f} on 2 shared cores; {platform.machine()}, Python "
            f"{platform.python_version()}). Method: the docstring of the script. Hinge loss, "
            f"bias multiplier 1, lambda = 1/(C n); problem k of a one-vs-rest set is class k "
            f"against the rest. LIBLINEAR columns: iterations (`cap`: it stopped on its "
            f"built-in cap, with its warning) / P / P*. SDCA columns: P / P* after 100 epochs, "
            f"epochs to {TARGET}x, epochs to a relative gap <= {GAP_TOL:g} (`-`: not within "
            f"{args.max_epochs} epochs), P / P* and the relative gap after {args.max_epochs} "
            f"epochs.\n\n"
            f"| data | problem | C | C R^2 | cert | LIBLINEAR 1e-9 | LIBLINEAR 0.1 "
            f"| SDCA @100 | epochs to {TARGET}x | epochs to gap {GAP_TOL:g} "
            f"| SDCA @{args.max_epochs} | gap @{args.max_epochs} |\n"
            f"|---|---|---|---|---|---|---|---|---|---|---|---|\n" + "\n".join(table) + "\n")
    with open(args.output, "w") as f:
        f.write(text)
    print(f"written to {args.output}")


if __name__ == "__main__":
    main()
