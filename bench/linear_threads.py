#!/usr/bin/env python3
"""Two threads in the linear object's score pass, on covtype.

The pass is what every diagnostic (objective, duality gap) and
``SVM.decision_function`` run: one score per row. It is timed two ways on
the covtype training split (464,810 x 54 CSR float64, from
``stochsvm._testing.load_benchmark``) and on a dense float32 copy of it:

* "diagnostic": ``train()`` of a ``solver="none"`` object holding the model
  of a 1-epoch SDCA run: one evaluation pass (scores on the threads, then the
  serial O(n) loss sum) and the driver's fixed costs;
* "decision_function": the Python call, which also validates X (a serial
  pass over every value, and for CSR a private copy of the index arrays).

1 and 2 threads of one object alternate, ``--repeat`` times each; the
medians of the wall times and their ratio are printed with the load
average. The statistics and scores are checked equal bit for bit.

    nice python bench/linear_threads.py --repeat 21
"""

import argparse
import os
import statistics
import time

import numpy as np

from stochsvm import SVM
from stochsvm._testing import load_benchmark


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--repeat", type=int, default=21)
    args = p.parse_args()
    X, y, _, _ = load_benchmark("covtype")
    print(f"load average at start: {os.getloadavg()}")
    for name, data in (("covtype CSR float64", X),
                       ("covtype dense float32", X.toarray().astype(np.float32))):
        ref = SVM(data, y, 1e-6, solver="sdca")
        ref.set_max_num_iterations(X.shape[0])
        ref.train()
        svm = SVM(data, y, 1e-6, solver="none")
        svm.set_model(ref.get_model())
        svm.set_bias(ref.get_bias())
        times = {(k, t): [] for k in ("diagnostic", "decision_function") for t in (1, 2)}
        out = {}
        for _ in range(args.repeat):
            for t in (1, 2):
                svm.set_num_threads(t)
                t0 = time.perf_counter()
                stats = svm.train()
                t1 = time.perf_counter()
                scores = svm.decision_function(data)
                t2 = time.perf_counter()
                times["diagnostic", t].append(t1 - t0)
                times["decision_function", t].append(t2 - t1)
                out[t] = (stats["objective"], svm.get_scores().copy(), scores)
        assert out[1][0] == out[2][0]
        assert np.array_equal(out[1][1], out[2][1]) and np.array_equal(out[1][2], out[2][2])
        for kind in ("diagnostic", "decision_function"):
            m1 = statistics.median(times[kind, 1])
            m2 = statistics.median(times[kind, 2])
            print(f"{name}, {kind}: 1 thread {m1 * 1e3:.2f} ms, 2 threads {m2 * 1e3:.2f} ms, "
                  f"speed-up {m1 / m2:.2f}x (medians of {args.repeat})")
    print(f"load average at end: {os.getloadavg()}")


if __name__ == "__main__":
    main()
