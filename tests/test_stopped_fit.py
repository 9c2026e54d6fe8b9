"""A fit or partial_fit stopped by Ctrl+C (stochsvm._stopped_fit): the
KeyboardInterrupt propagates, and the estimator is left unfitted (a cold
call) or fitted with the SVMs as they stand (a warm call), never half-fitted.

A fresh KernelSVMClassifier interrupted during fit used to keep classes_ and
its SVMs: predict answered with the interrupted model and check_is_fitted
passed, while stop_reasons_, n_iter_ and n_support_ were missing. Ctrl+C is
played by a KeyboardInterrupt of an SVM's diagnostic function (what train()
does with Ctrl+C: it stops and raises it, the model kept)."""

import numpy as np
import pytest
from sklearn.exceptions import NotFittedError

import stochsvm

ESTIMATORS = {
    "linear": lambda: stochsvm.LinearSVMClassifier(solver="sgd", max_iter=4, tol=0),
    "regressor": lambda: stochsvm.LinearSVMRegressor(solver="sgd", max_iter=4, tol=0),
    "kernel": lambda: stochsvm.KernelSVMClassifier(solver="pegasos", max_iter=4, tol=0),
}


def _data(kind):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 4))
    if kind == "regressor":
        return X, X @ [1.0, -2.0, 0.5, 0.0] + 0.1 * rng.normal(size=300)
    return X, np.digitize(X[:, 0] + 0.3 * X[:, 1], [-0.5, 0.5])   # 3 classes


def _interrupt(svm, at=2):
    """Ctrl+C at the ``at``-th diagnostic of ``svm``'s next run."""
    calls = []

    def diagnostic(stats):
        calls.append(stats["iteration"])
        if len(calls) == at:
            raise KeyboardInterrupt

    svm.set_diagnostic_function(diagnostic)


@pytest.fixture
def interrupt_made_svm(monkeypatch):
    """Ctrl+C at the ``at``-th diagnostic of the ``k``-th SVM the estimator
    makes next (one-vs-rest: the classes train in turn, the 2nd class here)."""

    def arm(estimator, k, at=2):
        made = []
        new_svm = type(estimator)._new_svm

        def making(self, *args):
            svm = new_svm(self, *args)
            made.append(svm)
            if len(made) == k:
                _interrupt(svm, at)
            return svm

        monkeypatch.setattr(type(estimator), "_new_svm", making)

    return arm


def _assert_unfitted(estimator, X):
    params = estimator.get_params(deep=False)
    assert [a for a in vars(estimator) if a not in params] == []
    with pytest.raises(NotFittedError):
        estimator.predict(X[:3])


@pytest.mark.parametrize("kind", list(ESTIMATORS))
def test_an_interrupted_fresh_fit_leaves_the_estimator_unfitted(kind, interrupt_made_svm):
    X, y = _data(kind)
    k = 1 if kind == "regressor" else 2
    estimator = ESTIMATORS[kind]()
    interrupt_made_svm(estimator, k)
    with pytest.raises(KeyboardInterrupt):
        estimator.fit(X, y)
    _assert_unfitted(estimator, X)
    # a fresh fit of an estimator fitted before: unfitted too (not the old
    # classes_ with half-trained SVMs)
    estimator.fit(X, y)
    interrupt_made_svm(estimator, k)   # the next fit's k-th SVM
    with pytest.raises(KeyboardInterrupt):
        estimator.fit(X, y)
    _assert_unfitted(estimator, X)
    # and the first partial_fit
    interrupt_made_svm(estimator, k, at=1)   # (its one epoch: one diagnostic)
    with pytest.raises(KeyboardInterrupt):
        if kind == "regressor":
            estimator.partial_fit(X, y)
        else:
            estimator.partial_fit(X, y, classes=np.unique(y))
    _assert_unfitted(estimator, X)
    # it fits again as a fresh estimator does
    estimator.fit(X, y)
    assert len(estimator.predict(X[:3])) == 3


@pytest.mark.parametrize("kind", list(ESTIMATORS))
@pytest.mark.parametrize("call", ["warm fit", "partial_fit"])
def test_an_interrupted_warm_call_leaves_a_complete_fit(kind, call):
    X, y = _data(kind)
    estimator = ESTIMATORS[kind]().set_params(warm_start=call == "warm fit")
    if call == "warm fit":
        estimator.fit(X, y)
    else:
        estimator.partial_fit(X, y, **({} if kind == "regressor" else {"classes": np.unique(y)}))
    svms = estimator._svms
    k = 0 if kind == "regressor" else 1
    _interrupt(svms[k], at=2 if call == "warm fit" else 1)
    start = [svm.get_iteration_number() for svm in svms]
    with pytest.raises(KeyboardInterrupt):
        estimator.fit(X, y) if call == "warm fit" else estimator.partial_fit(X, y)
    # the stopped SVM and those after it (not begun) say so; the first finished
    reasons = estimator.stop_reasons_.tolist()
    assert reasons[k:] == ["interrupted"] * (len(svms) - k), reasons
    assert "interrupted" not in reasons[:k]
    assert estimator._svms is svms and estimator.n_iter_ >= 1
    assert svms[k].get_iteration_number() > start[k]   # the progress made is kept
    if kind == "kernel":
        assert estimator.n_support_.tolist() == [s.get_num_support_vectors() for s in svms]
    else:   # coef_ is the SVMs' model as it stands
        coef = np.atleast_2d(estimator.coef_)
        for row, svm in zip(coef, svms):
            np.testing.assert_array_equal(row, svm.get_model())
    assert len(estimator.predict(X[:3])) == 3
    # the next warm call continues from there
    svms[k].set_diagnostic_function(None)
    estimator.fit(X, y) if call == "warm fit" else estimator.partial_fit(X, y)
    assert "interrupted" not in estimator.stop_reasons_.tolist()


@pytest.mark.parametrize("kind", list(ESTIMATORS))
def test_a_warm_call_stopped_by_an_error_leaves_the_estimator_unfitted(kind):
    # an error (here the diagnostic function's; a diverged run's
    # FloatingPointError leaves a non-finite model) leaves nothing to continue
    X, y = _data(kind)
    estimator = ESTIMATORS[kind]().set_params(warm_start=True).fit(X, y)

    def failing(stats):
        raise RuntimeError("the diagnostic failed")

    estimator._svms[0].set_diagnostic_function(failing)
    with pytest.raises(RuntimeError, match="the diagnostic failed"):
        estimator.fit(X, y)
    _assert_unfitted(estimator, X)


@pytest.mark.parametrize("kind", list(ESTIMATORS))
def test_a_warm_call_refused_before_a_step_keeps_the_fit(kind):
    # train() refuses a row whose squared norm overflows before any step:
    # no model changed, so the fit stands (it used to be removed)
    X, y = _data(kind)
    estimator = ESTIMATORS[kind]().set_params(warm_start=True).fit(X, y)
    before = estimator.predict(X)
    bad = X.copy()
    bad[3] = 1e308
    for call in (estimator.fit, estimator.partial_fit):
        with pytest.raises(ValueError, match="squared norm"):
            call(bad, y)
        np.testing.assert_array_equal(estimator.predict(X), before)
        assert "interrupted" not in estimator.stop_reasons_.tolist()
