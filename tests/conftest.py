"""Shared fixtures of the pytest suite: small seeded two-class problems."""

import os

import numpy as np
import pytest

# Real benchmark data: $STOCHSVM_DATA, else ../shared/data beside the clone
# (where CI and the developers' machines keep it).
_SHARED_DATA = os.path.join(os.path.dirname(__file__), "..", "..", "shared", "data")
if "STOCHSVM_DATA" not in os.environ and os.path.isdir(_SHARED_DATA):
    os.environ["STOCHSVM_DATA"] = os.path.abspath(_SHARED_DATA)

#: Where the benchmark sets come from, added to every skip reason about them.
DATA_SOURCE = ("the sets are LIBSVM's, https://www.csie.ntu.edu.tw/~cjlin/libsvmtools/datasets/ "
               "(a9a, w8a, ijcnn1, covtype.binary, ...), saved xz-compressed as "
               "NAME.train.xz / NAME.test.xz in the folder $STOCHSVM_DATA names")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """A test skipped for missing real data says where the data comes from."""
    outcome = yield
    report = outcome.get_result()
    if report.skipped and isinstance(report.longrepr, tuple):
        path, line, reason = report.longrepr
        if "STOCHSVM_DATA" in reason and DATA_SOURCE not in reason:
            report.longrepr = (path, line, f"{reason}; {DATA_SOURCE}")


def make_problem(n=1000, d=20, seed=0, separation=1.0, sparsity=0.0):
    """A seeded Gaussian two-class problem.

    Returns ``(X, y)`` with X float64 of shape (n, d) in C order and y in
    {-1, +1}: the classes are N(+-separation * mu, I) with a fixed random
    unit direction mu. ``sparsity`` is the fraction of entries set to zero.
    """
    rng = np.random.default_rng(seed)
    y = np.where(rng.random(n) < 0.5, -1.0, 1.0)
    mu = rng.normal(size=d)
    mu /= np.linalg.norm(mu)
    X = rng.normal(size=(n, d)) + separation * y[:, None] * mu[None, :]
    if sparsity > 0:
        X[rng.random((n, d)) < sparsity] = 0.0
    return np.ascontiguousarray(X), y


@pytest.fixture
def problem():
    """n = 1000, d = 20, overlapping classes."""
    return make_problem()


@pytest.fixture
def small_problem():
    """n = 200, d = 5: for tests that train many times."""
    return make_problem(n=200, d=5, seed=1)


@pytest.fixture
def sparse_problem():
    """n = 500, d = 30, about 60% zeros."""
    return make_problem(n=500, d=30, seed=2, sparsity=0.6)


def objective(X, y, w, b, lam, B=1.0, loss="hinge", weights=None):
    """The primal objective E(w, b) of include/stochsvm/svm.h, in NumPy."""
    s = np.asarray(X @ w).ravel() + b
    z = y * s
    if loss == "hinge":
        values = np.maximum(0.0, 1.0 - z)
    elif loss == "hinge2":
        values = np.maximum(0.0, 1.0 - z) ** 2
    elif loss == "logistic":
        values = np.logaddexp(0.0, -z)
    else:
        raise ValueError(loss)
    if weights is not None:
        values = weights * values
    reg = np.dot(w, w) + ((b / B) ** 2 if B > 0 else 0.0)
    return 0.5 * lam * reg + values.mean()


def assert_stats_equal(a, b):
    """Two statistics dicts are identical (NaN equal to NaN)."""
    assert set(a) == set(b)
    for key in a:
        if isinstance(a[key], float) and np.isnan(a[key]):
            assert isinstance(b[key], float) and np.isnan(b[key]), key
        else:
            assert a[key] == b[key], key
