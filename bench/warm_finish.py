#!/usr/bin/env python3
"""The kernel SDCA finish of a further train call, cold (alpha = 0, the old
build) against warm (the last finish's dual state, the new build): issue 17,
the warm start of the kernel finish (src/core/kernel/kernel_finish.c).

Compiles ``bench/warm_finish.c`` against two C-only builds of the core
(``--old-build``: the finish from zero; ``--new-build``: the warm finish)
and runs them in turn, ``--repeats`` times, medians. Each run is one object
(rbf kernel, gamma = 1 / (d var X), the estimators' "scale"; kernel
Pegasos, bias-free, or BSCA with the unregularized bias and budget n) whose
finish is on under a cap of ``--epochs`` epochs per train call (a user who
retrains step by step), along a list of C values: the same C three times
(further calls on the same problem), and the paths C = 1, 32, 1000 up and
down (set_lambda between calls). The sets: scikit-learn's digits (even
against odd), breast_cancer standardized, the first 5000 rows of a fixed
permutation of a9a.

Per call: the finish's kernel evaluations and CPU seconds (from the run's
last diagnostic to the end of the call), the call's CPU seconds, the
finish's epochs (pair steps / n, up to the diagnostic that certified the
gap), the relative gap reached and the objective of new against old.

Usage (one command; the table goes to standard output and ``--out``)::

    meson setup /tmp/old-rel -Dpython=false -Dbuildtype=release   # in a checkout of the old commit
    meson setup /tmp/new-rel -Dpython=false -Dbuildtype=release   # in this tree
    nice python bench/warm_finish.py --old-build /tmp/old-rel --new-build /tmp/new-rel --out /tmp/warm.md
"""

import argparse
import os
import statistics
import subprocess
import tempfile

import numpy as np
import scipy.sparse as sp
from sklearn.datasets import load_breast_cancer, load_digits
from sklearn.preprocessing import StandardScaler

from stochsvm._testing import load_benchmark

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
SEQUENCES = "1-1-1,32-32-32,1000-1000-1000,1-32-1000,1000-32-1"


def load_average():
    return "load average " + " ".join(f"{x:.2f}" for x in os.getloadavg())


def compile_bench(build, out):
    subprocess.run(["gcc", "-O2", "-I", os.path.join(ROOT, "include"), os.path.join(HERE, "warm_finish.c"),
                    os.path.join(build, "libstochsvm.a"), "-lm", "-lpthread", "-o", out], check=True)
    return out


def data(name):
    if name == "digits":
        X, y = load_digits(return_X_y=True)
        y = np.where(y % 2 == 0, 1.0, -1.0)
    elif name == "breast_cancer":
        X, y = load_breast_cancer(return_X_y=True)
        X = StandardScaler().fit_transform(X)
        y = np.where(y == 1, 1.0, -1.0)
    else:
        X, y, _, _ = load_benchmark("a9a")
        keep = np.sort(np.random.default_rng(0).permutation(X.shape[0])[:5000])
        X, y = X[keep].toarray(), np.asarray(y[keep], dtype=float)
    return np.asarray(X, dtype=float), y


def dump(name, tmp):
    X, y = data(name)
    gamma = float(1.0 / (X.shape[1] * X.var()))
    A = sp.csr_matrix(X)
    files = [os.path.join(tmp, f"{name}.{k}") for k in "PJVY"]
    A.indptr.astype(np.int64).tofile(files[0])
    A.indices.astype(np.int32).tofile(files[1])
    A.data.astype(np.float64).tofile(files[2])
    y.astype(np.float64).tofile(files[3])
    return files, X.shape[1], gamma


def run(exe, files, d, solver, gamma, epochs, Cs):
    out = subprocess.run([exe, *files, str(d), solver, repr(gamma), str(epochs), *map(repr, Cs)],
                         check=True, capture_output=True, text=True).stdout
    rows = []
    for line in out.splitlines():
        f = line.split()
        rows.append(dict(C=float(f[1]), cpu=float(f[2]), finish_cpu=float(f[3]), evals=int(f[4]),
                         finish_evals=int(f[5]), finish_epochs=float(f[6]), gap=float(f[7]), P=float(f[8]),
                         status=int(f[9])))
    return rows


def median_rows(runs):
    """Per call, the median of the timings over the repeats (the counts are
    the same in every repeat: checked)."""
    merged = []
    for calls in zip(*runs):
        first = dict(calls[0])
        for key in ("evals", "finish_evals", "finish_epochs", "P"):
            assert all(c[key] == first[key] for c in calls), (key, calls)
        for key in ("cpu", "finish_cpu"):
            first[key] = statistics.median(c[key] for c in calls)
        merged.append(first)
    return merged


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--old-build", required=True)
    ap.add_argument("--new-build", required=True)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--epochs", type=int, default=1)
    ap.add_argument("--sets", default="digits,breast_cancer,a9a")
    ap.add_argument("--solvers", default="pegasos,bsca")
    ap.add_argument("--sequences", default=SEQUENCES, help="C paths, e.g. 1-32-1000,32-32-32")
    ap.add_argument("--out")
    args = ap.parse_args()
    lines = [f"Before: {load_average()}, {args.repeats} repeats (medians), {args.epochs} epoch(s) per call, "
             "finish on.", "",
             "| set | solver | C path | call | C | finish evals cold / warm | finish CPU s cold / warm | "
             "call CPU s cold / warm | finish epochs cold / warm | gap cold / warm | P warm / cold |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    with tempfile.TemporaryDirectory() as tmp:
        old = compile_bench(args.old_build, os.path.join(tmp, "old"))
        new = compile_bench(args.new_build, os.path.join(tmp, "new"))
        for name in args.sets.split(","):
            files, d, gamma = dump(name, tmp)
            for solver in args.solvers.split(","):
                for Cs in ([float(c) for c in q.split("-")] for q in args.sequences.split(",")):
                    runs = {"old": [], "new": []}
                    for _ in range(args.repeats):  # the builds in turn
                        for key, exe in (("old", old), ("new", new)):
                            runs[key].append(run(exe, files, d, solver, gamma, args.epochs, Cs))
                    cold, warm = median_rows(runs["old"]), median_rows(runs["new"])
                    path = "-".join(f"{c:g}" for c in Cs)
                    for k, (c, w) in enumerate(zip(cold, warm)):
                        lines.append(
                            f"| {name} | {solver} | {path} | {k + 1} | {c['C']:g} | "
                            f"{c['finish_evals']:,} / {w['finish_evals']:,} | "
                            f"{c['finish_cpu']:.3f} / {w['finish_cpu']:.3f} | {c['cpu']:.3f} / {w['cpu']:.3f} | "
                            f"{c['finish_epochs']:g} / {w['finish_epochs']:g} | {c['gap']:.1e} / {w['gap']:.1e} | "
                            f"{w['P'] / c['P']:.6f} |")
                    print("\n".join(lines[-len(Cs):]), flush=True)
    lines += ["", f"After: {load_average()}."]
    text = "\n".join(lines) + "\n"
    if args.out:
        with open(args.out, "w") as f:
            f.write(text)
    print(text)


if __name__ == "__main__":
    main()
