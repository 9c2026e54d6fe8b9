"""Exceptions carry the C object's own account of what went wrong
(ss_svm_get_last_error, ss_kernel_svm_get_last_error): the call, the argument
and its value, or why a run stopped. The exception types are those documented
in train() and the setters."""

import numpy as np
import pytest

from stochsvm import SVM
from stochsvm._kernel_svm import KernelSVM


@pytest.fixture
def blobs():
    rng = np.random.default_rng(3)
    X = rng.standard_normal((40, 3))
    y = np.where(X[:, 0] + 0.2 * rng.standard_normal(40) > 0, 1.0, -1.0)
    return X, y


def test_setter_message_names_the_call_and_value(blobs):
    X, y = blobs
    svm = SVM(X, y, 0.1)
    w = np.ones(len(y))
    w[7] = -2.0
    with pytest.raises(ValueError, match=r"\(set_weights: weights\[7\] must be finite and >= 0, "
                                         r"got -2\)"):
        svm.set_weights(w)


def test_train_bad_labels_names_the_label(blobs):
    X, y = blobs
    y = y.copy()
    y[3] = 2.0
    svm = SVM(X, y, 0.1, loss="l2")
    svm.set_loss("hinge")
    with pytest.raises(ValueError, match=r"not valid for the hinge loss.*labels\[3\] = 2"):
        svm.train()


def test_train_divergence_says_where(blobs):
    X, y = blobs
    svm = SVM(30 * X, y, 1.0, loss="l2")
    svm.set_t0(1.5)
    svm.set_diagnostic_frequency(5)
    with pytest.raises(FloatingPointError,
                       match=r"training diverged: the objective rose to .* by iteration \d+ "
                             r"\(solver sgd\).*reset it"):
        svm.train()


def test_train_non_finite_says_where(blobs):
    X, y = blobs
    svm = SVM(X, y, 0.1)
    svm.set_bias_learning_rate(1e300)
    with pytest.raises(FloatingPointError, match=r"became non-finite by iteration \d+ \(solver sgd\)"):
        svm.train()


def test_bad_state_message_names_the_solver(blobs):
    X, y = blobs
    svm = SVM(X, y, 0.1, solver="sdca")
    with pytest.raises(RuntimeError, match=r"calibrate_t0 applies to solvers sgd, svmsgd2 and sgdqn, "
                                           r"this object's solver is sdca"):
        svm.calibrate_t0()


def test_a_later_success_leaves_no_stale_message(blobs):
    X, y = blobs
    svm = SVM(X, y, 0.1)
    with pytest.raises(ValueError):
        svm.set_lambda(-1)
    svm.set_lambda(0.5)
    svm.train()  # succeeds: nothing of the failed setter leaks into later errors
    svm.set_bias_learning_rate(1e300)
    with pytest.raises(FloatingPointError) as info:
        svm.train()
    assert "set_lambda" not in str(info.value)


def test_kernel_messages(blobs):
    X, y = blobs
    svm = KernelSVM(X, y, 0.1, solver="pegasos")
    with pytest.raises(ValueError, match=r"\(set_weights: weights\[0\] must be finite and >= 0, "
                                         r"got nan\)"):
        svm.set_weights(np.full(len(y), np.nan))
    one_class = KernelSVM(X, np.ones(len(y)), 0.1, solver="sbp")
    one_class.set_unregularized_bias(True)
    with pytest.raises(ValueError, match=r"the SBP with an unregularized bias needs both classes"):
        one_class.train()


@pytest.mark.parametrize("solver, call, message", [
    ("sdca", lambda s: s.set_t0(10.0), "set_t0 applies to solvers sgd, svmsgd2 and sgdqn, this "
                                       "object's solver is sdca"),
    ("sgd", lambda s: s.set_skip(3), "set_skip applies to solvers svmsgd2 and sgdqn, this "
                                     "object's solver is sgd"),
    ("sgdqn", lambda s: s.set_shrinking(False), "set_shrinking applies to solver sdca, this "
                                                "object's solver is sgdqn"),
    ("sgd", lambda s: s.set_res_delta(0.1), "set_res_delta applies to solvers res and lres, "
                                            "this object's solver is sgd"),
    ("res", lambda s: s.set_lres_memory(3), "set_lres_memory applies to solver lres, this "
                                            "object's solver is res"),
])
def test_knob_of_another_solver_is_refused(blobs, solver, call, message):
    X, y = blobs
    svm = SVM(X, y, 0.1, solver=solver)
    with pytest.raises(ValueError, match=message):
        call(svm)


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
def test_estimators_set_only_the_knobs_of_their_solver(blobs):
    from stochsvm.linear import LinearSVMClassifier

    X, y = blobs
    for solver in ("sgd", "sdca", "res"):
        LinearSVMClassifier(solver=solver, t0=50.0, shrinking=False).fit(X, y)
