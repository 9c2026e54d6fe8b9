"""KernelSVMClassifier's SVC-style attributes: one expansion over the union
of the outputs' support vectors that reproduces decision_function exactly,
with training indices, for dense and sparse data, binary and one-vs-rest."""

import numpy as np
import pytest
import scipy.sparse as sp

pytest.importorskip("sklearn")
from sklearn.exceptions import NotFittedError  # noqa: E402
from sklearn.metrics.pairwise import rbf_kernel  # noqa: E402

from stochsvm import KernelSVMClassifier  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")


def _data(classes, n=150, seed=0):
    rng = np.random.default_rng(seed)
    k = np.arange(n) % classes
    X = rng.normal(size=(classes, 3))[k] * 1.5 + rng.normal(size=(n, 3))
    return X, k


@pytest.mark.parametrize("classes", [2, 3])
@pytest.mark.parametrize("sparse", [False, True])
def test_attributes_reproduce_the_decision_function(classes, sparse):
    X, y = _data(classes)
    Xfit = sp.csr_matrix(X) if sparse else X
    clf = KernelSVMClassifier(kernel="rbf", gamma=0.3, C=2.0).fit(Xfit, y)
    S, coef, b = clf.support_vectors_, clf.dual_coef_, clf.intercept_
    assert sp.issparse(S) == sparse
    outputs = 1 if classes == 2 else classes
    assert coef.shape == (outputs, S.shape[0]) and b.shape == (outputs,)
    assert np.all(clf.support_ >= 0)                         # no budget: training rows
    np.testing.assert_array_equal(np.asarray(S.todense() if sparse else S), X[clf.support_])
    scores = rbf_kernel(X, np.asarray(S.todense() if sparse else S), gamma=0.3) @ coef.T + b
    expected = clf.decision_function(X)
    np.testing.assert_allclose(scores, expected.reshape(len(X), -1), rtol=1e-10, atol=1e-10)
    assert S.shape[0] <= clf.n_support_.sum()


def test_unfitted_attributes_raise_not_fitted():
    clf = KernelSVMClassifier()
    for name in ("support_vectors_", "support_", "dual_coef_", "intercept_"):
        with pytest.raises(NotFittedError):
            getattr(clf, name)
        assert not hasattr(clf, name)
