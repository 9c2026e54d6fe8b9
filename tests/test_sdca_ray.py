"""SDCA's ray step (src/core/linear/sdca_ray.c) on LIBSVM's breast-cancer.

Its first column is a sample id near 1e6..1e7, so every row points almost
the same way and dual coordinate ascent ends above the zero model's
objective, predicting one class. From epoch 100 on, while the model is
worse than the zero model and alpha is at least 1e3 times too small, SDCA
takes the dual line search alpha -> s alpha: the run must end with a lower
objective, a higher dual and a higher test accuracy than the same run
without it. A model shifted off w~(alpha) (``shift_sdca_model``,
here by zero) never takes the step, which gives the run without it.
"""

import numpy as np
import pytest

from stochsvm import SVM


@pytest.fixture(scope="module")
def breast_cancer():
    from stochsvm._testing import data_dir
    from stochsvm.datasets import load_libsvm

    try:
        X, y = load_libsvm(data_dir() / "breast-cancer.xz")
    except (OSError, RuntimeError, ValueError) as exc:
        pytest.skip(f"breast-cancer not available: {exc}")
    X = np.ascontiguousarray(X.toarray())
    y = np.where(y == y.max(), 1.0, -1.0)
    order = np.random.default_rng(0).permutation(len(y))
    return X[order[:500]], y[order[:500]], X[order[500:]], y[order[500:]]


def _run(X, y, loss, epochs, ray):
    n = X.shape[0]
    svm = SVM(X, y, 1.0 / n, solver="sdca", loss=loss, seed=0)  # C = 1
    svm.set_bias_multiplier(1.0)
    svm.set_epsilon(0)
    if not ray:
        svm.shift_sdca_model(np.zeros(X.shape[1]), 0.0)
    svm.set_max_num_iterations(epochs * n)
    stats = svm.train()
    return stats, np.asarray(svm.get_model()).copy(), svm.get_bias()


@pytest.mark.parametrize("loss", ["hinge", "hinge2", "logistic"])
def test_the_rescue_improves_objective_and_accuracy(breast_cancer, loss):
    X, y, X_test, y_test = breast_cancer
    runs = {}
    for ray in (True, False):
        stats, w, b = _run(X, y, loss, 1000, ray)
        accuracy = np.mean(np.where(X_test @ w + b > 0, 1.0, -1.0) == y_test)
        runs[ray] = (stats["objective"], stats["dual_objective"], accuracy)
    (P_ray, D_ray, acc_ray), (P_off, D_off, acc_off) = runs[True], runs[False]
    assert P_ray < 0.6 * P_off
    assert D_ray > D_off
    # without it the model predicts the majority class (0.678 of the test rows)
    assert acc_off < 0.7 and acc_ray > acc_off + 0.05


def test_no_step_before_epoch_100(breast_cancer):
    """Below its first scheduled epoch (141) the run is the run without it."""
    X, y, _, _ = breast_cancer
    (_, w_ray, b_ray), (_, w_off, b_off) = (_run(X, y, "hinge2", 140, ray) for ray in (True, False))
    assert np.array_equal(w_ray, w_off) and b_ray == b_off
