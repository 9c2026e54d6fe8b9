"""Repeated training and warm starts continue exactly; seeds are used."""

import numpy as np
import pytest
import scipy.sparse as sp

from _helpers import make_problem
from stochsvm import SVM

LAMBDA = 1e-2


def new_svm(X, y, seed=0, loss="hinge"):
    svm = SVM(X, y, LAMBDA, seed=seed)
    svm.set_epsilon(0)   # no early stop: every run does exactly its iterations
    svm.set_loss(loss)
    return svm


def run(svm, iterations):
    svm.set_max_num_iterations(iterations)
    stats = svm.train()
    assert stats["iteration"] == svm.get_iteration_number()
    return stats


def state(svm):
    return svm.get_model(), svm.get_bias(), svm.get_iteration_number()


def assert_same_state(a, b):
    np.testing.assert_array_equal(a[0], b[0])
    assert a[1] == b[1]
    assert a[2] == b[2]


@pytest.mark.parametrize("loss", ["hinge", "logistic"])
@pytest.mark.parametrize("first", [2000, 1500, 1, 3999])   # epoch boundary, mid-epoch, edges
@pytest.mark.parametrize("sparse", [False, True])
def test_train_n_equals_train_half_twice(problem, loss, first, sparse):
    X, y = problem
    if sparse:
        X = sp.csr_matrix(np.where(np.abs(X) < 0.5, 0.0, X))
    total = 4000
    whole = new_svm(X, y, seed=3, loss=loss)
    run(whole, total)
    split = new_svm(X, y, seed=3, loss=loss)
    run(split, first)
    assert split.get_iteration_number() == first
    run(split, total - first)
    assert split.get_iteration_number() == total
    assert_same_state(state(split), state(whole))
    np.testing.assert_array_equal(split.get_scores(), whole.get_scores())


def test_many_small_calls(problem):
    # pieces of every size: single iterations, partial epochs, and runs longer
    # than the interrupt poll period (16384 iterations)
    X, y = problem
    pieces = (1, 999, 1, 500, 16384, 499, 16385, 1000, 3)
    whole = new_svm(X, y)
    run(whole, sum(pieces))
    split = new_svm(X, y)
    for k in pieces:
        run(split, k)
    assert_same_state(state(split), state(whole))


def warm_started_copy(X, y, source, seed=0):
    """A fresh object given the model, bias and iteration number of ``source``."""
    fresh = new_svm(X, y, seed=seed)
    fresh.set_model(source.get_model())
    fresh.set_bias(source.get_bias())
    fresh.set_iteration_number(source.get_iteration_number())
    return fresh


def test_warm_start_at_an_epoch_boundary_is_exact(problem):
    X, y = problem
    n = X.shape[0]
    original = new_svm(X, y, seed=5)
    run(original, 2 * n)
    fresh = warm_started_copy(X, y, original, seed=5)
    run(original, 3 * n)
    run(fresh, 3 * n)
    assert_same_state(state(fresh), state(original))


def test_warm_start_mid_epoch_is_close(problem):
    X, y = problem
    n = X.shape[0]
    original = new_svm(X, y, seed=5)
    run(original, 2 * n + 321)
    fresh = warm_started_copy(X, y, original, seed=5)
    run(original, 2 * n)
    run(fresh, 2 * n)
    w_o, b_o, t_o = state(original)
    w_f, b_f, t_f = state(fresh)
    assert t_o == t_f == 4 * n + 321
    np.testing.assert_allclose(w_f, w_o, rtol=0, atol=1e-12)
    assert abs(b_f - b_o) <= 1e-12


def test_the_iteration_number_is_used(problem):
    X, y = problem
    n = X.shape[0]
    original = new_svm(X, y)
    run(original, 5 * n)
    w, b = original.get_model(), original.get_bias()
    models = []
    for t in (0, 5 * n):
        fresh = new_svm(X, y)
        fresh.set_model(w)
        fresh.set_bias(b)
        fresh.set_iteration_number(t)
        run(fresh, n)
        assert fresh.get_iteration_number() == t + n
        models.append(fresh.get_model())
    # restarting the schedule at t = 0 takes large steps that erase the model
    assert np.abs(models[0] - models[1]).max() > 1e-2
    # and continuing at t = 5n equals the original run continued
    run(original, n)
    np.testing.assert_array_equal(models[1], original.get_model())


def test_seeds(problem):
    X, y = problem
    models = {}
    for seed in (0, 0, 1, 2 ** 64 - 1):
        svm = new_svm(X, y, seed=seed)
        run(svm, 3000)
        models.setdefault(seed, []).append(svm.get_model())
    np.testing.assert_array_equal(models[0][0], models[0][1])
    assert np.abs(models[0][0] - models[1][0]).max() > 1e-4
    assert np.abs(models[1][0] - models[2 ** 64 - 1][0]).max() > 1e-4
    # the constructor's seed and set_seed are the same thing
    svm = new_svm(X, y)
    svm.set_seed(1)
    run(svm, 3000)
    np.testing.assert_array_equal(svm.get_model(), models[1][0])


def test_set_data_continues_on_a_new_batch(problem):
    # set_data keeps model, bias and iteration number: training on the same
    # data again after set_data equals training straight through.
    X, y = problem
    n = X.shape[0]
    whole = new_svm(X, y)
    run(whole, 4 * n)
    batched = new_svm(X, y)
    run(batched, 2 * n)
    batched.set_data(X.copy(), y.copy())
    run(batched, 2 * n)
    assert_same_state(state(batched), state(whole))
    # a different batch changes the result
    X2, y2 = make_problem(n=n, d=X.shape[1], seed=99)
    other = new_svm(X, y)
    run(other, 2 * n)
    other.set_data(X2, y2)
    run(other, 2 * n)
    assert np.abs(other.get_model() - whole.get_model()).max() > 1e-3
