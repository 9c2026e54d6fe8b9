"""Shared fixtures of the pytest suite: small seeded two-class problems."""

import os

import pytest

from _helpers import make_problem

# Real benchmark data: $STOCHSVM_DATA, else ../shared/data beside the clone
# (where CI and the developers' machines keep it).
_SHARED_DATA = os.path.join(os.path.dirname(__file__), "..", "..", "shared", "data")
if "STOCHSVM_DATA" not in os.environ and os.path.isdir(_SHARED_DATA):
    os.environ["STOCHSVM_DATA"] = os.path.abspath(_SHARED_DATA)


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

