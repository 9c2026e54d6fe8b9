"""svmtrain, the mirror of VLFeat's vl_svmtrain: every option, the real
defaults, info and its status, verbose output, the diagnostic function,
warm starts (SGD model and bias, SDCA dual variables), weights and the
homogeneous kernel map."""

import io
import math
import warnings

import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning

from _helpers import make_problem, objective
from stochsvm import SVM, HomogeneousKernelMap, svmtrain

LAMBDA = 1e-2


@pytest.fixture
def data():
    return make_problem(n=400, d=6, seed=5)


def test_defaults_are_the_real_ones(data):
    """solver sdca, loss hinge, epsilon 5e-4 (SDCA's with the hinge; 1e-2 for the other
    solvers), max iterations 1000 n (SDCA's hinge cap: max(1000 n, min(ceil(10/lambda),
    1000 n)); max(100 n, min(ceil(10/lambda), 1000 n)) for the other losses),
    bias multiplier 1, diagnostic frequency n, seed 0 -- read back from the verbose block."""
    X, y = data
    out = io.StringIO()
    with warnings.catch_warnings():  # whether the default cap suffices is not tested here
        warnings.simplefilter("ignore", ConvergenceWarning)
        w, b, info, scores = svmtrain(X, y, 1e-3, verbose=1, file=out)
    text = out.getvalue()
    assert "solver sdca, loss hinge" in text
    assert "epsilon 0.0005, max iterations 400000, diagnostic frequency 400" in text
    assert "bias multiplier 1\n" in text and "seed 0" in text
    assert "C = 1/(lambda n) = 2.5" in text
    assert info["solver"] == "sdca" and info["lambda"] == 1e-3 and info["bias_multiplier"] == 1
    # the same as the object with its defaults
    svm = SVM(X, y, 1e-3, solver="sdca")
    stats = svm.train()
    np.testing.assert_array_equal(w, svm.get_model())
    assert b == svm.get_bias() and info["objective"] == stats["objective"]
    # max(100 n, min(ceil(10/lambda), 1000 n)): 10/lambda when that is the
    # larger, at most 1000 epochs (at 1e-12 it was 1e13 iterations)
    for lam, cap in ((1e-4, 100_000), (1e-12, 400_000)):
        out = io.StringIO()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            svmtrain(X, y, lam, loss="hinge2", verbose=1, file=out)
        assert f"max iterations {cap}," in out.getvalue()


def test_info_status_and_scores(data):
    X, y = data
    w, b, info, scores = svmtrain(X, y, LAMBDA, epsilon=1e-5, max_num_iterations=1000 * len(y))
    assert info["status"] == "converged" and info["duality_gap"] < 1e-5
    assert info["iteration"] % len(y) == 0 and info["epoch"] == info["iteration"] // len(y)
    assert info["bias"] == b
    np.testing.assert_allclose(scores, X @ w + b, rtol=1e-12, atol=1e-12)
    assert info["objective"] == pytest.approx(objective(X, y, w, b, LAMBDA), rel=1e-12)
    with pytest.warns(ConvergenceWarning, match="cap max_num_iterations=10 "):
        _, _, info, _ = svmtrain(X, y, LAMBDA, epsilon=1e-8, max_num_iterations=10)
    assert info["status"] == "max_iterations" and info["iteration"] == 10
    for key in ("solver", "lambda", "bias_multiplier", "bias", "status", "iteration", "epoch",
                "objective", "regularizer", "loss", "dual_objective", "duality_gap",
                "scores_variation", "elapsed_time"):
        assert key in info


def test_every_setter_option_reaches_the_object(data):
    X, y = data
    weights = np.linspace(0.5, 1.5, len(y))
    kwargs = dict(solver="sgd", loss="logistic", epsilon=0, max_num_iterations=1234,
                  bias_multiplier=2.0, bias_learning_rate=0.5, diagnostic_frequency=300,
                  weights=weights, seed=9, t0=50.0, iteration_number=7)
    w, b, info, _ = svmtrain(X, y, LAMBDA, **kwargs)
    svm = SVM(X, y, LAMBDA, solver="sgd", seed=9, loss="logistic")
    svm.set_epsilon(0)
    svm.set_max_num_iterations(1234)
    svm.set_bias_multiplier(2.0)
    svm.set_bias_learning_rate(0.5)
    svm.set_diagnostic_frequency(300)
    svm.set_weights(weights)
    svm.set_t0(50.0)
    svm.set_iteration_number(7)
    stats = svm.train()
    np.testing.assert_array_equal(w, svm.get_model())
    assert b == svm.get_bias() and info["iteration"] == stats["iteration"] == 7 + 1234


def test_model_and_bias_order_and_solver_none(data):
    """The bias is the additive term whatever the multiplier (VLFeat applied the
    bias before the multiplier and evaluated b * B)."""
    X, y = data
    w0 = np.full(X.shape[1], 0.1)
    w, b, info, scores = svmtrain(X, y, LAMBDA, solver="none", model=w0, bias=2.0,
                                  bias_multiplier=10.0)
    assert b == 2.0 and info["bias"] == 2.0
    np.testing.assert_allclose(scores, X @ w0 + 2.0, rtol=1e-12)
    # P = lambda/2 (||w||^2 + (b/B)^2) + mean hinge
    margins = y * (X @ w0 + 2.0)
    expected = 0.5 * LAMBDA * (w0 @ w0 + (2.0 / 10.0) ** 2) + np.maximum(0, 1 - margins).mean()
    assert info["objective"] == pytest.approx(expected, rel=1e-12)


def test_sgd_warm_start_equals_one_run(data):
    """n iterations, then n more from the returned model, bias and iteration
    number, equal 2n iterations in one call, bit for bit."""
    X, y = data
    n = len(y)
    w1, b1, _, _ = svmtrain(X, y, LAMBDA, solver="sgd", epsilon=0, max_num_iterations=2 * n)
    wh, bh, _, _ = svmtrain(X, y, LAMBDA, solver="sgd", epsilon=0, max_num_iterations=n)
    w2, b2, info, _ = svmtrain(X, y, LAMBDA, solver="sgd", epsilon=0, max_num_iterations=n,
                               model=wh, bias=bh, iteration_number=n)
    np.testing.assert_array_equal(w2, w1)
    assert b2 == b1 and info["iteration"] == 2 * n


def test_sdca_rejects_model_and_accepts_dual_variables(data):
    X, y = data
    with pytest.raises(ValueError, match="model and bias cannot start SDCA.*dual_variables"):
        svmtrain(X, y, LAMBDA, model=np.zeros(X.shape[1]))
    with pytest.raises(ValueError, match="model and bias cannot start SDCA"):
        svmtrain(X, y, LAMBDA, bias=0.5)
    with pytest.raises(ValueError, match="dual_variables apply to solver='sdca' only"):
        svmtrain(X, y, LAMBDA, solver="sgd", dual_variables=np.zeros(len(y)))
    # an exact restart: the duals of a run give back its model
    svm = SVM(X, y, LAMBDA, solver="sdca")
    svm.set_max_num_iterations(3 * len(y))
    svm.set_epsilon(0)
    svm.train()
    alpha = svm.get_dual_variables()
    w, b, info, _ = svmtrain(X, y, LAMBDA, solver="sdca", epsilon=0,
                             max_num_iterations=1, dual_variables=alpha, seed=1)
    # one more coordinate step moves the model by one example at most
    assert np.linalg.norm(w - svm.get_model()) < 0.1 * np.linalg.norm(svm.get_model())
    assert info["dual_objective"] >= svm.get_statistics()["dual_objective"] - 1e-12


def test_diagnostic_function_and_verbose(data):
    X, y = data
    n = len(y)
    seen = []

    def diagnostic(info):
        seen.append((info["status"], info["iteration"], info["solver"], info["bias"]))
        return info["iteration"] >= 3 * n  # stop at the third diagnostic

    out = io.StringIO()
    # VLFeat's habit, a diagnostic every epoch, is asked for (a diagnostic
    # function alone watches the object's own schedule and never moves it)
    w, b, info, _ = svmtrain(X, y, LAMBDA, epsilon=0, max_num_iterations=10 * n,
                             diagnostic_frequency=n, diagnostic_function=diagnostic, verbose=2,
                             file=out)
    assert [s[1] for s in seen] == [n, 2 * n, 3 * n]
    assert all(s[0] == "training" and s[2] == "sdca" for s in seen)
    assert info["status"] == "interrupted" and info["iteration"] == 3 * n
    lines = out.getvalue().splitlines()
    assert sum("[training]" in line for line in lines) == 3
    assert any("gap" in line for line in lines)
    with pytest.raises(TypeError, match="diagnostic_function must be callable"):
        svmtrain(X, y, LAMBDA, diagnostic_function=3)
    # verbose 0 prints nothing
    out = io.StringIO()
    svmtrain(X, y, LAMBDA, epsilon=0, file=out)
    assert out.getvalue() == ""


def test_homkermap_option_equals_explicit_expansion():
    rng = np.random.default_rng(0)
    X = rng.random((300, 4))
    y = np.where(np.abs(X[:, 0] - 0.5) < 0.2, 1.0, -1.0)
    hom = HomogeneousKernelMap("intersection", order=2)
    for option in (hom, dict(kernel="intersection", order=2)):
        w, b, info, scores = svmtrain(X, y, 1e-3, homkermap=option, epsilon=0,
                                      max_num_iterations=3000)
        we, be, infoe, scorese = svmtrain(hom.transform(X), y, 1e-3, epsilon=0,
                                          max_num_iterations=3000)
        assert w.shape == (20,)
        np.testing.assert_allclose(w, we, rtol=0, atol=1e-7 * np.abs(we).max())
        assert b == pytest.approx(be, abs=1e-7)
        np.testing.assert_allclose(scores, scorese, atol=1e-9)
        assert math.isclose(info["objective"], infoe["objective"], rel_tol=1e-9)


# --------------------------------------------------------------------------
#             Warnings when training stops short, VLFeat's defaults
# --------------------------------------------------------------------------

@pytest.mark.parametrize("solver", ["sdca", "sgd", "svmsgd2", "sgdqn"])
def test_a_stop_on_the_cap_warns(data, solver):
    X, y = data
    with pytest.warns(ConvergenceWarning, match="max_num_iterations=200.*epsilon") as record:
        _, _, info, _ = svmtrain(X, y, 1e-4, solver=solver, epsilon=1e-6,
                                 max_num_iterations=200)
    assert info["status"] == "max_iterations" and len(record) == 1
    # epsilon=0 asks for exactly the cap: no warning (pytest makes one an error)
    _, _, info, _ = svmtrain(X, y, 1e-4, solver=solver, epsilon=0, max_num_iterations=200)
    assert info["status"] == "max_iterations"


def test_a_converged_run_does_not_warn(data):
    X, y = data
    _, _, info, _ = svmtrain(X, y, LAMBDA, epsilon=1e-6, max_num_iterations=1000 * len(y))
    assert info["status"] == "converged"


def test_a_diverged_run_warns(data):
    """SGD with a first step of 50 on rows of norm 100 ends far above the
    objective of w = 0 (1 for the hinge loss), with a finite model."""
    X, y = data
    with pytest.warns(ConvergenceWarning, match="diverged.*above 1, that of the zero model"):
        _, _, info, _ = svmtrain(100 * X, y, LAMBDA, solver="sgd", t0=2.0, epsilon=0,
                                 max_num_iterations=200)
    assert np.isfinite(info["objective"]) and info["objective"] > 1


def test_weighted_zero_objective(data):
    """The zero model's objective counts the weights: 1/n sum c_i for the hinge
    loss. A run of the 'none' solver at w = 0 gives it, and a trained model
    that beats it does not warn."""
    X, y = data
    c = np.linspace(0.0, 4.0, len(y))
    _, _, info, _ = svmtrain(X, y, LAMBDA, solver="none", model=np.zeros(X.shape[1]), bias=0.0,
                             weights=c)
    assert info["objective"] == pytest.approx(c.mean(), rel=1e-12)
    svmtrain(X, y, LAMBDA, solver="sgd", epsilon=0, max_num_iterations=2 * len(y), weights=c)


def test_vlfeat_defaults(data):
    X, y = data
    n = len(y)
    out = io.StringIO()
    with pytest.warns(ConvergenceWarning, match="max_num_iterations=1000"):
        w, b, info, _ = svmtrain(X, y, LAMBDA, solver="sgd", vlfeat_defaults=True, verbose=1,
                                 file=out)
    text = out.getvalue()
    # epsilon 1e-2, max(n, ceil(10 / lambda)) = 1000, bias learning rate 0.01
    assert "epsilon 0.01, max iterations 1000," in text and "bias learning rate 0.01" in text
    # and VLFeat's t0 = max(2, ceil(1 / lambda)) = 100: the same run, spelt out
    with pytest.warns(ConvergenceWarning):
        w2, b2, _, _ = svmtrain(X, y, LAMBDA, solver="sgd", epsilon=1e-2,
                                max_num_iterations=1000, bias_learning_rate=0.01, t0=100.0)
    np.testing.assert_array_equal(w, w2)
    assert b == b2
    # explicit options win over VLFeat's defaults; SDCA takes epsilon and the cap
    w3, _, info3, _ = svmtrain(X, y, LAMBDA, vlfeat_defaults=True, epsilon=0,
                               max_num_iterations=3 * n)
    assert info3["iteration"] == 3 * n
    with pytest.raises(TypeError, match="vlfeat_defaults must be a bool"):
        svmtrain(X, y, LAMBDA, vlfeat_defaults="yes")
