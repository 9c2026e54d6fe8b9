"""Property-based tests (hypothesis) of the kernel SVM (``KernelSVM``) and
the scikit-learn estimators (``stochsvm.linear``, ``stochsvm.kernel``): for
random shapes, dtypes, layouts, sparse formats, label sets and parameter
values of every kind, each call either succeeds with a finite model (and
finite scores/predictions among the classes) or raises ValueError/TypeError
whose message names one of the arguments, or the documented
FloatingPointError "training diverged". The strategies are those of
tests/_strategies.py. Modest example counts (CI); derandomized.
"""

import warnings

import numpy as np
import pytest

pytest.importorskip("hypothesis")
from hypothesis import given  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from _helpers import KERNEL_SOLVERS  # noqa: E402
from _strategies import ANY_NUMBER, SETTINGS, labels, matrices, mostly  # noqa: E402
from _strategies import names_an_argument as _names_an_argument  # noqa: E402

from stochsvm import KernelSVM  # noqa: E402

KERNELS = ["linear", "rbf", "poly", "sigmoid", "precomputed"]
MAINTENANCE = ["auto", "merge", "remove", "project"]


def test_every_kernel_solver_is_listed():
    """A kernel solver added to the library must be added to KERNEL_SOLVERS in
    tests/_helpers.py (and to
    fz_kernel_solvers in tests/fuzz/fuzz_kernel_train.c, which checks itself)."""
    from stochsvm import _kernel_svm
    assert set(KERNEL_SOLVERS) == set(_kernel_svm._KSOLVERS)


def _outcome(call, names):
    try:
        call()
    except (ValueError, TypeError) as e:
        assert _names_an_argument(str(e), names), f"{type(e).__name__} names no argument: {e}"
        return "error"
    except FloatingPointError as e:
        assert "diverged" in str(e)
        return "diverged"
    return "model"


@SETTINGS
@given(data=st.data())
def test_kernel_svm_gives_a_finite_model_or_a_clear_error(data):
    X, n = data.draw(matrices(max_n=8, max_d=4))
    y = data.draw(labels(n))
    solver = data.draw(mostly(st.sampled_from(KERNEL_SOLVERS), st.sampled_from(["SBP", "", None, 2]), 9))
    kernel = data.draw(mostly(st.sampled_from(KERNELS), st.sampled_from(["gauss", None, 1]), 9))
    if kernel == "precomputed" and data.draw(st.booleans()):
        try:   # a Gram matrix of the data, when the data are numeric
            with warnings.catch_warnings(), np.errstate(all="ignore"):
                warnings.simplefilter("ignore")   # the test's own casts (complex) and inf rows
                A = np.asarray(X.toarray() if hasattr(X, "toarray") else X, dtype=np.float64)
                X = A @ A.T
        except (TypeError, ValueError):
            pass
    kw = {}
    for name, good in {"gamma": st.sampled_from([None, 0.1, 1.0, 10.0]),
                       "coef0": st.sampled_from([0.0, 1.0, -1.0]),
                       "degree": st.integers(1, 5), "seed": st.integers(0, 2 ** 64 - 1)}.items():
        if data.draw(st.booleans()):
            kw[name] = data.draw(mostly(good, ANY_NUMBER, 8))
    lam = data.draw(mostly(st.sampled_from([1e-4, 1e-2, 0.1, 1.0, 1e3]), ANY_NUMBER, 9))
    setters = []
    for name, good in {"set_budget": st.integers(1, 12), "set_nu": st.sampled_from([1e-3, 0.1, 1.0]),
                       "set_eta0": st.sampled_from([0.1, 1.0, 10.0]),
                       "set_budget_maintenance": st.sampled_from(MAINTENANCE),
                       "set_unregularized_bias": st.booleans(),
                       "set_max_num_iterations": st.integers(1, 60)}.items():
        if data.draw(st.booleans()):
            setters.append((name, data.draw(mostly(good, ANY_NUMBER, 8))))
    iterations = data.draw(st.integers(1, 60))
    names = ["X", "y", "lambda_", "solver", "kernel", "gamma", "coef0", "degree", "seed", "budget",
             "nu", "eta0", "maintenance", "budget_maintenance", "enabled", "n", "unregularized_bias",
             "max_num_iterations"]

    def call():
        svm = KernelSVM(X, y, lam, solver=solver, kernel=kernel, **kw)
        svm.set_max_num_iterations(iterations)
        for name, value in setters:
            if name == "set_max_num_iterations" and isinstance(value, (int, float, np.number)) \
                    and not isinstance(value, (bool, np.bool_)) and value > 60:
                value = 60   # capped: 3.8e16 (a float the setter accepts) ran for ever
            getattr(svm, name)(value)
        svm.train()
        beta = svm.get_coefficients()
        assert np.all(np.isfinite(beta)) and np.isfinite(svm.get_bias()), (beta, svm.get_bias())
        A = X.toarray() if hasattr(X, "toarray") else np.asarray(X, dtype=np.float64)
        scores = svm.decision_function(A)
        assert np.all(np.isfinite(scores)) or not np.all(np.isfinite(A)), scores

    _outcome(call, names)


@SETTINGS
@given(data=st.data())
def test_estimators_fit_and_predict_or_give_a_clear_error(data):
    from stochsvm.kernel import KernelSVMClassifier
    from stochsvm.linear import LinearSVMClassifier, LinearSVMRegressor
    X, n = data.draw(matrices(max_n=8, max_d=4))
    y = data.draw(labels(n))
    which = data.draw(st.sampled_from(["linear", "regressor", "kernel"]))
    params = {"max_iter": data.draw(st.integers(1, 5))}
    candidates = {"C": st.sampled_from([None, 0.1, 1.0, 100.0]), "tol": st.sampled_from([1e-3, 0.1]),
                  "random_state": st.integers(0, 2 ** 32)}
    if which == "kernel":
        candidates.update({"solver": st.sampled_from(["sdca", "pegasos", "sbp", "perceptron"]),
                           "kernel": st.sampled_from(["rbf", "linear", "poly", "sigmoid"]),
                           "gamma": st.sampled_from([None, 0.5, 2.0])})
    else:
        candidates["solver"] = st.sampled_from(["sdca", "sgd", "svmsgd2", "sgdqn"])
    for name, good in candidates.items():
        if data.draw(st.booleans()):
            params[name] = data.draw(mostly(good, ANY_NUMBER, 8))
    cls = {"linear": LinearSVMClassifier, "regressor": LinearSVMRegressor,
           "kernel": KernelSVMClassifier}[which]
    # scikit-learn's own validation messages (check_X_y, check_classification_targets)
    # do not always name the argument: the ones below are accepted as clear.
    sklearn_messages = ("inconsistent numbers of samples", "at least 2 classes",
                        "Unknown label type", "features, but", "Found array with 0 sample",
                        "Found array with 0 feature", "Complex data not supported")

    def call():
        est = cls(**params)
        with warnings.catch_warnings():   # ConvergenceWarning after a few epochs is expected
            warnings.simplefilter("ignore")
            est.fit(X, y)
        pred = est.predict(X)
        assert len(pred) == n
        if which == "regressor":
            assert np.all(np.isfinite(pred)) or not np.all(np.isfinite(np.asarray(y, dtype=float)))
        else:
            assert set(np.asarray(pred).tolist()) <= set(est.classes_.tolist())
            assert np.all(np.isfinite(est.decision_function(X)))

    try:
        _outcome(call, ["X", "y"] + list(params))
    except AssertionError as e:
        if not any(m in str(e) for m in sklearn_messages):
            raise
