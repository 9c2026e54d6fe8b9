"""The budgeted solvers allocate min(B, n) + 1 expansion rows: a budget far
above n trains a small problem as B = n does (no SS_ERR_ALLOC / MemoryError
from allocating B rows), and a budget that is not an int64 is refused with an
error naming it."""
import numpy as np
import pytest

import stochsvm


def _blobs(n=30, d=2048, seed=3):
    rng = np.random.default_rng(seed)
    y = np.where(np.arange(n) % 2 == 0, 1.0, -1.0)
    X = rng.normal(size=(n, d)) * 0.3 + y[:, None] * 0.5
    return X, y


@pytest.mark.parametrize("solver", ["bsca", "bsgd"])
@pytest.mark.parametrize("budget", [10**9, 2**63 - 1])
def test_huge_budget_trains_like_budget_n(solver, budget):
    # (10^9 + 1) rows of 2048 doubles would be 16 TB: allocating B rows fails.
    X, y = _blobs()
    n = X.shape[0]

    def fit(B):
        svm = stochsvm.KernelSVM(X, y, 0.05, solver=solver, kernel="rbf", gamma=1.0 / X.shape[1],
                                 seed=1)
        svm.set_budget(B)
        svm.set_max_num_iterations(5 * n)
        svm.train()
        return svm

    ref, big = fit(n), fit(budget)
    bs = big.get_budget_statistics()
    assert bs["budget"] == budget and bs["num_maintenance"] == 0
    assert 0 < bs["num_points"] <= n
    np.testing.assert_array_equal(big.get_dual_variables(), ref.get_dual_variables())
    np.testing.assert_array_equal(big.decision_function(X), ref.decision_function(X))


def test_unrepresentable_budget_is_refused():
    X, y = _blobs(n=10, d=3)
    svm = stochsvm.KernelSVM(X, y, 0.05, solver="bsca", kernel="rbf", gamma=1.0)
    for bad in (2**63, 10**30, -(2**63) - 1):
        with pytest.raises((ValueError, OverflowError), match="budget"):
            svm.set_budget(bad)
    assert svm.get_budget() == 500
