"""Pickling stores parameters and model, not the data; training resumes exactly."""

import copy
import pickle

import numpy as np
import pytest
import scipy.sparse as sp

from _helpers import assert_stats_equal
from stochsvm import SVM

LAMBDA = 1e-2


def configured(X, y):
    svm = SVM(X, y, LAMBDA, seed=123)
    svm.set_epsilon(0)
    svm.set_loss("logistic")
    svm.set_bias_multiplier(2.0)
    svm.set_bias_learning_rate(0.5)
    svm.set_t0(150.0)
    svm.set_max_num_iterations(2 * X.shape[0])
    return svm


@pytest.mark.parametrize("protocol", range(2, pickle.HIGHEST_PROTOCOL + 1))
def test_round_trip_keeps_everything_but_the_data(problem, protocol):
    X, y = problem
    svm = configured(X, y)
    svm.set_diagnostic_frequency(250)
    svm.train()
    clone = pickle.loads(pickle.dumps(svm, protocol=protocol))
    assert type(clone) is SVM
    assert clone.get_num_data() == 0
    assert clone.get_dimension() == 20
    assert clone.get_solver() == "sgd"
    for name in ("lambda", "epsilon", "max_num_iterations", "diagnostic_frequency",
                 "bias_multiplier", "bias_learning_rate", "t0", "loss", "bias",
                 "iteration_number", "seed"):
        assert getattr(clone, "get_" + name)() == getattr(svm, "get_" + name)(), name
    np.testing.assert_array_equal(clone.get_model(), svm.get_model())
    assert_stats_equal(clone.get_statistics(), svm.get_statistics())
    assert clone.get_statistics()["status"] == "max_iterations"
    # predicting needs no data
    np.testing.assert_array_equal(clone.decision_function(X), svm.decision_function(X))
    np.testing.assert_array_equal(clone.predict(sp.csr_matrix(X)), svm.predict(X))
    # and a second round trip changes nothing
    again = pickle.loads(pickle.dumps(clone, protocol=protocol))
    np.testing.assert_array_equal(again.get_model(), svm.get_model())
    assert again.get_iteration_number() == svm.get_iteration_number()
    assert_stats_equal(again.get_statistics(), svm.get_statistics())


def test_training_needs_set_data(problem):
    X, y = problem
    svm = configured(X, y)
    svm.train()
    clone = pickle.loads(pickle.dumps(svm))
    with pytest.raises(RuntimeError, match=r"call set_data\(X, y\) first"):
        clone.train()
    with pytest.raises(RuntimeError, match=r"no scores yet"):
        clone.get_scores()
    with pytest.raises(RuntimeError, match=r"call set_data\(X, y\) before set_weights"):
        clone.set_weights(np.ones(X.shape[0]))
    with pytest.raises(ValueError, match=r"X has 19 features \(columns\), but this SVM has "
                                         r"dimension 20"):
        clone.set_data(X[:, :19], y)


@pytest.mark.parametrize("epochs_before", [2, 1])
def test_resume_after_unpickling_is_exact(problem, epochs_before):
    X, y = problem
    n = X.shape[0]
    direct = configured(X, y)
    direct.set_max_num_iterations(4 * n)
    direct.train()

    first = configured(X, y)
    first.set_max_num_iterations(epochs_before * n)
    first.train()
    resumed = pickle.loads(pickle.dumps(first))
    resumed.set_data(X, y)
    resumed.set_max_num_iterations((4 - epochs_before) * n)
    stats = resumed.train()
    assert stats["iteration"] == 4 * n
    np.testing.assert_array_equal(resumed.get_model(), direct.get_model())
    assert resumed.get_bias() == direct.get_bias()
    assert resumed.get_iteration_number() == direct.get_iteration_number()
    np.testing.assert_array_equal(resumed.get_scores(), direct.get_scores())
    assert_stats_equal({k: v for k, v in stats.items() if k != "elapsed_time"},
                       {k: v for k, v in direct.get_statistics().items()
                        if k != "elapsed_time"})


def test_resume_with_the_pickled_cap(problem):
    # max_num_iterations set explicitly travels with the pickle (2 epochs here)
    X, y = problem
    n = X.shape[0]
    direct = configured(X, y)
    direct.set_max_num_iterations(4 * n)
    direct.train()
    first = configured(X, y)
    first.train()
    resumed = pickle.loads(pickle.dumps(first))
    resumed.set_data(X, y)
    assert resumed.get_max_num_iterations() == 2 * n
    resumed.train()
    np.testing.assert_array_equal(resumed.get_model(), direct.get_model())
    assert resumed.get_bias() == direct.get_bias()


def test_defaults_are_not_frozen_by_pickling(problem):
    # t0 and max_num_iterations that were never set stay defaults: they follow
    # lambda and the new data after unpickling.
    X, y = problem
    svm = SVM(X, y, LAMBDA)
    svm.train()
    clone = pickle.loads(pickle.dumps(svm))
    clone.set_lambda(1e-3)
    assert clone.get_t0() == 2000.0
    clone.set_data(np.vstack([X] * 20), np.concatenate([y] * 20))
    assert clone.get_max_num_iterations() == 100 * 20 * X.shape[0]  # 100 epochs
    assert clone.get_diagnostic_frequency() == 20 * X.shape[0]


def test_untrained_and_solver_none(problem):
    X, y = problem
    svm = SVM(X, y, LAMBDA, solver="none")
    clone = pickle.loads(pickle.dumps(svm))
    assert clone.get_solver() == "none"
    assert clone.get_statistics()["status"] == "untrained"
    np.testing.assert_array_equal(clone.get_model(), np.zeros(20))
    clone.set_data(X, y)
    assert clone.train()["status"] == "converged"


def test_copy_and_deepcopy(problem):
    X, y = problem
    svm = configured(X, y)
    svm.train()
    for dup in (copy.copy(svm), copy.deepcopy(svm)):
        assert dup is not svm
        np.testing.assert_array_equal(dup.get_model(), svm.get_model())
        assert dup.get_num_data() == 0


def test_callbacks_are_not_pickled(problem):
    X, y = problem
    svm = SVM(X, y, LAMBDA)
    svm.set_diagnostic_function(lambda stats: None)   # a lambda cannot be pickled
    clone = pickle.loads(pickle.dumps(svm))
    assert clone.get_diagnostic_function() is None


class _Named(SVM):
    """A Python subclass (module level, so that pickle finds it)."""

    def name(self):
        return "named"


def test_subclasses_round_trip(problem):
    X, y = problem
    svm = _Named(X, y, LAMBDA)
    svm.train()
    clone = pickle.loads(pickle.dumps(svm))
    assert type(clone) is _Named and clone.name() == "named"
    np.testing.assert_array_equal(clone.get_model(), svm.get_model())


def test_sdca_pickles_its_model_and_restarts_its_duals_on_new_data(problem):
    X, y = problem
    svm = SVM(X, y, 1e-2, solver="sdca", seed=3)
    # converged: its model is the lowest its diagnostics measured, w(alpha)
    # or an earlier (or, with the hinge, averaged) one (sdca_best.c; a run
    # stopped on its cap returns t* w(alpha), SDCA's closing ray, docs/sdca.rst)
    svm.set_epsilon(1e-3)
    svm.set_max_num_iterations(50 * len(y))
    assert svm.train()["status"] == "converged"
    clone = pickle.loads(pickle.dumps(svm))
    assert clone.get_solver() == "sdca"
    assert np.array_equal(clone.get_model(), svm.get_model())
    assert clone.get_bias() == svm.get_bias()
    assert np.array_equal(clone.decision_function(X), svm.decision_function(X))
    assert clone.get_dual_variables() is None  # no data, no duals
    clone.set_data(X, y)
    assert np.array_equal(clone.get_dual_variables(), np.zeros(len(y)))
    assert not clone.get_model().any() and clone.get_bias() == 0.0
    with pytest.raises(RuntimeError, match="set_dual_variables"):
        clone.set_model(svm.get_model())
    # the duals carry the state: restoring them restores w(alpha) exactly
    alpha = svm.get_dual_variables()
    clone.set_dual_variables(alpha)
    scale, B = 1.0 / (1e-2 * len(y)), svm.get_bias_multiplier()
    assert np.allclose(clone.get_model(), scale * (X.T @ alpha), rtol=0, atol=1e-12)
    assert clone.get_bias() == pytest.approx(scale * B * B * alpha.sum(), abs=1e-12)


def _old_state(svm, mode):
    """The state a format-1 pickle held: the getter's reading of the mode."""
    fn, args = svm.__reduce__()
    state = dict(args[0])
    state["format"] = 1
    if mode is None:
        del state["newton_fallback"]  # pickles from before the knob
    else:
        state["newton_fallback"] = mode
    return fn, state


@pytest.mark.parametrize("loss", ["l1", "hinge", "logistic"])
@pytest.mark.parametrize("old", [True, None])
def test_old_sdca_pickles_restore_the_default_finish(problem, loss, old):
    # Before the hinge's (and then the l1's) Newton finish became "auto",
    # get_newton_fallback() read True for SDCA's default: a format-1 state
    # with True, or without the key, restores as the default "auto", not
    # forced on (which would hand over under a cap the caller set).
    X, y = problem
    y = y if loss != "l1" else X[:, 0] + 0.1 * y
    svm = SVM(X, y, 1e-2, solver="sdca", loss=loss)
    fn, state = _old_state(svm, old)
    clone = fn(state)
    assert clone.get_newton_fallback() == ("auto" if loss in ("l1", "hinge") else True)
    # Under a cap the caller set, the hinge and l1 end on it as asked.
    clone.set_data(X, y)
    clone.set_epsilon(1e-12)
    clone.set_max_num_iterations(X.shape[0])
    stats = clone.train()
    if loss in ("l1", "hinge"):
        assert stats["status"] == "max_iterations" and stats["num_newton_iterations"] == 0
    # The mode travels with the loss, as on a fresh object.
    clone.set_loss("hinge")
    assert clone.get_newton_fallback() == "auto"


def test_pickles_keep_the_finish_mode_as_set(problem):
    X, y = problem
    for mode in (True, False, "auto"):
        svm = SVM(X, y, 1e-2, solver="sdca", loss="hinge")
        svm.set_newton_fallback(mode)
        clone = pickle.loads(pickle.dumps(svm))
        assert clone.get_newton_fallback() == mode
    # The default with a smooth loss reads True (auto is on for it) but is
    # pickled as the default: after set_loss("hinge") it is "auto" again.
    smooth = SVM(X, y, 1e-2, solver="sdca", loss="logistic")
    assert smooth.get_newton_fallback() is True
    clone = pickle.loads(pickle.dumps(smooth))
    clone.set_loss("hinge")
    assert clone.get_newton_fallback() == "auto"
    # A format-1 state with an explicit False keeps it.
    fn, state = _old_state(SVM(X, y, 1e-2, solver="sdca", loss="l1"), False)
    assert fn(state).get_newton_fallback() is False


@pytest.mark.parametrize("kind", ["linear", "kernel"])
def test_pickles_keep_the_thread_count(problem, kind):
    from stochsvm import KernelSVM

    X, y = problem
    svm = SVM(X, y, LAMBDA) if kind == "linear" else KernelSVM(X, y, LAMBDA, gamma=0.5, seed=0)
    assert pickle.loads(pickle.dumps(svm)).get_num_threads() == 1
    svm.set_num_threads(3)
    svm.train()
    clone = pickle.loads(pickle.dumps(svm))
    assert clone.get_num_threads() == 3
    assert copy.deepcopy(svm).get_num_threads() == 3
    np.testing.assert_array_equal(clone.decision_function(X), svm.decision_function(X))
    # a pickle made before the count was kept restores one thread
    state = svm.__reduce__()[1][0]
    del state["num_threads"]
    assert svm.__reduce__()[0](state).get_num_threads() == 1


@pytest.mark.parametrize("kind", ["linear", "kernel"])
def test_no_pickle_from_the_objects_own_callback(problem, kind):
    """A copy made mid-run said status "training" for ever after."""
    from stochsvm import KernelSVM

    X, y = problem
    svm = SVM(X, y, LAMBDA) if kind == "linear" else KernelSVM(X, y, LAMBDA, gamma=0.5, seed=0)
    errors = []

    def watch(stats):
        for copier in (pickle.dumps, copy.copy, copy.deepcopy):
            try:
                copier(svm)
            except RuntimeError as exc:
                errors.append(str(exc))

    svm.set_diagnostic_function(watch)
    svm.train()
    assert errors and all("while train() is running" in e for e in errors)
    assert len(errors) % 3 == 0
    svm.set_diagnostic_function(None)
    assert pickle.loads(pickle.dumps(svm)).get_statistics()["status"] != "training"


def test_kernel_set_model_refuses_complex_coefficients_and_foreign_indices(problem):
    from stochsvm import KernelSVM

    X, y = problem
    svm = KernelSVM(X, y, LAMBDA, gamma=0.5, seed=0)
    sv = np.asarray(X[:3], dtype=np.float64)
    with pytest.raises(TypeError, match="coefficients must contain real numbers"):
        svm.set_model(sv, np.array([1, 2, 3], dtype=complex))
    for bad in ([-7, 1, 2], [0, 1, X.shape[0]]):
        with pytest.raises(ValueError, match="must be -1 .* or a row of the data"):
            svm.set_model(sv, [1.0, -1.0, 0.5], indices=bad)
    svm.set_model(sv, [1.0, -1.0, 0.5], indices=[-1, 0, X.shape[0] - 1])
    assert list(svm.get_support_indices()) == [-1, 0, X.shape[0] - 1]
