"""SVM.set_visit_order: the block-wise and interleaved random orders (issue 21, item 5).
The order itself is tested in C (tests/c/test_visit_order.c); here the
Python surface: values, errors naming the argument, pickling, and
training to the same optimum as the uniform permutation."""

import pickle

import numpy as np
import pytest

from stochsvm import SVM

from _helpers import make_problem


def test_visit_order_values_and_shuffle():
    X, y = make_problem(300, 5, seed=1)
    svm = SVM(X, y, 0.01)
    assert svm.get_visit_order() == "permutation" and svm.get_shuffle()
    svm.set_visit_order("blocks")
    assert svm.get_visit_order() == "blocks" and svm.get_shuffle()
    svm.set_visit_order("interleaved")
    assert svm.get_visit_order() == "interleaved" and svm.get_shuffle()
    svm.set_shuffle(False)
    assert svm.get_visit_order() == "data"
    svm.set_visit_order("permutation")
    assert svm.get_shuffle()


@pytest.mark.parametrize("bad", ["random", "", None, 2, ["blocks"]])
def test_visit_order_refuses_unknown_values(bad):
    X, y = make_problem(50, 3, seed=2)
    svm = SVM(X, y, 0.01)
    with pytest.raises(ValueError, match="^visit_order must be one of 'data', 'permutation', "
                                         "'blocks', 'interleaved', got "):
        svm.set_visit_order(bad)
    assert svm.get_visit_order() == "permutation"


@pytest.mark.parametrize("order", ["blocks", "interleaved"])
def test_visit_order_survives_pickling_and_is_reproducible(order):
    X, y = make_problem(700, 6, seed=3)
    svm = SVM(X, y, 0.01, solver="sgd")
    svm.set_visit_order(order)
    svm.set_max_num_iterations(700)
    svm.train()
    copy = pickle.loads(pickle.dumps(svm))
    assert copy.get_visit_order() == order
    again = SVM(X, y, 0.01, solver="sgd")
    again.set_visit_order(order)
    again.set_max_num_iterations(700)
    again.train()
    np.testing.assert_array_equal(again.get_model(), svm.get_model())
    other = SVM(X, y, 0.01, solver="sgd")
    other.set_max_num_iterations(700)
    other.train()
    assert not np.array_equal(other.get_model(), svm.get_model())  # another order


@pytest.mark.parametrize("order", ["blocks", "interleaved"])
@pytest.mark.parametrize("solver", ["sgd", "svmsgd2", "sgdqn", "sdca"])
def test_block_orders_reach_the_objective_of_the_permutation(solver, order):
    X, y = make_problem(2000, 8, seed=4)
    objectives = {}
    for order in ("permutation", order):
        svm = SVM(X, y, 0.01, solver=solver)
        svm.set_visit_order(order)
        svm.set_epsilon(0)
        svm.set_max_num_iterations(20 * 2000)
        objectives[order] = svm.train()["objective"]
    assert objectives[order] == pytest.approx(objectives["permutation"], rel=2e-2)


def test_train_statistics_are_the_closing_diagnostic():
    """The C object leaves the closing diagnostic of a run for later when no
    diagnostic function watches; SVM.train() makes it before returning, so
    its statistics equal those of a watched run, and the next run's
    stopping rule sees the same history."""
    X, y = make_problem(400, 5, seed=6)
    runs = []
    for watched in (False, True):
        svm = SVM(X, y, 0.01, solver="sgd")
        if watched:
            svm.set_diagnostic_function(lambda statistics: False)
        svm.set_diagnostic_frequency(400)
        svm.set_epsilon(0)
        svm.set_max_num_iterations(3 * 400 + 11)
        first = svm.train()
        svm.set_epsilon(0.05)
        svm.set_max_num_iterations(100 * 400)
        second = svm.train()
        runs.append((first, second, svm.get_scores(), svm.get_model()))
    for a, b in zip(runs[0][:2], runs[1][:2]):
        a.pop("elapsed_time")
        b.pop("elapsed_time")
        np.testing.assert_equal(a, b)  # (NaN == NaN for the dual figures)
    np.testing.assert_array_equal(runs[0][2], runs[1][2])
    np.testing.assert_array_equal(runs[0][3], runs[1][3])


def test_train_raises_a_divergence_only_the_closing_diagnostic_sees():
    """SVM.train() makes the closing diagnostic before it returns: a
    divergence first seen there raises as one seen during the run."""
    X, y = make_problem(300, 4, seed=7)
    X = 30 * np.asarray(X)

    def diverging(cap):
        svm = SVM(X, y, 1.0, loss="l2", solver="sgd")
        svm.set_t0(1.5)
        svm.set_diagnostic_frequency(5)
        svm.set_max_num_iterations(cap)
        return svm

    probe = diverging(100 * 300)
    with pytest.raises(FloatingPointError, match="training diverged"):
        probe.train()
    t = probe.get_iteration_number()  # the diagnostic that saw it
    svm = diverging(t)  # a run whose closing diagnostic is that one
    with pytest.raises(FloatingPointError, match="training diverged: the objective rose to"):
        svm.train()
    assert svm.get_statistics()["status"] == "diverged"
