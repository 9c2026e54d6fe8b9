"""Shared fixtures of the pytest suite: small seeded two-class problems."""

import os

import pytest

from _helpers import make_problem

# Real benchmark data: $STOCHSVM_DATA, else ../shared/data beside the clone
# (where CI and the developers' machines keep it).
_SHARED_DATA = os.path.join(os.path.dirname(__file__), "..", "..", "shared", "data")
if "STOCHSVM_DATA" not in os.environ and os.path.isdir(_SHARED_DATA):
    os.environ["STOCHSVM_DATA"] = os.path.abspath(_SHARED_DATA)

#: Where the benchmark sets come from, added to every skip reason about them.
DATA_SOURCE = ("the sets are LIBSVM's, https://www.csie.ntu.edu.tw/~cjlin/libsvmtools/datasets/ "
               "(a9a, w8a, ijcnn1, covtype.binary, ...), saved xz-compressed as "
               "NAME.train.xz / NAME.test.xz in the folder $STOCHSVM_DATA names")


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    """A test skipped for missing real data says where the data comes from."""
    report = yield
    if report.skipped and isinstance(report.longrepr, tuple):
        path, line, reason = report.longrepr
        if "STOCHSVM_DATA" in reason and DATA_SOURCE not in reason:
            report.longrepr = (path, line, f"{reason}; {DATA_SOURCE}")
    return report


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

