"""The row copies of CSR training data of the SBP and of exact SDCA
(KernelSVM.set_row_copy, ss_kernel_svm_set_row_copy; docs/memory.rst,
docs/kernel.rst "Rows over copies of X"): on by default, the same iterates
bit for bit with them and without them, refusals, pickling."""
import pickle

import numpy as np
import pytest
import scipy.sparse as sp

from stochsvm import KernelSVM


def csr_problem(unit):
    """400 CSR rows over 40 columns, sparse; 0/1 values (the bit copy) or
    real ones (the sliced copy)."""
    rng = np.random.default_rng(7)
    mask = rng.random((400, 40)) < 0.3
    values = np.ones((400, 40)) if unit else rng.standard_normal((400, 40))
    X = sp.csr_matrix(np.where(mask, values, 0.0))
    y = np.where(X @ rng.standard_normal(40) > 0, 1.0, -1.0)
    return X, y


def sbp(X, y, row_copy, bias):
    svm = KernelSVM(X, y, 1e-3, solver="sbp", kernel="rbf", gamma=0.5, seed=3)
    svm.set_nu(0.1)
    svm.set_unregularized_bias(bias)
    svm.set_max_num_iterations(300)
    if row_copy is not None:
        svm.set_row_copy(row_copy)
    svm.train()
    return svm


@pytest.mark.parametrize("unit", [False, True])
@pytest.mark.parametrize("bias", [False, True])
def test_on_and_off_give_the_same_iterates(unit, bias):
    X, y = csr_problem(unit)
    on, off = sbp(X, y, None, bias), sbp(X, y, False, bias)
    assert on.get_row_copy() is True and off.get_row_copy() is False
    assert on.get_dual_variables().tobytes() == off.get_dual_variables().tobytes()
    assert on.get_bias() == off.get_bias()
    assert np.array_equal(on.decision_function(X), off.decision_function(X))


def exact(X, y, row_copy, cache_mb=0.02):
    """Exact SDCA with the bias on a cache of a few rows, so that its rows
    are computed over shrunk active sets (compacted with the copies on:
    gamma 0.05 leaves about half of the 400 examples support vectors, and
    shrinking sets the others aside)."""
    svm = KernelSVM(X, y, 1.0 / (10 * X.shape[0]), solver="sdca", kernel="rbf", gamma=0.05,
                    seed=3)
    svm.set_unregularized_bias(True)
    svm.set_cache_size(cache_mb)
    svm.set_epsilon(1e-6)
    if row_copy is not None:
        svm.set_row_copy(row_copy)
    svm.train()
    return svm


@pytest.mark.parametrize("unit", [False, True])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_exact_sdca_on_and_off_give_the_same_iterates(unit, dtype):
    X, y = csr_problem(unit)
    X = X.astype(dtype)
    on, off = exact(X, y, None), exact(X, y, False)
    assert on.get_row_copy() is True and off.get_row_copy() is False
    assert on.get_statistics()["status"] == "converged"
    assert on.get_dual_variables().tobytes() == off.get_dual_variables().tobytes()
    assert on.get_bias() == off.get_bias()
    assert on.get_iteration_number() == off.get_iteration_number()
    # and against a cache that holds every row (rows computed whole, once)
    whole = exact(X, y, None, cache_mb=200)
    assert whole.get_dual_variables().tobytes() == on.get_dual_variables().tobytes()


@pytest.mark.parametrize("solver", ["sdca", "pegasos", "perceptron"])
@pytest.mark.parametrize("unit", [False, True])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_support_scores_on_and_off_give_the_same_bits(solver, unit, dtype):
    """The scores pass of the support-list solvers (their diagnostics: the
    primal objective, the gap, the model) runs over a copy of the support
    rows with the copies on: the same bits as over the CSR rows."""
    X, y = csr_problem(unit)
    X = X.astype(dtype)
    runs = []
    for row_copy in (True, False):
        svm = KernelSVM(X, y, 1e-3, solver=solver, kernel="rbf", gamma=0.05, seed=3)
        svm.set_row_copy(row_copy)
        svm.set_max_num_iterations(1200)
        svm.set_diagnostic_frequency(400)
        svm.train()
        runs.append(svm)
    on, off = runs
    assert on.get_dual_variables().tobytes() == off.get_dual_variables().tobytes()
    for key in ("objective", "dual_objective", "duality_gap"):
        a, b = on.get_statistics()[key], off.get_statistics()[key]
        assert np.array_equal(np.float64(a), np.float64(b), equal_nan=True), key
    assert np.isfinite(on.get_statistics()["objective"])
    assert np.array_equal(on.decision_function(X), off.decision_function(X))


def test_turned_off_between_train_calls():
    X, y = csr_problem(False)
    a, b = sbp(X, y, True, False), sbp(X, y, False, False)
    a.set_row_copy(False)
    for svm in (a, b):
        svm.set_max_num_iterations(600)
        svm.train()
    assert a.get_dual_variables().tobytes() == b.get_dual_variables().tobytes()


@pytest.mark.parametrize("bad", [1, 0, "yes", None, 0.0])
def test_refused_values(bad):
    X, y = csr_problem(False)
    svm = KernelSVM(X, y, 1e-3, solver="sbp")
    with pytest.raises(TypeError, match="row_copy"):
        svm.set_row_copy(bad)
    assert svm.get_row_copy() is True


def test_numpy_bool_and_pickle():
    X, y = csr_problem(False)
    svm = sbp(X, y, np.False_, False)
    assert svm.get_row_copy() is False
    assert pickle.loads(pickle.dumps(svm)).get_row_copy() is False
