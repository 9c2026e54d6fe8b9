#!/usr/bin/env python3
"""The exact kernel solver without the bias: one example a step against two.

The bias-free mode of exact kernel SDCA (src/core/kernel/kernel_sdca_pair.c,
"The bias-free mode"; the finish of Pegasos, BSGD and the solvers with the
bias off) moved one example a step until stop 49, and now moves the best one
and its partner. This script compiles ``bench/bias_free_steps.c`` against a
C-only build of the core and runs both on scikit-learn's breast_cancer
(standardized), digits (pixels / 16, 0-4 against 5-9) and wine (raw
features, class 0 against the rest), for linear, Gaussian and cubic
polynomial kernels at several C; epsilon 1e-3, a cap of 10,000 epochs.
Columns: status, CPU seconds, epochs to the stop, the primal objective and
the relative gap.

    meson setup /tmp/rel -Dpython=false -Dbuildtype=release && ninja -C /tmp/rel
    python bench/bias_free_steps.py --build /tmp/rel --out /tmp/bias_free_steps.md
"""
import argparse
import os
import subprocess
import tempfile

import numpy as np
from sklearn.datasets import load_breast_cancer, load_digits, load_wine
from sklearn.preprocessing import StandardScaler

HERE = os.path.dirname(os.path.abspath(__file__))
KERNELS = {0: "linear", 1: "rbf", 2: "poly"}
# (kernel, gamma, C)
CASES = [(0, 0, 1), (0, 0, 1000), (1, 0.001, 1000), (1, 0.03, 100), (1, 0.0005, 10000), (2, 0.1, 1000)]
STATUS = {"2": "converged", "3": "max_iterations"}


def sets():
    X, y = load_breast_cancer(return_X_y=True)
    yield "breast_cancer", StandardScaler().fit_transform(X), np.where(y == 1, 1.0, -1.0)
    X, y = load_digits(return_X_y=True)
    yield "digits", X / 16.0, np.where(y < 5, 1.0, -1.0)
    X, y = load_wine(return_X_y=True)
    yield "wine", X, np.where(y == y[0], 1.0, -1.0)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--build", required=True, help="a C-only build directory of this tree")
    p.add_argument("--out", default=None, help="markdown file (default: print only)")
    args = p.parse_args()
    tmp = tempfile.mkdtemp()
    exe = os.path.join(tmp, "bias_free_steps")
    subprocess.run(["cc", "-O2", "-std=c11", "-I", os.path.join(HERE, "..", "include"), "-o", exe,
                    os.path.join(HERE, "bias_free_steps.c"), os.path.join(args.build, "libstochsvm.a"),
                    "-lm", "-lpthread"], check=True)
    lines = [f"`python bench/bias_free_steps.py --build {args.build}`", "",
             "| data | kernel | gamma | C | steps | status | CPU s | epochs | P | (P - D) / D |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    print("\n".join(lines), flush=True)
    for name, X, y in sets():
        path = os.path.join(tmp, name + ".bin")
        with open(path, "wb") as f:
            np.array(X.shape, dtype=np.int64).tofile(f)
            np.ascontiguousarray(X, dtype=np.float64).tofile(f)
            y.astype(np.float64).tofile(f)
        for kernel, gamma, C in CASES:
            for single, label in ((1, "one"), (0, "two")):
                out = subprocess.run([exe, path, str(kernel), str(gamma), str(C), str(single)],
                                     check=True, capture_output=True, text=True).stdout.split()
                lines.append(f"| {name} | {KERNELS[kernel]} | {gamma:g} | {C:g} | {label} | "
                             f"{STATUS.get(out[0], out[0])} | {float(out[1]):.3f} | {out[2]} | "
                             f"{float(out[3]):.6g} | {float(out[4]):.1e} |")
                print(lines[-1], flush=True)
    if args.out:
        with open(args.out, "w") as f:
            f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
