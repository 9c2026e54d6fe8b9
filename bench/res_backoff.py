#!/usr/bin/env python3
"""RES and LRES rows of the unseen-data suite (bench/defaults.py), with and
without their step back-off, in one process.

"Before" runs the default steps with the back-off off: the default eps0 set
explicitly (``set_res_eps0(get_res_eps0())``; an eps0 set by the caller is
never changed), which is the code path of the solvers before the back-off
(docs/stopping.rst). "After" is the estimator at its defaults. Same data,
C grid, oracles and scoring as bench/defaults.py.

Usage:  STOCHSVM_DATA=../shared/data nice python bench/res_backoff.py \\
            --datasets w8a,breast_cancer,wine [--output FILE]
"""

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import defaults  # noqa: E402  (the suite's data, oracles and scoring)

import stochsvm.linear as linear  # noqa: E402


def _without_backoff(new_svm):
    def new(self, *args, **kwargs):
        svm = new_svm(self, *args, **kwargs)
        svm.set_res_eps0(svm.get_res_eps0())
        return svm
    return new


def rows(names):
    """(data, C, solver, loss, before Run, after Run) for every RES/LRES run."""
    cache, out = {}, []
    default_new = linear.LinearSVMClassifier._new_svm
    data, _ = defaults.problems(False)
    try:
        for p in data:
            if p.name not in names or p.regression:
                continue
            for C in sorted(defaults.EXTREME_C + (defaults.chosen_C(p),)):
                for solver in ("res", "lres"):
                    if solver == "res" and p.X.shape[1] > defaults.RES_MAX_FEATURES:
                        continue
                    for loss in ("hinge2", "logistic"):
                        runs = []
                        for new in (_without_backoff(default_new), default_new):
                            linear.LinearSVMClassifier._new_svm = new
                            runs.append(defaults.linear_run(
                                p, solver, loss, C, cache,
                                liblinear=len(p.binary_targets) == 1))
                        out.append((p.name, C, solver, loss, *runs))
                        print(p.name, C, solver, loss, *(f"{r.ratio:.4g} {r.status}" for r in runs),
                              flush=True)
    finally:
        linear.LinearSVMClassifier._new_svm = default_new
    return out


def _cell(run):
    return (f"{defaults._fmt(run.ratio, '.4g')} | {defaults._fmt(run.delta_pp, '+.2f')} | "
            f"{run.status}{' W' if run.warned else ''}{' D' if run.diverged else ''}")


def markdown(out):
    changed = [r for r in out if _cell(r[4]) != _cell(r[5])]
    lines = ["# RES and LRES with and without the step back-off",
             "",
             f"Produced by `nice python bench/res_backoff.py` (load average "
             f"{' '.join(f'{v:.1f}' for v in os.getloadavg())} at the end). ratio = objective / "
             "exact optimum, Δacc = oracle's test accuracy minus ours (points), W = warned, "
             "D = diverged (bench/defaults.py).",
             "",
             f"{len(out)} runs, {len(changed)} changed.",
             "",
             "| data | C | solver | loss | before: ratio | Δacc | status | after: ratio | Δacc | "
             "status |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for name, C, solver, loss, before, after in changed + [r for r in out if r not in changed]:
        lines.append(f"| {name} | {C:g} | {solver} | {loss} | {_cell(before)} | {_cell(after)} |")
    return "\n".join(lines) + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", required=True,
                        help="comma-separated names of the suite's data sets")
    parser.add_argument("--output", help="markdown file (default: print)")
    args = parser.parse_args()
    text = markdown(rows(args.datasets.split(",")))
    if args.output:
        with open(args.output, "w") as f:
            f.write(text)
    else:
        print(text)


if __name__ == "__main__":
    main()
