#!/usr/bin/env python3
"""Every kernel solver at the estimator's defaults, on data nobody tuned to.

For each data set, C and gamma are chosen once with ``sklearn.svm.SVC``
(3-fold cross-validation on the training part over C in {1, 10, 100} and
gamma in {1/4, 1, 4} times ``1 / (d var(X))``, scikit-learn's "scale"; for the
a9a and ijcnn1 subsets the usual LIBSVM settings C = 32, gamma = 2^-7 and
gamma = 2 are taken as given) and then fixed. Each solver of
:class:`stochsvm.KernelSVMClassifier` is then fitted with only ``solver``,
``C`` and ``gamma`` set, everything else at its default, and compared with
``SVC(C=C, gamma=gamma)``: test accuracy (percentage points against SVC) and
process CPU time of ``fit`` (``time.process_time``, one thread; ratio to
SVC's). ConvergenceWarnings are counted, not hidden.

Data:

* scikit-learn's bundled sets: ``digits`` as binary (even vs odd) and
  multiclass (10 classes, one-vs-rest), ``breast_cancer`` (standardised on
  the training part), ``wine`` (3 classes, standardised); 70/30 stratified
  split with ``random_state=0``;
* ``a9a`` and ``ijcnn1`` from ``$STOCHSVM_DATA``: the first ``--n-train``
  rows of a fixed permutation (``default_rng(0)``) of the training file and
  ``--n-test`` rows of the test file (skipped with a note when the folder is
  missing).

Usage::

    nice python bench/kernel_defaults.py                       # ~10-20 min on the shared machine
    nice python bench/kernel_defaults.py --sets digits2,breast_cancer --solvers sbp,bsca
"""

import argparse
import os
import platform
import sys
import time
import warnings

import numpy as np
from sklearn.datasets import load_breast_cancer, load_digits, load_wine
from sklearn.exceptions import ConvergenceWarning
from sklearn.model_selection import GridSearchCV, train_test_split
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC

from stochsvm import KernelSVMClassifier
from stochsvm.kernel import KERNEL_SOLVERS
from _output import out_path  # noqa: E402 (bench/)

SETS = ("digits2", "digits10", "breast_cancer", "wine", "a9a", "ijcnn1")
#: The data sets whose (C, gamma) are LIBSVM's usual ones rather than a search.
GIVEN = {"a9a": (32.0, 2.0 ** -7), "ijcnn1": (32.0, 2.0)}


def bundled(name):
    if name.startswith("digits"):
        X, y = load_digits(return_X_y=True)
        if name == "digits2":
            y = y % 2
        scale = False
    elif name == "breast_cancer":
        X, y = load_breast_cancer(return_X_y=True)
        scale = True
    else:
        X, y = load_wine(return_X_y=True)
        scale = True
    Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=0.3, random_state=0, stratify=y)
    if scale:
        sc = StandardScaler().fit(Xtr)
        Xtr, Xte = sc.transform(Xtr), sc.transform(Xte)
    return np.ascontiguousarray(Xtr), ytr, np.ascontiguousarray(Xte), yte


def shared(name, n_train, n_test):
    from stochsvm._testing import load_benchmark
    Xtr, ytr, Xte, yte = load_benchmark(name)
    tr = np.random.default_rng(0).permutation(Xtr.shape[0])[:n_train]
    te = np.random.default_rng(1).permutation(Xte.shape[0])[:n_test]
    return Xtr[tr], ytr[tr], Xte[te], yte[te]


def choose(name, Xtr, ytr):
    if name in GIVEN:
        return GIVEN[name]
    var = Xtr.var()
    scale = 1.0 / (Xtr.shape[1] * var) if var > 0 else 1.0
    grid = GridSearchCV(SVC(), {"C": [1.0, 10.0, 100.0],
                                "gamma": [scale / 4, scale, scale * 4]}, cv=3)
    grid.fit(Xtr, ytr)
    return grid.best_params_["C"], grid.best_params_["gamma"]


def timed_fit(est, X, y):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ConvergenceWarning)
        t0 = time.process_time()
        est.fit(X, y)
        seconds = time.process_time() - t0
    n_warn = sum(issubclass(w.category, ConvergenceWarning) for w in caught)
    return seconds, n_warn


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sets", default=",".join(SETS))
    ap.add_argument("--solvers", default=",".join(KERNEL_SOLVERS))
    ap.add_argument("--n-train", type=int, default=3000)
    ap.add_argument("--n-test", type=int, default=5000)
    ap.add_argument("--output", default=out_path("kernel_defaults.md"))
    args = ap.parse_args(argv)
    solvers = args.solvers.split(",")
    rows, notes = [], []
    for name in args.sets.split(","):
        if name in ("a9a", "ijcnn1"):
            try:
                data = shared(name, args.n_train, args.n_test)
            except (OSError, ValueError) as exc:
                notes.append(f"{name} skipped: {exc}")
                continue
        else:
            data = bundled(name)
        Xtr, ytr, Xte, yte = data
        C, gamma = choose(name, Xtr, ytr)
        svc = SVC(C=C, gamma=gamma)
        svc_seconds, _ = timed_fit(svc, Xtr, ytr)
        svc_acc = float(np.mean(svc.predict(Xte) == yte))
        print(f"{name}: n={Xtr.shape[0]} d={Xtr.shape[1]} C={C:g} gamma={gamma:.4g} "
              f"SVC {100 * svc_acc:.2f}% in {svc_seconds:.3f} s", flush=True)
        for solver in solvers:
            est = KernelSVMClassifier(solver=solver, C=C, gamma=gamma)
            seconds, n_warn = timed_fit(est, Xtr, ytr)
            acc = float(np.mean(est.predict(Xte) == yte))
            rows.append((name, Xtr.shape[0], len(np.unique(ytr)), C, gamma, solver,
                         100 * svc_acc, 100 * acc, 100 * (acc - svc_acc), svc_seconds, seconds,
                         seconds / svc_seconds if svc_seconds > 0 else float("nan"), est.n_iter_,
                         n_warn))
            print(f"  {solver:10s} {100 * acc:6.2f}% ({100 * (acc - svc_acc):+.2f} pp) "
                  f"{seconds:8.3f} s ({rows[-1][11]:.2f}x) epochs {est.n_iter_} "
                  f"warnings {n_warn}", flush=True)
    load = os.getloadavg()
    lines = ["# Kernel solvers at the estimator defaults against SVC", "",
             f"Command: `python bench/{os.path.basename(__file__)} {' '.join(argv or sys.argv[1:])}`"
             .rstrip(), "",
             f"Machine: {platform.machine()}, Python {platform.python_version()}; load average at "
             f"the end {load[0]:.1f} / {load[1]:.1f} / {load[2]:.1f} (shared, 2 cores). CPU "
             "seconds of `fit` (`time.process_time`); read the ratios, not the times.", "",
             "| data | n | classes | C | gamma | solver | SVC % | ours % | pp | SVC s | ours s "
             "| time / SVC | epochs | ConvergenceWarnings |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        lines.append(f"| {r[0]} | {r[1]} | {r[2]} | {r[3]:g} | {r[4]:.4g} | {r[5]} | {r[6]:.2f} "
                     f"| {r[7]:.2f} | {r[8]:+.2f} | {r[9]:.3f} | {r[10]:.3f} | {r[11]:.2f} "
                     f"| {r[12]} | {r[13]} |")
    within = [r for r in rows if r[8] >= -0.5]
    lines += ["", f"Within 0.5 pp of SVC: {len(within)} of {len(rows)} runs."]
    for solver in solvers:
        mine = [r for r in rows if r[5] == solver]
        if mine:
            lines.append(f"- {solver}: {sum(r[8] >= -0.5 for r in mine)} of {len(mine)}, worst "
                         f"{min(r[8] for r in mine):+.2f} pp, time / SVC "
                         f"{min(r[11] for r in mine):.2f}-{max(r[11] for r in mine):.2f}")
    lines += [f"- {note}" for note in notes]
    with open(args.output, "w") as fh:
        fh.write("\n".join(lines) + "\n")
    print(f"wrote {args.output}")


if __name__ == "__main__":
    main()
