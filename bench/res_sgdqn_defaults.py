#!/usr/bin/env python3
"""RES, LRES, SGD-QN and SVMSGD2 at their defaults on data nobody tuned them to.

Each solver is called as a new user would: ``LinearSVMClassifier(solver=s)``
with nothing else set (C = 1, so lambda = 1/n; bias multiplier 1; the loss
in force: the squared hinge for RES/LRES, the hinge for SGD-QN/SVMSGD2). The
objective lambda/2 ||w~||^2 + 1/n sum_i loss_i, w~ = (w, b), is computed in
numpy from ``coef_`` and ``intercept_`` and divided by the exact optimum:
LIBLINEAR (liblinear-official) ``-B 1 -c C -e 1e-9``, ``-s 2`` for the
squared hinge and ``-s 3`` for the hinge. Test accuracy is on a 25 % split
(stratified, fixed seed), LIBLINEAR's beside it.

Data (binary, labels +-1):

* ``digits``: scikit-learn's digits, even against odd, pixel values 0..16
  (max ||x||^2 about 4e3);
* ``digits/16``: the same scaled to [0, 1] (max ||x||^2 about 17);
* ``digits/16+outlier``: digits/16 with one training row scaled so that its
  squared norm is 100x the median;
* ``breast_cancer``: scikit-learn's, unscaled (features from 1e-3 to 4e3);
* ``scales``: ``make_classification(2000, 20)`` with feature j multiplied by
  10^(-3 + 7 j / 19), i.e. scales from 1e-3 to 1e4.

Before/after: run it once with the build to compare against and
``--save-json``, then with this build and ``--before-json`` (the table then
has both columns)::

    /path/to/old/venv/bin/python bench/res_sgdqn_defaults.py --save-json /tmp/before.json
    python bench/res_sgdqn_defaults.py --before-json /tmp/before.json \
        --out bench/results/res_sgdqn_defaults.md
"""

import argparse
import json
import os
import sys
import time
import warnings

import numpy as np
import scipy.sparse as sp
from sklearn.datasets import load_breast_cancer, load_digits
from sklearn.exceptions import ConvergenceWarning
from sklearn.model_selection import train_test_split

import stochsvm
from stochsvm.datasets import make_classification
from stochsvm.linear import LinearSVMClassifier

NOTE = ("Estimators at their defaults (C = 1); 'before' is the build given to --before-json "
        "(inf: it raised FloatingPointError). For the hinge, LIBLINEAR's dual solver (-s 3) stops at "
        "its iteration cap on the unscaled sets: a ratio below 1 means our objective is below "
        "LIBLINEAR's, which is then only an upper bound on F*.")
LOSSES = {"hinge": lambda z: np.maximum(0.0, 1.0 - z),
          "hinge2": lambda z: np.maximum(0.0, 1.0 - z) ** 2}
LIBLINEAR_SOLVER = {"hinge": 3, "hinge2": 2}


def datasets():
    """(name, X, y) of the binary problems listed in the docstring."""
    X, y = load_digits(return_X_y=True)
    y = np.where(y % 2 == 0, 1.0, -1.0)
    yield "digits", X.astype(np.float64), y
    yield "digits/16", X / 16.0, y
    Xo = X / 16.0
    norms = (Xo ** 2).sum(axis=1)
    k = int(np.argmax(norms))
    Xo[k] *= np.sqrt(100 * np.median(norms) / norms[k])
    yield "digits/16+outlier", Xo, y
    Xb, yb = load_breast_cancer(return_X_y=True)
    yield "breast_cancer", Xb.astype(np.float64), np.where(yb == 1, 1.0, -1.0)
    Xs, ys = make_classification(2000, 20, seed=0)
    Xs = np.asarray(Xs.todense() if sp.issparse(Xs) else Xs) * 10.0 ** np.linspace(-3, 4, 20)
    yield "scales", Xs, ys


def split(name, X, y):
    """Train/test split; the outlier row of digits/16+outlier stays in the training set."""
    idx = np.arange(len(y))
    tr, te = train_test_split(idx, test_size=0.25, random_state=0, stratify=y)
    if name.endswith("outlier"):
        k = int(np.argmax((X ** 2).sum(axis=1)))
        if k in te:
            te = te[te != k]
            tr = np.append(tr, k)
    return X[tr], y[tr], X[te], y[te]


def objective(X, y, lam, loss, w, b):
    return 0.5 * lam * (w @ w + b * b) + LOSSES[loss](y * (X @ w + b)).mean()


def liblinear(X, y, loss, lam, eps=1e-9):
    from liblinear import liblinearutil
    C = 1.0 / (lam * X.shape[0])
    prob = liblinearutil.problem(y.tolist(), sp.csr_matrix(X))
    param = liblinearutil.parameter(f"-s {LIBLINEAR_SOLVER[loss]} -B 1 -c {C!r} -e {eps!r} -q")
    model = liblinearutil.train(prob, param)
    w, b = model.get_decfun()
    w = np.asarray(w, dtype=np.float64)
    if model.get_labels()[0] != 1:
        w, b = -w, -b
    return w, float(b)


def run(solver, Xtr, ytr, Xte, yte):
    est = LinearSVMClassifier(solver=solver)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ConvergenceWarning)
        t = time.process_time()
        est.fit(Xtr, ytr)
        seconds = time.process_time() - t
    warned = any(issubclass(c.category, ConvergenceWarning) for c in caught)
    w, b = est.coef_.ravel().astype(np.float64), float(est.intercept_[0])
    return est, w, b, est.score(Xte, yte), warned, seconds


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--solvers", default="res,lres,sgdqn,svmsgd2")
    ap.add_argument("--out", default=None, help="write the Markdown table here")
    ap.add_argument("--save-json", default=None, help="save the rows here (for --before-json)")
    ap.add_argument("--before-json", default=None, help="rows of another build, shown as 'before'")
    args = ap.parse_args(argv)
    before = {}
    if args.before_json:
        with open(args.before_json) as f:
            before = {(r[0], r[1]): r for r in json.load(f)}
    solvers = args.solvers.split(",")
    rows = []
    for name, X, y in datasets():
        Xtr, ytr, Xte, yte = split(name, X, y)
        lam = 1.0 / Xtr.shape[0]
        for solver in solvers:
            try:
                est, w, b, acc, warned, seconds = run(solver, Xtr, ytr, Xte, yte)
            except FloatingPointError as e:      # the old builds' divergence error
                print(f"{name:20s} {solver:8s} FloatingPointError: {e}", flush=True)
                rows.append((name, solver, "", float("inf"), float("nan"), float("nan"), 0, True, 0.0))
                continue
            loss = est._loss()
            ws, bs = liblinear(Xtr, ytr, loss, lam)
            fstar = objective(Xtr, ytr, lam, loss, ws, bs)
            acc_star = np.mean(np.where(Xte @ ws + bs >= 0, 1.0, -1.0) == yte)
            ratio = objective(Xtr, ytr, lam, loss, w, b) / fstar
            rows.append((name, solver, loss, float(ratio), float(acc), float(acc_star),
                         int(est.n_iter_), bool(warned), seconds))
            print(f"{name:20s} {solver:8s} {loss:7s} F/F* {ratio:10.4g}  acc {acc:.4f} "
                  f"(LIBLINEAR {acc_star:.4f})  epochs {est.n_iter_}  warned {warned}  {seconds:.2f}s",
                  flush=True)
    if args.save_json:
        with open(args.save_json, "w") as f:
            json.dump(rows, f)
    lines = ["| data | solver | loss | F / F* before | F / F* | test accuracy before | test accuracy | "
             "LIBLINEAR accuracy | epochs | ConvergenceWarning | CPU s |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    for name, solver, loss, ratio, acc, acc_star, epochs, warned, seconds in rows:
        old = before.get((name, solver))
        old_ratio, old_acc = (f"{old[3]:.4g}", f"{old[4]:.4f}") if old else ("", "")
        lines.append(f"| {name} | {solver} | {loss} | {old_ratio} | {ratio:.4g} | {old_acc} | {acc:.4f} | "
                     f"{acc_star:.4f} | {epochs} | {'yes' if warned else 'no'} | {seconds:.2f} |")
    table = "\n".join(lines)
    print(table)
    if args.out:
        with open(args.out, "w") as f:
            f.write(f"Written by `python bench/res_sgdqn_defaults.py` (stochsvm {stochsvm.__version__}); "
                    f"load average {os.getloadavg()[0]:.1f}. {NOTE}\n\n{table}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
