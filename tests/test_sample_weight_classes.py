"""Weights that leave fewer than 2 classes: fit refuses them (as SVC does)
instead of training a one-class model in silence; a class weighted 0 among 3
or more is never predicted, and fit says so."""

import numpy as np
import pytest

from stochsvm import KernelSVMClassifier, LinearSVMClassifier

ESTIMATORS = [LinearSVMClassifier, KernelSVMClassifier]


def _data(classes=2, n=60, seed=0):
    rng = np.random.default_rng(seed)
    y = np.arange(n) % classes
    X = rng.normal(size=(n, 4)) + y[:, None]
    return X, y


@pytest.mark.parametrize("estimator", ESTIMATORS)
def test_weights_on_one_class_are_refused(estimator):
    X, y = _data()
    with pytest.raises(ValueError, match=r"positive weight on 1 class \(1\)"):
        estimator().fit(X, y, sample_weight=(y == 1).astype(float))


@pytest.mark.parametrize("estimator", ESTIMATORS)
def test_class_weight_zero_on_one_of_two_classes_is_refused(estimator):
    X, y = _data()
    with pytest.raises(ValueError, match="at least 2 classes with weight > 0"):
        estimator(class_weight={0: 0.0, 1: 1.0}).fit(X, y)


@pytest.mark.parametrize("estimator", ESTIMATORS)
def test_a_class_weighted_zero_among_three_warns(estimator):
    X, y = _data(classes=3, n=90)
    with pytest.warns(UserWarning, match=r"classes \[2\] a total weight of 0"):
        model = estimator().fit(X, y, sample_weight=(y != 2).astype(float))
    assert 2 not in set(model.predict(X))


@pytest.mark.parametrize("estimator", ESTIMATORS)
def test_positive_weights_on_both_classes_train(estimator):
    X, y = _data()
    weights = np.where(np.arange(len(y)) < 10, 0.0, 1.0)   # zeros on both classes
    model = estimator().fit(X, y, sample_weight=weights)
    assert set(model.predict(X)) == {0, 1}
