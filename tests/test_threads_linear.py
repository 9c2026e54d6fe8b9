"""Threads inside one linear model (SVM.set_num_threads): the score passes --
diagnostics and decision_function -- are split over the threads, and every
result is bit-identical for 1 and 2 threads."""

import numpy as np
import pytest
import scipy.sparse as sp

from stochsvm import SVM


def _data(kind):
    rng = np.random.default_rng(7)
    X = rng.standard_normal((6000, 12))
    X[rng.random(X.shape) < 0.4] = 0
    y = np.where(X @ rng.standard_normal(12) > 0, 1.0, -1.0)
    if kind == "csr32":
        return sp.csr_matrix(X.astype(np.float32)), y
    return (X.astype(np.float32) if kind == "dense32" else X), y


@pytest.mark.parametrize("solver", ["sdca", "sgd", "svmsgd2"])
@pytest.mark.parametrize("kind", ["dense64", "dense32", "csr32"])
def test_threads_give_identical_results(solver, kind):
    X, y = _data(kind)
    runs = []
    for threads in (1, 2):
        svm = SVM(X, y, 1e-3, solver=solver)
        svm.set_num_threads(threads)
        assert svm.get_num_threads() == threads
        svm.set_diagnostic_frequency(1500)
        svm.set_max_num_iterations(3 * X.shape[0])
        svm.set_epsilon(0)
        svm.train()
        runs.append((svm.get_model(), svm.get_bias(), svm.get_statistics(),
                     svm.get_scores(), svm.decision_function(X)))
    (w1, b1, st1, s1, p1), (w2, b2, st2, s2, p2) = runs
    np.testing.assert_array_equal(w1, w2)
    assert b1 == b2
    for key in ("objective", "loss", "dual_objective", "duality_gap", "scores_variation"):
        np.testing.assert_array_equal(st1[key], st2[key], err_msg=key)
    np.testing.assert_array_equal(s1, s2)
    np.testing.assert_array_equal(p1, p2)
    np.testing.assert_array_equal(p1, s1)    # the last diagnostic's pass, on the same model


def test_decision_function_matches_numpy():
    X, y = _data("dense64")
    svm = SVM(X, y, 1e-3)
    svm.set_num_threads(2)
    svm.train()
    np.testing.assert_allclose(svm.decision_function(X), X @ svm.get_model() + svm.get_bias(),
                               rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("bad", [0, -1, 1025, 2.5, "2", None])
def test_num_threads_rejects(bad):
    X, y = _data("dense64")
    svm = SVM(X[:10], y[:10], 1e-3)
    with pytest.raises((ValueError, TypeError), match="num_threads"):
        svm.set_num_threads(bad)
    assert svm.get_num_threads() == 1


@pytest.mark.parametrize("n_jobs, classes, threads", [(2, 2, 2), (2, 3, 1), (4, 3, 1), (None, 2, 1)])
def test_estimator_n_jobs_beyond_the_problems_goes_to_threads(n_jobs, classes, threads):
    from stochsvm import LinearSVMClassifier

    X, y = _data("dense64")
    y = np.digitize(X[:, 0] + X[:, 1], [-0.5, 0.5])[:, None] if classes == 3 else y
    y = np.ravel(y)
    serial = LinearSVMClassifier(solver="sdca", n_jobs=None).fit(X, y)
    model = LinearSVMClassifier(solver="sdca", n_jobs=n_jobs).fit(X, y)
    assert [svm.get_num_threads() for svm in model._svms] == [threads] * len(model._svms)
    assert model.coef_.tobytes() == serial.coef_.tobytes()
    assert model.decision_function(X).tobytes() == serial.decision_function(X).tobytes()
