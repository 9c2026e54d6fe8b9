"""KernelSVMClassifier(kernel="precomputed"): fit on the Gram matrix of the
training rows, predict on the kernel values against them, as scikit-learn's
SVC(kernel="precomputed"); the same model as the kernel itself, and SVC's
decision values at the same C."""

import pickle
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.datasets import load_breast_cancer, load_iris
from sklearn.metrics.pairwise import rbf_kernel
from sklearn.model_selection import cross_val_score
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC
from sklearn.utils import get_tags

import stochsvm
from stochsvm import KernelSVMClassifier


def _gram(loader):
    X, y = loader(return_X_y=True)
    X = StandardScaler().fit_transform(X)
    gamma = 1.0 / X.shape[1]
    return X, y, gamma, rbf_kernel(X, X, gamma=gamma)


@pytest.fixture(scope="module")
def cancer():
    return _gram(load_breast_cancer)


@pytest.fixture(scope="module")
def iris():
    return _gram(load_iris)


@pytest.mark.parametrize("data", ["cancer", "iris"])
def test_the_gram_matrix_gives_the_kernel_model(data, request):
    X, y, gamma, K = request.getfixturevalue(data)
    with_kernel = KernelSVMClassifier(C=1.0, gamma=gamma, tol=1e-6).fit(X, y)
    pre = KernelSVMClassifier(C=1.0, kernel="precomputed", tol=1e-6).fit(K, y)
    scores, ref = pre.decision_function(K), with_kernel.decision_function(X)
    assert np.abs(scores - ref).max() <= 1e-5 * np.abs(ref).max()
    assert np.array_equal(pre.predict(K[:40]), with_kernel.predict(X[:40]))


@pytest.mark.parametrize("data", ["cancer", "iris"])
def test_decision_values_match_svc_precomputed(data, request):
    """The oracle: LIBSVM (SVC) on the same Gram matrix and C."""
    _, y, _, K = request.getfixturevalue(data)
    ours = KernelSVMClassifier(C=2.0, kernel="precomputed", tol=1e-6).fit(K, y)
    ref = SVC(C=2.0, kernel="precomputed", tol=1e-8).fit(K, y)
    if len(ours.classes_) == 2:
        f, g = ours.decision_function(K), ref.decision_function(K)
        assert np.abs(f - g).max() <= 1e-3 * np.abs(g).max()
    # one-vs-rest against SVC's one-vs-one: the predictions, not the scores
    assert np.mean(ours.predict(K) == ref.predict(K)) >= 0.98


def test_svc_attributes_with_a_gram_matrix(iris):
    _, y, _, K = iris
    est = KernelSVMClassifier(kernel="precomputed").fit(K, y)
    assert est.support_vectors_.shape == (0, K.shape[1])
    assert isinstance(est.support_vectors_, np.ndarray)
    expected = K[:, est.support_] @ est.dual_coef_.T + est.intercept_
    assert np.abs(expected - est.decision_function(K)).max() < 1e-10
    assert np.all(est.support_ >= 0)


def test_cross_validation_slices_rows_and_columns(cancer):
    """The pairwise tag makes scikit-learn's splitters take K[train][:, train]."""
    _, y, _, K = cancer
    est = KernelSVMClassifier(kernel="precomputed")
    assert get_tags(est).input_tags.pairwise
    assert not get_tags(est).input_tags.sparse
    assert not get_tags(KernelSVMClassifier()).input_tags.pairwise
    ours = cross_val_score(est, K, y, cv=3)
    ref = cross_val_score(SVC(kernel="precomputed"), K, y, cv=3)
    assert np.abs(ours - ref).max() <= 0.02


def test_probabilities_from_a_gram_matrix(iris):
    _, y, _, K = iris
    est = KernelSVMClassifier(kernel="precomputed", probability=True).fit(K, y)
    proba = est.predict_proba(K)
    assert proba.shape == (len(y), 3)
    assert np.allclose(proba.sum(axis=1), 1)
    assert np.mean(est.classes_[proba.argmax(axis=1)] == y) >= 0.9


@pytest.mark.parametrize("solver", ["sbp", "pegasos", "perceptron"])
def test_other_solvers_take_a_gram_matrix(cancer, solver):
    X, y, gamma, K = cancer
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        pre = KernelSVMClassifier(kernel="precomputed", solver=solver).fit(K, y)
        with_kernel = KernelSVMClassifier(gamma=gamma, solver=solver).fit(X, y)
    assert abs(pre.score(K, y) - with_kernel.score(X, y)) <= 0.02


def test_pickle_keeps_a_precomputed_model(cancer):
    _, y, _, K = cancer
    est = KernelSVMClassifier(kernel="precomputed").fit(K, y)
    copy = pickle.loads(pickle.dumps(est))
    assert np.array_equal(copy.decision_function(K), est.decision_function(K))


def test_bad_gram_matrices_are_refused(cancer, tmp_path):
    _, y, _, K = cancer
    with pytest.raises(ValueError, match="square n x n Gram matrix"):
        KernelSVMClassifier(kernel="precomputed").fit(K[:, :10], y)
    with pytest.raises(ValueError, match="square n x n Gram matrix"):
        KernelSVMClassifier(kernel="precomputed").partial_fit(K[:, :10], y, classes=[0, 1])
    with pytest.raises(TypeError, match="[Ss]parse"):
        KernelSVMClassifier(kernel="precomputed").fit(sp.csr_matrix(K), y)
    est = KernelSVMClassifier(kernel="precomputed").fit(K, y)
    with pytest.raises(ValueError, match="569 features"):
        est.decision_function(K[:, :10])
    for solver in ("bsca", "bsgd"):
        with pytest.raises(ValueError, match="not supported by solver"):
            KernelSVMClassifier(kernel="precomputed", solver=solver).fit(K, y)
    with pytest.raises(ValueError, match="cannot be written to a model file"):
        stochsvm.save_model(est, tmp_path / "gram.model")
    assert not (tmp_path / "gram.model").exists()
