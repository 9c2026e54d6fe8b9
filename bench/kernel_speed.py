#!/usr/bin/env python3
"""Kernel speed (issue 21, items 1, 2 and 4): the cost of one kernel
evaluation, old build against new; the wall speed-up of two threads; and the
kernel bars, SBP and BSCA against ``sklearn.svm.SVC`` in one run.

Part ``evals`` compiles ``bench/kernel_eval.c`` against C-only builds of the
core (``--new-build``, default ``build-c`` of this tree; ``--old-build``, e.g.
main built in /tmp, optional) and trains on a9a (gamma = 2^-7) and ijcnn1
(gamma = 2), C = 32, CSR float64, the builds run alternately, medians of
``--repeats``:

* ns per kernel evaluation = process CPU time of ``train`` / the object's
  ``num_kernel_evaluations``, SBP at a fixed nu = 0.1 for ``--sbp-iterations``
  iterations, one thread (the SBP's O(n) bookkeeping per row is included,
  as in the issue's 24 ns); with ``--sbp-bias``, the SBP with the
  unregularized bias;
* the dual variables of old and new, largest difference relative to the
  largest variable (the same iterates to 1e-12 is the goal);
* a second table (not with ``--no-f32``), float32 kernel rows
  (``part_f32``): float32 data with float64 and float32 rows, CSR and
  dense, and the rows' largest errors;
* wall time of SBP (same run) and of kernel SDCA (``--sdca-epochs`` of an
  epoch, the final diagnostic pass included) on 1 and 2 threads, with the
  lowest, median and highest ratio of the rounds' own pairs (on a VM whose
  speed drifts by 10-15 % within minutes, the pairs' ratios are steadier
  than the ratio of two medians, and their spread says how far to trust
  it). At 0.1 epoch SDCA's steps score against a few hundred support vectors (rows
  shorter than the 2048 entries worth threading); most of its time (about
  95% on a9a) is the final pass scoring all n examples against the m support
  vectors, n m evaluations not counted in ``num_kernel_evaluations``, which
  the threads split by examples. With ``--old-build``, kernel SDCA's one-thread
  wall time on the old build too, and the largest difference of its duals
  (a score is now a sum of per-block partial sums: rounding differs).

Part ``bars``: the first ``--n-train`` rows of a fixed permutation
(``default_rng(0)``) of the training file and ``--n-test`` of the test file;
``SVC(C=32, gamma)`` against ``KernelSVMClassifier`` with solver ``sbp`` and
``bsca`` (budget 500), nu and the stopping rule at their defaults (no
oracle), ``n_jobs`` 1 and 2 (2: threads inside the one binary model); ``--early-stopping
off,on`` runs each estimator with each of those ``early_stopping`` values (``on``,
``off``, ``auto``; ``--n-iter-no-change``: docs/stopping.rst).
Accuracy in pp against SVC; process CPU time of ``fit`` for one thread, wall
time for two, each as a fraction of SVC's CPU time.

Usage (one command; the tables go to --out, default
$STOCHSVM_BENCH_OUT/kernel_speed.md; the committed ones: bench/results/kernel_speed.md)::

    meson setup build-c -Dpython=false && ninja -C build-c        # the new build
    nice python bench/kernel_speed.py --old-build /tmp/old/build  # optional old build
"""

import argparse
import itertools
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

from stochsvm._testing import load_benchmark
from _output import out_path  # noqa: E402 (bench/)

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
SETS = {"a9a": 2.0 ** -7, "ijcnn1": 2.0}
C = 32.0


def load_average():
    return "load average " + " ".join(f"{x:.2f}" for x in os.getloadavg())


def compile_eval(build, out, threads_api):
    """bench/kernel_eval.c linked with @p build's libstochsvm.a."""
    src = os.path.join(build, "..") if os.path.isdir(os.path.join(build, "..", "include")) else ROOT
    cmd = ["gcc", "-O2", "-fopenmp", "-I", os.path.join(src, "include"),
           os.path.join(HERE, "kernel_eval.c"), os.path.join(build, "libstochsvm.a"), "-lm",
           "-o", out]
    if threads_api:
        cmd.insert(1, "-DKERNEL_EVAL_THREADS")
    subprocess.run(cmd, check=True)
    return out


def dump(name, tmp, n_rows=None):
    """The training split of ``name`` (its first ``n_rows`` of a fixed
    random order, sorted, when given) as kernel_eval.c's raw files."""
    X, y, _, _ = load_benchmark(name)
    if n_rows and n_rows < X.shape[0]:
        keep = np.sort(np.random.default_rng(0).permutation(X.shape[0])[:n_rows])
        X, y = X[keep], y[keep]
    files = [os.path.join(tmp, f"{name}.{k}") for k in "PJVY"]
    X.indptr.astype(np.int64).tofile(files[0])
    X.indices.astype(np.int32).tofile(files[1])
    X.data.astype(np.float64).tofile(files[2])
    y.astype(np.float64).tofile(files[3])
    return files, X.shape[0], X.shape[1]


def run_eval(exe, files, d, solver, gamma, lam, iterations, threads, out, precision="f64"):
    line = subprocess.run([exe, *files, str(d), solver, repr(gamma), repr(lam), "0.1",
                           str(iterations), str(threads), out, precision],
                          check=True, capture_output=True, text=True).stdout.split()
    return float(line[0]), float(line[1]), int(line[2]), np.fromfile(out)


def run_pair(exe, files, d, solver, gamma, lam, iterations, out):
    """Two independent one-thread runs at once, pinned to CPUs 0 and 1: their
    wall times. What the two threads of one run can at best expect from
    the machine: on this project's 2-vCPU VM the pair ran 0-30 % slower
    than one run alone, varying within minutes (bench/results/kernel_speed.md,
    stops 41 and 42)."""
    procs = []
    for cpu in (0, 1):
        cmd = [exe, *files, str(d), solver, repr(gamma), repr(lam), "0.1", str(iterations), "1",
               f"{out}.{cpu}", "f64"]
        procs.append(subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True,
                                      preexec_fn=lambda cpu=cpu: os.sched_setaffinity(0, {cpu})))
    return [float(p.communicate()[0].split()[0]) for p in procs]


def part_evals(args, lines):
    tmp = tempfile.mkdtemp(prefix="kernel_speed_")
    new = compile_eval(args.new_build, os.path.join(tmp, "new"), True)
    old = compile_eval(args.old_build, os.path.join(tmp, "old"), False) if args.old_build else None
    sbp = "sbpb" if args.sbp_bias else "sbp"
    lines += ["## Kernel evaluations and threads (C API, CSR float64"
              + (", SBP with the unregularized bias)" if args.sbp_bias else ")"), "",
              f"{load_average()} before the runs; medians of {args.repeats}.", "",
              "| data | n | SBP ns/eval old | SBP ns/eval new | old/new | duals max rel diff "
              "| SBP wall 1t / 2t | SDCA wall 1t / 2t | SDCA old 1t, duals max rel diff "
              "| SBP 1t pair / alone |",
              "|---|---|---|---|---|---|---|---|---|---|"]
    pairs = hasattr(os, "sched_getaffinity") and {0, 1} <= os.sched_getaffinity(0)
    for name, gamma in SETS.items():
        files, n, d = dump(name, tmp)
        lam = 1.0 / (C * n)
        out = os.path.join(tmp, "alpha")
        rec = {k: [] for k in ("old", "new1", "new2", "sdca1", "sdca2", "sdca_old")}
        slowdowns = []
        duals = {}
        for _ in range(args.repeats):
            if old:
                w, c, k, a = run_eval(old, files, d, sbp, gamma, lam, args.sbp_iterations, 1, out)
                rec["old"].append((w, c, k))
                duals["old"] = a
            for t in (1, 2):
                w, c, k, a = run_eval(new, files, d, sbp, gamma, lam, args.sbp_iterations, t, out)
                rec[f"new{t}"].append((w, c, k))
                duals[f"new{t}"] = a
            if pairs:
                pair = run_pair(new, files, d, sbp, gamma, lam, args.sbp_iterations, out)
                slowdowns.append(statistics.mean(pair) / rec["new1"][-1][0])
            if old:
                w, c, k, a = run_eval(old, files, d, "sdca", gamma, lam,
                                      int(args.sdca_epochs * n), 1, out)
                rec["sdca_old"].append((w, c, k))
                duals["sdca_old"] = a
            for t in (1, 2):
                w, c, k, a = run_eval(new, files, d, "sdca", gamma, lam,
                                      int(args.sdca_epochs * n), t, out)
                rec[f"sdca{t}"].append((w, c, k))
                duals[f"sdca{t}"] = a
        ns = {k: statistics.median(1e9 * c / e for _, c, e in v) for k, v in rec.items() if v}
        wall = {k: statistics.median(w for w, _, _ in v) for k, v in rec.items() if v}
        assert duals["new1"].tobytes() == duals["new2"].tobytes(), "threads changed the iterates"
        assert duals["sdca1"].tobytes() == duals["sdca2"].tobytes(), "threads changed the iterates"
        if old:
            diff = np.max(np.abs(duals["old"] - duals["new1"])) / np.max(np.abs(duals["old"]))
            old_cols = f"{ns['old']:.1f} | {ns['new1']:.1f} | {ns['old'] / ns['new1']:.2f}x | {diff:.1e}"
            sdca_diff = (np.max(np.abs(duals["sdca_old"] - duals["sdca1"]))
                         / np.max(np.abs(duals["sdca_old"])))
            sdca_old = f"{wall['sdca_old']:.2f} s, {sdca_diff:.1e}"
        else:
            old_cols, sdca_old = f"- | {ns['new1']:.1f} | - | -", "-"
        pair_col = (f"{statistics.median(slowdowns):.2f} ({min(slowdowns):.2f}, "
                    f"{max(slowdowns):.2f})" if slowdowns else "-")
        lines.append(f"| {name} | {n} | {old_cols} | {speedup(rec['new1'], rec['new2'])} | "
                     f"{speedup(rec['sdca1'], rec['sdca2'])} | {sdca_old} | {pair_col} |")
        print(lines[-1], flush=True)
    lines += ["", "Threads: median wall time on 1 / 2 threads = their ratio; in brackets the "
              "ratios of the rounds' own pairs (1 and 2 threads run one after the other in each "
              "round), lowest, median and highest: the spread a busy or noisy machine gives.",
              "", "SBP 1t pair / alone: in each round two independent one-thread SBP runs at "
              "once, pinned to CPUs 0 and 1, their mean wall time over the round's one-thread "
              "run alone (median, lowest, highest): 1.00 where the two CPUs do not slow each "
              "other; two threads cannot beat 2 / that.",
              "", f"{load_average()} after the runs.", ""]
    if not args.no_f32:
        part_f32(args, lines, new, tmp)


def speedup(one, two):
    """'w1 / w2 s = r x (per-round ratios lo, median, hi)' from the (wall, cpu,
    evaluations) records of the same rounds on one and two threads."""
    w1, w2 = statistics.median(w for w, _, _ in one), statistics.median(w for w, _, _ in two)
    rounds = sorted(a[0] / b[0] for a, b in zip(one, two))
    return (f"{w1:.2f} / {w2:.2f} s = {w1 / w2:.2f}x ({rounds[0]:.2f}, "
            f"{statistics.median(rounds):.2f}, {rounds[-1]:.2f})")


# kernel_eval.c's modes of the float32 table: float64 data; float32 data
# with float64 and with float32 kernel rows; the same made dense.
F32_MODES = ("f64", "f32data", "f32rows", "f32data-dense", "f32rows-dense")


def part_f32(args, lines, new, tmp):
    """Float32 kernel rows (issue 21 item 2) against float64 rows of the same
    float32 data, in one run: SBP ns per evaluation (one thread, the modes
    alternating), kernel SDCA wall time, and the rows' largest errors
    (bench/kernel_f32_error.c, 200 rows of each set)."""
    err_exe = os.path.join(tmp, "f32_error")
    subprocess.run(["gcc", "-O2", "-D_GNU_SOURCE", "-I", os.path.join(ROOT, "include"),
                    os.path.join(HERE, "kernel_f32_error.c"),
                    os.path.join(args.new_build, "libstochsvm.a"), "-lm", "-lpthread", "-o",
                    err_exe], check=True)
    lines += ["## Float32 kernel rows (C API, one thread)", "",
              "The same float32 data (the files' values rounded to float) with float64 kernel "
              "rows (`f32 data`) and with float32 rows (`f32 rows`, "
              "`ss_kernel_svm_set_kernel_precision`), CSR and made dense; `f64`: the float64 CSR "
              "data, in the same alternation. SBP ns per evaluation and kernel SDCA (one "
              "thread, the 2-thread run checked equal) wall seconds, "
              f"medians of {args.repeats}; errors: largest |K32 - K64| and relative error "
              "(K64 >= FLT_MIN) over 200 rows of n entries.", "",
              f"{load_average()} before the runs.", "",
              "| data | layout | SBP ns/eval f64 | f32 data | f32 rows | f32 data / f32 rows "
              "| SDCA s f32 data / f32 rows | max abs err | max rel err |",
              "|---|---|---|---|---|---|---|---|---|"]
    for name, gamma in SETS.items():
        files, n, d = dump(name, tmp)
        lam = 1.0 / (C * n)
        out = os.path.join(tmp, "alpha")
        sbp = {m: [] for m in F32_MODES}
        sdca = {m: [] for m in F32_MODES}
        duals = {}
        for _ in range(args.repeats):
            for mode in F32_MODES:
                w, c, k, a = run_eval(new, files, d, "sbp", gamma, lam, args.sbp_iterations, 1,
                                      out, mode)
                sbp[mode].append(1e9 * c / k)
                duals[mode] = a
                for t in (1, 2):
                    w, c, k, a2 = run_eval(new, files, d, "sdca", gamma, lam,
                                           int(args.sdca_epochs * n), t, out, mode)
                    if t == 1:
                        sdca[mode].append(w)
                        first = a2
                    else:
                        assert first.tobytes() == a2.tobytes(), "threads changed the f32 iterates"
        errors = dict(line.split(None, 1) for line in subprocess.run(
            [err_exe, *files, str(d), repr(gamma), "200"], check=True, capture_output=True,
            text=True).stdout.splitlines())
        ns = {m: statistics.median(v) for m, v in sbp.items()}
        wall = {m: statistics.median(v) for m, v in sdca.items()}
        for layout, suffix in (("csr", ""), ("dense", "-dense")):
            d32, r32 = "f32data" + suffix, "f32rows" + suffix
            max_abs, max_rel, _ = errors[layout].split()
            f64 = f"{ns['f64']:.1f}" if not suffix else "-"
            lines.append(f"| {name} | {layout} | {f64} | {ns[d32]:.1f} | {ns[r32]:.1f} | "
                         f"{ns[d32] / ns[r32]:.2f}x | {wall[d32]:.2f} / {wall[r32]:.2f} | "
                         f"{float(max_abs):.1e} | {float(max_rel):.1e} |")
            print(lines[-1], flush=True)
    lines += ["", f"{load_average()} after the runs.", ""]


def subset(name, n_train, n_test):
    X, y, Xt, yt = load_benchmark(name)
    rng = np.random.default_rng(0)
    keep = rng.permutation(X.shape[0])[:n_train]
    return X[keep], y[keep], Xt[:n_test], yt[:n_test]


def stop_text(est):
    """How the (first) binary model's run ended: status (the estimator's:
    "validation" where early stopping ended it), epochs, certified gap,
    held-out accuracy."""
    st = est._stats[0]
    text = f"{st['status']}, {st['iteration'] / est._svms[0].get_num_data():.2f} epochs"
    if st["dual_objective"] > 0:
        text += f", gap {st['duality_gap'] / st['dual_objective']:.3f}"
    if "validation_score" in st:
        text += f", held-out best {100 * st['validation_score']:.2f} %"
    return text


def part_bars(args, lines):
    from sklearn.svm import SVC

    from stochsvm import KernelSVMClassifier

    lines += ["## The kernel bars against SVC", "",
              f"First {args.n_train} rows of a fixed permutation of the training file, first "
              f"{args.n_test} test rows; C = 32; nu and the stopping rule at the defaults. "
              "Times: `fit` only; 1 thread process CPU time, 2 threads wall time; "
              "ratios to SVC's CPU time. Goals: SBP >= SVC - 0.5 pp in <= 1/8 (0.125); "
              "BSCA (B = 500) >= SVC - 1 pp in <= 1/20 (0.05).", "",
              f"{load_average()} before the runs.", "",
              "Stop: the status, the epochs run and, where a bound was computed, the "
              "relative gap (P - D) / D it certified (SBP: docs/stopping.rst).", "",
              "| data | SVC % | SVC s | solver | threads | ours % | pp | ours s | ratio | stop |",
              "|---|---|---|---|---|---|---|---|---|---|"]
    for name, gamma in SETS.items():
        X, y, Xt, yt = subset(name, args.n_train, args.n_test)
        t0 = time.process_time()
        svc = SVC(C=C, gamma=gamma).fit(X, y)
        svc_s = time.process_time() - t0
        svc_acc = 100 * svc.score(Xt, yt)
        for solver, extra in (("sbp", {}), ("bsca", {"budget": 500})):
            if solver not in args.solvers:
                continue
            variants = [(False, 3)] if False in args.early_stopping else []
            variants += [(early, patience) for early in args.early_stopping if early is not False
                         for patience in args.n_iter_no_change]
            for threads, (early, patience) in itertools.product(args.threads, variants):
                est = KernelSVMClassifier(solver=solver, C=C, gamma=gamma, random_state=0,
                                          n_jobs=threads, early_stopping=early,
                                          n_iter_no_change=patience, **extra)
                w0, c0 = time.perf_counter(), time.process_time()
                est.fit(X, y)
                seconds = (time.process_time() - c0) if threads == 1 else time.perf_counter() - w0
                acc = 100 * est.score(Xt, yt)
                label = (f"{solver}, early_stopping={early}, n_iter_no_change={patience}"
                         if early is not False else solver)
                lines.append(f"| {name} | {svc_acc:.2f} | {svc_s:.2f} | {label} | {threads} | "
                             f"{acc:.2f} | {acc - svc_acc:+.2f} | {seconds:.2f} | "
                             f"{seconds / svc_s:.3f} | {stop_text(est)} |")
                print(lines[-1], f"({load_average()})", flush=True)
    lines += ["", f"{load_average()} after the runs.", ""]


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--part", choices=("evals", "bars", "all"), default="all")
    p.add_argument("--new-build", default=os.path.join(ROOT, "build-c"))
    p.add_argument("--old-build", default=None)
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--sbp-iterations", type=int, default=1000)
    p.add_argument("--sbp-bias", action="store_true",
                   help="part evals: the SBP with the unregularized bias")
    p.add_argument("--sdca-epochs", type=float, default=0.25)
    p.add_argument("--no-f32", action="store_true",
                   help="part evals: without the float32 table")
    p.add_argument("--n-train", type=int, default=8000)
    p.add_argument("--n-test", type=int, default=5000)
    p.add_argument("--threads", type=lambda s: [int(t) for t in s.split(",")], default=[1, 2],
                   help="bars: thread counts, comma-separated (default 1,2)")
    p.add_argument("--solvers", type=lambda s: s.split(","), default=["sbp", "bsca"],
                   help="bars: the solvers, comma-separated (default sbp,bsca)")
    p.add_argument("--early-stopping", default=[False],
                   type=lambda s: [v if v == "auto" else {"on": True, "off": False}[v]
                                   for v in s.split(",")],
                   help="bars: the estimators' early_stopping, comma-separated values of on, "
                        "off and auto, each a run (default off)")
    p.add_argument("--n-iter-no-change", type=lambda s: [int(v) for v in s.split(",")],
                   default=[3], help="bars: the estimators' n_iter_no_change under early "
                                     "stopping, comma-separated, each a run (default 3)")
    p.add_argument("--out", default=out_path("kernel_speed.md"))
    args = p.parse_args()
    lines = ["# Kernel speed: evaluations, threads, bars (issue 21)", "",
             f"`{' '.join(['python', 'bench/kernel_speed.py', *sys.argv[1:]])}` on "
             f"{platform.machine()}, {os.cpu_count()} CPUs, Python {platform.python_version()}.", ""]
    if args.part in ("evals", "all"):
        part_evals(args, lines)
    if args.part in ("bars", "all"):
        part_bars(args, lines)
    with open(args.out, "w") as f:
        f.write("\n".join(lines) + "\n")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
