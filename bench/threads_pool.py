#!/usr/bin/env python3
"""Threads inside one kernel model: 1 and 2 threads of one build of the C
core, or of two builds side by side in one run.

bench/kernel_eval.c is linked against each build's libstochsvm.a (gcc
-pthread -fopenmp, so a build with OpenMP links too), and the runs (old 1t,
old 2t, new 1t, new 2t; without --old-build only the new ones) alternate, R
times each; the table gives median wall seconds and the speed-ups 1t / 2t.
The dual variables of all runs of a problem must be bit-identical (asserted):
threads never change a result, and the pool changes no arithmetic.

    STOCHSVM_DATA=/work/shared/data nice python bench/threads_pool.py \\
        [--old-build /tmp/main/build] --new-build build-c [--n 10000]

--budget runs BSCA instead (bench/budget_eval.c: one epoch with the budgets
of --budgets, merge maintenance) and reports the epoch's and the closing
diagnostic's wall and process CPU seconds on 1 and 2 threads; the old
build runs on 1 thread only (before issue 21 the budget code had none),
and every run's duals, bias, coefficients and support vectors must be
bit-identical to the others' (asserted):

    STOCHSVM_DATA=/work/shared/data nice python bench/threads_pool.py --budget \\
        [--old-build /tmp/main/build] --new-build build-c --n 20000 --budgets 500,5000

(--budget-solver bsca-bias: BSCA with the bias, the estimators' default and
the bars'; bsgd: BSGD.)

--budget-steps times every step of one epoch instead (bench/budget_steps.c,
the steps alone through the private trainer, the pool offering every job
to the worker), on 1 and 2 threads alternately; the least of each step's
--repeats times, summed, is the epoch undisturbed by other programs:

    STOCHSVM_DATA=/work/shared/data python bench/threads_pool.py --budget-steps \
        --budget-solver bsca-bias --new-build build-c --budgets 500 [--min-terms 128]

--n takes the first N rows of a fixed permutation of each training set. For
the busy-machine case start busy loops first, at the benchmark's niceness,
and stop them afterwards:
    for k in 1 2 3; do nice -n 10 python3 -c "while 1: pass" & done
"""
import argparse
import os
import statistics
import subprocess
import sys
import tempfile

from kernel_speed import C, HERE, ROOT, SETS, dump, load_average, run_eval  # same problems


def compile_driver(build, out, driver="kernel_eval.c"):
    src = os.path.join(build, "..") if os.path.isdir(os.path.join(build, "..", "include")) else ROOT
    subprocess.run(["gcc", "-O2", "-pthread", "-fopenmp", "-DKERNEL_EVAL_THREADS", "-I",
                    os.path.join(src, "include"), os.path.join(HERE, driver), os.path.join(build, "libstochsvm.a"),
                    "-lm", "-o", out], check=True)
    return out


def budget_runs(args, tmp):
    """BSCA epochs on 1 and 2 threads (the old build: 1 thread), alternated."""
    exe = {"new": compile_driver(args.new_build, os.path.join(tmp, "new"), "budget_eval.c")}
    if args.old_build:
        exe = {"old": compile_driver(args.old_build, os.path.join(tmp, "old"), "budget_eval.c"), **exe}
    runs = [(b, t) for b in exe for t in ((1,) if b == "old" else (1, 2))]
    print(f"`python bench/threads_pool.py {' '.join(sys.argv[1:])}`; "
          f"{load_average()} before the runs; medians of {args.repeats}; seconds of one BSCA "
          f"epoch (train - diagnostic) and of the closing diagnostic, wall (process CPU).\n")
    print("| data | n | solver | B | merges |" + "".join(f" {b} {t}t epoch | {b} {t}t diagnostic |" for b, t in runs)
          + " epoch speed-up 2t | diagnostic speed-up 2t |")
    print("|---" * (5 + 2 * len(runs) + 2) + "|")
    for name in args.sets.split(","):
        files, n, d = dump(name, tmp, args.n)
        gamma, lam = SETS[name], 1.0 / (C * n)
        for budget in args.budgets.split(","):
            times = {k: [] for k in runs}
            outputs, merges = set(), set()
            for _ in range(args.repeats):
                for b, t in runs:
                    out = os.path.join(tmp, "model")
                    line = subprocess.run([exe[b], *files, str(d), args.budget_solver, repr(gamma), repr(lam), budget,
                                           "1", str(t), out], check=True, capture_output=True,
                                          text=True).stdout.split()
                    wall, cpu, dwall, dcpu = map(float, line[:4])
                    times[b, t].append((wall - dwall, cpu - dcpu, dwall, dcpu))
                    merges.add(line[4])
                    with open(out, "rb") as f:
                        outputs.add(f.read())
            assert len(outputs) == 1, "the models differ"
            med = {k: [statistics.median(x[c] for x in v) for c in range(4)] for k, v in times.items()}
            cells = "".join(f" {m[0]:.2f} ({m[1]:.2f}) | {m[2]:.2f} ({m[3]:.2f}) |" for m in med.values())
            one, two = med["new", 1], med["new", 2]
            print(f"| {name} | {n} | {args.budget_solver} | {budget} | {merges.pop()} |{cells} {one[0] / two[0]:.2f}x |"
                  f" {one[2] / two[2]:.2f}x |", flush=True)
    print(f"\n{load_average()} after the runs.")


def budget_step_runs(args, tmp):
    """Every step's least wall time over the repeats, 1 and 2 threads (bench/budget_steps.c)."""
    exe = os.path.join(tmp, "steps")
    subprocess.run(["gcc", "-O2", "-pthread", "-I", os.path.join(ROOT, "include"),
                    os.path.join(HERE, "budget_steps.c"), os.path.join(args.new_build, "libstochsvm.a"),
                    "-lm", "-o", exe], check=True)
    print(f"`python bench/threads_pool.py {' '.join(sys.argv[1:])}`; {load_average()} before the runs; "
          f"per thread count: the sum over one epoch's steps of each step's least wall time of "
          f"{args.repeats} runs (us per step), and the median run's wall seconds.\n")
    print("| data | n | solver | B | 1t us/step | 1t run s | 2t us/step | 2t run s | speed-up 2t |")
    print("|---" * 9 + "|")
    for name in args.sets.split(","):
        files, n, d = dump(name, tmp, args.n)
        for budget in args.budgets.split(","):
            line = subprocess.run([exe, *files, str(d), args.budget_solver, repr(SETS[name]), repr(C),
                                   budget, str(args.repeats), str(args.min_terms)], check=True,
                                  capture_output=True, text=True).stdout.split()
            _, us1, run1, _, us2, run2, speedup = map(float, line)
            print(f"| {name} | {n} | {args.budget_solver} | {budget} | {us1:.1f} | {run1:.2f} | {us2:.1f} | "
                  f"{run2:.2f} | {speedup:.2f}x |", flush=True)
    print(f"\n{load_average()} after the runs.")


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--old-build", help="build folder of the core to compare with (optional)")
    p.add_argument("--new-build", default=os.path.join(ROOT, "build-c"))
    p.add_argument("--solvers", default="sbp,sdca,exact")
    p.add_argument("--sets", default="a9a,ijcnn1")
    p.add_argument("--n", type=int, default=0, help="rows per training set (0: all)")
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--sbp-iterations", type=int, default=600)
    p.add_argument("--sdca-epochs", type=float, default=0.1)
    p.add_argument("--budget", action="store_true", help="BSCA epochs instead (bench/budget_eval.c)")
    p.add_argument("--budgets", default="500,5000", help="--budget: the budgets B")
    p.add_argument("--budget-solver", default="bsca", choices=("bsca", "bsca-bias", "bsgd"),
                   help="--budget, --budget-steps: the solver (bsca: without the bias)")
    p.add_argument("--budget-steps", action="store_true",
                   help="every BSCA step's wall time instead (bench/budget_steps.c)")
    p.add_argument("--min-terms", type=int, default=0,
                   help="--budget-steps: the split threshold (0: the library's)")
    args = p.parse_args()
    tmp = tempfile.mkdtemp(prefix="threads_pool_")
    if args.budget_steps:
        budget_step_runs(args, tmp)
        return
    if args.budget:
        budget_runs(args, tmp)
        return
    exe = {"new": compile_driver(args.new_build, os.path.join(tmp, "new"))}
    if args.old_build:
        exe = {"old": compile_driver(args.old_build, os.path.join(tmp, "old")), **exe}
    data = {name: dump(name, tmp, args.n) for name in args.sets.split(",")}
    print(f"`python bench/threads_pool.py {' '.join(sys.argv[1:])}`; "
          f"{load_average()} before the runs; median wall seconds of {args.repeats}.\n")
    print("| data | n | solver |" + "".join(f" {b} 1t | {b} 2t | {b} 2t/1t | {b} speed-up |" for b in exe))
    print("|---" * (3 + 4 * len(exe)) + "|")
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
            cells = "".join(f" {m[b, 1]:.2f} | {m[b, 2]:.2f} | {m[b, 2] / m[b, 1]:.2f} |"
                            f" {m[b, 1] / m[b, 2]:.2f}x |" for b in exe)
            print(f"| {name} | {n} | {solver} |{cells}", flush=True)
    print(f"\n{load_average()} after the runs.")


if __name__ == "__main__":
    main()
