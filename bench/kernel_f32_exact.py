#!/usr/bin/env python3
"""Float32 kernel rows in the exact solver (issue 21, item 2): kernel SDCA with
the bias (LIBSVM's dual, src/core/kernel/kernel_sdca_pair.c) on float32 data,
float64 rows against float32 rows (``KernelSVM.set_kernel_precision``), side
by side in one process, the two alternating.

For each set: process CPU seconds of ``train`` (median of ``--repeats``), kernel
evaluations, the dual objective's relative difference, and the test accuracy
of both models (their decision functions use float64 rows either way). The
kernel-row cache is ``--cache-mb`` MB, chosen below the n^2 8 bytes of all
rows in doubles, so the float32 rows are stored as floats, twice as many
(kernel_cache.c); ``--cache-mb 0`` keeps the 200 MB default.

    STOCHSVM_DATA=/work/shared/data nice python bench/kernel_f32_exact.py \\
        [--n-a9a N] [--n-ijcnn1 N] [--cache-mb MB] [--repeats R] [--epsilon E]

At the default epsilon (1e-3) both runs stop within 1e-3 of the optimum, and
their duals differ by their stopping points; --epsilon 1e-7 compares the
optima.

a9a (C = 32, gamma = 2^-7) and ijcnn1 (C = 32, gamma = 2): the first N rows
of a fixed permutation (seed 0) and the whole test file; digits as a binary
problem (even against odd, X / 16, C = 10, gamma = 0.02), the first 1200 rows
to train, the rest to test. Markdown on stdout.
"""
import argparse
import os
import statistics
import time

import numpy as np
from sklearn.datasets import load_digits

from stochsvm import KernelSVM, _testing


def sets(n_a9a, n_ijcnn1):
    for name, gamma, n in (("a9a", 2.0 ** -7, n_a9a), ("ijcnn1", 2.0, n_ijcnn1)):
        X, y, Xt, yt = _testing.load_benchmark(name)
        keep = np.sort(np.random.default_rng(0).permutation(X.shape[0])[:n])
        yield name, X[keep].astype(np.float32), y[keep], Xt.astype(np.float32), yt, 32.0, gamma
    X, y = load_digits(return_X_y=True)
    X = (X / 16).astype(np.float32)
    y = np.where(y % 2 == 0, 1.0, -1.0)
    yield "digits", X[:1200], y[:1200], X[1200:], y[1200:], 10.0, 0.02


def train(X, y, C, gamma, precision, cache_mb, epsilon):
    n = X.shape[0]
    svm = KernelSVM(X, np.where(y > 0, 1.0, -1.0), 1.0 / (C * n), solver="sdca", gamma=gamma)
    svm.set_unregularized_bias(True)
    svm.set_epsilon(epsilon)
    svm.set_kernel_precision(precision)
    if cache_mb:
        svm.set_cache_size(cache_mb)
    c0 = time.process_time()
    stats = svm.train()
    return time.process_time() - c0, stats, svm


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--n-a9a", type=int, default=8000)
    p.add_argument("--n-ijcnn1", type=int, default=8000)
    p.add_argument("--cache-mb", type=float, default=100.0)
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--epsilon", type=float, default=1e-3,
                   help="the stopping tolerance (relative duality gap; default 1e-3, SVC's)")
    args = p.parse_args()
    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    print(f"load average {load} before the runs; cache {args.cache_mb or 200:g} MB; "
          f"epsilon {args.epsilon:g}; medians of {args.repeats}.\n")
    print("| data | n | rows fit as doubles / floats | CPU s f64 rows | CPU s f32 rows | ratio "
          "| kernel evals f64 / f32 | dual rel diff | test acc f64 / f32 (pp) |")
    print("|---|---|---|---|---|---|---|---|---|")
    for name, X, y, Xt, yt, C, gamma in sets(args.n_a9a, args.n_ijcnn1):
        n = X.shape[0]
        mb = args.cache_mb or 200.0
        fit = [min(n, int(mb * 2 ** 20 / (n * size))) for size in (8, 4)]
        times = {"float64": [], "float32": []}
        last = {}
        for _ in range(args.repeats):
            for precision in times:
                seconds, stats, svm = train(X, y, C, gamma, precision, args.cache_mb,
                                            args.epsilon)
                times[precision].append(seconds)
                last[precision] = (stats, svm)
        (s64, m64), (s32, m32) = last["float64"], last["float32"]
        d64, d32 = s64["dual_objective"], s32["dual_objective"]
        acc = [100 * np.mean(np.where(m.decision_function(Xt) > 0, 1, -1) == np.where(yt > 0, 1, -1))
               for m in (m64, m32)]
        t64, t32 = statistics.median(times["float64"]), statistics.median(times["float32"])
        print(f"| {name} | {n} | {fit[0]} / {fit[1]} | {t64:.2f} | {t32:.2f} | {t64 / t32:.2f}x | "
              f"{s64['num_kernel_evaluations']} / {s32['num_kernel_evaluations']} | "
              f"{abs(d32 - d64) / abs(d64):.1e} | {acc[0]:.2f} / {acc[1]:.2f} "
              f"({acc[1] - acc[0]:+.2f}) |", flush=True)
    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    print(f"\nload average {load} after the runs.")


if __name__ == "__main__":
    main()
