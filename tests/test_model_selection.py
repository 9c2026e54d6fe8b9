"""stochsvm.model_selection: stratified seeded folds and grid.py's log2 ranges."""

import numpy as np
import pytest

from stochsvm.model_selection import log2_range, stratified_folds


@pytest.mark.parametrize("k", [2, 3, 5, 10])
def test_folds_are_stratified_balanced_and_seeded(k):
    rng = np.random.default_rng(1)
    y = rng.choice([1, 2, 7], size=503, p=[0.6, 0.3, 0.1])
    folds = stratified_folds(y, k, seed=4)
    assert folds.shape == y.shape and set(folds) == set(range(k))
    sizes = np.bincount(folds, minlength=k)
    assert sizes.max() - sizes.min() <= 1
    for c in np.unique(y):
        per_fold = np.bincount(folds[y == c], minlength=k)
        assert per_fold.max() - per_fold.min() <= 1, (c, per_fold)
    np.testing.assert_array_equal(folds, stratified_folds(y, k, seed=4))
    assert not np.array_equal(folds, stratified_folds(y, k, seed=5))


def test_unstratified_folds_for_regression():
    y = np.linspace(0, 1, 101)
    folds = stratified_folds(y, 4, seed=0, stratify=False)
    assert np.bincount(folds).tolist() == [26, 25, 25, 25]


def test_nan_labels_are_refused_not_given_garbage_folds():
    """np.unique merges NaNs but y == nan matches none: their folds were
    never written (uninitialised numbers such as 4611686018427387904)."""
    y = np.array([1.0, np.nan, np.nan, 2.0])
    with pytest.raises(ValueError, match=r"y has 2 NaN labels \(the first at index 1\)"):
        stratified_folds(y, 2)
    folds = stratified_folds(y, 2, stratify=False)   # regression targets: any values
    assert sorted(folds.tolist()) == [0, 0, 1, 1]
    assert stratified_folds(np.array(["a", "b", "a", "b"], dtype=object), 2).max() == 1


@pytest.mark.parametrize("k", [1, 0, 11, 2.0, True, "3"])
def test_bad_fold_counts(k):
    with pytest.raises(ValueError, match="k must be an integer in"):
        stratified_folds(np.arange(10) % 2, k)


def test_log2_ranges_as_grid_py():
    assert log2_range("-5,15,2") == [-5, -3, -1, 1, 3, 5, 7, 9, 11, 13, 15]
    assert log2_range("3,-15,-2") == [3, 1, -1, -3, -5, -7, -9, -11, -13, -15]
    assert log2_range("0,1,0.5") == [0, 0.5, 1]
    assert log2_range("0,5,2") == [0, 2, 4]
    assert log2_range("4") == [4]


@pytest.mark.parametrize("spec", ["1,2", "a,b,c", "1,5,0", "1,5,-1", "0,1e9,1", "nan,1,1"])
def test_bad_log2_ranges_name_the_option(spec):
    with pytest.raises(ValueError, match="--log2c"):
        log2_range(spec, "--log2c")
