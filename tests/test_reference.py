"""SGD against an exact optimum computed by LIBLINEAR, on a9a.

LIBLINEAR with ``-B 1 -c C`` minimizes 1/2 ||w~||^2 + C sum_i loss_i, with
w~ = (w, b) (the bias is regularized). With C = 1/(lambda n) this is
(1/(lambda n)) [lambda/2 ||w~||^2 + 1/n sum_i loss_i], our objective with bias
multiplier 1, so both have the same minimizer. Both objectives are computed
here, in numpy, from the returned models with the same formula.

Needs $STOCHSVM_DATA/a9a.{train,test}.xz and liblinear-official. Without them
the tests skip, unless STOCHSVM_REQUIRE_DATA=1, when they fail.
"""

import os

import numpy as np
import pytest

import stochsvm
from stochsvm.datasets import load_benchmark

EPOCHS = 20
TOLERANCE = 0.02  # relative excess of our objective over the optimum


def _unavailable(reason):
    if os.environ.get("STOCHSVM_REQUIRE_DATA") == "1":
        pytest.fail(f"STOCHSVM_REQUIRE_DATA=1 but {reason}")
    pytest.skip(reason)


@pytest.fixture(scope="module")
def a9a():
    folder = os.environ.get("STOCHSVM_DATA")
    if not folder:
        _unavailable("STOCHSVM_DATA is not set (point it at the shared data folder with a9a)")
    if not os.path.isfile(os.path.join(folder, "a9a.train.xz")):
        _unavailable(f"$STOCHSVM_DATA/a9a.train.xz is missing (STOCHSVM_DATA={folder!r})")
    X, y, _, _ = load_benchmark("a9a", cache=False)
    return X, y


@pytest.fixture(scope="module")
def liblinear(a9a):
    try:
        from liblinear import liblinearutil
    except ImportError:
        _unavailable("liblinear-official is not installed (pip install liblinear-official)")
    X, y = a9a
    Xi = X.copy()
    Xi.indices = Xi.indices.astype(np.int32)
    Xi.indptr = Xi.indptr.astype(np.int32)
    prob = liblinearutil.problem(y.copy(), Xi)
    cache = {}

    def solve(solver, lam):
        key = (solver, lam)
        if key not in cache:
            C = 1.0 / (lam * X.shape[0])
            model = liblinearutil.train(prob, liblinearutil.parameter(
                f"-s {solver} -B 1 -c {C!r} -e 1e-6 -q"))
            w, b = model.get_decfun()
            w = np.asarray(w, dtype=np.float64)
            if model.get_labels()[0] != 1:  # decision values are for the first label
                w, b = -w, -b
            cache[key] = (w, float(b))
        return cache[key]

    return solve


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


# LIBLINEAR solvers for each loss: -s 3 L2-reg L1-loss SVC (dual), -s 1 L2-loss
# SVC (dual), -s 2 L2-loss SVC (primal), -s 0 logistic regression (primal).
SOLVERS = {"hinge": (3,), "hinge2": (1, 2), "logistic": (0,)}


def _lambda(spec, n):
    return 1.0 / n if spec == "1/n" else float(spec)


def _train_sgd(X, y, lam, loss, epochs=EPOCHS):
    n = X.shape[0]
    svm = stochsvm.SVM(X, y, lam, solver="sgd", seed=0)
    svm.set_loss(loss)
    svm.set_bias_multiplier(1.0)
    svm.set_epsilon(0.0)
    svm.set_max_num_iterations(epochs * n)
    stats = svm.train()
    return svm, stats


def _excess(a9a, liblinear, loss, lam, epochs=EPOCHS):
    """Relative excess of our objective after `epochs` over LIBLINEAR's optimum."""
    X, y = a9a
    references = [objective(X, y, *liblinear(s, lam), lam, loss) for s in SOLVERS[loss]]
    # Two LIBLINEAR solvers of one problem must agree: the reference is exact.
    assert max(references) - min(references) <= 1e-4 * min(references), references
    best = min(references)
    try:
        svm, stats = _train_sgd(X, y, lam, loss, epochs)
    except FloatingPointError as exc:
        pytest.fail(f"a9a, {loss}, lambda={lam:.6g}: SGD diverged with the default step sizes "
                    f"({exc}); LIBLINEAR's optimum is {best:.6f}")
    ours = objective(X, y, svm.get_model(), svm.get_bias(), lam, loss)
    # The statistics report the same objective as numpy.
    assert stats["objective"] == pytest.approx(ours, rel=1e-9)
    assert stats["iteration"] == epochs * X.shape[0]
    # Sanity: the optimum is below any model's objective, ours included.
    assert ours >= best - 1e-6
    return ours, best, ours / best - 1.0


@pytest.mark.parametrize("loss", ["hinge", "hinge2", "logistic"])
def test_sgd_reaches_liblinear_optimum(a9a, liblinear, loss):
    """The issue's check: within 2% of the exact optimum after 20 epochs.

    At lambda = 1e-3 (measured, seeds 0-2: hinge +0.17%, squared hinge up to
    +1.2%, logistic +0.07%). At smaller lambda plain Pegasos needs more epochs:
    see test_sgd_small_lambda_shortfall_is_bounded.
    """
    lam = 1e-3
    ours, best, excess = _excess(a9a, liblinear, loss, lam)
    assert excess <= TOLERANCE, (
        f"a9a, {loss}, lambda={lam:.6g}: SGD objective after {EPOCHS} epochs {ours:.6f} is "
        f"{100 * excess:.2f}% above LIBLINEAR's {best:.6f} (allowed {100 * TOLERANCE:.0f}%)")


# At lambda = 1e-4 and 1/n the 2% goal is NOT met after 20 epochs by the
# last iterate of Pegasos SGD (its suboptimality decays like 1/(lambda t)).
# Measured with seeds 0, 1, 2 (20 epochs): hinge 1e-4 +4.8/+3.0/+6.9%,
# 1/n +8.7/+10.6/+12.2%; squared hinge 1e-4 +11.5/+17.1/+8.5%, 1/n
# +29/+50/+22%; logistic 1e-4 +0.3/+0.6/+0.9%, 1/n +2.0/+2.5/+2.8%. VLFeat's
# SGD and scikit-learn's SGDClassifier are in the same range for the hinge
# (anchors-measured.md: +2.6% and +3.8% at 1e-4). This test guards those
# figures against regressions with bounds of about 1.5x the worst seed.
SMALL_LAMBDA_BOUNDS = {
    ("1e-4", "hinge"): 0.10, ("1/n", "hinge"): 0.18,
    ("1e-4", "hinge2"): 0.25, ("1/n", "hinge2"): 0.75,
    ("1e-4", "logistic"): 0.015, ("1/n", "logistic"): 0.045,
}


@pytest.mark.parametrize("loss", ["hinge", "hinge2", "logistic"])
@pytest.mark.parametrize("lam_spec", ["1e-4", "1/n"])
def test_sgd_small_lambda_shortfall_is_bounded(a9a, liblinear, loss, lam_spec):
    X, _ = a9a
    lam = _lambda(lam_spec, X.shape[0])
    bound = SMALL_LAMBDA_BOUNDS[(lam_spec, loss)]
    ours, best, excess = _excess(a9a, liblinear, loss, lam)
    assert excess <= bound, (
        f"a9a, {loss}, lambda={lam:.6g}: SGD objective after {EPOCHS} epochs {ours:.6f} is "
        f"{100 * excess:.2f}% above LIBLINEAR's {best:.6f}; it was at most "
        f"{100 * bound / 1.5:.0f}% when measured")
