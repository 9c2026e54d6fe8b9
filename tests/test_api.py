"""The SVM object: setters and their ranges, defaults, statistics, losses,
callbacks, decision functions, svmtrain, and objectives against references."""

import importlib.metadata
import math
import subprocess
import sys

import numpy as np
import pytest
from scipy.optimize import minimize

import stochsvm
from _helpers import assert_stats_equal, make_problem, objective
from stochsvm import SVM

LAMBDA = 1e-2


@pytest.fixture
def svm(small_problem):
    X, y = small_problem
    return SVM(X, y, LAMBDA)


# ---------------------------------------------------------------------------
#                               Setters reject
# ---------------------------------------------------------------------------

BAD_SETTINGS = [
    # (name, bad value, exception, message pattern)
    ("lambda", 0, ValueError, r"lambda must be a number in \[1e-150, 1e150\], got 0"),
    ("lambda", -1.0, ValueError, r"lambda must be a number in \[1e-150, 1e150\]"),
    ("lambda", math.nan, ValueError, r"lambda must be a number in \[1e-150, 1e150\], got nan"),
    ("lambda", math.inf, ValueError, r"lambda must be a number in \[1e-150, 1e150\]"),
    ("lambda", "a", TypeError, r"lambda must be a real number, got str"),
    ("epsilon", -1, ValueError, r"epsilon must be a finite number >= 0"),
    ("epsilon", math.nan, ValueError, r"epsilon must be a finite number >= 0"),
    ("epsilon", None, TypeError, r"epsilon must be a real number"),
    ("max_num_iterations", 0, ValueError, r"max_num_iterations must be an integer >= 1, got 0"),
    ("max_num_iterations", -3, ValueError, r"max_num_iterations must be an integer >= 1"),
    ("max_num_iterations", 2.5, ValueError, r"max_num_iterations must be an integer >= 1"),
    ("max_num_iterations", 2 ** 63, ValueError, r"max_num_iterations must be an integer >= 1"),
    ("max_num_iterations", "10", TypeError, r"max_num_iterations must be an integer"),
    ("diagnostic_frequency", 0, ValueError, r"diagnostic_frequency must be an integer >= 1"),
    ("bias_multiplier", -1, ValueError, r"bias_multiplier must be a finite number >= 0"),
    ("bias_multiplier", math.inf, ValueError, r"bias_multiplier must be a finite number >= 0"),
    ("bias_multiplier", math.nan, ValueError, r"bias_multiplier must be a finite number >= 0"),
    ("bias_learning_rate", 0, ValueError, r"bias_learning_rate must be a finite number > 0"),
    ("bias_learning_rate", math.inf, ValueError, r"bias_learning_rate must be a finite number"),
    ("t0", 1.0, ValueError, r"t0 must be a finite number > 1, got 1.0"),
    ("t0", 0.5, ValueError, r"t0 must be a finite number > 1, got 0.5"),
    ("t0", math.nan, ValueError, r"t0 must be a finite number > 1"),
    ("t0", math.inf, ValueError, r"t0 must be a finite number > 1"),
    ("loss", "foo", ValueError, r"loss must be one of 'hinge', 'hinge2', 'squared_hinge', "
                                r"'logistic', 'l1', 'l2', got 'foo'"),
    ("loss", 0, TypeError, r"loss must be a string"),
    ("bias", math.nan, ValueError, r"bias must be a finite number, got nan"),
    ("bias", -math.inf, ValueError, r"bias must be a finite number"),
    ("iteration_number", -1, ValueError, r"iteration_number must be an integer >= 0, got -1"),
    ("seed", -1, ValueError, r"seed must be an integer in \[0, 2\*\*64\)"),
    ("seed", 2 ** 64, ValueError, r"seed must be an integer in \[0, 2\*\*64\)"),
    ("seed", None, TypeError, r"seed must be an integer"),
    ("diagnostic_function", 5, TypeError, r"diagnostic function must be callable or None"),
]


@pytest.mark.parametrize("name,value,exc,match", BAD_SETTINGS,
                         ids=[f"{s[0]}={s[1]!r}" for s in BAD_SETTINGS])
def test_setters_reject_bad_values_and_keep_the_old_one(svm, name, value, exc, match):
    before = getattr(svm, "get_" + name)()
    with pytest.raises(exc, match=match):
        getattr(svm, "set_" + name)(value)
    after = getattr(svm, "get_" + name)()
    assert after == before or (after is before)


def test_weights_are_validated_and_kept_on_error(svm):
    n = svm.get_num_data()
    assert svm.get_weights() is None
    good = np.linspace(0.0, 2.0, n)
    svm.set_weights(good)
    for bad, exc, match in [
        (np.ones(n - 1), ValueError, r"weights must be a 1-D array of 200 values"),
        (np.ones((n, 1)), ValueError, r"weights must be a 1-D array of 200 values"),
        (np.where(np.arange(n) == 3, -1.0, 1.0), ValueError, r"weights must be 200 finite "
                                                            r"values >= 0"),
        (np.where(np.arange(n) == 3, np.nan, 1.0), ValueError, r"weights must be 200 finite"),
        (np.where(np.arange(n) == 3, np.inf, 1.0), ValueError, r"weights must be 200 finite"),
        (np.array(["a"] * n), TypeError, r"weights must contain real numbers"),
    ]:
        with pytest.raises(exc, match=match):
            svm.set_weights(bad)
        np.testing.assert_array_equal(svm.get_weights(), good)
    svm.set_weights(None)
    assert svm.get_weights() is None


def test_weights_are_copied(svm):
    w = np.ones(svm.get_num_data())
    svm.set_weights(w)
    w[:] = 5.0
    np.testing.assert_array_equal(svm.get_weights(), np.ones(svm.get_num_data()))


def test_model_is_validated_and_kept_on_error(svm):
    d = svm.get_dimension()
    good = np.arange(d, dtype=float) - 2.0
    svm.set_model(good)
    for bad, exc, match in [
        (np.ones(d + 1), ValueError, r"model must be a 1-D array of 5 values"),
        (np.ones((1, d)), ValueError, r"model must be a 1-D array of 5 values"),
        (np.array([1.0, np.nan, 0, 0, 0]), ValueError, r"model must be 5 finite values"),
        (np.array([1.0, 0, 0, 0, -np.inf]), ValueError, r"model must be 5 finite values"),
        (np.ones(d, dtype=complex), TypeError, r"model must contain real numbers"),
    ]:
        with pytest.raises(exc, match=match):
            svm.set_model(bad)
        np.testing.assert_array_equal(svm.get_model(), good)
    svm.set_model([1, 2, 3, 4, 5])   # lists and ints are fine
    np.testing.assert_array_equal(svm.get_model(), [1.0, 2.0, 3.0, 4.0, 5.0])


def test_get_model_returns_a_float64_copy(svm):
    svm.set_model(np.ones(5))
    m = svm.get_model()
    assert m.dtype == np.float64 and m.shape == (5,)
    m[:] = 7
    np.testing.assert_array_equal(svm.get_model(), np.ones(5))


# ---------------------------------------------------------------------------
#                                  Defaults
# ---------------------------------------------------------------------------

def test_defaults(problem):
    X, y = problem
    n, d = X.shape
    svm = SVM(X, y, 1e-2)
    assert svm.get_solver() == "sgd"
    assert svm.get_lambda() == 1e-2
    assert svm.get_epsilon() == 1e-2
    assert svm.get_bias_multiplier() == 1.0
    assert svm.get_bias_learning_rate() == 1.0
    assert svm.get_t0() == 200.0                      # max(2, 2/lambda)
    assert svm.get_max_num_iterations() == 100_000    # max(100 n, ceil(10/lambda))
    assert svm.get_diagnostic_frequency() == n
    assert svm.get_loss() == "hinge"
    assert svm.get_seed() == 0
    assert svm.get_weights() is None
    assert svm.get_bias() == 0.0
    assert svm.get_iteration_number() == 0
    assert svm.get_diagnostic_function() is None
    assert svm.get_dimension() == d and svm.get_num_data() == n
    np.testing.assert_array_equal(svm.get_model(), np.zeros(d))
    assert svm.get_statistics()["status"] == "untrained"
    with pytest.raises(RuntimeError, match=r"no scores yet: call train\(\) first"):
        svm.get_scores()


@pytest.mark.parametrize("lam,t0,max_iter", [
    (1e-5, 2e5, 1_000_000),     # 10/lambda dominates
    (3e-6, 2 / 3e-6, 1_000_000),   # 10/lambda > 1000 epochs: bounded by them
    (1e-12, 2e12, 1_000_000),   # (it was 1e13 iterations: days of steps)
    (0.1, 20.0, 100_000),       # 100 epochs dominate
    (2.0, 2.0, 100_000),        # t0 floor of 2
])
def test_defaults_follow_lambda(problem, lam, t0, max_iter):
    X, y = problem
    svm = SVM(X, y, lam)
    assert svm.get_t0() == pytest.approx(t0, rel=1e-15)
    assert svm.get_max_num_iterations() == max_iter
    # set_lambda updates the defaults that are not set
    svm.set_lambda(2.5e-5)
    assert svm.get_t0() == 8e4 and svm.get_max_num_iterations() == 400_000


def test_explicit_values_and_unset_t0(svm):
    svm.set_t0(5.5)
    svm.set_max_num_iterations(1e6)     # an integral float is accepted
    svm.set_diagnostic_frequency(np.int32(17))
    svm.set_epsilon(0)
    assert svm.get_t0() == 5.5
    assert svm.get_max_num_iterations() == 1_000_000
    assert svm.get_diagnostic_frequency() == 17
    assert svm.get_epsilon() == 0.0
    svm.unset_t0()
    assert svm.get_t0() == 200.0
    svm.set_lambda(0.5)
    assert svm.get_t0() == 4.0
    assert svm.get_max_num_iterations() == 1_000_000


@pytest.mark.parametrize("name,canonical", [
    ("hinge", "hinge"), ("hinge2", "hinge2"), ("squared_hinge", "hinge2"),
    ("logistic", "logistic")])
def test_loss_names(svm, name, canonical):
    svm.set_loss(name)
    assert svm.get_loss() == canonical


def test_bias_does_not_depend_on_the_order_of_setters(svm):
    svm.set_bias(0.75)
    svm.set_bias_multiplier(10.0)
    first = svm.get_bias()
    X, y = make_problem(n=200, d=5, seed=1)
    other = SVM(X, y, LAMBDA)
    other.set_bias_multiplier(10.0)
    other.set_bias(0.75)
    assert first == other.get_bias() == 0.75


def test_repr(svm):
    assert repr(svm) == "SVM(solver='sgd', dimension=5, num_data=200, lambda_=0.01)"


def test_version():
    # the value itself: tests/test_version.py, against meson.build
    assert stochsvm._svm.core_version() == stochsvm.__version__
    assert importlib.metadata.version("stochsvm") == stochsvm.__version__


def test_import_is_cheap():
    code = ("import sys, stochsvm; "
            "print(sorted(m for m in ('sklearn', 'scipy', 'stochsvm.svm') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert out.strip() == "[]"


def test_lazy_svmtrain_and_unknown_attribute():
    assert stochsvm.svmtrain is stochsvm.svm.svmtrain
    assert "svmtrain" in dir(stochsvm)
    with pytest.raises(AttributeError, match=r"no attribute 'nope'"):
        stochsvm.nope


def test_uninitialised_object_raises():
    svm = SVM.__new__(SVM)
    with pytest.raises(RuntimeError, match=r"not initialised"):
        svm.get_model()
    with pytest.raises(RuntimeError, match=r"not initialised"):
        svm.train()
    assert repr(svm) == "SVM(<uninitialised>)"


def test_init_twice_is_refused(small_problem):
    X, y = small_problem
    svm = SVM(X, y, LAMBDA)
    with pytest.raises(RuntimeError, match=r"cannot be called twice"):
        svm.__init__(X, y, LAMBDA)


# ---------------------------------------------------------------------------
#                         Statistics and objectives
# ---------------------------------------------------------------------------

STAT_KEYS = {"status", "iteration", "epoch", "objective", "regularizer", "loss",
             "dual_objective", "duality_gap", "scores_variation", "elapsed_time",
             "num_step_backoffs", "num_newton_iterations", "sdca_model"}


@pytest.mark.parametrize("loss", ["hinge", "hinge2", "logistic"])
@pytest.mark.parametrize("B", [1.0, 2.5, 0.0])
def test_solver_none_evaluates_the_given_model(problem, loss, B):
    X, y = problem
    rng = np.random.default_rng(11)
    w = rng.normal(size=X.shape[1]) * 0.3
    b = 0.4
    svm = SVM(X, y, 0.05, solver="none")
    svm.set_loss(loss)
    svm.set_model(w)
    svm.set_bias(b)
    svm.set_bias_multiplier(B)
    stats = svm.train()
    assert set(stats) == STAT_KEYS
    assert stats["status"] == "converged"
    assert stats["iteration"] == 0 and svm.get_iteration_number() == 0
    expected = objective(X, y, w, b, 0.05, B=B, loss=loss)
    assert stats["objective"] == pytest.approx(expected, rel=1e-12, abs=0)
    reg = 0.5 * 0.05 * (w @ w + ((b / B) ** 2 if B > 0 else 0.0))
    assert stats["regularizer"] == pytest.approx(reg, rel=1e-12, abs=0)
    assert stats["loss"] == pytest.approx(expected - reg, rel=1e-12, abs=0)
    assert math.isnan(stats["dual_objective"]) and math.isnan(stats["duality_gap"])
    np.testing.assert_allclose(svm.get_scores(), X @ w + b, rtol=0, atol=1e-12)
    np.testing.assert_array_equal(svm.get_model(), w)
    assert svm.get_bias() == b
    assert_stats_equal(svm.get_statistics(), stats)


def test_solver_none_with_weights(problem):
    X, y = problem
    rng = np.random.default_rng(12)
    w = rng.normal(size=X.shape[1]) * 0.3
    c = rng.random(X.shape[0]) * 2
    c[::5] = 0.0
    svm = SVM(X, y, LAMBDA, solver="none")
    svm.set_model(w)
    svm.set_bias(-0.2)
    svm.set_weights(c)
    stats = svm.train()
    expected = objective(X, y, w, -0.2, LAMBDA, weights=c)
    assert stats["objective"] == pytest.approx(expected, rel=1e-12, abs=0)


def test_sgd_separates_a_separable_problem():
    X, y = make_problem(n=100, d=2, seed=6, separation=6.0)
    svm = SVM(X, y, 1e-3)
    svm.set_epsilon(0)
    svm.set_max_num_iterations(20 * 100)
    stats = svm.train()
    assert stats["status"] == "max_iterations" and stats["iteration"] == 2000
    np.testing.assert_array_equal(svm.predict(X), y)
    assert np.all(y * svm.get_scores() > 0)


@pytest.mark.parametrize("loss", ["hinge", "hinge2", "logistic"])
def test_training_lowers_the_objective_and_reports_it_exactly(loss):
    X, y = make_problem(n=500, d=10, seed=3)
    X = X / np.sqrt(X.shape[1])    # keeps the squared hinge's first steps stable
    svm = SVM(X, y, LAMBDA)
    svm.set_loss(loss)
    svm.set_epsilon(0)
    svm.set_max_num_iterations(10 * 500)
    stats = svm.train()
    at_zero = {"hinge": 1.0, "hinge2": 1.0, "logistic": math.log(2.0)}[loss]
    assert stats["objective"] < 0.8 * at_zero
    w, b = svm.get_model(), svm.get_bias()
    assert stats["objective"] == pytest.approx(objective(X, y, w, b, LAMBDA, loss=loss),
                                               rel=1e-10, abs=0)
    np.testing.assert_allclose(svm.get_scores(), X @ w + b, rtol=0, atol=1e-12)
    assert stats["epoch"] == 10 and stats["iteration"] == 5000
    assert stats["elapsed_time"] >= 0


def _reference_optimum(X, y, lam, loss):
    """L-BFGS-B on the smooth objective E(w, b), bias multiplier B = 1."""
    n = X.shape[0]

    def fun(v):
        w, b = v[:-1], v[-1]
        z = y * (X @ w + b)
        if loss == "hinge2":
            values = np.maximum(0.0, 1.0 - z) ** 2
            dz = -2.0 * np.maximum(0.0, 1.0 - z)
        else:
            values = np.logaddexp(0.0, -z)
            dz = -np.exp(-np.logaddexp(0.0, z))
        ds = dz * y / n
        f = 0.5 * lam * (w @ w + b * b) + values.mean()
        return f, np.concatenate([lam * w + X.T @ ds, [lam * b + ds.sum()]])

    res = minimize(fun, np.zeros(X.shape[1] + 1), jac=True, method="L-BFGS-B",
                   options={"gtol": 1e-12, "ftol": 1e-15, "maxiter": 5000})
    return res.fun


@pytest.mark.parametrize("loss", ["hinge2", "logistic"])
def test_sgd_approaches_the_lbfgs_optimum(loss):
    X, y = make_problem(n=500, d=10, seed=3)
    X = X / np.sqrt(X.shape[1])
    best = _reference_optimum(X, y, LAMBDA, loss)
    svm = SVM(X, y, LAMBDA)
    svm.set_loss(loss)
    svm.set_epsilon(0)
    svm.set_max_num_iterations(100 * 500)
    stats = svm.train()
    assert stats["objective"] >= best * (1 - 1e-9)
    assert stats["objective"] <= best * (1 + 1e-3)


def test_epsilon_stops_training_early(problem):
    X, y = problem
    svm = SVM(X, y, LAMBDA)
    svm.set_epsilon(1e-2)
    svm.set_max_num_iterations(1000 * X.shape[0])
    stats = svm.train()
    assert stats["status"] == "converged"
    assert stats["scores_variation"] < 1e-2
    assert stats["iteration"] < 1000 * X.shape[0]
    assert stats["iteration"] % X.shape[0] == 0


def test_bias_multiplier_zero_keeps_the_bias(problem):
    X, y = problem
    svm = SVM(X, y, LAMBDA)
    svm.set_bias(0.5)
    svm.set_bias_multiplier(0)
    stats = svm.train()
    assert svm.get_bias() == 0.5
    w = svm.get_model()
    assert stats["regularizer"] == pytest.approx(0.5 * LAMBDA * (w @ w), rel=1e-12)


def test_bias_learning_rate_is_used(problem):
    X, y = problem
    biases = []
    for rate in (1.0, 0.1):
        svm = SVM(X, y, LAMBDA)
        svm.set_bias_learning_rate(rate)
        svm.train()
        biases.append(svm.get_bias())
    assert biases[0] != biases[1]


def test_weights_change_the_model(problem):
    X, y = problem
    a = SVM(X, y, LAMBDA)
    a.train()
    b = SVM(X, y, LAMBDA)
    b.set_weights(np.where(y > 0, 2.0, 1.0))
    b.train()
    assert np.abs(a.get_model() - b.get_model()).max() > 1e-3
    # zero weights on the negatives: only positives pull, the bias grows
    assert b.get_bias() > a.get_bias()


def test_divergence_raises_floating_point_error():
    X, y = make_problem(n=200, d=5, seed=1)
    svm = SVM(X * 1e150, y, 1e-2)
    svm.set_loss("hinge2")
    svm.set_t0(2 / 1e-2)  # the hinge loss's t0: far too large steps for this data
    with pytest.raises(FloatingPointError, match=r"training diverged"):
        svm.train()
    assert svm.get_statistics()["status"] == "error"


def test_default_t0_follows_the_curvature_of_smooth_losses():
    # Unnormalised rows: ||x||^2 ~ d. With t0 = 2/lambda the squared hinge's
    # first steps overshoot (the objective reached 1e27 after 10 epochs);
    # the default t0 = max(2, 2/lambda, L/lambda) with L = 2 (max||x||^2 + B^2) keeps
    # the first step below 1/L.
    X, y = make_problem(n=500, d=10, seed=0)
    lam = 1e-2
    r2 = float((X ** 2).sum(axis=1).max()) + 1.0  # + B^2, B = 1
    objectives = {}
    for loss, curvature in [("hinge", 0.0), ("hinge2", 2 * r2), ("logistic", r2 / 4)]:
        svm = SVM(X, y, lam)
        svm.set_loss(loss)
        assert svm.get_t0() == pytest.approx(max(2.0, 2 / lam, curvature / lam), rel=1e-12)
        svm.set_epsilon(0)
        svm.set_max_num_iterations(10 * len(y))
        objectives[loss] = svm.train()["objective"]
    # the zero model has objective 1 (hinge, hinge2) and log 2 (logistic)
    assert objectives["hinge"] < 1.0
    assert objectives["hinge2"] < 1.0
    assert objectives["logistic"] < np.log(2)


# ---------------------------------------------------------------------------
#                            Diagnostic callback
# ---------------------------------------------------------------------------

def test_diagnostic_called_once_per_epoch(problem):
    X, y = problem
    n = X.shape[0]
    svm = SVM(X, y, LAMBDA)
    svm.set_epsilon(0)
    svm.set_max_num_iterations(5 * n)
    seen = []

    def diag(stats):
        assert set(stats) == STAT_KEYS
        # getters work from the callback, and agree with the statistics
        assert svm.get_iteration_number() == stats["iteration"]
        np.testing.assert_allclose(svm.get_scores(), X @ svm.get_model() + svm.get_bias(),
                                   rtol=0, atol=1e-12)
        seen.append((stats["iteration"], stats["epoch"], stats["status"]))

    svm.set_diagnostic_function(diag)
    assert svm.get_diagnostic_function() is diag
    stats = svm.train()
    assert seen == [(n, 1, "training"), (2 * n, 2, "training"), (3 * n, 3, "training"),
                    (4 * n, 4, "training"), (5 * n, 5, "max_iterations")]
    assert stats["status"] == "max_iterations"
    # diagnostic frequency
    seen.clear()
    svm.set_diagnostic_frequency(250)
    svm.set_max_num_iterations(1000)
    svm.train()
    assert [s[0] for s in seen] == [5250, 5500, 5750, 6000]
    # removing the callback
    seen.clear()
    svm.set_diagnostic_function(None)
    svm.train()
    assert seen == []


def test_diagnostic_returning_true_stops(problem):
    X, y = problem
    n = X.shape[0]
    svm = SVM(X, y, LAMBDA)
    svm.set_epsilon(0)
    svm.set_max_num_iterations(10 * n)
    svm.set_diagnostic_function(lambda stats: stats["iteration"] >= 3 * n)
    stats = svm.train()
    assert stats["status"] == "interrupted"
    assert stats["iteration"] == 3 * n
    assert svm.get_iteration_number() == 3 * n
    assert svm.get_statistics()["status"] == "interrupted"


def test_diagnostic_exception_propagates(problem):
    X, y = problem
    n = X.shape[0]
    svm = SVM(X, y, LAMBDA)
    svm.set_epsilon(0)
    svm.set_max_num_iterations(10 * n)
    calls = []

    def diag(stats):
        calls.append(stats["iteration"])
        if len(calls) == 2:
            raise ZeroDivisionError("boom in the callback")

    svm.set_diagnostic_function(diag)
    with pytest.raises(ZeroDivisionError, match="boom in the callback"):
        svm.train()
    assert calls == [n, 2 * n]
    assert svm.get_iteration_number() == 2 * n
    # the object is usable afterwards
    svm.set_diagnostic_function(None)
    svm.set_max_num_iterations(n)
    assert svm.train()["iteration"] == 3 * n


def test_setters_and_train_are_refused_from_the_callback(problem):
    X, y = problem
    svm = SVM(X, y, LAMBDA)
    svm.set_diagnostic_function(lambda stats: svm.set_epsilon(0.5))
    with pytest.raises(RuntimeError, match=r"cannot call set_epsilon\(\) while train\(\) is "
                                           r"running"):
        svm.train()
    assert svm.get_epsilon() == 1e-2
    svm.set_diagnostic_function(lambda stats: svm.train())
    with pytest.raises(RuntimeError, match=r"train\(\) is already running on this SVM"):
        svm.train()


# ---------------------------------------------------------------------------
#                       Decision function, predict, svmtrain
# ---------------------------------------------------------------------------

def test_predict_signs_and_ties(problem):
    X, y = problem
    svm = SVM(X, y, LAMBDA)
    np.testing.assert_array_equal(svm.predict(X), np.ones(X.shape[0]))   # w = 0, b = 0
    svm.set_model(np.eye(X.shape[1])[0])
    svm.set_bias(-0.25)
    scores = X[:, 0] - 0.25
    np.testing.assert_allclose(svm.decision_function(X), scores, rtol=0, atol=1e-15)
    np.testing.assert_array_equal(svm.predict(X), np.where(scores >= 0, 1.0, -1.0))


def test_train_accuracy(problem):
    X, y = problem
    svm = SVM(X, y, LAMBDA)
    svm.set_epsilon(0)
    svm.set_max_num_iterations(20 * X.shape[0])
    svm.train()
    # the Bayes accuracy of the generating model is Phi(1) = 0.841
    assert np.mean(svm.predict(X) == y) > 0.83


def test_svmtrain_mirrors_the_object(problem):
    X, y = problem
    w, b, info, scores = stochsvm.svmtrain(X, y, LAMBDA, solver="sgd", loss="logistic",
                                           epsilon=0, max_num_iterations=3000, seed=4)
    svm = SVM(X, y, LAMBDA, seed=4)
    svm.set_loss("logistic")
    svm.set_epsilon(0)
    svm.set_max_num_iterations(3000)
    stats = svm.train()
    np.testing.assert_array_equal(w, svm.get_model())
    assert b == svm.get_bias()
    np.testing.assert_array_equal(scores, svm.get_scores())
    assert info["objective"] == stats["objective"] and info["iteration"] == 3000
    with pytest.raises(TypeError, match=r"unexpected keyword argument 'nope'"):
        stochsvm.svmtrain(X, y, LAMBDA, nope=1)


def test_svmtrain_solver_none(problem):
    X, y = problem
    w0 = np.full(X.shape[1], 0.1)
    w, b, info, scores = stochsvm.svmtrain(X, y, LAMBDA, solver="none", model=w0, bias=0.3)
    np.testing.assert_array_equal(w, w0)
    assert b == 0.3
    assert info["objective"] == pytest.approx(objective(X, y, w0, 0.3, LAMBDA), rel=1e-12)
