#!/usr/bin/env python3
"""Cross-check for bench/budget_paper.py: is BSCA's behaviour on a9a that of
dual coordinate ascent itself, or an effect of the budget?

Runs exact kernel SDCA (no budget, every support vector kept) and BSCA with
B = 500 (merging) on a9a at the paper's setting (C = 2^5, gamma = 2^-7, no
bias, seed 0), one train() per epoch, and prints the test accuracy and the
primal / dual objectives (C scaling) after each epoch. Exact SDCA costs
n x (support vectors) kernel evaluations per epoch (tens of seconds here).

    python bench/budget_sdca_check.py [--epochs 4]
"""
import argparse
import time

import numpy as np

from stochsvm import KernelSVM, _testing


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--epochs", type=int, default=4)
    args = p.parse_args()
    Xtr, ytr, Xte, yte = _testing.load_benchmark("a9a")
    n, C, gamma = Xtr.shape[0], 2.0 ** 5, 2.0 ** -7
    lam = 1 / (C * n)
    for solver in ("sdca", "bsca"):
        svm = KernelSVM(Xtr, ytr, lam, solver=solver, gamma=gamma, seed=0)
        if solver == "bsca":
            svm.set_budget(500)
        else:
            svm.set_epsilon(0)
        svm.set_max_num_iterations(n)
        svm.set_diagnostic_frequency(n)
        for e in range(1, args.epochs + 1):
            t = time.process_time()
            st = svm.train()
            t = time.process_time() - t
            acc = np.mean(svm.predict(Xte) == yte)
            print(f"{solver} epoch {e}: train() CPU {t:.1f} s, test acc {acc:.4f}, "
                  f"P {st['primal_objective'] / lam:.6g}, D {st['dual_objective'] / lam:.6g}, "
                  f"SV {st['num_support_vectors']}", flush=True)


if __name__ == "__main__":
    main()
