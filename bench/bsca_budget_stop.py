#!/usr/bin/env python3
"""BSCA's budget rule (issue 17, item 2; issue 21, item 4): the default fit
against the 100-epoch cap that the relative-gap test alone runs to.

On a9a (gamma = 2^-7) and ijcnn1 (gamma = 2), full sets, C = 32, budget 500,
one thread, ``KernelSVMClassifier(solver="bsca")`` twice in one process:

* ``default``: the estimator's defaults (tol = 1e-3): the gap test, and the
  run driver's budget rule (src/core/driver/run.c), which stops a run whose
  relative gap stopped shrinking while the budget was full (status
  ``budget_limited``, a ConvergenceWarning naming the budget);
* ``cap``: ``tol=0``, no test at all: the same iterates run to the cap of
  100 epochs, which is where the default fit ended before the budget rule
  (its gap never reaches 1e-3 with this budget).

For each: status, epochs, process CPU time of ``fit``, test accuracy, and
the relative duality gap (P - D) / max(P, D) at the end. With ``--svc``,
also ``sklearn.svm.SVC(C=32, gamma)`` (minutes on a9a), for the ratio of
BSCA's CPU time to SVC's (the bar of issue 21: SVC's accuracy -1 pp in at
most 1/20 of its time); without it, pass SVC's figures with ``--svc-seconds``
and ``--svc-accuracy`` (from bench/results/kernel_speed.md).

Usage::

    nice python bench/bsca_budget_stop.py [--svc] [--sets a9a ijcnn1]
"""

import argparse
import os
import time
import warnings

import numpy as np

from stochsvm import KernelSVMClassifier
from stochsvm._testing import load_benchmark

GAMMA = {"a9a": 2.0 ** -7, "ijcnn1": 2.0}
C = 32.0
BUDGET = 500


def fit(X, y, Xt, yt, gamma, tol):
    est = KernelSVMClassifier(solver="bsca", C=C, gamma=gamma, budget=BUDGET, random_state=0,
                              n_jobs=1, **({} if tol is None else {"tol": tol}))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        c0 = time.process_time()
        est.fit(X, y)
        seconds = time.process_time() - c0
    stats = est._stats[0]
    gap = stats["duality_gap"] / max(stats["primal_objective"], stats["dual_objective"])
    return {"status": stats["status"], "epochs": est.n_iter_, "seconds": seconds,
            "accuracy": 100 * est.score(Xt, yt), "gap": gap,
            "warning": str(caught[-1].message) if caught else ""}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sets", nargs="+", default=list(GAMMA))
    parser.add_argument("--svc", action="store_true", help="time sklearn's SVC too")
    parser.add_argument("--runs", nargs="+", choices=["default", "cap"], default=["default", "cap"])
    parser.add_argument("--svc-seconds", nargs="+", type=float, default=[55.55, 25.64])
    parser.add_argument("--svc-accuracy", nargs="+", type=float, default=[85.07, 98.70])
    args = parser.parse_args()
    print(f"load average {' '.join(f'{v:.2f}' for v in os.getloadavg())} before the runs")
    print("| data | run | status | epochs | CPU s | test % | rel. gap | SVC % | SVC s | ratio to SVC |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for k, name in enumerate(args.sets):
        X, y, Xt, yt = load_benchmark(name)
        if args.svc:
            from sklearn.svm import SVC

            c0 = time.process_time()
            svc = SVC(C=C, gamma=GAMMA[name]).fit(X, y)
            svc_s, svc_acc = time.process_time() - c0, 100 * svc.score(Xt, yt)
        else:
            svc_s, svc_acc = args.svc_seconds[k], args.svc_accuracy[k]
        for run, tol in (("default", None), ("cap", 0.0)):
            if run not in args.runs:
                continue
            r = fit(X, y, Xt, yt, GAMMA[name], tol)
            print(f"| {name} | {run} | {r['status']} | {r['epochs']} | {r['seconds']:.2f} | "
                  f"{r['accuracy']:.2f} | {r['gap']:.4f} | {svc_acc:.2f} | {svc_s:.2f} | "
                  f"{r['seconds'] / svc_s:.3f} |", flush=True)
            if r["warning"]:
                print(f"  warning: {r['warning']}")
        print(f"load average {' '.join(f'{v:.2f}' for v in os.getloadavg())}")


if __name__ == "__main__":
    main()
