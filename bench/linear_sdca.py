#!/usr/bin/env python3
"""Linear SDCA: time to reach the optimum within 1e-3, against liblinear, sklearn and VLFeat.

For each data set (prepared by stochsvm._testing.load_benchmark: CSR
float64, labels -1/+1, covtype scaled per column and split 80/20; only the
training split is used), each loss (hinge, logistic) and one lambda, every
solver minimises the same objective

    P(w, b) = lambda/2 (||w||^2 + b^2) + 1/n sum_i loss(y_i, w.x_i + b),

hinge max(0, 1 - z), logistic log(1 + exp(-z)), with a regularized bias
through a constant feature 1 (liblinear ``-B 1``, sklearn
``intercept_scaling=1``, VLFeat and stochsvm bias multiplier 1). The
C-parameterized solvers get C = 1/(lambda n): they minimise
(1/lambda) P. P is computed in numpy from each solver's (w, b), the same way
for all. The benchmark reports, per solver, the smallest time whose P is
<= (1 + 1e-3) P*.

The optimum P* is the lower of two reference runs: liblinear-official with
``-e 1e-6`` (its dual solvers stop at an internal cap of 300 iterations for
-s 3, which the table reports) and stochsvm's SDCA run until its duality gap
is <= --ref-gap (1e-8) times P, or --ref-epochs / --ref-budget. Both report a
dual value, a lower bound on the true optimum: the table shows the certified
relative accuracy (P* - best dual) / P*.

Solvers and ladders (every timed run starts from scratch; median of --repeat
runs; a setting qualifies only if every one of its runs reaches the target;
the ladder goes from loose to tight and stops at the first qualifying
setting):

* liblinear-official ``train(prob, "-s 3|7 -B 1 -c C -e eps -q")``, eps on
  the 1-2-5 grid 100, 50, 20, 10, 5, 2, 1, 0.5, ... 1e-3, 1e-4. Timed: the ``train`` call
  (``problem()`` is made once, outside the timer).
  It is not seeded (C ``rand()``), so repeats can differ slightly.
* scikit-learn ``LinearSVC(loss="hinge", dual=True, C, intercept_scaling=1,
  tol, max_iter=100000, random_state=0)`` for the hinge loss and
  ``LogisticRegression(solver="liblinear", dual=True, C, intercept_scaling=1,
  tol, max_iter=100000, random_state=0)`` for the logistic loss (LinearSVC
  has no logistic loss); tol on the same grid. Timed: ``fit`` on the CSR
  matrix (includes sklearn's input checks and its conversion to liblinear's
  format).
* stochsvm SDCA, two ladders, both with seed 0:
  - "epochs": epsilon 0, E epochs, diagnostic frequency E n (one objective
    pass, at the end), E on a ~1.25x grid 1, 2, 3, 4, 5, 6, 8, 10, 12, 15, ...
  - "gap": epsilon (duality gap, absolute) on the 1-2-5 grid 0.1 ... 1e-7,
    diagnostic frequency n (the default: one objective pass per epoch).
  Timed: ``SVM(X, y, lam, solver="sdca", loss=..., seed=0)`` (validation of
  the CSR matrix, squared row norms) plus the setters plus ``train()``;
  the time of ``train()`` alone is shown too. X is given as CSR with int64
  row pointers and int32 indices, so the constructor copies nothing.
* VLFeat 0.9.21 SDCA (``vl_svm_new`` on the dense float64 rows, bias
  multiplier 1, ``vl_svm_set_loss``, global RNG seeded with 0 before each
  run), the same two ladders: "epochs" (epsilon 0, max iterations and
  diagnostic frequency E n) and "gap" (epsilon on VLFeat's absolute duality
  gap, diagnostic frequency n). Timed: ``vl_svm_new`` + setters +
  ``vl_svm_train`` (which computes the row norms).

The SDCA trajectories (stochsvm and VLFeat) depend only on the seed: neither
the diagnostics nor epsilon change the iterates. So each ladder is scanned
with one untimed run that records the objective and the duality gap after
every epoch (for stochsvm this is the reference run); settings that this
trajectory shows cannot reach the target are not timed, and only the first
setting predicted to reach it is timed from scratch (then verified with the
numpy objective; if it misses, the next setting is timed). The VLFeat
exploration stops after --vlfeat-epochs epochs or --vlfeat-budget seconds.

Also measured (untimed by the ladders): the time of one SDCA epoch of
stochsvm (mean of the first 5, without the diagnostic pass), of one objective
pass, and of liblinear's first iteration (``-e 1e6``: setup plus one full
pass), plus liblinear's iteration count at the chosen eps.

Usage:  STOCHSVM_DATA=/path/to/data python bench/linear_sdca.py
        [--datasets a9a,w8a,ijcnn1,covtype] [--losses hinge,logistic]
        [--lambda 1e-4] [--repeat 3] [--no-vlfeat] [--no-sklearn]
        [--output bench/results/linear_sdca.md]
        STOCHSVM_DATA=/path/to/data python bench/linear_sdca.py --defaults [--accuracy]
        [--clock cpu]   (SDCA at its defaults against LIBLINEAR at its defaults,
        lambda = 1/n; with --accuracy also LIBLINEAR's default accuracy and the
        epochs and relative gap SDCA needs to match it:
        bench/results/linear_sdca_defaults.md)
"""

import argparse
import ctypes
import os
import re
import statistics
import sys
import tempfile
import time
import warnings
from datetime import datetime, timezone

import numpy as np
import scipy.sparse as sp

import stochsvm
from stochsvm._testing import load_benchmark

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from linear_sgd import VLFeat, git_revision, machine_info  # noqa: E402  (shared bench helpers)
from _output import out_path  # noqa: E402 (bench/)

REL_TARGET = 1e-3
EPS_GRID = [100, 50, 20, 10, 5, 2, 1, 0.5, 0.2, 0.1, 0.05, 0.02, 0.01, 0.005, 0.002, 0.001, 1e-4]
GAP_GRID = [c * 10.0 ** -k for k in range(1, 8) for c in (1, 0.5, 0.2)][:-2]  # 0.1 ... 1e-7
EPOCH_GRID = [1, 2, 3, 4, 5, 6, 8, 10, 12, 15, 20, 25, 30, 40, 50, 60, 80, 100, 125, 150, 200,
              250, 300, 400, 500, 600, 800, 1000, 1250, 1500, 2000, 2500, 3000, 4000, 5000]
LIBLINEAR_SOLVER = {"hinge": 3, "logistic": 7}

# What the timed runs read: wall time (time.perf_counter) or, with --clock cpu,
# the process's CPU time (time.process_time), which a busy shared machine
# inflates less: time spent waiting for a CPU is not counted.
clock = time.perf_counter


# --------------------------------------------------------------------------
#                                 helpers
# --------------------------------------------------------------------------

def objective(X, y, w, b, lam, loss):
    """lambda/2 (||w||^2 + b^2) + mean loss(y (Xw + b)), as tests/liblinear_reference.py."""
    z = y * (X @ w + b)
    if loss == "hinge":
        values = np.maximum(0.0, 1.0 - z)
    else:
        values = np.logaddexp(0.0, -z)
    return 0.5 * lam * (float(w @ w) + b * b) + float(values.mean())


class Run:
    """One timed run: time (s), objective, and extras (train-only time, epochs, ...)."""

    def __init__(self, time, P, **extra):
        self.time = time
        self.P = P
        self.extra = extra


class Result:
    """A solver's outcome on one (data set, loss)."""

    def __init__(self, label, setting=None, runs=(), note=""):
        self.label = label
        self.setting = setting
        self.runs = list(runs)
        self.note = note

    @property
    def reached(self):
        return bool(self.runs)

    @property
    def time(self):
        return statistics.median(r.time for r in self.runs) if self.runs else None

    @property
    def P(self):
        return max(r.P for r in self.runs) if self.runs else None

    def median_extra(self, key):
        values = [r.extra[key] for r in self.runs if r.extra.get(key) is not None]
        return statistics.median(values) if values else None


def ladder(label, settings, fmt, run_fn, target, repeat, predict=None, give_up=None):
    """Run settings from loose to tight; return the first one all of whose runs reach target.

    ``predict(s)`` may return False (the trajectory shows s misses the target:
    not run), True (run it) or None (unknown: run it). ``give_up(run)`` may
    stop the ladder after a run (too slow).
    """
    tried = []
    for s in settings:
        if predict is not None and predict(s) is False:
            continue
        first = run_fn(s)
        tried.append((s, first))
        if first.P > target:
            if give_up is not None and give_up(first):
                break
            continue
        runs = [first]
        for _ in range(repeat - 1):
            runs.append(run_fn(s))
        if all(r.P <= target for r in runs):
            return Result(label, fmt(s), runs)
        if give_up is not None and give_up(runs[-1]):
            break
    if tried:
        s, r = tried[-1]
        note = (f"not reached: loosest to tightest {len(tried)} setting(s) tried, the last "
                f"({fmt(s)}) gave P = {r.P:.7g} in {fmt_t(r.time)}")
    else:
        note = "not reached: no setting is predicted to reach the target"
    return Result(label, None, [], note)


def fmt_t(t):
    if t is None:
        return "–"
    return f"{t * 1e3:.3g} ms" if t < 1 else f"{t:.3g} s"


def fmt_cert(x):
    """A certified relative accuracy; below 1e-10 it is at the rounding level of the duals."""
    return f"{x:.1e}" if x >= 1e-10 else "< 1e-10"


def fmt_eps(e):
    return f"{e:g}"


def capture_stdout(fn):
    """Run fn() with the C-level stdout (fd 1) sent to a temporary file; (result, text)."""
    sys.stdout.flush()
    with tempfile.TemporaryFile(mode="w+b") as f:
        saved = os.dup(1)
        os.dup2(f.fileno(), 1)
        try:
            result = fn()
        finally:
            os.dup2(saved, 1)
            os.close(saved)
        f.seek(0)
        text = f.read().decode("utf-8", "replace")
    return result, text


# --------------------------------------------------------------------------
#                               liblinear
# --------------------------------------------------------------------------

class Liblinear:
    def __init__(self, X, y, lam):
        from liblinear import liblinearutil

        self.ll = liblinearutil
        Xi = X.copy()
        Xi.indices = Xi.indices.astype(np.int32)
        Xi.indptr = Xi.indptr.astype(np.int32)
        self.prob = liblinearutil.problem(y.copy(), Xi)
        self.C = 1.0 / (lam * X.shape[0])
        self.lam = lam

    def options(self, loss, eps, quiet=True):
        return (f"-s {LIBLINEAR_SOLVER[loss]} -B 1 -c {self.C!r} -e {eps!r}"
                + (" -q" if quiet else ""))

    def model(self, m):
        w, b = m.get_decfun()
        w = np.asarray(w, dtype=np.float64)
        if m.get_labels()[0] != 1:  # decision values are for the first label
            w, b = -w, -b
        return w, float(b)

    def timed(self, loss, eps):
        param = self.ll.parameter(self.options(loss, eps))
        t = clock()
        m = self.ll.train(self.prob, param)
        t = clock() - t
        return t, self.model(m)

    def verbose(self, loss, eps):
        """Train without -q: (w, b, #iter, dual value in P's scale, hit the iteration cap)."""
        param = self.ll.parameter(self.options(loss, eps, quiet=False))
        m, text = capture_stdout(lambda: self.ll.train(self.prob, param))
        w, b = self.model(m)
        iters = [int(x) for x in re.findall(r"#iter\s*=\s*(\d+)", text)]
        dual = re.findall(r"Objective value\s*=\s*(-?[0-9.eE+-]+)", text)
        # liblinear prints its minimised dual f(alpha); max dual = -f, and P = lambda * primal.
        D = -float(dual[-1]) * self.lam if dual else None
        return w, b, (iters[-1] if iters else None), D, "max number of iterations" in text


# --------------------------------------------------------------------------
#                                 sklearn
# --------------------------------------------------------------------------

def sklearn_estimator(loss, C, tol):
    if loss == "hinge":
        from sklearn.svm import LinearSVC

        return LinearSVC(loss="hinge", dual=True, C=C, intercept_scaling=1, tol=tol,
                         max_iter=100000, random_state=0)
    from sklearn.linear_model import LogisticRegression

    return LogisticRegression(solver="liblinear", dual=True, C=C, intercept_scaling=1, tol=tol,
                              max_iter=100000, random_state=0)


def sklearn_timed(X, y, loss, C, tol):
    from sklearn.exceptions import ConvergenceWarning

    est = sklearn_estimator(loss, C, tol)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        t = clock()
        est.fit(X, y)
        t = clock() - t
    w = est.coef_.ravel().astype(np.float64)
    b = float(est.intercept_[0])
    if est.classes_[1] != 1:  # decision_function is for classes_[1]
        w, b = -w, -b
    return t, w, b


# --------------------------------------------------------------------------
#                                 stochsvm
# --------------------------------------------------------------------------

def ours_timed(Xc, y, lam, loss, epochs=None, gap=None, cap_epochs=None):
    """One run from scratch: construct + train. Either ``epochs`` (epsilon 0, one
    final diagnostic) or ``gap`` (epsilon = gap, a diagnostic every epoch)."""
    n = Xc.shape[0]
    t0 = clock()
    svm = stochsvm.SVM(Xc, y, lam, solver="sdca", loss=loss, seed=0)
    if epochs is not None:
        svm.set_epsilon(0.0)
        svm.set_max_num_iterations(epochs * n)
        svm.set_diagnostic_frequency(epochs * n)
    else:
        svm.set_epsilon(gap)
        svm.set_max_num_iterations(cap_epochs * n)
        svm.set_diagnostic_frequency(n)
    t1 = clock()
    st = svm.train()
    t2 = clock()
    return t2 - t0, t2 - t1, svm.get_model(), svm.get_bias(), st


def ours_trajectory(Xc, y, lam, loss, ref_gap, max_epochs, budget):
    """The seed-0 SDCA run, a diagnostic every epoch, until gap <= ref_gap * P.

    Returns (trajectory [(epoch, P, gap)], w, b, final statistics, elapsed).
    """
    n = Xc.shape[0]
    svm = stochsvm.SVM(Xc, y, lam, solver="sdca", loss=loss, seed=0)
    svm.set_epsilon(0.0)
    svm.set_max_num_iterations(max_epochs * n)
    svm.set_diagnostic_frequency(n)
    traj = []
    start = time.perf_counter()

    def record(st):
        traj.append((int(st["epoch"]), float(st["objective"]), float(st["duality_gap"])))
        if st["duality_gap"] <= ref_gap * abs(st["objective"]):
            return True
        return time.perf_counter() - start > budget

    svm.set_diagnostic_function(record)
    st = svm.train()
    elapsed = time.perf_counter() - start
    svm.set_diagnostic_function(None)
    # The final diagnostic of a run stopped by the cap repeats the last epoch.
    seen, clean = set(), []
    for e, P, g in traj:
        if e not in seen:
            seen.add(e)
            clean.append((e, P, g))
    return clean, svm.get_model(), svm.get_bias(), st, elapsed


def ours_epoch_cost(Xc, y, lam, loss, repeat, epochs=5):
    """(mean time of one of the first `epochs` SDCA epochs without the diagnostic,
    time of one objective pass, construction time)."""
    n = Xc.shape[0]
    runs, builds = [], []
    for _ in range(repeat):
        t = clock()
        svm = stochsvm.SVM(Xc, y, lam, solver="sdca", loss=loss, seed=0)
        builds.append(clock() - t)
        svm.set_epsilon(0.0)
        svm.set_max_num_iterations(epochs * n)
        svm.set_diagnostic_frequency(epochs * n)
        t = clock()
        svm.train()
        runs.append(clock() - t)
    ev = stochsvm.SVM(Xc, y, lam, solver="none", loss=loss)
    ev.set_model(svm.get_model())
    ev.set_bias(svm.get_bias())
    ev.train()
    evals = []
    for _ in range(max(repeat, 3)):
        t = clock()
        ev.train()
        evals.append(clock() - t)
    t_eval = statistics.median(evals)
    return (statistics.median(runs) - t_eval) / epochs, t_eval, statistics.median(builds)


# --------------------------------------------------------------------------
#                                  VLFeat
# --------------------------------------------------------------------------

VL_SOLVER_SDCA = 2
VL_LOSS = {"hinge": 0, "logistic": 4}
VL_STATUS_CONVERGED = 2
_VL_DIAG = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_void_p)


class VLFeatSDCA(VLFeat):
    def __init__(self):
        super().__init__()
        c = ctypes
        self.lib.vl_svm_set_loss.argtypes = [c.c_void_p, c.c_int]
        self.lib.vl_svm_set_loss.restype = None
        self.lib.vl_svm_set_diagnostic_function.argtypes = [c.c_void_p, _VL_DIAG, c.c_void_p]
        self.lib.vl_svm_set_diagnostic_function.restype = None

    def new_sdca(self, D, y, lam, loss, epsilon, max_epochs, frequency_epochs):
        n, d = D.shape
        lib = self.lib
        s = lib.vl_svm_new(VL_SOLVER_SDCA, D.ctypes.data, d, n, y.ctypes.data, lam)
        if not s:
            raise MemoryError("vl_svm_new failed")
        lib.vl_svm_set_loss(s, VL_LOSS[loss])
        lib.vl_svm_set_bias_multiplier(s, 1.0)
        lib.vl_svm_set_epsilon(s, epsilon)
        lib.vl_svm_set_max_num_iterations(s, max_epochs * n)
        lib.vl_svm_set_diagnostic_frequency(s, frequency_epochs * n)
        return s


def vlfeat_timed(vl, D, yv, lam, loss, epochs=None, gap=None, cap_epochs=None):
    d = D.shape[1]
    vl.seed(0)
    t = clock()
    if epochs is not None:
        s = vl.new_sdca(D, yv, lam, loss, 0.0, epochs, epochs)
    else:
        s = vl.new_sdca(D, yv, lam, loss, gap, cap_epochs, 1)
    vl.lib.vl_svm_train(s)
    t = clock() - t
    try:
        w, b = vl.model(s, d)
        st = vl.lib.vl_svm_get_statistics(s).contents
        return t, w, b, int(st.epoch) + 1, float(st.dualityGap)
    finally:
        vl.lib.vl_svm_delete(s)


def vlfeat_trajectory(vl, D, yv, lam, loss, target, P_star, max_epochs, budget):
    """VLFeat's seed-0 SDCA, a diagnostic every epoch, until both ladders are decided
    (see decide()), or max_epochs / budget seconds."""
    traj = []
    start = time.perf_counter()
    stop_reason = [f"{max_epochs}-epoch cap"]

    def cb(svm, _):
        st = vl.lib.vl_svm_get_statistics(svm).contents
        traj.append((int(st.epoch) + 1, float(st.objective), float(st.dualityGap)))
        e_choice, g_choice = decide(traj, target)
        if e_choice is not None and g_choice is not None:
            stop_reason[0] = "both ladders decided"
            st.status = VL_STATUS_CONVERGED
        elif time.perf_counter() - start > budget:
            stop_reason[0] = f"{budget:g} s budget"
            st.status = VL_STATUS_CONVERGED

    cbf = _VL_DIAG(cb)
    vl.seed(0)
    s = vl.new_sdca(D, yv, lam, loss, 0.0, max_epochs, 1)
    try:
        vl.lib.vl_svm_set_diagnostic_function(s, cbf, None)
        vl.lib.vl_svm_train(s)
    finally:
        vl.lib.vl_svm_delete(s)
    return traj, time.perf_counter() - start, stop_reason[0]


# --------------------------------------------------------------------------
#                          trajectory-based ladders
# --------------------------------------------------------------------------

def decide(traj, target):
    """From a per-epoch trajectory [(epoch, P, gap)]: (first grid epoch count whose P
    reaches target, first gap-grid epsilon whose stopping point reaches target);
    None where the trajectory does not (yet) decide it."""
    by_epoch = {e: P for e, P, _ in traj}
    e_choice = next((E for E in EPOCH_GRID if E in by_epoch and by_epoch[E] <= target), None)
    g_choice = None
    for eps in GAP_GRID:
        stop = next(((e, P) for e, P, g in traj if g < eps), None)
        if stop is None:
            break  # tighter epsilons stop later: not known yet
        if stop[1] <= target:
            g_choice = eps
            break
    return e_choice, g_choice


def epoch_predictor(traj, target):
    by_epoch = {e: P for e, P, _ in traj}
    return lambda E: (by_epoch[E] <= target) if E in by_epoch else False


def gap_predictor(traj, target):
    def predict(eps):
        stop = next((P for e, P, g in traj if g < eps), None)
        return False if stop is None else stop <= target
    return predict


# --------------------------------------------------------------------------
#                                   main
# --------------------------------------------------------------------------

def fmt_r(a, b):
    return "–" if a is None or b is None else f"{a / b:.2f}"


def default_problems(datasets, losses):
    """For each data set and loss at lambda = 1/n: (name, X, Xc, y, lam, loss,
    Liblinear); Xc is X in stochsvm's zero-copy CSR layout."""
    for name in datasets:
        X, y, _, _ = load_benchmark(name)
        lam = 1.0 / X.shape[0]
        Xc = sp.csr_matrix((X.data, X.indices.astype(np.int32), X.indptr.astype(np.int64)),
                           shape=X.shape)
        lib = Liblinear(X, y, lam)
        for loss in losses:
            yield name, X, Xc, y, lam, loss, lib


def liblinear_default_runs(datasets, losses, repeat):
    """default_problems with, for each, LIBLINEAR's median time at its default
    eps 0.1 and the P of its first run."""
    for name, X, Xc, y, lam, loss, lib in default_problems(datasets, losses):
        ll = [lib.timed(loss, 0.1) for _ in range(repeat)]
        yield (name, X, Xc, y, lam, loss, statistics.median(t for t, _ in ll),
               objective(X, y, *ll[0][1], lam, loss))


def parse_epsilon(text):
    """``--epsilon``: one tolerance for every loss ("1e-4"), or one per loss
    ("hinge=1e-4,logistic=1e-9"); None: the default. Returns {loss: eps} or
    a float or None."""
    if text is None or "=" not in text:
        return None if text is None else float(text)
    return {k.strip(): float(v) for k, v in (item.split("=") for item in text.split(","))}


def defaults_table(datasets, losses, repeat, output, epsilon=None, max_epochs=None):
    """SDCA at the object's defaults against LIBLINEAR at its defaults, lambda = 1/n.

    For each data set and loss: LIBLINEAR ``-s 3|7 -B 1 -c 1`` at its default
    eps (0.1 for both dual solvers), and ``SVM(X, y, 1/n, solver="sdca",
    loss=loss)`` with nothing else set (construct + train), ``repeat``
    times, each SDCA run right after a LIBLINEAR run. SDCA meets the bar
    when its P is <= LIBLINEAR's and the median of the runs' time ratios is
    <= 0.7. The stop's cost: the same number of epochs with epsilon 0 and a
    single final diagnostic, timed side by side (``default / bare - 1``).
    ``epsilon`` (not None: a float, or a {loss: float} dict) overrides the
    default tolerance, to find the tolerance that would meet the bar;
    ``max_epochs`` (not None) the default cap of 100 epochs.
    """
    rows = []
    try:
        load = os.getloadavg()
    except OSError:
        load = (0.0, 0.0, 0.0)
    for name, X, Xc, y, lam, loss, lib in default_problems(datasets, losses):
        n = X.shape[0]
        # Interleaved (LIBLINEAR, SDCA, bare SDCA) triples: the CPU time of
        # either moves by up to 2x with the load of the shared machine, and
        # a ratio is only worth something between runs made side by side.
        lls, ours, bare, ratios = [], [], [], []
        for _ in range(repeat):
            lls.append(lib.timed(loss, 0.1))
            t0 = clock()
            svm = stochsvm.SVM(Xc, y, lam, solver="sdca", loss=loss)
            eps = epsilon.get(loss) if isinstance(epsilon, dict) else epsilon
            if eps is not None:
                svm.set_epsilon(eps)
            if max_epochs is not None:
                svm.set_max_num_iterations(max_epochs * n)
            st = svm.train()
            ours.append((clock() - t0, svm, st))
            ratios.append(ours[-1][0] / lls[-1][0])
            epochs = st["iteration"] // n
            t_bare = ours_timed(Xc, y, lam, loss, epochs=epochs)[0] if epochs > 0 else float("nan")
            bare.append(t_bare)
        t_ll = statistics.median(t for t, _ in lls)
        P_ll = objective(X, y, *lls[0][1], lam, loss)
        t_ours = statistics.median(t for t, _, _ in ours)
        ratio = statistics.median(ratios)
        _, svm, st = ours[0]
        P = objective(X, y, svm.get_model(), svm.get_bias(), lam, loss)
        t_bare = statistics.median(bare)
        met = P <= P_ll and ratio <= 0.7
        rows.append(f"| {name} | {loss} | {t_ll * 1e3:.1f} ms | {P_ll:.7f} | {t_ours * 1e3:.1f} ms | "
                    f"{P:.7f} | {st['status']}, {st['epoch']} ep, rel. gap "
                    f"{st['duality_gap'] / st['dual_objective']:.1e} | {ratio:.2f} "
                    f"({min(ratios):.2f}-{max(ratios):.2f}) | "
                    f"{t_ours / t_bare - 1:+.0%} | {'yes' if met else 'no'} |")
        print(rows[-1], flush=True)
    text = (f"# SDCA at its defaults against LIBLINEAR at its defaults (lambda = 1/n, C = 1)\n\n"
            f"SDCA epsilon: {'the default' if epsilon is None else epsilon}; cap: "
            f"{'the default (100 epochs)' if max_epochs is None else f'{max_epochs} epochs'}.\n\n"
            f"Generated by `python bench/linear_sdca.py {' '.join(sys.argv[1:])}` at "
            f"{git_revision()} on "
            f"{datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC; load average at the start "
            f"{load[0]:.2f} {load[1]:.2f} {load[2]:.2f}; {repeat} runs each, median; clock "
            f"{'cpu' if clock is time.process_time else 'wall'}.\n\n"
            f"Each repeat times LIBLINEAR, then SDCA, then SDCA's epochs without the stop "
            f"(bare), side by side; *ratio* is the median of the repeats' SDCA / LIBLINEAR "
            f"ratios (their range in brackets), the times are medians.\n\n"
            f"| data | loss | LIBLINEAR -e 0.1 | its P | SDCA defaults | its P | stop | ratio | "
            f"stop cost | bar met (P <= LIBLINEAR's, ratio <= 0.7) |\n"
            f"|---|---|---|---|---|---|---|---|---|---|\n" + "\n".join(rows) + "\n")
    with open(output, "w") as f:
        f.write(text)
    print(f"wrote {output}")
    return 0


def parse_tols(text):
    """``--tols``: a comma-separated list of SDCA tolerances; "default" is the
    object's own (nothing set)."""
    return [None if t.strip() == "default" else float(t) for t in text.split(",")]


def tol_table(datasets, losses, repeat, output, tols):
    """SDCA at several tolerances against LIBLINEAR's default run, lambda = 1/n.

    For each data set and loss, ``repeat`` rounds; a round times LIBLINEAR
    ``-s 3|7 -B 1 -c 1`` at its default eps 0.1 and ``SVM(X, y, 1/n,
    solver="sdca", loss=loss)`` (construct + train, the default cap, seed
    and fallback) once at each tolerance of ``tols`` (None: the object's
    default), in an order rotated by one place per round, so that no setting
    always runs first or last under the shared machine's load. For each
    tolerance: the median time, the median over rounds of the ratio to that
    round's LIBLINEAR time, SDCA's P (its runs are deterministic) against
    LIBLINEAR's median P, and whether it reached that P. *time to reach*:
    the fastest tolerance whose run reaches it, as a ratio to LIBLINEAR.
    Returns the markdown rows.
    """
    rows = []
    for name, X, Xc, y, lam, loss, lib in default_problems(datasets, losses):
        n = X.shape[0]
        settings = ["liblinear"] + list(range(len(tols)))
        times = {k: [] for k in settings}
        ll_P, runs, ratios = [], {}, {k: [] for k in range(len(tols))}
        for r in range(repeat):
            order = settings[r % len(settings):] + settings[:r % len(settings)]
            t_round = {}
            for k in order:
                if k == "liblinear":
                    t, (w, b) = lib.timed(loss, 0.1)
                    ll_P.append(objective(X, y, w, b, lam, loss))
                else:
                    t0 = clock()
                    svm = stochsvm.SVM(Xc, y, lam, solver="sdca", loss=loss)
                    if tols[k] is not None:
                        svm.set_epsilon(tols[k])
                    st = svm.train()
                    t = clock() - t0
                    runs.setdefault(k, (objective(X, y, svm.get_model(), svm.get_bias(), lam, loss),
                                        st))
                times[k].append(t)
                t_round[k] = t
            for k in ratios:
                ratios[k].append(t_round[k] / t_round["liblinear"])
        t_ll = statistics.median(times["liblinear"])
        P_ll = statistics.median(ll_P)
        cells, reach, near = [], None, None
        for k, tol in enumerate(tols):
            P, st = runs[k]
            ratio = statistics.median(ratios[k])
            hit = P <= P_ll
            # LIBLINEAR is not seeded: its default objective moves from run
            # to run. Within its spread: at or below the highest of its runs.
            within = P <= max(ll_P)
            setting = "default" if tol is None else f"{tol:g}"
            if hit and (reach is None or ratio < reach[1]):
                reach = (setting, ratio)
            if within and (near is None or ratio < near[1]):
                near = (setting, ratio)
            newton = st.get("num_newton_iterations", 0)
            cells.append(f"{statistics.median(times[k]) * 1e3:.0f} ms, {ratio:.2f}x, "
                         f"{(P - P_ll) / P_ll:+.1e}, {st['epoch']} ep"
                         f"{f' + {newton} Nt' if newton else ''}"
                         f"{'' if st['status'] == 'converged' else ', ' + st['status']}"
                         f"{' **reached**' if hit else ' *within spread*' if within else ''}")
        if reach is not None:
            verdict = f"{reach[1]:.2f}x at {reach[0]}"
        elif near is not None:
            verdict = f"within spread: {near[1]:.2f}x at {near[0]}"
        else:
            verdict = "never"
        rows.append(f"| {name} | {loss} | {t_ll * 1e3:.0f} ms | {P_ll:.7f} "
                    f"({(max(ll_P) - min(ll_P)) / P_ll:.0e}) | " + " | ".join(cells)
                    + f" | {verdict} |")
        print(rows[-1], flush=True)
    with open(output, "a") as f:
        f.write("\n".join(rows) + "\n")
    return rows


# down to 1e-9: LIBLINEAR's -s 7 default ends 1e-7 (a9a, w8a, ijcnn1) to 1e-10
# (covtype) above the optimum
TOL_LADDER = [1e-2, 1e-3, 3e-4, 1e-4, 3e-5, 1e-5, 1e-6, 1e-7, 1e-8, 1e-9]


def liblinear_accuracy_table(datasets, losses, max_epochs, budget, repeat):
    """How accurate LIBLINEAR's default result is, and what SDCA needs to match it.

    For each data set and loss (lambda = 1/n): LIBLINEAR ``-e 0.1`` (median
    time of ``repeat``, its P), the seed-0 SDCA trajectory with a diagnostic
    every epoch up to ``max_epochs`` (or a relative gap of 1e-10, or
    ``budget`` seconds) whose lowest P and last D bracket P*, LIBLINEAR's
    relative suboptimality, the first epoch whose P is <= LIBLINEAR's, the
    time of that many epochs without diagnostics (the best any stopping rule
    could do) as a ratio to LIBLINEAR's, and for each relative-gap tolerance
    on TOL_LADDER the epoch where the gap rule would fire and whether its P
    is <= LIBLINEAR's. Returns markdown rows.
    """
    rows = []
    for name, X, Xc, y, lam, loss, t_ll, P_ll in liblinear_default_runs(datasets, losses, repeat):
        traj, _, _, st, _ = ours_trajectory(Xc, y, lam, loss, 1e-10, max_epochs, budget)
        upper = min(P for _, P, _ in traj)
        lower = float(st["dual_objective"])
        reach = next((e for e, P, _ in traj if P <= P_ll), None)
        ratio = "–"
        if reach is not None:
            bare = statistics.median(ours_timed(Xc, y, lam, loss, epochs=reach)[0]
                                     for _ in range(repeat))
            ratio = f"{bare / t_ll:.2f}"
        fires = []
        for tol in TOL_LADDER:
            hit = next(((e, P) for e, P, g in traj if g <= tol * (P - g)), None)
            fires.append("–" if hit is None else
                         f"{hit[0]}{'' if hit[1] <= P_ll else ' (above)'}")
        rows.append(f"| {name} | {loss} | {t_ll * 1e3:.1f} ms | {P_ll:.7f} | "
                    f"{(P_ll - upper) / upper:.1e} .. {(P_ll - lower) / lower:.1e} | "
                    f"{traj[-1][0]} | {'–' if reach is None else reach} | {ratio} | "
                    + " | ".join(fires) + " |")
        print(rows[-1], flush=True)
    return rows


def tols_report(args, out):
    """``--defaults --tols``: the header of tol_table's table, then its rows
    as they come (a long run keeps what it measured)."""
    tols = parse_tols(args.tols)
    try:
        load = os.getloadavg()
    except OSError:
        load = (0.0, 0.0, 0.0)
    head = " | ".join("SDCA default tol" if t is None else f"SDCA tol {t:g}" for t in tols)
    with open(out, "w") as f:
        f.write(f"# SDCA's tolerance against LIBLINEAR's default run (lambda = 1/n, C = 1)\n\n"
                f"Generated by `python bench/linear_sdca.py {' '.join(sys.argv[1:])}` at "
                f"{git_revision()} on {datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC; load average "
                f"at the start {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}; {args.repeat} rounds, "
                f"median; clock {'cpu' if clock is time.process_time else 'wall'}.\n\n"
                f"A round times LIBLINEAR `-s 3|7 -B 1 -c 1` (default eps 0.1) and "
                f"`SVM(X, y, 1/n, solver=\"sdca\", loss=...)` (construct + train; default cap, "
                f"seed and Newton fallback) at each tolerance, in an order rotated by one place "
                f"per round. A cell: median time, median of the rounds' SDCA / LIBLINEAR ratios, "
                f"(P - P_LIBLINEAR) / P_LIBLINEAR (P_LIBLINEAR: the median over rounds; its "
                f"relative spread in brackets, LIBLINEAR is not seeded), SDCA epochs (+ Newton "
                f"iterations), the status if not converged, **reached** when P <= P_LIBLINEAR, "
                f"*within spread* when P is above it but at or below the highest of LIBLINEAR's "
                f"runs (LIBLINEAR's own run-to-run spread). *time to reach*: the fastest "
                f"tolerance that reached it (else that came within the spread).\n\n"
                f"| data | loss | LIBLINEAR | its P | {head} | time to reach |\n"
                f"|---|---|---|---|" + "---|" * len(tols) + "---|\n")
    tol_table(args.datasets.split(","), args.losses.split(","), args.repeat, out, tols)
    print(f"wrote {out}")
    return 0


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--datasets", default="a9a,w8a,ijcnn1,covtype")
    p.add_argument("--losses", default="hinge,logistic")
    p.add_argument("--lambda", dest="lam", type=float, default=1e-4)
    p.add_argument("--repeat", type=int, default=3, help="timed runs per chosen setting (median)")
    p.add_argument("--no-vlfeat", action="store_true", help="skip VLFeat")
    p.add_argument("--no-sklearn", action="store_true", help="skip scikit-learn")
    p.add_argument("--ref-gap", type=float, default=1e-8,
                   help="stochsvm reference run: stop at duality gap <= this * P")
    p.add_argument("--ref-epochs", type=int, default=3000, help="stochsvm reference run: epoch cap")
    p.add_argument("--ref-budget", type=float, default=30.0,
                   help="stochsvm reference run: time cap in seconds")
    p.add_argument("--vlfeat-epochs", type=int, default=500, help="VLFeat exploration: epoch cap")
    p.add_argument("--vlfeat-budget", type=float, default=30.0,
                   help="VLFeat exploration: time cap in seconds")
    p.add_argument("--max-run", type=float, default=30.0,
                   help="stop a liblinear/sklearn ladder after a run slower than this (s)")
    p.add_argument("--clock", choices=("wall", "cpu"), default="wall",
                   help="time the runs by wall clock or by the process's CPU time")
    p.add_argument("--output", default=out_path("linear_sdca.md"))
    p.add_argument("--epsilon", default=None,
                   help="with --defaults: SDCA's epsilon instead of the default, one for "
                        "every loss (1e-4) or one per loss (hinge=1e-4,logistic=1e-9)")
    p.add_argument("--max-epochs", type=int, default=None,
                   help="with --defaults: SDCA's epoch cap instead of the default (100)")
    p.add_argument("--accuracy", action="store_true",
                   help="with --defaults: also the table of LIBLINEAR's default accuracy and "
                        "the epochs and relative gap SDCA needs to match it")
    p.add_argument("--accuracy-epochs", type=int, default=600,
                   help="with --accuracy: the SDCA trajectory's epoch cap")
    p.add_argument("--tols", default=None,
                   help="with --defaults: instead of the defaults table, SDCA at each of these "
                        "tolerances ('default' = the object's) against LIBLINEAR's default run, "
                        "side by side in rotated order (e.g. default,1e-3,1e-4,3e-5,1e-5)")
    p.add_argument("--defaults", action="store_true",
                   help="only the table of SDCA at its defaults against LIBLINEAR at its "
                        "defaults, lambda = 1/n (bench/results/linear_sdca_defaults.md)")
    args = p.parse_args(argv)
    global clock
    clock = time.process_time if args.clock == "cpu" else time.perf_counter
    if args.defaults:
        out = args.output
        if out.endswith("linear_sdca.md"):
            out = out[:-len(".md")] + "_defaults.md"
        if args.tols is not None:
            return tols_report(args, out)
        status = defaults_table(args.datasets.split(","), args.losses.split(","), args.repeat, out,
                                parse_epsilon(args.epsilon), args.max_epochs)
        if args.accuracy:
            rows = liblinear_accuracy_table(args.datasets.split(","), args.losses.split(","),
                                            args.accuracy_epochs, args.ref_budget, args.repeat)
            head = " | ".join(f"gap {t:g}" for t in TOL_LADDER)
            with open(out, "a") as f:
                f.write(f"\n## LIBLINEAR's default accuracy, and what SDCA needs to match it\n\n"
                        f"`--accuracy`: the seed-0 SDCA trajectory (a diagnostic every epoch, up to "
                        f"{args.accuracy_epochs} epochs, a relative gap of 1e-10 or {args.ref_budget:g} s) "
                        f"brackets P* between its lowest P and its last D. *LIBLINEAR rel.* is "
                        f"(P_LIBLINEAR - P*) / P* over that bracket; *reach* the first epoch whose P "
                        f"is <= LIBLINEAR's, *bare ratio* the time of that many epochs without "
                        f"diagnostics over LIBLINEAR's (what an oracle stopping rule would give); "
                        f"*gap g* the epoch where the relative-gap rule with tolerance g fires, "
                        f"'(above)' when its P is still above LIBLINEAR's, '–' when it does not fire "
                        f"within the trajectory.\n\n"
                        f"| data | loss | LIBLINEAR -e 0.1 | its P | LIBLINEAR rel. | epochs run | "
                        f"reach | bare ratio | {head} |\n"
                        f"|---|---|---|---|---|---|---|---|" + "---|" * len(TOL_LADDER) + "\n"
                        + "\n".join(rows) + "\n")
        return status
    lam = args.lam
    losses = args.losses.split(",")
    for loss in losses:
        if loss not in LIBLINEAR_SOLVER:
            p.error(f"unknown loss {loss!r} (hinge, logistic)")
    info = machine_info()
    try:
        load_at_start = os.getloadavg()[0]
    except OSError:
        load_at_start = 0.0
    wall_start = time.perf_counter()

    vl, vl_note = None, ""
    if not args.no_vlfeat:
        try:
            vl = VLFeatSDCA()
        except OSError as exc:
            vl_note = f"VLFeat skipped: libvl.so.1 not found ({exc}); apt-get install libvlfeat1"
            print(vl_note, file=sys.stderr)
    else:
        vl_note = "VLFeat skipped (--no-vlfeat)"

    ref_rows, summary_rows, detail_rows, epoch_rows, notes = [], [], [], [], []
    for name in args.datasets.split(","):
        t0 = time.perf_counter()
        X, y, _, _ = load_benchmark(name)
        n, d = X.shape
        print(f"[{name}] {n} x {d}, nnz {X.nnz} (loaded in {time.perf_counter() - t0:.1f} s)",
              flush=True)
        # stochsvm's zero-copy CSR layout: int64 row pointers, int32 indices.
        Xc = sp.csr_matrix((X.data, X.indices.astype(np.int32), X.indptr.astype(np.int64)),
                           shape=X.shape)
        lib = Liblinear(X, y, lam)
        C = lib.C
        D = yv = None
        if vl is not None:
            D = np.ascontiguousarray(X.toarray(), dtype=np.float64)
            yv = np.ascontiguousarray(y, dtype=np.float64)

        for loss in losses:
            tag = f"[{name}/{loss}]"
            P = lambda w, b: objective(X, y, w, b, lam, loss)  # noqa: E731

            # ---------------- the optimum ----------------
            w, b, ll_iter, ll_dual, ll_capped = lib.verbose(loss, 1e-6)
            P_ll = P(w, b)
            traj, w, b, st, t_traj = ours_trajectory(Xc, y, lam, loss, args.ref_gap,
                                                     args.ref_epochs, args.ref_budget)
            P_ours = P(w, b)
            D_ours = float(st["dual_objective"])
            P_star = min(P_ll, P_ours)
            lower = max(x for x in (D_ours, ll_dual) if x is not None)
            target = (1 + REL_TARGET) * P_star
            src = "liblinear" if P_ll <= P_ours else "stochsvm"
            ref_rows.append(
                f"| {name} | {loss} | {n:,} | {C:.4g} | {P_star:.8f} ({src}) | {P_ll:.8f} "
                f"({ll_iter} iter{', hit its cap' if ll_capped else ''}) | "
                f"{'–' if ll_dual is None else f'{ll_dual:.8f}'} | {P_ours:.8f} "
                f"({traj[-1][0]} ep, {t_traj:.1f} s) | {D_ours:.8f} | "
                f"{fmt_cert((P_star - lower) / P_star)} | {target:.8f} |")
            print(f"{tag} P* = {P_star:.8f} (liblinear -e 1e-6 {P_ll:.8f}, {ll_iter} iter; "
                  f"stochsvm {P_ours:.8f} after {traj[-1][0]} epochs, gap "
                  f"{st['duality_gap']:.2e}); certified rel. {(P_star - lower) / P_star:.1e}",
                  flush=True)
            results = []

            # ---------------- liblinear ----------------
            lib.timed(loss, EPS_GRID[0])  # warm-up

            def ll_run(eps):
                t, (w, b) = lib.timed(loss, eps)
                return Run(t, P(w, b))

            def slow(r):
                return r.time > args.max_run

            r_ll = ladder("liblinear-official", EPS_GRID, lambda e: f"-e {fmt_eps(e)}", ll_run,
                          target, args.repeat, give_up=slow)
            results.append(r_ll)
            print(f"{tag} liblinear: {r_ll.setting} {fmt_t(r_ll.time)} {r_ll.note}", flush=True)

            # ---------------- stochsvm ----------------
            cap_epochs = max(EPOCH_GRID[-1], args.ref_epochs)
            ours_timed(Xc, y, lam, loss, epochs=1)  # warm-up

            def ours_epochs_run(E):
                t, t_train, w, b, st = ours_timed(Xc, y, lam, loss, epochs=E)
                return Run(t, P(w, b), train=t_train, epochs=int(st["epoch"]))

            def ours_gap_run(eps):
                t, t_train, w, b, st = ours_timed(Xc, y, lam, loss, gap=eps,
                                                  cap_epochs=cap_epochs)
                return Run(t, P(w, b), train=t_train, epochs=int(st["epoch"]))

            r_oe = ladder("stochsvm SDCA, epochs", EPOCH_GRID, lambda E: f"{E} epochs",
                          ours_epochs_run, target, args.repeat,
                          predict=epoch_predictor(traj, target))
            r_og = ladder("stochsvm SDCA, gap", GAP_GRID, lambda e: f"gap < {fmt_eps(e)}",
                          ours_gap_run, target, args.repeat, predict=gap_predictor(traj, target))
            for r in (r_oe, r_og):
                if not r.reached:
                    r.note += (f" (the reference run covered {traj[-1][0]} epochs, "
                               f"{t_traj:.1f} s)")
            results += [r_oe, r_og]
            print(f"{tag} stochsvm: {r_oe.setting} {fmt_t(r_oe.time)}; {r_og.setting} "
                  f"{fmt_t(r_og.time)}", flush=True)

            # ---------------- sklearn ----------------
            if not args.no_sklearn:
                sk_label = ("sklearn LinearSVC(hinge)" if loss == "hinge" else
                            "sklearn LogisticRegression(liblinear, dual)")
                sklearn_timed(X, y, loss, C, EPS_GRID[0])  # warm-up

                def sk_run(tol):
                    t, w, b = sklearn_timed(X, y, loss, C, tol)
                    return Run(t, P(w, b))

                r_sk = ladder(sk_label, EPS_GRID, lambda e: f"tol={fmt_eps(e)}", sk_run, target,
                              args.repeat, give_up=slow)
                results.append(r_sk)
                print(f"{tag} sklearn: {r_sk.setting} {fmt_t(r_sk.time)} {r_sk.note}",
                      flush=True)

            # ---------------- VLFeat ----------------
            if vl is not None:
                vtraj, t_vtraj, why = vlfeat_trajectory(vl, D, yv, lam, loss, target, P_star,
                                                        args.vlfeat_epochs, args.vlfeat_budget)
                vl_cap = max(vtraj[-1][0], 1) if vtraj else 1

                def vl_epochs_run(E):
                    t, w, b, ep, gap = vlfeat_timed(vl, D, yv, lam, loss, epochs=E)
                    return Run(t, P(w, b), epochs=ep)

                def vl_gap_run(eps):
                    t, w, b, ep, gap = vlfeat_timed(vl, D, yv, lam, loss, gap=eps,
                                                    cap_epochs=vl_cap)
                    return Run(t, P(w, b), epochs=ep)

                r_ve = ladder(f"VLFeat {vl.version} SDCA, epochs", EPOCH_GRID,
                              lambda E: f"{E} epochs", vl_epochs_run, target, args.repeat,
                              predict=epoch_predictor(vtraj, target))
                r_vg = ladder(f"VLFeat {vl.version} SDCA, gap", GAP_GRID,
                              lambda e: f"gap < {fmt_eps(e)}", vl_gap_run, target, args.repeat,
                              predict=gap_predictor(vtraj, target))
                best = min(vtraj, key=lambda r: r[1]) if vtraj else None
                for r in (r_ve, r_vg):
                    if not r.reached and best is not None:
                        r.note = (f"not reached within {vtraj[-1][0]} epochs / {t_vtraj:.1f} s "
                                  f"(exploration stopped by the {why}): best P = {best[1]:.7g} "
                                  f"at epoch {best[0]} ({(best[1] - P_star) / P_star:.1e} above "
                                  f"P*), last duality gap {vtraj[-1][2]:.2e}")
                results += [r_ve, r_vg]
                print(f"{tag} VLFeat: {r_ve.setting} {fmt_t(r_ve.time)}; {r_vg.setting} "
                      f"{fmt_t(r_vg.time)} {r_vg.note}", flush=True)

            # ---------------- per-epoch costs ----------------
            t_epoch, t_eval, t_build = ours_epoch_cost(Xc, y, lam, loss, args.repeat)
            firsts = [lib.timed(loss, 1e6)[0] for _ in range(args.repeat)]
            t_first = statistics.median(firsts)
            ll_iters = None
            if r_ll.reached:
                eps = float(r_ll.setting.split()[-1])
                ll_iters = lib.verbose(loss, eps)[2]
            t_run_epoch = None
            if r_oe.reached:
                t_run_epoch = (r_oe.median_extra("train") - t_eval) / r_oe.median_extra("epochs")
            epoch_rows.append(
                f"| {name} | {loss} | {fmt_t(t_build)} | {fmt_t(t_epoch)} | "
                f"{r_oe.setting + ': ' + fmt_t(t_run_epoch) if t_run_epoch else '–'} | "
                f"{fmt_t(t_eval)} | "
                f"{fmt_t(t_first)} | {fmt_r(t_epoch, t_first)} | "
                + (f"{r_ll.setting}: {ll_iters} iter, {fmt_t(r_ll.time / ll_iters)} per iter |"
                   if ll_iters else "– |"))

            # ---------------- rows ----------------
            t_ll = r_ll.time
            by = {r.label: r for r in results}

            def cell(label):
                r = by.get(label)
                if r is None:
                    return "–"
                return fmt_t(r.time) if r.reached else "not reached"

            vl_e = next((r for r in results if r.label.startswith("VLFeat") and "epochs" in
                         r.label), None)
            vl_g = next((r for r in results if r.label.startswith("VLFeat") and "gap" in
                         r.label), None)
            sk = next((r for r in results if r.label.startswith("sklearn")), None)

            def ratio_cell(r):
                if r is None or not r.reached or t_ll is None:
                    return "–"
                q = r.time / t_ll
                return f"{q:.2f} {'≤' if q <= 0.7 else '>'} 0.7"

            summary_rows.append(
                f"| {name} | {loss} | {cell('liblinear-official')} | "
                f"{cell('stochsvm SDCA, epochs')} | {cell('stochsvm SDCA, gap')} | "
                f"{'–' if sk is None else (fmt_t(sk.time) if sk.reached else 'not reached')} | "
                f"{'–' if vl_e is None else (fmt_t(vl_e.time) if vl_e.reached else 'not reached')} | "
                f"{'–' if vl_g is None else (fmt_t(vl_g.time) if vl_g.reached else 'not reached')} | "
                f"{ratio_cell(r_oe)} | {ratio_cell(r_og)} |")
            for r in results:
                if r.reached:
                    times = [x.time for x in r.runs]
                    train_only = r.median_extra("train")
                    epochs = r.median_extra("epochs")
                    detail_rows.append(
                        f"| {name} | {loss} | {r.label} | {r.setting} | {fmt_t(r.time)} "
                        f"[{fmt_t(min(times))}–{fmt_t(max(times))}] | "
                        f"{fmt_t(train_only) if train_only is not None else '–'} | "
                        f"{'–' if epochs is None else int(epochs)} | {r.P:.8f} | "
                        f"{(r.P - P_star) / P_star:.1e} | {fmt_r(r.time, t_ll)} |  |")
                else:
                    detail_rows.append(f"| {name} | {loss} | {r.label} | – | – | – | – | – | – "
                                       f"| – | {r.note} |")
            print(summary_rows[-1], flush=True)
        D = yv = None  # free the dense copy before the next data set

    total = time.perf_counter() - wall_start
    command = "STOCHSVM_DATA=$STOCHSVM_DATA python bench/linear_sdca.py " + " ".join(
        argv if argv is not None else sys.argv[1:])
    lines = [
        "# Linear SDCA: time to reach P ≤ (1 + 1e-3) P*, stochsvm vs liblinear, scikit-learn "
        "and VLFeat",
        "",
        f"Generated by `bench/linear_sdca.py` on {datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC "
        f"(whole run {total / 60:.1f} min).",
        "",
        f"* Command: `{command.strip()}`",
        f"* Machine: {info}",
        f"* liblinear-official {_version('liblinear-official')}; VLFeat: "
        f"{vl.version + ' (Debian libvlfeat1, ctypes, dense float64)' if vl else vl_note}",
        f"* stochsvm revision: {git_revision()}",
        f"* lambda = {lam:g}; C = 1/(lambda n) for liblinear and sklearn. Objective "
        "P(w, b) = λ/2 (‖w‖² + b²) + 1/n Σ loss(yᵢ, w·xᵢ + b), bias regularized through a "
        "constant feature 1 (liblinear `-B 1`, sklearn `intercept_scaling=1`, VLFeat and "
        "stochsvm bias multiplier 1), hinge max(0, 1 − z), logistic log(1 + e^−z); computed in "
        "numpy from every solver's (w, b). Data as prepared by stochsvm._testing.load_benchmark "
        "[S-PREP], training split only.",
        f"* Clock: {'CPU time of the process (time.process_time)' if args.clock == 'cpu' else 'wall time (time.perf_counter)'}.",
        f"* Timed runs per chosen setting: {args.repeat} (median; a setting qualifies only if "
        "every run reaches the target). Ladders from loose to tight, each run from scratch: "
        f"liblinear `-e` and sklearn `tol` on {', '.join(fmt_eps(e) for e in EPS_GRID)}; "
        f"stochsvm and VLFeat: epochs on {', '.join(map(str, EPOCH_GRID[:12]))}, … "
        "(epsilon 0, one objective pass at the end) or duality-gap epsilon on "
        f"{', '.join(fmt_eps(e) for e in GAP_GRID[:7])}, … {fmt_eps(GAP_GRID[-1])} (a "
        "diagnostic every epoch). SDCA settings that the seed-0 trajectory (recorded once, "
        "untimed) shows cannot reach the target are skipped; see the script's docstring.",
        "",
        "## Time to reach P ≤ (1 + 1e-3) P*",
        "",
        "* **liblinear**: `train(problem, \"-s 3|7 -B 1 -c C -e eps -q\")` (`problem()` made "
        "once, not timed). -s 3 is the dual hinge solver, -s 7 the dual logistic one.",
        "* **stochsvm**: `SVM(X_csr, y, λ, solver=\"sdca\", loss=…, seed=0)` + setters + "
        "`train()`, all timed (construction validates the CSR matrix and computes the squared "
        "row norms; the matrix is already in its int64/int32 CSR layout, so nothing is "
        "copied). *epochs*: a fixed number of epochs; *gap*: stop at duality gap < epsilon, "
        "checked every epoch.",
        "* **sklearn**: `LinearSVC(loss=\"hinge\", dual=True, …)` for the hinge loss, "
        "`LogisticRegression(solver=\"liblinear\", dual=True, …)` for the logistic loss "
        "(LinearSVC has no logistic loss); C, `intercept_scaling=1`, `max_iter=100000`, "
        "`random_state=0`; `fit` on the CSR matrix timed (includes its input checks and its "
        "conversion to liblinear's format).",
        "* **VLFeat**: `vl_svm_new` (SDCA, dense float64) + setters + `vl_svm_train` (which "
        "computes the row norms), global RNG seeded with 0. *epochs* / *gap* as for stochsvm.",
        "* Ratio: stochsvm time / liblinear time. The goal of the project is ≤ 0.7.",
        "",
        "| dataset | loss | liblinear | stochsvm, epochs | stochsvm, gap | sklearn | "
        "VLFeat, epochs | VLFeat, gap | ratio, epochs | ratio, gap |",
        "|---|---|---|---|---|---|---|---|---|---|",
        *summary_rows,
        "",
        "## The optimum P*",
        "",
        "P* is the lower of two primal values: liblinear-official `-e 1e-6` and stochsvm SDCA "
        f"run until its duality gap ≤ {args.ref_gap:g}·P (or {args.ref_epochs} epochs / "
        f"{args.ref_budget:g} s). Each reports a dual value, a lower bound on the true optimum "
        "(liblinear's is its printed dual objective × λ); the certified relative accuracy is "
        "(P* − best dual) / P*. The target is (1 + 1e-3) P*.",
        "",
        "| dataset | loss | n | C | P* | liblinear -e 1e-6: P | its dual | stochsvm ref.: P | "
        "its dual | certified (P* − dual)/P* | target |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
        *ref_rows,
        "",
        "## Details",
        "",
        "Time: median [min–max] of the timed runs of the chosen setting. stochsvm: the "
        "construction + train() time, and train() alone. P: the largest of those runs' "
        "objectives. Ratio: to liblinear's time.",
        "",
        "| dataset | loss | solver | setting | time | train() only | epochs | P | (P − P*)/P* "
        "| / liblinear | note |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
        *detail_rows,
        "",
        "## Cost of one pass",
        "",
        "* **construction**: `SVM(X_csr, y, λ, solver=\"sdca\")` (validation, squared norms).",
        "* **SDCA epoch**: stochsvm, mean of the first 5 epochs from scratch, without the "
        "objective pass (train() for 5 epochs minus one objective pass).",
        "* **mean epoch, chosen run**: stochsvm's chosen *epochs* setting, (train() − one "
        "objective pass) / epochs. Later epochs are cheaper for the hinge loss: shrinking "
        "(on by default) skips the examples whose dual variable stays at a bound.",
        "* **objective pass**: one diagnostic (`SVM(..., solver=\"none\").train()`).",
        "* **liblinear 1st iteration**: `-e 1e6`, which stops after one outer iteration: its "
        "setup (row norms, the bias feature) plus one full pass; no shrinking yet.",
        "* **liblinear at the chosen eps**: its iteration count (`#iter`, from a separate "
        "untimed run without `-q`; liblinear is not seeded, so it can differ by a few from the "
        "timed runs) and time / #iter. After the first iterations shrinking leaves out "
        "examples at their bounds, so its later iterations are cheaper than a full pass.",
        "",
        "| dataset | loss | construction | SDCA epoch (first 5) | mean epoch, chosen run | "
        "objective pass | liblinear 1st iteration | epoch (first 5) / liblinear 1st iter. | "
        "liblinear at the chosen eps |",
        "|---|---|---|---|---|---|---|---|---|",
        *epoch_rows,
    ]
    if load_at_start > 0.5:
        notes.append("The machine was not idle (load average above 0.5 at the start): other "
                     "processes shared its 2 CPUs, so absolute times can be inflated, for every "
                     "solver alike.")
    if notes:
        lines += ["", "Notes:", ""] + [f"* {x}" for x in notes]
    text = "\n".join(lines) + "\n"
    os.makedirs(os.path.dirname(os.path.abspath(args.output)), exist_ok=True)
    with open(args.output, "w") as f:
        f.write(text)
    print(f"\nwrote {args.output} ({total / 60:.1f} min)")
    return 0


def _version(dist):
    try:
        from importlib.metadata import version

        return version(dist)
    except Exception:  # noqa: BLE001
        return "?"


if __name__ == "__main__":
    sys.exit(main())
