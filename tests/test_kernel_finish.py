"""The kernel SDCA finish (src/core/kernel/kernel_finish.c): at large C on
raw (unscaled) data, kernel Pegasos and the SBP stop on their default caps
well above the optimum (wine at C = 1000: 1.14x and 1.28x, with a
ConvergenceWarning); at their defaults they now hand over to exact kernel
SDCA and reach the optimum, certified, without a warning.

Oracles: SVC at tol 1e-8 for the problem with LIBSVM's unregularized bias
(the SBP's and BSCA's default), the bias-free dual solved by scipy's
L-BFGS-B for the bias-free one (Pegasos, BSGD: SVC has no bias-free form).
Both in C units: P_C(f) = 1/2 ||w||^2 + C sum_i c_i hinge_i, our P over
lambda."""
import warnings

import numpy as np
import pytest
from scipy.optimize import minimize
from sklearn.datasets import load_breast_cancer, load_wine
from sklearn.exceptions import ConvergenceWarning
from sklearn.metrics.pairwise import rbf_kernel
from sklearn.svm import SVC

import stochsvm
from stochsvm import KernelSVMClassifier


def _data(name):
    X, y = (load_wine if name == "wine" else load_breast_cancer)(return_X_y=True)
    return X, np.where(y == y[0], 1.0, -1.0)


def _gamma(X):
    return 1.0 / (X.shape[1] * X.var())  # the estimators' gamma="scale"


def _svc_dual(X, y, C, weights=None):
    """D* of LIBSVM's problem (with the bias), from SVC at tol 1e-8."""
    g = _gamma(X)
    svc = SVC(C=C, gamma=g, tol=1e-8).fit(X, y, sample_weight=weights)
    c = svc.dual_coef_[0]
    K = rbf_kernel(svc.support_vectors_, gamma=g)
    return np.abs(c).sum() - 0.5 * c @ K @ c


def _bias_free_dual(X, y, C, weights=None):
    """D* of the bias-free problem: max 1'a - 1/2 a'Qa, 0 <= a_i <= c_i C."""
    Q = rbf_kernel(X, gamma=_gamma(X)) * np.outer(y, y)
    box = C * (np.ones(len(y)) if weights is None else weights)
    r = minimize(lambda a: (0.5 * a @ Q @ a - a.sum(), Q @ a - 1), np.zeros(len(y)), jac=True,
                 method="L-BFGS-B", bounds=list(zip(np.zeros(len(y)), box)),
                 options=dict(ftol=1e-15, gtol=1e-12, maxiter=100000, maxfun=100000))
    return -r.fun


def _fit(solver, X, y, C, **kw):
    fit = kw.pop("fit", {})
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        est = KernelSVMClassifier(solver=solver, C=C, **kw).fit(X, y, **fit)
    return est, [w for w in caught if issubclass(w.category, ConvergenceWarning)]


def _objective_C(est, n, C):
    return est._stats[0]["primal_objective"] * C * n  # P / lambda


@pytest.mark.parametrize("name,C", [("wine", 1000.0), ("breast_cancer", 100.0)])
@pytest.mark.parametrize("solver", ["pegasos", "sbp"])
def test_defaults_reach_the_oracle_certified(name, C, solver):
    X, y = _data(name)
    est, caught = _fit(solver, X, y, C)
    st = est._stats[0]
    assert st["status"] == "converged" and st["finish_epochs"] > 0, st
    assert not caught, [str(w.message) for w in caught]
    bias = solver == "sbp"  # the estimator's defaults: the SBP with the bias, Pegasos without
    assert est._svms[0].get_unregularized_bias() == bias
    optimum = _svc_dual(X, y, C) if bias else _bias_free_dual(X, y, C)
    ratio = _objective_C(est, len(y), C) / optimum
    assert 1 - 1e-6 <= ratio <= 1 + 1e-3, ratio
    if not bias:
        assert est._svms[0].get_bias() == 0


@pytest.mark.parametrize("name,C", [("wine", 1000.0), ("breast_cancer", 100.0)])
def test_bias_free_coordinate_sdca_hands_over_at_its_first_diagnostic(name, C):
    """The bias-free kernel SDCA object at its defaults (Hsieh et al.'s
    random coordinate steps: the C object's default form) ends on its
    default cap far from the optimum at a large C (1.30x on breast cancer at
    C = 100). Under that cap it hands over to the exact solver's bias-free
    mode at its first diagnostic short of the gap (after one epoch; it used
    to spend the whole cap first, many times the finish's cost), and its
    dual variables become the finish's: the model's scores are K (alpha y),
    and a further train call continues from them."""
    X, y = _data(name)
    n = len(y)
    g = _gamma(X)
    svm = stochsvm.KernelSVM(X, y, 1 / (C * n), solver="sdca", gamma=g)
    assert not svm.get_unregularized_bias()
    st = svm.train()
    _check_certified(st, _bias_free_dual(X, y, C), n, C)
    assert st["iteration"] == n and st["finish_epochs"] > 0, st
    alpha = svm.get_dual_variables()
    assert np.all(alpha >= 0) and np.all(alpha <= C)
    scores = rbf_kernel(X, gamma=g) @ (alpha * y)
    assert np.allclose(svm.decision_function(X), scores, rtol=1e-9, atol=1e-9 * np.abs(scores).max())
    again = svm.train()  # straight to the finish, which kept this optimum
    assert again["status"] == "converged"
    assert again["duality_gap"] <= 1e-3 * again["dual_objective"], again
    assert again["primal_objective"] <= st["primal_objective"] * (1 + 1e-3)
    # the finish off (or a cap of the caller's): the coordinate run alone, short of the gap
    off = stochsvm.KernelSVM(X, y, 1 / (C * n), solver="sdca", gamma=g)
    off.set_sdca_finish(False)
    st_off = off.train()
    assert st_off["status"] == "max_iterations" and st_off["finish_epochs"] == 0
    assert st_off["primal_objective"] > 1.05 * st["primal_objective"]
    # and the hand-over's run with its finish costs less than the cap's run alone
    assert st["num_kernel_evaluations"] < st_off["num_kernel_evaluations"] / 3, (st, st_off)


def test_off_and_an_explicit_cap_end_on_the_cap():
    """max_iter given: the cheap run asked for (no finish, a warning); the
    object API with the finish off: the run as before, far from the optimum."""
    X, y = _data("wine")
    C = 1000.0
    est, caught = _fit("pegasos", X, y, C, max_iter=632)
    assert est._stats[0]["finish_epochs"] == 0
    assert est._stats[0]["status"] == "max_iterations" and caught
    svm = stochsvm.KernelSVM(X, y, 1 / (C * len(y)), solver="pegasos", gamma=_gamma(X))
    assert svm.get_sdca_finish() == "auto"
    svm.set_sdca_finish(False)
    svm.set_epsilon(1e-2)
    st = svm.train()
    assert st["finish_epochs"] == 0 and st["status"] == "max_iterations"
    assert st["primal_objective"] * C * len(y) > 1.05 * _bias_free_dual(X, y, C)


def test_weights_are_the_finishs_problem():
    """sample_weight: Pegasos (bias-free) and BSCA with B >= n (the bias)
    reach the weighted optimum (box c_i C)."""
    X, y = _data("wine")
    C = 1000.0
    w = np.where(y > 0, 3.0, 0.5) * (1 + (np.arange(len(y)) % 3))
    for solver, optimum in [("pegasos", _bias_free_dual(X, y, C, w)), ("bsca", _svc_dual(X, y, C, w))]:
        est, caught = _fit(solver, X, y, C, fit={"sample_weight": w})
        st = est._stats[0]
        assert st["status"] == "converged" and not caught, (solver, st)
        ratio = _objective_C(est, len(y), C) / optimum
        assert 1 - 1e-6 <= ratio <= 1 + 1e-3, (solver, ratio)


def test_one_vs_rest_each_problem_certified():
    """Multiclass wine: every one-vs-rest problem of the SBP (shared kernel
    rows) reaches its own optimum."""
    X, y3 = load_wine(return_X_y=True)
    C = 1000.0
    est, caught = _fit("sbp", X, y3, C, n_jobs=2)
    assert not caught
    for k, cls in enumerate(est.classes_):
        yb = np.where(y3 == cls, 1.0, -1.0)
        st = est._stats[k]
        assert st["status"] == "converged", (k, st)
        ratio = st["primal_objective"] * C * len(yb) / _svc_dual(X, yb, C)
        assert 1 - 1e-6 <= ratio <= 1 + 1e-3, (k, ratio)


def test_mode_round_trips_and_pickles():
    import pickle

    X, y = _data("wine")
    svm = stochsvm.KernelSVM(X, y, 1e-3, solver="sbp", gamma=_gamma(X))
    for mode in (True, False, "auto"):
        svm.set_sdca_finish(mode)
        assert svm.get_sdca_finish() == mode
        assert pickle.loads(pickle.dumps(svm)).get_sdca_finish() == mode
    with pytest.raises(TypeError):
        svm.set_sdca_finish("sometimes")


@pytest.mark.parametrize("name,C", [("wine", 10.0), ("breast_cancer", 1.0)])
def test_a_window_stop_on_a_small_set_is_finished(name, C):
    """The SBP's objective window stopped these runs as "converged" 1.004-1.008x
    above the optimum with no bound to certify it (the finish off: the run as
    it was before). Where the finish's row cache holds the whole kernel matrix,
    such a stop hands over too and ends at the optimum; with a cache too small
    for it the window's stop stands."""
    X, y = _data(name)
    n, optimum = len(y), _svc_dual(X, y, C)

    def train(**settings):
        svm = stochsvm.KernelSVM(X, y, 1 / (C * n), solver="sbp", gamma=_gamma(X))
        svm.set_unregularized_bias(True)
        for setter, value in settings.items():
            getattr(svm, "set_" + setter)(value)
        st = svm.train()
        return st, st["primal_objective"] * C * n / optimum

    st, ratio = train(sdca_finish=False)
    assert st["status"] == "converged" and st["finish_epochs"] == 0 and ratio > 1.002, (st, ratio)
    st, ratio = train()
    assert st["status"] == "converged" and st["finish_epochs"] > 0, st
    assert 1 - 1e-6 <= ratio <= 1 + 1e-3, ratio
    st, ratio = train(cache_size=8.0 * n * n / 2**20 / 2)  # half the kernel matrix
    assert st["status"] == "converged" and st["finish_epochs"] == 0 and ratio > 1.002, (st, ratio)


def _twins(solver, X, y, C, weights=None, **settings):
    """The object (finish on, a cap of one epoch per call: a user who
    retrains step by step) and its twin with the finish off: the same run,
    so a call's kernel evaluations less the twin's are the finish's."""
    out = []
    for mode in (True, False):
        svm = stochsvm.KernelSVM(X, y, 1 / (C * len(y)), solver=solver, gamma=_gamma(X))
        if solver == "bsca":
            svm.set_budget(len(y))  # B >= n: the finish applies
        svm.set_unregularized_bias(solver == "bsca")
        svm.set_sdca_finish(mode)
        svm.set_max_num_iterations(len(y))
        if weights is not None:
            svm.set_weights(weights)
        for name, value in settings.items():
            getattr(svm, "set_" + name)(value)
        out.append(svm)
    return out


def _finish_evaluations(svm, twin):
    before = svm.get_num_kernel_evaluations(), twin.get_num_kernel_evaluations()
    st = svm.train()
    twin.train()
    return (svm.get_num_kernel_evaluations() - before[0]) - (twin.get_num_kernel_evaluations() - before[1]), st


def _check_certified(st, optimum, n, C):
    assert st["status"] == "converged" and st["finish_epochs"] > 0, st
    assert st["duality_gap"] <= 1e-3 * st["dual_objective"], st
    ratio = st["primal_objective"] * C * n / optimum
    assert 1 - 1e-6 <= ratio <= 1 + 1e-3, ratio


@pytest.mark.parametrize("name,C,solver", [("wine", 1000.0, "pegasos"), ("wine", 1000.0, "bsca"),
                                           ("breast_cancer", 32.0, "bsca")])
def test_a_further_call_finishes_from_the_last_state(name, C, solver):
    """A further train call goes straight to the finish (no step of its
    own: kernel_finish.c, "When"), which starts from the last one's dual
    state ("The start"): a kernel row at most where the first finish, from
    alpha = 0, reads hundreds; the same certified optimum (SVC's, or the
    bias-free dual's for Pegasos)."""
    X, y = _data(name)
    n = len(y)
    optimum = _svc_dual(X, y, C) if solver == "bsca" else _bias_free_dual(X, y, C)
    svm, twin = _twins(solver, X, y, C)
    first, st = _finish_evaluations(svm, twin)
    _check_certified(st, optimum, n, C)
    assert first > 20 * n, first
    for _ in range(2):
        before, iteration = svm.get_num_kernel_evaluations(), st["iteration"]
        st = svm.train()
        further = svm.get_num_kernel_evaluations() - before
        _check_certified(st, optimum, n, C)
        assert st["iteration"] == iteration
        assert 0 <= further and 4 * further <= first, (first, further)


def test_a_changed_problem_starts_cold_or_scaled():
    """New weights, the other bias form or the other kernel precision forget
    the kept state: the call is a fresh object's, to the bit. A new lambda
    starts from the state scaled to the new box and still reaches the new
    optimum, certified (C down and up)."""
    X, y = _data("wine")
    n = len(y)
    C = 32.0
    w = np.where(y > 0, 2.0, 0.5)

    def same_call(svm, fresh):
        before = svm.get_num_kernel_evaluations()
        st = svm.train()
        st_fresh = fresh.train()
        assert svm.get_num_kernel_evaluations() - before == fresh.get_num_kernel_evaluations()
        assert st["primal_objective"] == st_fresh["primal_objective"]
        np.testing.assert_array_equal(svm.decision_function(X), fresh.decision_function(X))
        return st

    svm, _ = _twins("pegasos", X, y, C)
    svm.train()
    svm.set_weights(w)
    _check_certified(same_call(svm, _twins("pegasos", X, y, C, w)[0]), _bias_free_dual(X, y, C, w), n, C)

    svm, _ = _twins("bsca", X, y, C)
    svm.train()
    svm.set_unregularized_bias(False)
    fresh = _twins("bsca", X, y, C)[0]
    fresh.set_unregularized_bias(False)
    _check_certified(same_call(svm, fresh), _bias_free_dual(X, y, C), n, C)

    X32 = X.astype(np.float32)
    svm, _ = _twins("pegasos", X32, y, C)
    svm.train()
    svm.set_kernel_precision("float32")
    same_call(svm, _twins("pegasos", X32, y, C, kernel_precision="float32")[0])

    for solver in ("pegasos", "bsca"):
        svm, twin = _twins(solver, X, y, C, w)
        svm.train()
        for C_new in (1.0, 1000.0):
            svm.set_lambda(1 / (C_new * n))
            optimum = _svc_dual(X, y, C_new, w) if solver == "bsca" else _bias_free_dual(X, y, C_new, w)
            _check_certified(svm.train(), optimum, n, C_new)


def test_a_warm_started_fit_finishes_from_the_last_state():
    """The estimator with warm_start: a second fit on the same data continues
    the run and its finish starts from the first fit's state (a few kernel
    rows, against the rows of a finish from zero), at the same certified
    optimum."""
    X, y = _data("wine")
    C = 1000.0
    est, caught = _fit("pegasos", X, y, C, warm_start=True)
    first = est._stats[0]
    est.fit(X, y)
    second = est._stats[0]
    optimum = _bias_free_dual(X, y, C)
    for st in (first, second):
        _check_certified(st, optimum, len(y), C)
    added = second["num_kernel_evaluations"] - first["num_kernel_evaluations"]
    cold, _ = _twins("pegasos", X, y, C)
    cold.set_max_num_iterations(1)
    from_zero = cold.train()["num_kernel_evaluations"]  # one step, then the finish from zero
    assert first["finish_epochs"] >= 1 and 0 < added <= from_zero / 4, (first, second, from_zero)


@pytest.mark.parametrize("solver", ["pegasos", "bsgd", "bsca"])
@pytest.mark.parametrize("name,C", [("wine", 1000.0), ("breast_cancer", 100.0)])
def test_the_run_hands_over_once_its_work_reaches_n_squared(solver, name, C):
    """Pegasos, BSGD and BSCA with B >= n at their defaults ran to their
    caps (100 epochs here) before the finish replaced their models; they now
    hand over at the first diagnostic where their kernel evaluations reach
    n^2, the most the exact solve costs when its cache holds the kernel
    matrix (kernel_finish.c, "When"): certified, for a fraction of the
    evaluations, and no later than the run without the finish stops."""
    X, y = _data(name)
    n = len(y)
    bias = solver == "bsca"  # its default form
    optimum = _svc_dual(X, y, C) if bias else _bias_free_dual(X, y, C)
    runs, scores = [], []
    for finish, threads in (("auto", 1), (False, 1), ("auto", 2)):
        svm = stochsvm.KernelSVM(X, y, 1 / (C * n), solver=solver, gamma=_gamma(X))
        if solver != "pegasos":
            svm.set_budget(n)
        svm.set_sdca_finish(finish)
        svm.set_num_threads(threads)
        runs.append(svm.train())
        scores.append(svm.decision_function(X))
    st, alone, two = runs
    _check_certified(st, optimum, n, C)
    # the hand-over's moment is counted in kernel evaluations: the same on two threads
    assert (two["iteration"], two["num_kernel_evaluations"]) == (st["iteration"], st["num_kernel_evaluations"])
    np.testing.assert_array_equal(scores[2], scores[0])
    assert st["iteration"] < alone["iteration"], (st, alone)
    assert n * n <= st["num_kernel_evaluations"] < alone["num_kernel_evaluations"] / 3, (st, alone)


@pytest.mark.parametrize("solver", ["pegasos", "bsca"])
@pytest.mark.parametrize("n", [4000, 16384])
def test_on_large_n_the_run_hands_over_at_the_predicted_finish_cost(solver, n):
    """On 2,048 rows or more, Pegasos, BSGD and BSCA (B >= n) predict the
    finish's cost from exact solves of a sample of min(4096, n/4) rows and
    its halves and hand over once their work reaches it, where it is below
    n^2 (kernel_finish.c, "When"). On noisy generated rows in 2-D (a sample
    of 1,000 and of 4,096 rows) the prediction is reported (exact_cost),
    positive and below n^2; the steps and the samples' solves cost less than
    n^2 kernel evaluations (the n^2 rule alone hands over only once the
    steps' work reached n^2); the finish certifies the gap, and its model is
    the one the finish makes from zero after a single step, to the bit.
    Under a cap set by the caller (no finish) no sample is solved."""
    rng = np.random.default_rng(5)
    y = np.where(rng.random(n) < 0.4, 1.0, -1.0)
    X = rng.normal(size=(n, 2)) + 0.8 * y[:, None]
    C = 1.0

    def run(cap=None, finish="auto"):
        svm = stochsvm.KernelSVM(X, y, 1 / (C * n), solver=solver, gamma=0.5, seed=3)
        if solver == "bsca":
            svm.set_budget(n)
        svm.set_sdca_finish(finish)
        if cap is not None:
            svm.set_max_num_iterations(cap)
        return svm, svm.train()

    svm, st = run()
    assert 0 < st["exact_cost"] < n * n, st
    assert st["status"] == "converged" and st["finish_epochs"] > 0, st
    assert st["duality_gap"] <= 1e-3 * st["dual_objective"], st
    cold, from_zero = run(cap=1, finish=True)  # one step, then the finish from zero
    assert st["num_kernel_evaluations"] - from_zero["num_kernel_evaluations"] < n * n, (st, from_zero)
    np.testing.assert_array_equal(svm.get_coefficients(), cold.get_coefficients())
    assert svm.get_bias() == cold.get_bias()
    _, capped = run(cap=n)
    assert capped["exact_cost"] == 0 and capped["finish_epochs"] == 0, capped


def test_below_2048_rows_no_sample_is_solved():
    """Under 2,048 rows the sample would be under 512 rows: no prediction,
    the hand-over at n^2 (exact_cost 0), as on every set of the unseen-data
    suite (at most 2,000 rows)."""
    X, y = _data("breast_cancer")
    X = np.tile(X, (3, 1))[:2047]
    y = np.tile(y, 3)[:2047]
    svm = stochsvm.KernelSVM(X, y, 1 / (10.0 * len(y)), solver="pegasos", gamma=_gamma(X))
    st = svm.train()
    assert st["exact_cost"] == 0 and st["finish_epochs"] > 0, st


def test_the_prediction_on_a_precomputed_kernel():
    """A precomputed Gram matrix's sample is its m x m block (m = 625 on
    2,500 rows): the finish's solver on it takes the block's own dimension
    (it took the full matrix's, and train() failed with "argument out of
    range"). The run predicts, hands over and ends on the model of the
    finish from zero, to the bit."""
    rng = np.random.default_rng(7)
    n = 2500
    y = np.where(rng.random(n) < 0.3, 1.0, -1.0)
    K = rbf_kernel(rng.normal(size=(n, 8)) + 0.5 * y[:, None], gamma=0.2)
    runs = []
    for cap in (None, 1):
        svm = stochsvm.KernelSVM(K, y, 1 / (10.0 * n), solver="pegasos", kernel="precomputed", seed=1)
        if cap:
            svm.set_max_num_iterations(cap)
            svm.set_sdca_finish(True)
        runs.append((svm, svm.train()))
    (svm, st), (cold, _) = runs
    assert st["status"] == "converged" and 0 < st["exact_cost"] < n * n, st
    np.testing.assert_array_equal(svm.get_coefficients(), cold.get_coefficients())
