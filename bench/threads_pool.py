#!/usr/bin/env python3
"""Threads inside one kernel model: the thread pool against OpenMP, 1 and 2
threads, side by side in one run.

bench/kernel_eval.c is linked against each build's libstochsvm.a (gcc
-pthread -fopenmp, so either build links), and the four runs (old 1t, old 2t,
new 1t, new 2t) alternate, R times each; the table gives median wall seconds.
The dual variables of all runs of a problem must be bit-identical (asserted):
threads never change a result, and the pool changes no arithmetic.

    STOCHSVM_DATA=/work/shared/data nice python bench/threads_pool.py \\
        --old-build /tmp/main/build --new-build build-c [--n 10000]

--n takes the first N rows of a fixed permutation of each training set. For
the busy-machine case start busy loops first, at normal priority, and stop
them afterwards:  for k in 1 2 3; do python -c "while 1: pass" & done
"""
import argparse
import os
import statistics
import subprocess
import sys
import tempfile

from kernel_speed import C, HERE, ROOT, SETS, dump, load_average, run_eval  # same problems


def compile_driver(build, out):
    src = os.path.join(build, "..") if os.path.isdir(os.path.join(build, "..", "include")) else ROOT
    subprocess.run(["gcc", "-O2", "-pthread", "-fopenmp", "-DKERNEL_EVAL_THREADS", "-I",
                    os.path.join(src, "include"), os.path.join(HERE, "kernel_eval.c"), os.path.join(build, "libstochsvm.a"),
                    "-lm", "-o", out], check=True)
    return out


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--old-build", required=True, help="build folder of the OpenMP core")
    p.add_argument("--new-build", default=os.path.join(ROOT, "build-c"))
    p.add_argument("--solvers", default="sbp,sdca,exact")
    p.add_argument("--sets", default="a9a,ijcnn1")
    p.add_argument("--n", type=int, default=0, help="rows per training set (0: all)")
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--sbp-iterations", type=int, default=600)
    p.add_argument("--sdca-epochs", type=float, default=0.1)
    args = p.parse_args()
    tmp = tempfile.mkdtemp(prefix="threads_pool_")
    exe = {"old": compile_driver(args.old_build, os.path.join(tmp, "old")),
           "new": compile_driver(args.new_build, os.path.join(tmp, "new"))}
    data = {name: dump(name, tmp, args.n) for name in args.sets.split(",")}
    print(f"`python bench/threads_pool.py {' '.join(sys.argv[1:])}`; "
          f"{load_average()} before the runs; median wall seconds of {args.repeats}.\n")
    print("| data | n | solver | OpenMP 1t | OpenMP 2t | 2t/1t | pool 1t | pool 2t | 2t/1t |")
    print("|---|---|---|---|---|---|---|---|---|")
    for name, (files, n, d) in data.items():
        gamma, lam = SETS[name], 1.0 / (C * n)
        for solver in args.solvers.split(","):
            iterations = {"sbp": args.sbp_iterations, "sdca": int(args.sdca_epochs * n),
                          "exact": 10 ** 9}[solver]
            wall = {(b, t): [] for b in exe for t in (1, 2)}
            duals = []
            out = os.path.join(tmp, "alpha")
            for _ in range(args.repeats):
                for b, t in wall:
                    w, _, _, a = run_eval(exe[b], files, d, solver, gamma, lam, iterations, t, out)
                    wall[b, t].append(w)
                    duals.append(a.tobytes())
            assert all(a == duals[0] for a in duals), "the dual variables differ"
            m = {k: statistics.median(v) for k, v in wall.items()}
            print(f"| {name} | {n} | {solver} | {m['old', 1]:.2f} | {m['old', 2]:.2f} | "
                  f"{m['old', 2] / m['old', 1]:.2f} | {m['new', 1]:.2f} | {m['new', 2]:.2f} | "
                  f"{m['new', 2] / m['new', 1]:.2f} |", flush=True)
    print(f"\n{load_average()} after the runs.")


if __name__ == "__main__":
    main()
