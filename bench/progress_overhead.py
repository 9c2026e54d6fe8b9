"""Cost of the `stochsvm train` progress callback (src/stochsvm/cli.py,
_Progress): the same training with diagnostics every n/10 iterations, with
and without the callback that redraws the progress at each diagnostic.
CPU time (time.process_time), best of 7; prints the table and writes it to
--output (default $STOCHSVM_BENCH_OUT/progress_overhead.md, bench/_output.py;
the committed table: --output bench/results/progress_overhead.md).

    nice python bench/progress_overhead.py
"""
import argparse
import io
import sys
import time

import numpy as np

import stochsvm
from stochsvm.cli import _Progress
from _output import out_path  # noqa: E402 (bench/)


def _problem(kind, rng):
    if kind == "kernel":
        X = rng.normal(size=(3000, 10))
        return X, np.where(X[:, 0] * X[:, 1] > 0, 1.0, -1.0)
    X = rng.normal(size=(50000, 50))
    return X, np.where(X[:, 0] > 0, 1.0, -1.0)


def _run(kind, X, y, callback, reps=7):
    best = []
    for _ in range(reps):
        n = len(y)
        if kind == "kernel":  # one epoch of kernel Pegasos
            svm = stochsvm.KernelSVM(X, y, 1e-3, solver="pegasos", gamma=0.1)
            svm.set_max_num_iterations(n)
        else:  # 20 epochs of SGD
            svm = stochsvm.SVM(X, y, 1e-4, solver="sgd")
            svm.set_max_num_iterations(20 * n)
        svm.set_diagnostic_frequency(n // 10)
        saved = sys.stdout
        if callback:
            sys.stdout = io.StringIO()  # the lines the CLI would print
            _Progress(1, True, False, [svm], n)
        try:
            t = time.process_time()
            svm.train()
            best.append(time.process_time() - t)
        finally:
            sys.stdout = saved
    return min(best)


def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--output", default=None,
                   help="the Markdown table (default $STOCHSVM_BENCH_OUT/progress_overhead.md)")
    args = p.parse_args()
    rng = np.random.default_rng(0)
    lines = ["# Progress callback overhead (`stochsvm train`, a redraw at every diagnostic)", "",
             "Shared 2-core machine (several sessions at once); CPU seconds, best of 7; "
             "diagnostics every n/10 iterations in both columns.", "",
             "| problem | without callback (s) | with callback (s) | ratio |",
             "|---|---|---|---|"]
    for kind, what in (("linear", "SGD, 50000 x 50, 20 epochs"),
                       ("kernel", "kernel Pegasos rbf, 3000 x 10, 1 epoch")):
        X, y = _problem(kind, rng)
        a, b = _run(kind, X, y, False), _run(kind, X, y, True)
        lines.append(f"| {what} | {a:.3f} | {b:.3f} | {b / a:.3f} |")
    text = "\n".join(lines) + "\n"
    print(text)
    out = args.output or out_path("progress_overhead.md")
    with open(out, "w") as f:
        f.write(text)


if __name__ == "__main__":
    main()
