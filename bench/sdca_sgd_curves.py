#!/usr/bin/env python3
"""Convergence of the linear SDCA and SGD solvers per epoch, for their docs pages.

For each data set (stochsvm._testing.load_benchmark: CSR float64, labels
-1/+1), the hinge loss and lambda = 1e-4, the objective

    P(w, b) = lambda/2 (||w||^2 + b^2) + 1/n sum_i max(0, 1 - y_i (w.x_i + b))

(bias multiplier 1, LIBLINEAR's ``-B 1``) is traced epoch by epoch for

* SDCA (``solver="sdca"``, the defaults): P, and its duality gap P - D;
* SGD (``solver="sgd"``, the defaults: Pegasos steps 1/(lambda (t + t0)),
  default t0): P;

with the test error, and the cumulative process CPU time of the ``train()``
calls (one epoch each; each call ends with the diagnostic's pass over the
data, counted in the time). The optimum P* is the lowest of LIBLINEAR's
``-s 3 -e 1e-6`` and every P seen; the best SDCA dual D lower-bounds it (the
table gives the certified (P* - D) / P*). LIBLINEAR's run appears as a
dotted line at its CPU time, and at its test error.

Writes ``sdca_sgd_curves_<data>.png`` and ``sdca_sgd_curves.md`` to
``--output`` (default ``$STOCHSVM_BENCH_OUT``, bench/_output.py; the committed
ones, drawn on the SDCA and SGD pages: ``--output bench/results``).

Usage:  STOCHSVM_DATA=/path/to/data nice python bench/sdca_sgd_curves.py
        [--datasets a9a,w8a,ijcnn1,covtype] [--epochs 50]
"""

import argparse
import os
import sys
from datetime import datetime, timezone

import numpy as np

import stochsvm
from stochsvm._testing import load_benchmark

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from linear_sdca import objective  # noqa: E402  (shared bench helpers)
from linear_sgd import git_revision  # noqa: E402
from sgdqn_paper import cpu, liblinear_train, test_error  # noqa: E402
from _output import out_dir  # noqa: E402 (bench/)

LAMBDA = 1e-4


def trace(solver, X, y, Xt, yt, epochs):
    """(epoch, cumulative CPU s, P, D or NaN, test error) after every epoch."""
    n = X.shape[0]
    svm = stochsvm.SVM(X, y, LAMBDA, solver=solver, loss="hinge")
    svm.set_epsilon(0)
    svm.set_max_num_iterations(n)
    points, elapsed = [], 0.0
    for epoch in range(1, epochs + 1):
        seconds, stats = cpu(svm.train)
        elapsed += seconds
        w, b = svm.get_model(), svm.get_bias()
        points.append((epoch, elapsed, objective(X, y, w, b, LAMBDA, "hinge"),
                       stats.get("dual_objective", np.nan), test_error(Xt, yt, w, b)))
    return np.array(points)


def measure(name, epochs):
    X, y, Xt, yt = load_benchmark(name)
    curves = {"SDCA": trace("sdca", X, y, Xt, yt, epochs),
              "SGD": trace("sgd", X, y, Xt, yt, epochs)}
    seconds, w, b = liblinear_train(X, y, LAMBDA, "-s 3 -e 1e-6")
    liblinear = (seconds, objective(X, y, w, b, LAMBDA, "hinge"), test_error(Xt, yt, w, b))
    optimum = min(liblinear[1], *(c[:, 2].min() for c in curves.values()))
    dual = np.nanmax(curves["SDCA"][:, 3])
    return X.shape, optimum, dual, curves, liblinear


def plot(name, shape, optimum, curves, liblinear, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    floor = 1e-10  # where an exact optimum would be drawn on the log axes
    fig, axes = plt.subplots(1, 3, figsize=(15, 4.2))
    styles = {"SDCA": ("tab:blue", "o"), "SGD": ("tab:orange", "s")}
    for label, p in curves.items():
        colour, marker = styles[label]
        sub = np.maximum(p[:, 2] / optimum - 1, floor)
        axes[0].semilogy(p[:, 0], sub, color=colour, marker=marker, ms=3, label=f"{label}: P")
        axes[1].plot(p[:, 0], p[:, 4] * 100, color=colour, marker=marker, ms=3, label=label)
        axes[2].loglog(p[:, 1], sub, color=colour, marker=marker, ms=3, label=f"{label}: P")
        if label == "SDCA":
            gap = np.maximum((p[:, 2] - p[:, 3]) / p[:, 2], floor)
            axes[0].semilogy(p[:, 0], gap, color=colour, linestyle="--",
                             label="SDCA: duality gap (P - D) / P")
            axes[2].loglog(p[:, 1], gap, color=colour, linestyle="--",
                           label="SDCA: duality gap (P - D) / P")
    seconds, value, error = liblinear
    axes[2].axvline(seconds, color="black", linestyle=":",
                    label=f"LIBLINEAR -s 3 -e 1e-6: {value / optimum - 1:.0e} in this time")
    axes[1].axhline(error * 100, color="gray", linestyle=":", label="LIBLINEAR")
    axes[0].set(xlabel="epochs", ylabel="(P - P*) / P*", title=f"{name}: objective")
    axes[1].set(xlabel="epochs", ylabel="test error (%)", title=f"{name}: test error")
    axes[2].set(xlabel="CPU seconds (cumulative)", ylabel="(P - P*) / P*",
                title=f"{name}: objective against time")
    for ax in axes:
        ax.grid(True, which="both", alpha=0.3)
    axes[0].legend(fontsize=8)
    axes[1].legend(fontsize=8)
    axes[2].legend(fontsize=8)
    fig.suptitle(f"{name} ({shape[0]:,} x {shape[1]:,}), hinge loss, lambda = {LAMBDA:g}, "
                 f"defaults (shared machine)")
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--datasets", default="a9a,w8a,ijcnn1,covtype")
    parser.add_argument("--epochs", type=int, default=50)
    parser.add_argument("--output", default=out_dir())
    args = parser.parse_args()
    os.makedirs(args.output, exist_ok=True)
    load = os.getloadavg()
    lines = ["# SDCA and SGD per epoch", "",
             f"Generated by `bench/sdca_sgd_curves.py --datasets {args.datasets} --epochs "
             f"{args.epochs}` on {datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC, revision "
             f"{git_revision()}; {os.cpu_count()} logical CPUs shared with other sessions "
             f"(load average at the start {load[0]:.2f} / {load[1]:.2f} / {load[2]:.2f}).", "",
             f"Hinge loss, lambda = {LAMBDA:g}, bias multiplier 1, the solvers' defaults. "
             "(P - P*) / P* with P* the lowest of LIBLINEAR `-s 3 -e 1e-6` and every P seen; "
             "CPU seconds are cumulative over the epochs, each with one objective pass.", "",
             "| data | P* | certified by SDCA's dual | solver | after 1 epoch | 5 | 10 | "
             f"{args.epochs} | test error after {args.epochs} | CPU s |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for name in args.datasets.split(","):
        shape, optimum, dual, curves, liblinear = measure(name, args.epochs)
        plot(name, shape, optimum, curves, liblinear,
             os.path.join(args.output, f"sdca_sgd_curves_{name}.png"))
        for label, p in curves.items():
            sub = [p[min(e, len(p)) - 1, 2] / optimum - 1 for e in (1, 5, 10, args.epochs)]
            lines.append(f"| {name} | {optimum:.6g} | {(optimum - dual) / optimum:.1e} | {label} | "
                         + " | ".join(f"{s:.1e}" for s in sub)
                         + f" | {p[-1, 4] * 100:.2f} % | {p[-1, 1]:.3g} |")
        seconds, value, error = liblinear
        lines.append(f"| {name} | | | LIBLINEAR -s 3 -e 1e-6 | | | | {value / optimum - 1:.1e} "
                     f"| {error * 100:.2f} % | {seconds:.3g} |")
        print(f"{name}: done", flush=True)
    path = os.path.join(args.output, "sdca_sgd_curves.md")
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")
    print("wrote", path)


if __name__ == "__main__":
    main()
