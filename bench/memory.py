#!/usr/bin/env python3
"""Peak memory of every solver beyond the data: bytes per training example.

Each fit runs in a fresh subprocess (``python bench/memory.py --child ...``)
that imports stochsvm, loads or generates the data, collects the garbage,
then resets the kernel's high-water mark of its resident set
(``echo 5 > /proc/self/clear_refs``, Linux >= 4.0) and reads ``VmRSS``. It
fits one estimator and reads ``VmHWM``: the peak resident set during the fit
minus the resident set after loading is what the fit needs beyond the data
(the C core's per-example arrays, the Python layer's label vectors and any
copy of X). ``tracemalloc`` runs during the fit too: its peak counts the
NumPy and Python allocations only (NumPy reports its buffers to it; the C
core's ``malloc`` does not), so "python" is the Python layer's share and the
rest is the C core's.

Data:

* ``covtype``: the training split of covtype.binary (464,810 x 54 CSR
  float64, 22 % non-zeros) from ``stochsvm._testing.load_benchmark``
  (``$STOCHSVM_DATA``). Linear solvers: ``--covtype-epochs`` (5) epochs,
  tol 0. Kernel solvers: the first ``--kernel-n`` rows (10,000 and 30,000:
  one epoch of an exact kernel solver on all 464,810 rows costs ~10^11
  kernel evaluations), one epoch; the two sizes give the slope per example.
* ``big``: a generated 10^7 x 50 dense float32 C-contiguous matrix (2 GB;
  values uniform in [-1, 1), labels the sign of a fixed random direction's
  score, 5 % flipped), written in blocks so that no float64 temporary of
  X exists. Linear solvers only, one epoch.

The "copied X?" column is the no-copy promise: "yes" if the Python layer's
peak (tracemalloc), less the converter's private copy of a CSR index
structure (4 bytes per stored entry, 8 per row), reaches the size of X's
values, which a copy of them (float64 or not) would.
``tests/test_memory.py`` checks the same promise with tight bounds.

Run (one fit at a time, niced)::

    nice -n 10 python bench/memory.py                 # all, ~10 min
    nice -n 10 python bench/memory.py --sets covtype
    nice -n 10 python bench/memory.py --sets big --solvers sgd,sdca

It writes ``memory.md`` under ``$STOCHSVM_BENCH_OUT`` (bench/_output.py), or
``--output`` (the committed one: ``--output bench/results/memory.md``).
"""

import argparse
import ctypes
import gc
import json
import os
import platform
import subprocess
import sys
import time
import tracemalloc
from _output import out_path  # noqa: E402 (bench/)

LINEAR = ("sgd", "svmsgd2", "sgdqn", "sdca", "res", "lres")
# (label, solver, estimator parameters)
KERNEL = (
    ("sdca", "sdca", {}),
    ("sdca + bias (exact)", "sdca", {"unregularized_bias": True}),
    ("bsca B=500", "bsca", {"budget": 500}),
    ("bsgd B=500", "bsgd", {"budget": 500}),
    ("sbp", "sbp", {}),
    ("pegasos", "pegasos", {}),
    ("perceptron", "perceptron", {}),
)
BIG_N, BIG_D = 10_000_000, 50


def status_kb(field):
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    raise RuntimeError(f"{field} missing from /proc/self/status")


def release_free_memory():
    """Give the freed heap back to the system (glibc's malloc_trim), so that
    the resident set after loading counts live data only."""
    try:
        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):
        pass


def reset_peak():
    with open("/proc/self/clear_refs", "w") as f:
        f.write("5")


def generate_big(n, d, seed=0):
    """n x d float32 in [-1, 1) and labels in {-1, +1}, made in blocks."""
    import numpy as np
    rng = np.random.default_rng(seed)
    X = np.empty((n, d), dtype=np.float32)
    y = np.empty(n, dtype=np.float64)
    w = rng.standard_normal(d).astype(np.float32)
    step = 1 << 18
    for k in range(0, n, step):
        block = X[k:k + step]
        rng.random(out=block, dtype=np.float32)
        block *= 2
        block -= 1
        y[k:k + step] = np.where(block @ w >= 0, 1.0, -1.0)
    flip = rng.random(n) < 0.05
    y[flip] = -y[flip]
    return X, y


def load(spec):
    import numpy as np
    if spec["set"] == "big":
        return generate_big(spec["n"], BIG_D)
    from stochsvm._testing import load_benchmark
    X, y, _, _ = load_benchmark("covtype")
    n = spec.get("n")
    if n is not None and n < X.shape[0]:
        X, y = X[:n].copy(), np.ascontiguousarray(y[:n])
        X.indptr = X.indptr.astype(np.int64)
    return X, y


def make_estimator(spec):
    from stochsvm import KernelSVMClassifier, LinearSVMClassifier
    if spec["kind"] == "linear":
        return LinearSVMClassifier(solver=spec["solver"], max_iter=spec["epochs"], tol=0.0,
                                   random_state=0)
    return KernelSVMClassifier(solver=spec["solver"], max_iter=spec["epochs"], tol=0.0,
                               random_state=0, **spec["params"])


def nbytes(X):
    if hasattr(X, "indptr"):
        return X.data.nbytes + X.indices.nbytes + X.indptr.nbytes
    return X.nbytes


def child(spec):
    import warnings
    import stochsvm  # noqa: F401  (import, and any rebuild, before the baseline)
    import stochsvm.kernel  # noqa: F401
    import stochsvm.linear  # noqa: F401
    X, y = load(spec)
    est = make_estimator(spec)
    gc.collect()
    release_free_memory()
    reset_peak()
    before = status_kb("VmRSS")
    tracemalloc.start()
    t0 = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est.fit(X, y)
    seconds = time.perf_counter() - t0
    _, py_peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    peak = status_kb("VmHWM")
    after = status_kb("VmRSS")
    values = X.data if hasattr(X, "indptr") else X
    # the converter's private copy of a CSR structure: int32 indices, int64 indptr
    structure = X.indices.size * 4 + (X.shape[0] + 1) * 8 if hasattr(X, "indptr") else 0
    print(json.dumps({"n": X.shape[0], "d": X.shape[1], "data_bytes": nbytes(X),
                      "values_bytes": values.nbytes, "structure_bytes": structure,
                      "dtype": str(X.dtype), "before_kb": before, "peak_kb": peak,
                      "after_kb": after, "python_peak": py_peak, "seconds": seconds}))


def run_child(spec):
    cmd = [sys.executable, os.path.abspath(__file__), "--child", json.dumps(spec)]
    out = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if out.returncode != 0:
        return {"error": (out.stderr.strip().splitlines() or ["?"])[-1]}
    return json.loads(out.stdout.strip().splitlines()[-1])


def specs(args):
    sets = args.sets.split(",")
    wanted = set(args.solvers.split(",")) if args.solvers else None
    for s in sets:
        if s == "big":
            for solver in LINEAR:
                if wanted is None or solver in wanted:
                    yield {"set": "big", "n": args.big_n, "kind": "linear", "solver": solver,
                           "label": solver, "epochs": 1}
        elif s == "covtype":
            for solver in LINEAR:
                if wanted is None or solver in wanted:
                    yield {"set": "covtype", "kind": "linear", "solver": solver, "label": solver,
                           "epochs": args.covtype_epochs}
            for n in args.kernel_n:
                for label, solver, params in KERNEL:
                    if wanted is None or solver in wanted:
                        yield {"set": "covtype", "n": n, "kind": "kernel", "solver": solver,
                               "label": label, "params": params, "epochs": 1}
        else:
            raise SystemExit(f"unknown set {s!r} (covtype, big)")


def row(spec, r):
    where = f"{spec['set']} {spec['kind']}"
    if "error" in r:
        return f"| {where} | {spec['label']} | - | - | - | - | - | - | failed: {r['error']} |"
    extra = (r["peak_kb"] - r["before_kb"]) * 1024
    n = r["n"]
    copied = "yes" if r["python_peak"] - r["structure_bytes"] >= r["values_bytes"] else "no"
    return (f"| {where} | {spec['label']} | {n:,} | {r['data_bytes'] / 2**20:,.0f} | "
            f"{extra / 2**20:,.1f} | {extra / n:,.1f} | {r['python_peak'] / n:,.1f} | "
            f"{copied} | {r['seconds']:.1f} |")


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--child", help=argparse.SUPPRESS)
    p.add_argument("--sets", default="covtype,big")
    p.add_argument("--solvers", default="", help="comma-separated solver names (default all)")
    p.add_argument("--covtype-epochs", type=int, default=5)
    p.add_argument("--kernel-n", type=lambda s: [int(v) for v in s.split(",")],
                   default=[10_000, 30_000])
    p.add_argument("--big-n", type=int, default=BIG_N)
    p.add_argument("--output", default=out_path("memory.md"))
    args = p.parse_args()
    if args.child:
        child(json.loads(args.child))
        return
    lines = ["# Memory beyond the data, per solver", "",
             f"`{' '.join(['python', 'bench/memory.py'] + sys.argv[1:])}` on "
             f"{platform.node()}, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, "
             f"load average at start {os.getloadavg()[0]:.1f}.", "",
             "Peak resident set of the fit minus the resident set after loading the data "
             "(fresh process per fit; VmHWM after resetting it through /proc/self/clear_refs). "
             "'python B/ex' is tracemalloc's peak (NumPy and Python allocations) per example; "
             "the rest of 'B/ex' is the C core's (the two peaks need not coincide in time). "
             "'copied X?': the Python peak, less the private copy of a CSR structure "
             "(4 B per stored entry + 8 B per row), reached the size of X's values.", "",
             "| data | solver | n | data MB | extra MB | B/ex | python B/ex | copied X? | "
             "fit s |", "|---|---|---:|---:|---:|---:|---:|---|---:|"]
    raw = []
    for spec in specs(args):
        r = run_child(spec)
        raw.append({"spec": spec, "result": r})
        lines.append(row(spec, r))
        print(lines[-1], flush=True)
    lines.append("")
    lines.append(f"Load average at the end: {os.getloadavg()[0]:.1f}.")
    with open(args.output, "w") as f:
        f.write("\n".join(lines) + "\n")
    with open(os.path.splitext(args.output)[0] + ".json", "w") as f:
        json.dump(raw, f, indent=1)
    print("wrote", args.output)


if __name__ == "__main__":
    main()
