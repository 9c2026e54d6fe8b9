"""Kernel fits under an address-space limit (RLIMIT_AS, `ulimit -v`).

The exact solver's row cache allocates its rows as it needs them, up to
``cache_size``. Where the memory runs out first, the cache makes do with the
rows it holds (kernel_cache.c, take_slot), and the diagnostics' scores are
held from the start (kernel_svm.c, run_solver). The fit used to end with
MemoryError; a smaller cache computes the same values, so the model must
be the one an unlimited run gives, bit for bit.
"""
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"),
                                reason="needs RLIMIT_AS and /proc/self/status")

FIT = textwrap.dedent("""
    import resource, sys
    import numpy as np
    from stochsvm import KernelSVM

    rng = np.random.default_rng(0)
    n = 12000
    X = rng.normal(size=(n, 20))
    y = np.where(X[:, 0] + 0.5 * rng.normal(size=n) > 0, 1.0, -1.0)
    svm = KernelSVM(X, y, 1.0 / n, solver="sdca", gamma=0.05, seed=0)
    svm.set_unregularized_bias(True)
    headroom = int(sys.argv[1])
    if headroom > 0:
        size = next(int(line.split()[1]) for line in open("/proc/self/status")
                    if line.startswith("VmSize:")) * 1024
        resource.setrlimit(resource.RLIMIT_AS, (size + headroom, size + headroom))
    svm.train()
    np.save(sys.argv[2], np.concatenate([svm.get_dual_variables(), [svm.get_bias()]]))
    print(svm.get_statistics()["status"])
""")


def _fit(tmp_path, headroom, name):
    out = tmp_path / f"{name}.npy"
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1")
    done = subprocess.run([sys.executable, "-c", FIT, str(headroom), str(out)], env=env,
                          capture_output=True, text=True, timeout=600)
    return done, out


def test_the_row_cache_makes_do_with_the_memory_there_is(tmp_path):
    free, free_out = _fit(tmp_path, 0, "free")
    assert free.returncode == 0, free.stderr
    # 40 MB for everything the fit allocates: the default 200 MB cache would
    # hold the ~1,000 rows of 96 KB the solve asks for; here about 400 fit
    limited, limited_out = _fit(tmp_path, 40 << 20, "limited")
    assert limited.returncode == 0, limited.stderr
    assert limited.stdout.split() == free.stdout.split() == ["converged"]
    np.testing.assert_array_equal(np.load(limited_out), np.load(free_out))
