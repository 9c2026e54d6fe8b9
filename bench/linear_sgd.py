#!/usr/bin/env python3
"""Linear SGD, hinge loss: stochsvm against scikit-learn and VLFeat.

For each data set (prepared by stochsvm._testing.load_benchmark: CSR
float64, labels -1/+1, covtype scaled per column and split 80/20) and one
lambda, this measures

* the time of one epoch (median of --repeat runs) of
  - stochsvm SGD: ``SVM.train()`` with ``max_num_iterations = n`` on an object
    made once, reset to w = 0, b = 0, t = 0 before each run (outside the
    timer). The diagnostic frequency is n, so only the final diagnostic runs:
    train() includes one objective pass over the data. That pass is timed on
    its own (an ``SVM(..., solver="none")`` object's train(), which is exactly
    one such pass) and the "SGD only" column subtracts it;
  - scikit-learn ``SGDClassifier(loss="hinge", alpha=lambda,
    learning_rate="optimal", max_iter=1, tol=None, shuffle=True,
    random_state=0).fit`` on the CSR matrix;
  - VLFeat 0.9.21 ``vl_svm_train`` (SGD) through ctypes on the dense float64
    matrix, with the project's reference settings: bias multiplier 1,
    epsilon 0, max iterations and diagnostic frequency E n, the default bias
    learning rate 0.01 (also one objective pass at the end);
* the time of one ``X @ w`` (CSR float64, median of 5), the memory-bandwidth
  floor of a pass over the data;
* the primal objective P = lambda/2 (||w||^2 + b^2) + mean hinge after 1, 5
  and 20 epochs, computed the same way in numpy for every solver, and the test
  accuracy after 20 epochs.

Usage:  STOCHSVM_DATA=/path/to/data python bench/linear_sgd.py
        [--datasets a9a,w8a,ijcnn1,covtype] [--lambda 1e-4] [--repeat 3]
        [--no-vlfeat] [--output bench/results/linear_sgd.md]
"""

import argparse
import ctypes
import ctypes.util
import os
import platform
import statistics
import subprocess
import sys
import time
import warnings
from datetime import datetime, timezone

import numpy as np

import stochsvm
from stochsvm._testing import load_benchmark
from _output import out_path  # noqa: E402 (bench/)

EPOCHS = (1, 5, 20)


# --------------------------------------------------------------------------
#                                 helpers
# --------------------------------------------------------------------------

def objective(X, y, w, b, lam):
    z = y * (X @ w + b)
    return 0.5 * lam * (float(w @ w) + b * b) + float(np.maximum(0.0, 1.0 - z).mean())


def accuracy(X, y, w, b):
    return float(np.mean(np.where(X @ w + b >= 0, 1.0, -1.0) == y))


def median_time(fn, repeat, setup=None):
    times = []
    for _ in range(repeat):
        if setup is not None:
            setup()
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def machine_info():
    cpu = platform.processor() or ""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    import scipy
    import sklearn

    mem = ""
    try:
        with open("/proc/meminfo") as f:
            mem = f"{int(f.readline().split()[1]) / 2**20:.0f} GiB RAM"
    except (OSError, ValueError, IndexError):
        pass
    try:
        load = "load average at the start {:.2f} / {:.2f} / {:.2f} (1/5/15 min); ".format(
            *os.getloadavg())
    except OSError:
        load = ""
    return (f"{cpu}, {os.cpu_count()} logical CPUs, {mem}; {load}{platform.platform()}; "
            f"Python {platform.python_version()}, numpy {np.__version__}, scipy {scipy.__version__}, "
            f"scikit-learn {sklearn.__version__}, stochsvm {stochsvm.__version__}")


def git_revision():
    try:
        here = os.path.dirname(os.path.abspath(__file__))
        out = subprocess.run(["git", "-C", here, "rev-parse", "--short", "HEAD"],
                             capture_output=True, text=True, timeout=10)
        dirty = subprocess.run(["git", "-C", here, "status", "--porcelain"],
                               capture_output=True, text=True, timeout=10)
        if out.returncode != 0:
            return "unknown (no commit)"
        return out.stdout.strip() + (" + uncommitted changes" if dirty.stdout.strip() else "")
    except (OSError, subprocess.SubprocessError):
        return "unknown"


# --------------------------------------------------------------------------
#                                  solvers
# --------------------------------------------------------------------------

def ours_epoch_time(X, y, lam, repeat):
    n, d = X.shape
    svm = stochsvm.SVM(X, y, lam, solver="sgd", seed=0)
    svm.set_loss("hinge")
    svm.set_bias_multiplier(1.0)
    svm.set_epsilon(0.0)
    svm.set_max_num_iterations(n)
    svm.set_diagnostic_frequency(n)
    zeros = np.zeros(d)

    def reset():
        svm.set_model(zeros)
        svm.set_bias(0.0)
        svm.set_iteration_number(0)

    svm.train()  # warm-up (page faults, caches)
    t_train = median_time(svm.train, repeat, reset)
    # One objective pass alone: the "none" solver evaluates the model once.
    ev = stochsvm.SVM(X, y, lam, solver="none")
    ev.set_model(svm.get_model())
    ev.set_bias(svm.get_bias())
    ev.train()
    t_eval = median_time(ev.train, repeat)
    return t_train, t_eval


def ours_model(X, y, lam, epochs):
    n = X.shape[0]
    svm = stochsvm.SVM(X, y, lam, solver="sgd", seed=0)
    svm.set_loss("hinge")
    svm.set_bias_multiplier(1.0)
    svm.set_epsilon(0.0)
    svm.set_max_num_iterations(epochs * n)
    svm.set_diagnostic_frequency(epochs * n)
    svm.train()
    return svm.get_model(), svm.get_bias()


def sklearn_fit(X, y, lam, epochs):
    from sklearn.exceptions import ConvergenceWarning
    from sklearn.linear_model import SGDClassifier

    clf = SGDClassifier(loss="hinge", alpha=lam, learning_rate="optimal", max_iter=epochs,
                        tol=None, shuffle=True, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        clf.fit(X, y)
    return clf


def sklearn_epoch_time(X, y, lam, repeat):
    sklearn_fit(X, y, lam, 1)  # warm-up
    return median_time(lambda: sklearn_fit(X, y, lam, 1), repeat)


def sklearn_model(X, y, lam, epochs):
    clf = sklearn_fit(X, y, lam, epochs)
    w = clf.coef_.ravel().astype(np.float64)
    b = float(clf.intercept_[0])
    if clf.classes_[1] != 1:  # decision_function is for classes_[1]
        w, b = -w, -b
    return w, b


class _VlStatistics(ctypes.Structure):
    _fields_ = [("status", ctypes.c_int), ("iteration", ctypes.c_size_t),
                ("epoch", ctypes.c_size_t), ("objective", ctypes.c_double),
                ("regularizer", ctypes.c_double), ("loss", ctypes.c_double),
                ("dualObjective", ctypes.c_double), ("dualLoss", ctypes.c_double),
                ("dualityGap", ctypes.c_double), ("scoresVariation", ctypes.c_double),
                ("elapsedTime", ctypes.c_double)]


class VLFeat:
    """VLFeat's vl_svm (Debian libvlfeat1) through ctypes, SGD solver."""

    SOLVER_SGD = 1

    def __init__(self):
        name = ctypes.util.find_library("vl") or "libvl.so.1"
        lib = ctypes.CDLL(name)
        c = ctypes
        lib.vl_get_version_string.restype = c.c_char_p
        lib.vl_svm_new.restype = c.c_void_p
        lib.vl_svm_new.argtypes = [c.c_int, c.c_void_p, c.c_size_t, c.c_size_t, c.c_void_p,
                                   c.c_double]
        lib.vl_svm_delete.argtypes = [c.c_void_p]
        for fn, arg in [("vl_svm_set_bias_multiplier", c.c_double),
                        ("vl_svm_set_epsilon", c.c_double),
                        ("vl_svm_set_bias", c.c_double),
                        ("vl_svm_set_max_num_iterations", c.c_size_t),
                        ("vl_svm_set_diagnostic_frequency", c.c_size_t),
                        ("vl_svm_set_model", c.c_void_p)]:
            getattr(lib, fn).argtypes = [c.c_void_p, arg]
            getattr(lib, fn).restype = None
        lib.vl_svm_train.argtypes = [c.c_void_p]
        lib.vl_svm_get_model.restype = c.POINTER(c.c_double)
        lib.vl_svm_get_model.argtypes = [c.c_void_p]
        lib.vl_svm_get_bias.restype = c.c_double
        lib.vl_svm_get_bias.argtypes = [c.c_void_p]
        lib.vl_svm_get_statistics.restype = c.POINTER(_VlStatistics)
        lib.vl_svm_get_statistics.argtypes = [c.c_void_p]
        lib.vl_get_rand.restype = c.c_void_p
        lib.vl_rand_seed.argtypes = [c.c_void_p, c.c_uint32]
        self.lib = lib
        self.version = lib.vl_get_version_string().decode()

    def new(self, D, y, lam, epochs):
        n, d = D.shape
        lib = self.lib
        s = lib.vl_svm_new(self.SOLVER_SGD, D.ctypes.data, d, n, y.ctypes.data, lam)
        if not s:
            raise MemoryError("vl_svm_new failed")
        lib.vl_svm_set_bias_multiplier(s, 1.0)
        lib.vl_svm_set_epsilon(s, 0.0)
        lib.vl_svm_set_max_num_iterations(s, epochs * n)
        lib.vl_svm_set_diagnostic_frequency(s, epochs * n)
        return s

    def seed(self, value):
        self.lib.vl_rand_seed(self.lib.vl_get_rand(), value)

    def model(self, s, d):
        w = np.ctypeslib.as_array(self.lib.vl_svm_get_model(s), shape=(d,)).copy()
        return w, float(self.lib.vl_svm_get_bias(s))


def vlfeat_epoch_time(vl, D, y, lam, repeat):
    n, d = D.shape
    s = vl.new(D, y, lam, 1)
    zeros = np.zeros(d)

    def reset():
        vl.lib.vl_svm_set_model(s, zeros.ctypes.data)
        vl.lib.vl_svm_set_bias(s, 0.0)

    try:
        vl.seed(0)
        vl.lib.vl_svm_train(s)  # warm-up
        return median_time(lambda: vl.lib.vl_svm_train(s), repeat, reset)
    finally:
        vl.lib.vl_svm_delete(s)


def vlfeat_model(vl, D, y, lam, epochs):
    s = vl.new(D, y, lam, epochs)
    try:
        vl.seed(0)
        vl.lib.vl_svm_train(s)
        return vl.model(s, D.shape[1])
    finally:
        vl.lib.vl_svm_delete(s)


# --------------------------------------------------------------------------
#                                   main
# --------------------------------------------------------------------------

def fmt_t(t):
    return "–" if t is None else (f"{t * 1e3:.3g} ms" if t < 1 else f"{t:.3g} s")


def fmt_r(a, b):
    return "–" if a is None or b is None else f"{a / b:.2f}"


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--datasets", default="a9a,w8a,ijcnn1,covtype")
    p.add_argument("--lambda", dest="lam", type=float, default=1e-4)
    p.add_argument("--repeat", type=int, default=3, help="runs per epoch timing (median)")
    p.add_argument("--no-vlfeat", action="store_true", help="skip VLFeat")
    p.add_argument("--output", default=out_path("linear_sgd.md"))
    args = p.parse_args(argv)
    lam = args.lam
    info = machine_info()  # before the runs: the load average of the machine at the start
    try:
        load_at_start = os.getloadavg()[0]
    except OSError:
        load_at_start = 0.0

    vl, vl_note = None, ""
    if not args.no_vlfeat:
        try:
            vl = VLFeat()
        except OSError as exc:
            vl_note = f"VLFeat skipped: libvl.so.1 not found ({exc}); apt-get install libvlfeat1"
            print(vl_note, file=sys.stderr)
    else:
        vl_note = "VLFeat skipped (--no-vlfeat)"

    timing_rows, objective_rows, goal_rows, notes = [], [], [], []
    for name in args.datasets.split(","):
        t0 = time.perf_counter()
        X, y, Xte, yte = load_benchmark(name)
        n, d = X.shape
        print(f"[{name}] {n} x {d}, nnz {X.nnz} (loaded in {time.perf_counter() - t0:.1f} s)",
              flush=True)
        w_probe = np.random.default_rng(0).standard_normal(d)
        X @ w_probe
        t_xw = median_time(lambda: X @ w_probe, 5)
        t_ours, t_eval = ours_epoch_time(X, y, lam, args.repeat)
        t_sgd_only = max(t_ours - t_eval, 0.0)
        t_sk = sklearn_epoch_time(X, y, lam, args.repeat)

        D = None
        t_vl = None
        if vl is not None:
            try:
                D = np.ascontiguousarray(X.toarray(), dtype=np.float64)
                y_vl = np.ascontiguousarray(y, dtype=np.float64)
                t_vl = vlfeat_epoch_time(vl, D, y_vl, lam, args.repeat)
            except MemoryError:
                D = None
                notes.append(f"VLFeat skipped on {name}: the dense matrix does not fit in memory")

        timing_rows.append(
            f"| {name} | {n:,} × {d} | {X.nnz:,} | {fmt_t(t_xw)} | {fmt_t(t_ours)} | "
            f"{fmt_t(t_eval)} | {fmt_t(t_sgd_only)} | {fmt_t(t_sk)} | {fmt_t(t_vl)} | "
            f"{fmt_r(t_ours, t_sk)} | {fmt_r(t_ours, t_xw)} | {fmt_r(t_sgd_only, t_sk)} | "
            f"{fmt_r(t_sgd_only, t_xw)} |")
        goal_rows.append(
            f"| {name} | {t_ours / t_sk:.2f} {'≤' if t_ours <= 0.5 * t_sk else '>'} 0.5 | "
            f"{t_ours / t_xw:.2f} {'≤' if t_ours <= 3 * t_xw else '>'} 3 | "
            f"{t_sgd_only / t_sk:.2f} {'≤' if t_sgd_only <= 0.5 * t_sk else '>'} 0.5 | "
            f"{t_sgd_only / t_xw:.2f} {'≤' if t_sgd_only <= 3 * t_xw else '>'} 3 |")
        print(timing_rows[-1], flush=True)

        solvers = [("stochsvm SGD", lambda E: ours_model(X, y, lam, E)),
                   ("sklearn SGDClassifier", lambda E: sklearn_model(X, y, lam, E))]
        if D is not None:
            solvers.append((f"VLFeat {vl.version} SGD",
                            lambda E: vlfeat_model(vl, D, y_vl, lam, E)))
        for label, fit in solvers:
            values, acc = [], None
            for E in EPOCHS:
                w, b = fit(E)
                values.append(objective(X, y, w, b, lam))
                if E == EPOCHS[-1]:
                    acc = accuracy(Xte, yte, w, b)
            objective_rows.append(f"| {name} | {label} | " +
                                  " | ".join(f"{v:.5f}" for v in values) + f" | {acc:.4f} |")
            print(objective_rows[-1], flush=True)
        del D

    command = "STOCHSVM_DATA=$STOCHSVM_DATA python bench/linear_sgd.py " + " ".join(
        argv if argv is not None else sys.argv[1:])
    lines = [
        "# Linear SGD (hinge loss): stochsvm vs scikit-learn vs VLFeat",
        "",
        f"Generated by `bench/linear_sgd.py` on {datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC.",
        "",
        f"* Command: `{command.strip()}`",
        f"* Machine: {info}",
        f"* VLFeat: {vl.version + ' (Debian libvlfeat1, ctypes, dense float64)' if vl else vl_note}",
        f"* stochsvm revision: {git_revision()}",
        f"* lambda = {lam:g}, bias multiplier 1 (sklearn: unregularized intercept), seed / "
        "random_state 0. Data as prepared by stochsvm._testing.load_benchmark: CSR float64, "
        "labels ±1, covtype scaled by column max-abs and split 80/20 with default_rng(0).",
        "",
        f"## Time of one epoch (median of {args.repeat}; `X @ w`: median of 5)",
        "",
        "* **train()**: stochsvm `SVM.train()` for n iterations, object made once, reset to "
        "w = 0, b = 0, t = 0 outside the timer. It includes one objective pass at the end.",
        "* **eval pass**: that objective pass alone (`SVM(..., solver=\"none\").train()`).",
        "* **SGD only** = train() − eval pass.",
        "* **sklearn**: `SGDClassifier(loss=\"hinge\", learning_rate=\"optimal\", max_iter=1, "
        "tol=None, shuffle=True).fit(X_csr, y)` (includes its input checks).",
        "* **VLFeat**: `vl_svm_train` for n iterations on the dense matrix (includes its own "
        "final objective pass), the reference settings (bias learning rate 0.01).",
        "",
        "| dataset | n × d | nnz | X @ w | train() | eval pass | SGD only | sklearn | VLFeat | "
        "train()/sklearn | train()/(X@w) | SGD only/sklearn | SGD only/(X@w) |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|",
        *timing_rows,
        "",
        "Goal: one epoch ≤ 0.5 × scikit-learn and ≤ 3 × the `X @ w` pass.",
        "",
        "| dataset | train()/sklearn | train()/(X@w) | SGD only/sklearn | SGD only/(X@w) |",
        "|---|---|---|---|---|",
        *goal_rows,
        "",
        "## Primal objective P = λ/2(‖w‖² + b²) + mean hinge, and test accuracy",
        "",
        "Computed in numpy from each solver's (w, b) on the training set. For scikit-learn, "
        "b is its (unregularized) intercept, still counted in P.",
        "",
        "| dataset | solver | P, 1 epoch | P, 5 epochs | P, 20 epochs | test acc., 20 epochs |",
        "|---|---|---|---|---|---|",
        *objective_rows,
    ]
    if load_at_start > 0.5:
        notes.append("The machine was not idle (load average above 0.5 at the start): other "
                     "processes shared its 2 CPUs, so absolute times can be inflated, for every "
                     "solver alike; the ratios are measured under the same conditions.")
    if notes:
        lines += ["", "Notes:", ""] + [f"* {x}" for x in notes]
    text = "\n".join(lines) + "\n"
    os.makedirs(os.path.dirname(args.output), exist_ok=True)
    with open(args.output, "w") as f:
        f.write(text)
    print(f"\nwrote {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
