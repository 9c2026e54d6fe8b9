#!/usr/bin/env python3
"""Linear SDCA on the unseen-data suite: the old default cap (100 epochs) against the new one.

The suite is bench/defaults.py's (its data sets, C grid, oracles, ratio,
accuracy, warning and divergence rules: see its docstring), run for linear
SDCA only, every loss. Each (data, C, loss) is fitted twice at the
estimator's defaults: once with ``max_iter=100`` (the default before the
work-based cap) and once with ``max_iter`` left at None (the default now:
100 epochs, or the epochs of 3e7 units of work if more; see
docs/stopping.rst, "SDCA on unscaled features"). Both use the same seed, so
the iterates of the first 100 epochs are the same; only where a run stops
differs.

Usage:  STOCHSVM_DATA=../shared/data nice python bench/linear_sdca_suite.py
        [--quick] [--datasets a,b] [--output bench/results/defaults_sdca.md]
"""

import argparse
import os
import platform
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import defaults as suite  # noqa: E402
from _output import out_path  # noqa: E402 (bench/)

OLD_CAP = 100


def run_pairs(quick, only, log):
    data, skipped = suite.problems(quick)
    cache, pairs = {}, []
    for p in data:
        if only is not None and p.name not in only:
            continue
        grid = (1e-3, 1.0, 1e3) if quick else tuple(sorted(suite.EXTREME_C + (suite.chosen_C(p),)))
        losses = ("l1", "l2") if p.regression else ("hinge", "hinge2", "logistic")
        for C in grid:
            for loss in losses:
                liblinear = not quick and len(p.binary_targets) == 1
                old = suite.linear_run(p, "sdca", loss, C, cache, liblinear=liblinear,
                                       max_iter=OLD_CAP)
                new = suite.linear_run(p, "sdca", loss, C, cache, liblinear=liblinear)
                pairs.append((old, new))
                print(f"{p.name:20s} C={C:<8g} {loss:8s} old {old.ratio:.4g} {old.status} "
                      f"new {new.ratio:.4g} {new.status} ({new.seconds:.2f} s)", file=log,
                      flush=True)
    return pairs, skipped


def summary(runs):
    return (len(runs), sum(r.on_goal for r in runs), sum(r.ratio <= 1.02 for r in runs),
            sum(r.silent_miss for r in runs), sum(r.diverged for r in runs),
            sum(r.warned for r in runs), sorted(r.ratio for r in runs)[len(runs) // 2],
            sum(r.seconds for r in runs))


def markdown(pairs, skipped, seconds, argv):
    load = os.getloadavg()
    lines = [
        "# Linear SDCA on the unseen-data suite: old cap (100 epochs) and new default cap\n",
        f"Produced by `nice python bench/linear_sdca_suite.py {' '.join(argv)}`"
        f" ({seconds:.0f} s; load average at the end {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} "
        f"on 2 shared cores; {platform.machine()}, Python {platform.python_version()}). "
        "Method and rules: the docstrings of `bench/linear_sdca_suite.py` and "
        "`bench/defaults.py`. old = `max_iter=100`, new = the default `max_iter=None`.\n",
    ]
    if skipped:
        lines.append(f"Skipped: {', '.join(skipped)}.\n")
    lines += ["## Summary\n",
              "| loss | cap | runs | on goal (1.02x, 0.5 pp) | within 1.02x | silent miss "
              "| diverged | warned | median ratio | CPU s (all runs) |",
              "|---|---|---|---|---|---|---|---|---|---|"]
    losses = sorted({old.loss for old, _ in pairs})
    for loss in losses + ["all"]:
        for k, name in ((0, "old"), (1, "new")):
            runs = [pair[k] for pair in pairs if loss in ("all", pair[0].loss)]
            n, goal, within, silent, diverged, warned, median, cpu = summary(runs)
            lines.append(f"| {loss} | {name} | {n} | {goal} | {within} | {silent} | {diverged} "
                         f"| {warned} | {median:.4g} | {cpu:.2f} |")
    lines += ["", "## Every run\n",
              "| data | C | loss | old ratio | old status | old W/D | new ratio | new status "
              "| new W/D | new CPU s | oracle gap |",
              "|---|---|---|---|---|---|---|---|---|---|---|"]
    for old, new in pairs:
        def flags(r):
            return ("W" if r.warned else "") + ("D" if r.diverged else "")
        lines.append(f"| {old.data} | {old.C:g} | {old.loss} | {old.ratio:.4g} | {old.status} "
                     f"| {flags(old)} | {new.ratio:.4g} | {new.status} | {flags(new)} "
                     f"| {new.seconds:.3f} | {new.oracle_gap:.1e} |")
    return "\n".join(lines) + "\n"


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="bench/defaults.py's quick subset")
    parser.add_argument("--datasets", default=None, help="comma-separated data set names")
    parser.add_argument("--output", default=out_path("defaults_sdca.md"))
    args = parser.parse_args(argv)
    start = time.perf_counter()
    only = None if args.datasets is None else set(args.datasets.split(","))
    pairs, skipped = run_pairs(args.quick, only, sys.stderr)
    text = markdown(pairs, skipped, time.perf_counter() - start, argv)
    with open(args.output, "w") as f:
        f.write(text)
    print(text.split("## Every run")[0])
    print(f"written to {args.output}")


if __name__ == "__main__":
    main()
