"""The step back-off of RES and LRES at their default eps0, and what the
user sees of a diverging run where no back-off acts: ``partial_fit`` (one
epoch per call) and ``stochsvm train`` (docs/stopping.rst, "The step
back-off").

RES and LRES back off as the SGD family does (src/core/driver/run.c,
src/core/linear/res_steps.c): w = 0, the curvature forgotten, eps0 ten
times shorter. An eps0 set by the caller is never changed, so
``set_res_eps0(get_res_eps0())`` runs the default steps without it."""

import numpy as np
import pytest
import scipy.sparse as sp
from _helpers import write_libsvm
from sklearn.datasets import load_breast_cancer
from sklearn.exceptions import ConvergenceWarning

from liblinear_reference import liblinear, objective
from stochsvm import SVM, LinearSVMClassifier
from stochsvm.cli import main


def _power_law(n=3000, d=300, seed=1):
    """Binary features, feature j on with probability 0.3 / (1 + j)^1.2 (a
    few common, many rare, as in w8a), labels from a random linear rule."""
    rng = np.random.default_rng(seed)
    X = (rng.random((n, d)) < 0.3 / (1.0 + np.arange(d)) ** 1.2).astype(np.float64)
    y = np.where(X @ (3 * rng.normal(size=d)) + 0.5 * rng.normal(size=n) > 0, 1.0, -1.0)
    return sp.csr_matrix(X), y


def _raw_breast_cancer():
    X, y = load_breast_cancer(return_X_y=True)
    return np.ascontiguousarray(X), np.where(y == 1, 1.0, -1.0)


C = 1e3


def test_lres_estimator_backs_off_instead_of_ending_above_the_zero_model():
    """LRES, squared hinge, C = 1e3: at the default eps0 without the back-off
    the run ends at 1.23, above the zero model's 1 (4.2x the optimum); with
    it, 1.31x, and the cap warning says the steps were backed off."""
    X, y = _power_law()
    lam = 1.0 / (C * len(y))
    w, b = liblinear(X, y, 2, lam, 1e-9)
    P_star = objective(X, y, w, b, lam, "hinge2")

    old = SVM(X, y, lam, solver="lres", loss="hinge2", seed=0)
    old.set_epsilon(1e-3)
    old.set_max_num_iterations(100 * len(y))
    old.set_res_eps0(old.get_res_eps0())  # the default step, now the caller's: no back-off
    stats = old.train()
    assert stats["num_step_backoffs"] == 0 and stats["objective"] > 1.0

    est = LinearSVMClassifier(solver="lres", loss="hinge2", C=C, random_state=0)
    est.set_params(max_iter=est._max_iter(X))  # the default cap given: no Newton finish
    with pytest.warns(ConvergenceWarning, match="backed off 1 time: at the default eps0"):
        est.fit(X, y)
    stats = est._stats[0]
    assert stats["num_step_backoffs"] == 1
    P = objective(X, y, est.coef_[0], est.intercept_[0], lam, "hinge2")
    assert P == pytest.approx(stats["objective"], rel=1e-9)
    assert P_star <= P * (1 + 1e-9) and P < 1.5 * P_star
    # at the defaults the Newton finish takes over from there: certified
    est = LinearSVMClassifier(solver="lres", loss="hinge2", C=C, random_state=0).fit(X, y)
    P = objective(X, y, est.coef_[0], est.intercept_[0], lam, "hinge2")
    assert est._stats[0]["status"] == "converged" and P <= 1.001 * P_star


def test_an_eps0_set_by_the_caller_is_kept_through_a_pickle():
    """The back-off keys on the default eps0: a pickle keeps it default
    (the copy still backs off), or the caller's (it does not)."""
    import pickle

    X, y = _power_law(300, 30)
    default = SVM(X, y, 1e-3, solver="lres")
    explicit = SVM(X, y, 1e-3, solver="lres")
    explicit.set_res_eps0(0.1)
    assert default._get_res_parameters()["res_eps0"] is None
    assert explicit._get_res_parameters()["res_eps0"] == 0.1
    assert pickle.loads(pickle.dumps(explicit))._get_res_parameters()["res_eps0"] == 0.1
    assert pickle.loads(pickle.dumps(default))._get_res_parameters()["res_eps0"] is None


@pytest.mark.slow
def test_w8a_lres_squared_hinge_at_large_C_no_longer_diverges():
    """The unseen suite's one diverged LRES run (w8a, C = 1e3): it raised
    FloatingPointError by iteration 149247; then it ended finite, 1.13x the
    optimum (LIBLINEAR at eps 1e-9: 0.043676), warned on its cap; now the
    Newton finish certifies it. (benchmark() skips without $STOCHSVM_DATA,
    as the README's test command on a fresh clone has it.)"""
    from liblinear_reference import benchmark

    Xtr, ytr = benchmark("w8a")
    est = LinearSVMClassifier(solver="lres", loss="hinge2", C=C, random_state=0)
    est.fit(Xtr, ytr)  # (the Newton finish takes over from the backed-off run)
    stats = est._stats[0]
    assert stats["num_step_backoffs"] >= 1 and stats["num_newton_iterations"] > 0
    lam = 1.0 / (C * Xtr.shape[0])
    P_star = objective(Xtr, ytr, *liblinear(Xtr, ytr, 2, lam, 1e-9), lam, "hinge2")
    assert P_star == pytest.approx(0.043676, rel=1e-4)  # the figure the docstring quotes
    assert stats["status"] == "converged" and stats["objective"] <= 1.001 * P_star


# -- partial_fit: one epoch per call, no back-off: it warns -----------------

def test_partial_fit_warns_when_the_model_is_worse_than_zero():
    """SGD on the raw features (~4e3), C = 1e3: each call's model sits at an
    objective of about 1e4 where w = 0 scores 1. partial_fit used to return
    it in silence; it now warns at every such call, naming the cause and
    the fix."""
    X, y = _raw_breast_cancer()
    est = LinearSVMClassifier(solver="sgd", C=C, random_state=0)
    for _ in range(3):
        with pytest.warns(ConvergenceWarning,
                          match=r"objective .* is above 1, that of the zero model; partial_fit "
                                r"takes one epoch per call and no step back-off .*"
                                r"StandardScaler.*larger t0"):
            est.partial_fit(X, y, classes=[-1, 1])
    assert est._stats[0]["objective"] > 1.0


def test_partial_fit_on_scaled_data_does_not_warn():
    """The check reads what the call measured anyway: on standardized data
    (any warning fails the test, filterwarnings = error), nothing."""
    from sklearn.preprocessing import StandardScaler

    X, y = _raw_breast_cancer()
    X = StandardScaler().fit_transform(X)
    for solver in ("sgd", "svmsgd2", "sgdqn", "lres"):
        est = LinearSVMClassifier(solver=solver, C=C, random_state=0)
        for _ in range(3):
            est.partial_fit(X, y, classes=[-1, 1])
        assert est._stats[0]["objective"] < 1.0


# -- stochsvm train: an epoch per call; it says so on stderr ---------------

def test_cli_warns_of_a_model_worse_than_zero(tmp_path, capsys):
    """With a --t0 given (no back-off: the caller chose the steps) and the
    epochs (the caller's cap: no Newton finish), SGD on raw breast_cancer at
    C = 1e3 ends above the zero model's objective, and train says so; at the
    default t0 the run backs off instead (one train() call, as fit) and says
    that. (At the default epochs the hinge finish now certifies this run,
    objective 0.0393: its preconditioned widths and dual stage, where the
    widths alone stopped on 1000 Newton iterations at 859.)"""
    X, y = _raw_breast_cancer()
    train = write_libsvm(tmp_path / "raw.svm", X, y)
    assert main(["train", train, "--solver", "sgd", "-C", "1000", "-q"]) == 0
    err = capsys.readouterr().err
    assert "notice: the steps were backed off" in err and "warning" not in err
    assert main(["train", train, "--solver", "sgd", "-C", "1000", "--t0", "1e3", "--epochs", "100",
                 "-q"]) == 0
    err = capsys.readouterr().err
    assert "backed off" not in err
    assert "stochsvm train: warning: the objective" in err
    assert ("that of the zero model: the steps diverged or made no progress and the model is "
            "not reliable; add --scale standard" in err)
    assert "raise --t0" in err
    # scaled, the same run is not warned about
    assert main(["train", train, "--solver", "sgd", "-C", "1000", "--t0", "1e3", "--scale",
                 "standard", "-q"]) == 0
    assert "warning" not in capsys.readouterr().err


def test_cli_notices_a_back_off(tmp_path, capsys):
    """With diagnostics within an epoch too (--diagnostic-frequency below n)
    the back-off acts; the command says it did, in one line."""
    X, y = _raw_breast_cancer()
    train = write_libsvm(tmp_path / "raw.svm", X, y)
    assert main(["train", train, "--solver", "sgd", "-C", "1000", "--diagnostic-frequency",
                 "100", "-q"]) == 0
    err = capsys.readouterr().err
    lines = [line for line in err.splitlines() if "backed off" in line]
    assert len(lines) == 1
    assert lines[0].startswith("stochsvm train: notice: the steps were backed off 1 time: at "
                               "the default --t0")
    assert "warning" not in err  # it ends below the zero model's objective


def test_cli_sdca_on_badly_scaled_features_ends_below_zero(tmp_path, capsys):
    """SDCA has no steps to back off; on badly scaled features its dual is
    far from converged at the cap, and its model w(alpha) used to end above
    the zero model's objective (train warned). A capped run now returns the
    best model of the ray t w(alpha), t >= 0 (docs/sdca.rst, "The closing
    ray"): train gives the cap's notice with the scaling advice, and no
    warning of a model worse than none."""
    from stochsvm.datasets import make_unscaled

    X, y = make_unscaled(n=240, d=8)
    train = write_libsvm(tmp_path / "unscaled.svm", X, y)
    # (the hinge loss under an explicit cap: at the default cap, and with a
    # smooth loss under any, SDCA's Newton fallback takes over and converges)
    assert main(["train", train, "--solver", "sdca", "--loss", "hinge", "-C", "1000",
                 "--epochs", "100", "-q"]) == 0
    err = capsys.readouterr().err
    assert "notice: stopped on the epoch cap" in err and "add --scale standard" in err
    assert "zero model" not in err
    assert main(["train", train, "--solver", "sdca", "--loss", "logistic", "-C", "1000",
                 "-q"]) == 0
    err = capsys.readouterr().err
    assert "notice" not in err and "zero model" not in err
    assert main(["train", train, "--solver", "sdca", "--loss", "hinge", "-C", "1000",
                 "-q"]) == 0
    err = capsys.readouterr().err
    assert "notice" not in err and "zero model" not in err


def test_lres_partial_fit_warning_names_eps0_which_the_estimators_take(tmp_path):
    """LRES at its default eps0 overshoots in partial_fit on standardized
    breast cancer at C = 1 (objective 124.9 after the first call, where
    w = 0 scores 1; 375x the optimum after 20): the warning's first remedy
    was feature scaling, already done, and the estimators had no eps0. The
    warning names eps0 first; eps0 is a parameter of both estimators, set
    on the RES and LRES objects, kept by a model file, a change of it
    refused by partial_fit; eps0 = 1e-3 keeps 20 calls below the zero
    model without a warning (filterwarnings = error)."""
    from sklearn.preprocessing import StandardScaler

    from stochsvm import LinearSVMRegressor, load_model, save_model

    X, y = _raw_breast_cancer()
    X = StandardScaler().fit_transform(X)
    est = LinearSVMClassifier(solver="lres", C=1.0)
    with pytest.warns(ConvergenceWarning, match=r"no step back-off .*: set a smaller eps0 "
                                                r"\(shorter steps; eps0=0.1 now\), scale"):
        est.partial_fit(X, y, classes=[-1, 1])
    est = LinearSVMClassifier(solver="lres", C=1.0, eps0=1e-3)
    for _ in range(20):
        est.partial_fit(X, y, classes=[-1, 1])
    assert est._svms[0].get_res_eps0() == 1e-3
    assert est._stats[0]["objective"] < 1.0
    save_model(est, tmp_path / "m.ssvm")
    assert load_model(tmp_path / "m.ssvm")._svms[0].get_res_eps0() == 1e-3
    est.set_params(eps0=1e-2)
    with pytest.raises(ValueError, match="eps0"):
        est.partial_fit(X, y)
    reg = LinearSVMRegressor(solver="res", eps0=0.05, max_iter=2, tol=0).fit(X, X[:, 0])
    assert reg._svms[0].get_res_eps0() == 0.05
    sgd = LinearSVMClassifier(solver="sgd", eps0=0.05, max_iter=2, tol=0).fit(X, y)
    assert sgd.get_params()["eps0"] == 0.05       # another solver: ignored
    with pytest.raises(ValueError, match="'eps0' parameter"):
        LinearSVMClassifier(solver="lres", eps0=0.0).fit(X, y)
