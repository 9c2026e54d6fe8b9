"""Soak of the kernel SVM: 1,000 create/train/delete cycles per kernel
solver on tiny problems keep the resident memory flat (growth under 1%) and
leak no reference to the caller's arrays.

Each cycle's object owns O(n) buffers (labels, row norms, dual variables,
the kernel row, the solver's state) and its expansion (up to n support
vectors of d values, or B slots for BSCA/BSGD): with n = 300, d = 5 a leak
of those is ~10-40 kB per cycle, 10-40 MB over 1,000 cycles, far above 1%
of the process. Cycles alternate dense float64, CSR float32 and the rbf,
polynomial and linear kernels. Extending to a new kernel solver: add it to
KERNEL_SOLVERS in tests/_helpers.py (checked against the library in
tests/test_properties_kernel.py).
"""

import gc
import sys

import numpy as np
import pytest
import scipy.sparse as sp

from _helpers import CYCLES, KERNEL_SOLVERS, WARM_UP, make_problem
from _helpers import rss_bytes as _rss_bytes
from stochsvm import KernelSVM


@pytest.mark.slow
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc/self/statm (Linux)")
@pytest.mark.parametrize("solver", KERNEL_SOLVERS)
def test_kernel_create_train_delete_keeps_memory_flat(solver):
    X, y = make_problem(n=300, d=5, seed=12)
    Xs = sp.csr_matrix(np.where(np.abs(X) < 0.5, 0.0, X).astype(np.float32))
    kernels = [("rbf", {"gamma": 0.5}), ("poly", {"gamma": 0.2, "degree": 2, "coef0": 1.0}),
               ("linear", {})]

    def cycle(k):
        kernel, kw = kernels[k % 3]
        data = X if k % 2 == 0 else Xs
        svm = KernelSVM(data, y, 0.01, solver=solver, kernel=kernel, seed=k, **kw)
        if solver in ("bsca", "bsgd"):
            svm.set_budget(20)
        svm.set_max_num_iterations(60 if solver == "sbp" else 300)
        stats = svm.train()
        assert np.isfinite(stats["primal_objective"])
        assert np.all(np.isfinite(svm.get_coefficients()))
        svm.decision_function(X[:10])
        del svm

    refs = [sys.getrefcount(a) for a in (X, Xs, y)]
    for k in range(WARM_UP):
        cycle(k)
    gc.collect()
    before = _rss_bytes()
    for k in range(CYCLES):
        cycle(k)
    gc.collect()
    after = _rss_bytes()
    growth = (after - before) / before
    print(f"{solver}: RSS {before / 2**20:.1f} MiB -> {after / 2**20:.1f} MiB "
          f"({100 * growth:+.3f}%) over {CYCLES} cycles")
    assert growth < 0.01, f"RSS grew by {100 * growth:.2f}% over {CYCLES} cycles"
    assert [sys.getrefcount(a) for a in (X, Xs, y)] == refs
