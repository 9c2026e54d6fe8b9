#!/usr/bin/env python3
"""Projection maintenance speed: BSCA with budget maintenance by projection on
a9a (C = 32, gamma = 2^-7, seed 0), a fixed number of steps per budget.
Reports the solver's own thread CPU time (budget statistics solver_seconds),
projections, removals (fallbacks), weight degradation and test accuracy.

    python bench/budget_projection_speed.py --budgets 100,200,500 --steps 32561 --label after

Appends a json line per run to budget_projection_speed.jsonl in --out (default
$STOCHSVM_BENCH_OUT, bench/_output.py; the committed file: --out bench/results);
compare the "before" (full Cholesky per step, O(B^3)) and "after"
(incremental factor, O(B^2)) lines. Shared machine: CPU times, still noisy.
"""
import argparse
import json
import time
from pathlib import Path

import numpy as np

import stochsvm
from stochsvm import _testing
from _output import out_dir  # noqa: E402 (bench/)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--budgets", default="100,200,500")
    p.add_argument("--steps", type=int, default=32561)
    p.add_argument("--label", required=True)
    p.add_argument("--out", default=out_dir())
    args = p.parse_args()
    Xtr, ytr, Xte, yte = _testing.load_benchmark("a9a")
    n, C = Xtr.shape[0], 32.0
    for B in map(int, args.budgets.split(",")):
        svm = stochsvm.KernelSVM(Xtr, ytr, 1 / (C * n), solver="bsca", kernel="rbf",
                                 gamma=2.0**-7, seed=0)
        svm.set_budget(B)
        svm.set_budget_maintenance("project")
        svm.set_max_num_iterations(args.steps)
        svm.set_diagnostic_frequency(args.steps)
        c0 = time.process_time()
        svm.train()
        call = time.process_time() - c0
        bs = svm.get_budget_statistics()
        acc = float(np.mean(svm.predict(Xte) == yte))
        row = dict(label=args.label, budget=B, steps=args.steps, solver_cpu_s=bs["solver_seconds"],
                   train_call_cpu_s=call, projections=bs["num_projections"],
                   removals=bs["num_removals"], weight_degradation=bs["weight_degradation"], acc=acc)
        print(json.dumps(row), flush=True)
        with open(Path(args.out) / "budget_projection_speed.jsonl", "a") as f:
            f.write(json.dumps(row) + "\n")


if __name__ == "__main__":
    main()
