"""BSCA on the kernel object's threads: with budgets longer than the
core's split threshold (256 terms, SS_BUDGET_PARALLEL_MIN_TERMS in
src/core/budget/budget.h), the default B = 500 among them, and merges
happening, 1 and 2 threads give the same duals, model, bias, objectives
and predictions, bit for bit (tests/c/test_budget_threads.c splits every
loop, BSGD too; here the library's own threshold)."""
import numpy as np
import pytest
import scipy.sparse as sp

from _helpers import make_problem
from stochsvm import KernelSVM

N = 2600


def _problem(sparse):
    X, y = make_problem(n=N, d=5, seed=5, separation=0.5, sparsity=0.4)
    return (sp.csr_matrix(X) if sparse else X), y


def _fit(X, y, bias, threads, budget):
    svm = KernelSVM(X, y, 1e-4, solver="bsca", gamma=0.5, seed=4)
    svm.set_budget(budget)
    if bias:
        svm.set_unregularized_bias(True)
    svm.set_num_threads(threads)
    svm.set_max_num_iterations(N)
    svm.set_diagnostic_frequency(N // 2)
    svm.train()
    stats = svm.get_statistics()
    return {"duals": svm.get_dual_variables().copy(), "scores": svm.decision_function(X),
            "coefficients": np.asarray(svm.get_coefficients()).copy(), "bias": svm.get_bias(),
            "primal": stats["primal_objective"], "budget": svm.get_budget_statistics()}


@pytest.mark.parametrize("bias,sparse,budget", [(False, False, 1100), (False, True, 1100),
                                                (True, False, 1100), (True, True, 500),
                                                (False, False, 500)])
def test_bsca_threads_bitwise(bias, sparse, budget):
    X, y = _problem(sparse)
    one, two = (_fit(X, y, bias, threads, budget) for threads in (1, 2))
    assert one["budget"]["num_merges"] > 0
    assert one["budget"]["num_points"] >= budget - 1
    for key in ("duals", "scores", "coefficients"):
        assert one[key].tobytes() == two[key].tobytes(), key
    for key in ("bias", "primal"):
        assert np.float64(one[key]).tobytes() == np.float64(two[key]).tobytes(), key
    for key in ("num_merges", "num_removals", "weight_degradation"):
        assert one["budget"][key] == two["budget"][key], key
