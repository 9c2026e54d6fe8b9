#!/usr/bin/env python3
"""When the stochastic kernel solvers hand over to the exact finish.

Kernel Pegasos, BSGD and BSCA (budget at least n) and bias-free kernel SDCA
end a default run on the exact kernel SDCA finish, whose model replaces
theirs (src/core/kernel/kernel_finish.c, docs/stopping.rst, "The kernel SDCA
finish"). This script times, for each solver and problem, one ``KernelSVM``
object at its defaults (the finish in "auto", the object's own cap)
against:

* ``alone``: the same object with the finish off, which runs its steps to
  its cap or its own stop, and keeps that model;
* ``finish only``: the same object under a cap of one iteration with the
  finish on: the exact solve from zero, nearly alone.

Until the hand-over came before the cap, a default run cost ``alone`` plus
the finish wherever ``alone`` ended on the cap (status max_iterations); the
``alone`` column is thus a lower bound on the former default's time.

Rows: the first ``--rows`` rows of a fixed permutation (``default_rng(0)``)
of a9a (gamma 2^-7) and ijcnn1 (gamma 2) from ``$STOCHSVM_DATA``, C = 1 and
32 (``--C``); process CPU time of ``train``; the epochs of the run (the
finish's own epochs apart), the status, the primal objective and the
relative gap of the model kept.

    python bench/kernel_handover.py --rows 4000 --solvers pegasos,bsgd,bsca
    python bench/kernel_handover.py --rows 8000 --solvers sdca
"""
import argparse
import os
import time

from kernel_speed import SETS, load_average, subset

from stochsvm import KernelSVM


def run(X, y, C, gamma, solver, mode):
    """One object: ``mode`` "default", "alone" or "finish only"."""
    n = X.shape[0]
    svm = KernelSVM(X, y.astype(float), 1 / (C * n), solver=solver, kernel="rbf", gamma=gamma,
                    seed=0)
    if solver in ("bsca", "bsgd"):
        svm.set_budget(n)  # B >= n: the finish applies
    if mode == "alone":
        svm.set_sdca_finish(False)
    elif mode == "finish only":
        svm.set_sdca_finish(True)
        svm.set_max_num_iterations(1)
    start = time.process_time()
    st = svm.train()
    seconds = time.process_time() - start
    gap = st["duality_gap"] / st["dual_objective"] if st["dual_objective"] > 0 else float("nan")
    return (f"{seconds:.2f} | {st['iteration'] / n:.0f} | {st['finish_epochs']:.0f} | "
            f"{st['status']} | {st['primal_objective']:.6f} | {gap:.1e}")


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--rows", type=int, default=4000)
    p.add_argument("--C", default="1,32", help="comma-separated values of C")
    p.add_argument("--sets", default="a9a,ijcnn1")
    p.add_argument("--solvers", default="pegasos,bsgd,bsca,sdca")
    p.add_argument("--modes", default="default,alone,finish only",
                   help="comma-separated runs of each object (default: all three)")
    p.add_argument("--out", default=None, help="markdown file (default: print only)")
    args = p.parse_args()
    unknown = set(args.modes.split(",")) - {"default", "alone", "finish only"}
    if unknown:
        p.error(f"--modes: unknown {sorted(unknown)}; choose from default, alone, finish only")
    lines = [f"`python bench/kernel_handover.py --rows {args.rows} --C {args.C} --sets "
             f"{args.sets} --solvers {args.solvers} --modes '{args.modes}'` ({load_average()} before)", "",
             "| data | n | C | solver | run | CPU s | epochs | finish epochs | status | P | "
             "(P - D) / D |", "|---|---|---|---|---|---|---|---|---|---|---|"]
    print("\n".join(lines), flush=True)
    for name in args.sets.split(","):
        X, y, _, _ = subset(name, args.rows, 1)
        for C in map(float, args.C.split(",")):
            for solver in args.solvers.split(","):
                for mode in args.modes.split(","):
                    lines.append(f"| {name} | {X.shape[0]} | {C:g} | {solver} | {mode} | "
                                 f"{run(X, y, C, SETS[name], solver, mode)} |")
                    print(lines[-1], flush=True)
    lines += ["", f"{load_average()} after.", ""]
    if args.out:
        with open(args.out, "w") as f:
            f.write("\n".join(lines))


if __name__ == "__main__":
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    main()
