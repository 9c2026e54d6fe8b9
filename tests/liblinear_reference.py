"""Exact references from LIBLINEAR on the shared benchmark data, for the tests.

LIBLINEAR with ``-B 1 -c C`` minimizes 1/2 ||w~||^2 + C sum_i loss_i, with
w~ = (w, b) (the bias is regularized). With C = 1/(lambda n) this is
(1/(lambda n)) [lambda/2 ||w~||^2 + 1/n sum_i loss_i], our objective with bias
multiplier 1, so both have the same minimizer. :func:`objective` computes it
in numpy from any (w, b), the same way for every solver.

Missing data or liblinear-official skips the test, unless
STOCHSVM_REQUIRE_DATA=1, when it fails.
"""

import os

import numpy as np
import pytest

from stochsvm._testing import load_benchmark

_DATA = {}


def unavailable(reason):
    if os.environ.get("STOCHSVM_REQUIRE_DATA") == "1":
        pytest.fail(f"STOCHSVM_REQUIRE_DATA=1 but {reason}")
    pytest.skip(reason)


def benchmark(name):
    """(X, y) of a benchmark's training file, loaded once per session."""
    folder = os.environ.get("STOCHSVM_DATA")
    if not folder:
        unavailable(f"STOCHSVM_DATA is not set (point it at the shared data folder with {name})")
    if not os.path.isfile(os.path.join(folder, f"{name}.train.xz")):
        unavailable(f"$STOCHSVM_DATA/{name}.train.xz is missing (STOCHSVM_DATA={folder!r})")
    if name not in _DATA:
        X, y, _, _ = load_benchmark(name, cache=False)
        _DATA[name] = (X, y)
    return _DATA[name]


def liblinear(X, y, solver, lam, eps):
    """(w, b) of LIBLINEAR ``-s solver -B 1 -c 1/(lam n) -e eps``."""
    try:
        from liblinear import liblinearutil
    except ImportError:
        unavailable("liblinear-official is not installed (pip install liblinear-official)")
    Xi = X.copy()
    Xi.indices = Xi.indices.astype(np.int32)
    Xi.indptr = Xi.indptr.astype(np.int32)
    prob = liblinearutil.problem(y.copy(), Xi)
    C = 1.0 / (lam * X.shape[0])
    model = liblinearutil.train(prob, liblinearutil.parameter(f"-s {solver} -B 1 -c {C!r} -e {eps!r} -q"))
    w, b = model.get_decfun()
    w = np.asarray(w, dtype=np.float64)
    if model.get_labels()[0] != 1:  # decision values are for the first label
        w, b = -w, -b
    return w, float(b)


def objective(X, y, w, b, lam, loss):
    """lambda/2 (||w||^2 + b^2) + mean loss(y (Xw + b)): bias multiplier 1."""
    z = y * (X @ w + b)
    if loss == "hinge":
        values = np.maximum(0.0, 1.0 - z)
    elif loss == "hinge2":
        values = np.maximum(0.0, 1.0 - z) ** 2
    else:
        values = np.logaddexp(0.0, -z)
    return 0.5 * lam * (w @ w + b * b) + values.mean()
