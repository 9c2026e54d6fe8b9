"""Soak: 1,000 create/train/delete cycles per solver keep the resident memory
flat (growth under 1%) and leak no reference to the caller's arrays.

Each cycle's object owns about 5 n doubles of buffers (labels, scores,
previous scores, row norms, SDCA's dual variables) besides the model: with
n = 2000 a leak of them would grow the process by ~80 MB over 1,000 cycles,
far above 1% of its size. The C core alone is checked for leaks by valgrind
and LeakSanitizer on the C test suite (.ci/run). Extending to a new solver:
add it to LINEAR_SOLVERS in tests/_helpers.py.
"""

import gc
import sys

import numpy as np
import pytest
import scipy.sparse as sp

from _helpers import CYCLES, WARM_UP, make_problem
from _helpers import LINEAR_SOLVERS as SOLVERS
from _helpers import rss_bytes as _rss_bytes
from stochsvm import SVM, HomogeneousKernelMap



@pytest.mark.slow
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc/self/statm (Linux)")
@pytest.mark.parametrize("solver", SOLVERS)
def test_create_train_delete_keeps_memory_flat(solver):
    X, y = make_problem(n=2000, d=5, seed=11)
    Xs = sp.csr_matrix(np.where(np.abs(X) < 0.5, 0.0, X).astype(np.float32))
    hkm = HomogeneousKernelMap("chi2", order=1)
    Xh = np.abs(X)

    def cycle(k):
        if k % 3 == 0:
            svm = SVM(X, y, 0.1, solver=solver, seed=k)
        elif k % 3 == 1:
            svm = SVM(Xs, y, 0.1, solver=solver, seed=k)
        else:
            svm = SVM(Xh, y, 0.1, solver=solver, seed=k, homkermap=hkm)
        svm.set_max_num_iterations(200)
        svm.set_weights(np.ones(2000))
        stats = svm.train()
        assert np.isfinite(stats["objective"])
        svm.get_scores()
        del svm

    refs = [sys.getrefcount(a) for a in (X, Xs, Xh, hkm)]
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
    assert [sys.getrefcount(a) for a in (X, Xs, Xh, hkm)] == refs
