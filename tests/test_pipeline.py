"""The estimators inside scikit-learn Pipelines with its scalers, as
docs/preparing_data.rst shows: the scaler is fitted on the training data only,
sparse input stays sparse through MaxAbsScaler, and scaling rescues a problem
whose columns span six orders of magnitude."""

import numpy as np
import pytest
import scipy.sparse as sp

pytest.importorskip("sklearn")
from sklearn.model_selection import cross_val_score  # noqa: E402
from sklearn.pipeline import make_pipeline  # noqa: E402
from sklearn.preprocessing import MaxAbsScaler, MinMaxScaler, StandardScaler  # noqa: E402

from stochsvm import KernelSVMClassifier, LinearSVMClassifier  # noqa: E402

# Whether a fit converged is not what these tests are about (the raw,
# badly scaled fits do not).
pytestmark = pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")


def _badly_scaled(n=600, seed=0):
    """Two informative columns, one of them multiplied by 1e6, and a circle
    boundary for the kernel case."""
    rng = np.random.default_rng(seed)
    Z = rng.uniform(-1, 1, size=(n, 2))
    y_linear = np.where(Z[:, 0] + Z[:, 1] > 0, 1, -1)
    y_circle = np.where((Z ** 2).sum(axis=1) < 0.5, 1, -1)
    X = Z * np.array([1e6, 1.0])
    return X, y_linear, y_circle


def test_linear_pipeline_with_standard_scaler_beats_raw_data():
    X, y, _ = _badly_scaled()
    raw = LinearSVMClassifier(C=1.0, max_iter=20)
    scaled = make_pipeline(StandardScaler(), LinearSVMClassifier(C=1.0, max_iter=20))
    raw_score = cross_val_score(raw, X, y, cv=3).mean()
    scaled_score = cross_val_score(scaled, X, y, cv=3).mean()
    assert scaled_score > 0.95
    assert scaled_score > raw_score + 0.1


def test_kernel_pipeline_with_minmax_scaler_beats_raw_data():
    X, _, y = _badly_scaled(400)
    raw = KernelSVMClassifier(kernel="rbf", gamma=2.0, C=10.0)
    scaled = make_pipeline(MinMaxScaler((-1, 1)), KernelSVMClassifier(kernel="rbf", gamma=2.0,
                                                                        C=10.0))
    raw_score = cross_val_score(raw, X, y, cv=3).mean()
    scaled_score = cross_val_score(scaled, X, y, cv=3).mean()
    assert scaled_score > 0.9
    assert scaled_score > raw_score + 0.1


def test_sparse_pipeline_keeps_csr_and_matches_manual_scaling():
    X, y, _ = _badly_scaled()
    X[np.abs(X) < np.array([3e5, 0.3])] = 0.0
    Xs = sp.csr_matrix(X)
    pipe = make_pipeline(MaxAbsScaler(), LinearSVMClassifier(C=1.0, max_iter=20)).fit(Xs, y)
    scaled = pipe[0].transform(Xs)
    assert sp.issparse(scaled)
    manual = LinearSVMClassifier(C=1.0, max_iter=20).fit(scaled, y)
    np.testing.assert_allclose(pipe[-1].coef_, manual.coef_)
    np.testing.assert_array_equal(pipe.predict(Xs), manual.predict(scaled))
