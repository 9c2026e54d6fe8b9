"""Exact references from LIBLINEAR on the shared benchmark data, for the tests.

LIBLINEAR with ``-B 1 -c C`` minimizes 1/2 ||w~||^2 + C sum_i loss_i, with
w~ = (w, b) (the bias is regularized). With C = 1/(lambda n) this is
(1/(lambda n)) [lambda/2 ||w~||^2 + 1/n sum_i loss_i], our objective with bias
multiplier 1, so both have the same minimizer. :func:`objective` computes it
in numpy from any (w, b), the same way for every solver.

LIBLINEAR's dual coordinate-descent solvers (-s 1, 3, 7) stop after 1000
passes whatever eps asks, and liblinear-official has no option to raise that
cap. At eps 1e-9 -s 3 ends on it on every problem the tests ask it about
(breast cancer, a9a, w8a, one-hot rows: there at 2.1-2.5x the optimum for
C = 128; raw wine at C = 100: 25x even after a million passes of the same
solver without the cap), and where it ends depends on the process's rand()
state, which the tests that ran before in the same worker leave behind. So
for an optimum (eps <= 1e-6) :func:`liblinear` runs these solvers elsewhere:
the hinge (-s 3) on up to 5,000 rows by Newton's method on the primal with a
certified dual bound (stochsvm._reference, numpy only; it fails unless the
bound is within 1e-5: raw breast cancer at C = 1000 is at 1.4e-6), on more
rows (the LIBSVM sets, scaled) and the other two by scikit-learn's copy of
LIBLINEAR, which takes max_iter: to eps with no cap, failing if it reports
it did not converge. At a looser eps the tests ask what LIBLINEAR itself
does, and get it.

Missing data or liblinear-official skips the test, unless
STOCHSVM_REQUIRE_DATA=1, when it fails.
"""

import os
import warnings

import numpy as np
import pytest
import scipy.sparse as sp

from stochsvm._testing import load_benchmark

_DATA = {}


def unavailable(reason):
    if os.environ.get("STOCHSVM_REQUIRE_DATA") == "1":
        pytest.fail(f"STOCHSVM_REQUIRE_DATA=1 but {reason}")
    pytest.skip(reason)


def benchmark(name):
    """(X, y) of a benchmark's training file, loaded once per session."""
    folder = os.environ.get("STOCHSVM_DATA")
    if not folder:
        unavailable(f"STOCHSVM_DATA is not set (point it at the shared data folder with {name})")
    if not os.path.isfile(os.path.join(folder, f"{name}.train.xz")):
        unavailable(f"$STOCHSVM_DATA/{name}.train.xz is missing (STOCHSVM_DATA={folder!r})")
    if name not in _DATA:
        X, y, _, _ = load_benchmark(name, cache=False)
        _DATA[name] = (X, y)
    return _DATA[name]


def liblinear(X, y, solver, lam, eps):
    """(w, b) of LIBLINEAR ``-s solver -B 1 -c 1/(lam n) -e eps``; for
    -s 1, 3, 7 at eps <= 1e-6 the same optimum reached without LIBLINEAR's
    iteration cap (the module's docstring)."""
    C = 1.0 / (lam * X.shape[0])
    if solver == 3 and eps <= 1e-6 and X.shape[0] <= 5000:
        return _hinge_by_newton(X, y, lam)
    if solver in (1, 3, 7) and eps <= 1e-6:
        return _dual_coordinate_descent(X, y, solver, C, eps)
    try:
        from liblinear import liblinearutil
    except ImportError:
        unavailable("liblinear-official is not installed (pip install liblinear-official)")
    Xi = X.copy()
    Xi.indices = Xi.indices.astype(np.int32)
    Xi.indptr = Xi.indptr.astype(np.int32)
    prob = liblinearutil.problem(y.copy(), Xi)
    model = liblinearutil.train(prob, liblinearutil.parameter(f"-s {solver} -B 1 -c {C!r} -e {eps!r} -q"))
    w, b = model.get_decfun()
    w = np.asarray(w, dtype=np.float64)
    if model.get_labels()[0] != 1:  # decision values are for the first label
        w, b = -w, -b
    return w, float(b)


def _hinge_by_newton(X, y, lam):
    """The hinge's (w, b) by stochsvm._reference.newton_model, whose dual
    bound must certify it to 1e-5 relative."""
    from stochsvm._reference import linear_objective, newton_model

    w, b, lower = newton_model(X, y, lam, "hinge")
    P = linear_objective(X, y, w, b, lam, "hinge")
    assert P - lower <= 1e-5 * P, f"the Newton oracle is not certified: P = {P!r}, bound {lower!r}"
    return w, b


def _dual_coordinate_descent(X, y, solver, C, eps):
    """LIBLINEAR's -s 1 / 3 / 7 through scikit-learn, without the iteration
    cap (module docstring); the bias a regularized feature of value 1 as
    with -B 1 (``intercept_scaling=1``), the order of coordinates seeded."""
    from sklearn.exceptions import ConvergenceWarning
    from sklearn.linear_model import LogisticRegression
    from sklearn.svm import LinearSVC

    options = dict(C=C, tol=eps, max_iter=10**8, random_state=0, fit_intercept=True, intercept_scaling=1.0)
    if solver == 7:
        model = LogisticRegression(solver="liblinear", dual=True, **options)
    else:
        model = LinearSVC(loss="hinge" if solver == 3 else "squared_hinge", dual=True, **options)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        model.fit(X, y)
    assert list(model.classes_) == [-1.0, 1.0], model.classes_  # coef_ is then the class +1's
    return np.asarray(model.coef_, dtype=np.float64).ravel(), float(model.intercept_[0])


def objective(X, y, w, b, lam, loss):
    """lambda/2 (||w||^2 + b^2) + mean loss(y (Xw + b)): bias multiplier 1."""
    z = y * (X @ w + b)
    if loss == "hinge":
        values = np.maximum(0.0, 1.0 - z)
    elif loss == "hinge2":
        values = np.maximum(0.0, 1.0 - z) ** 2
    else:
        values = np.logaddexp(0.0, -z)
    return 0.5 * lam * (w @ w + b * b) + values.mean()


def one_hot(n, features=8, levels=5, seed=0):
    """A one-hot data set (CSR, 0/1 values) with labels from a noisy linear rule."""
    rng = np.random.default_rng(seed)
    codes = rng.integers(0, levels, size=(n, features))
    cols = (codes + levels * np.arange(features)).ravel()
    rows = np.repeat(np.arange(n), features)
    X = sp.csr_matrix((np.ones(n * features), (rows, cols)), shape=(n, features * levels))
    score = X @ rng.normal(size=features * levels) + 0.3 * rng.normal(size=n)
    y = np.where(score > np.median(score), 1.0, -1.0)
    return X, y
