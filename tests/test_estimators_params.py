"""The estimators' shared parameter layer: scikit-learn's names with their
deprecated aliases, the regularization rule, the solver registry (against
the compiled objects and the C fuzz harnesses' tables) and model files that
dispatch on the registered class."""

import ast
import json
import pathlib
import re
import warnings

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.utils.estimator_checks import check_param_validation

from stochsvm import _kernel_svm, _solvers, _svm, model_file
from stochsvm._regularization import lambda_of
from stochsvm.dask import DaskLinearSVMClassifier, DaskLinearSVMRegressor
from stochsvm.kernel import KernelSVMClassifier
from stochsvm.linear import LinearSVMClassifier, LinearSVMRegressor

ROOT = pathlib.Path(__file__).resolve().parent.parent

IN_MEMORY = [LinearSVMClassifier, LinearSVMRegressor, KernelSVMClassifier]
#: Each estimator class, and the former names of random_state and max_iter.
ALIASES = [(cls, "seed", "max_epochs") for cls in IN_MEMORY] + [
    (DaskLinearSVMClassifier, "seed", "max_rounds"), (DaskLinearSVMRegressor, "seed", "max_rounds")]


def _data(n=40, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    y = (X[:, 0] + 0.3 * rng.normal(size=n) > 0).astype(int)
    return X, y


# -- scikit-learn's parameter validation ---------------------------------------------

@pytest.mark.parametrize("cls", IN_MEMORY)
def test_scikit_learn_parameter_validation(cls):
    """The constraints name every parameter of the signature, and fit and
    partial_fit raise scikit-learn's InvalidParameterError for a value no
    constraint accepts (scikit-learn's own check, which parametrize_with_checks
    does not run)."""
    check_param_validation(cls.__name__, cls())


@pytest.mark.parametrize("cls", [DaskLinearSVMClassifier, DaskLinearSVMRegressor])
def test_dask_constraints_name_every_parameter(cls):
    assert set(cls._parameter_constraints) == set(cls().get_params())


# -- random_state and max_iter, and their deprecated aliases ------------------------

@pytest.mark.parametrize("cls,old_seed,old_cap", ALIASES)
def test_new_names_are_parameters_and_old_ones_default_to_deprecated(cls, old_seed, old_cap):
    params = cls().get_params()
    assert "random_state" in params and "max_iter" in params
    assert params[old_seed] == params[old_cap] == "deprecated"
    est = cls(random_state=5, max_iter=3)
    est._check_params()            # no warning: the filter turns one into an error
    assert est._param("random_state") == 5 and est._param("max_iter") == 3
    assert clone(est).get_params()["max_iter"] == 3


@pytest.mark.parametrize("cls,old_seed,old_cap", ALIASES)
def test_old_names_warn_and_give_their_value(cls, old_seed, old_cap):
    est = cls(**{old_seed: 5, old_cap: 3})
    with pytest.warns(FutureWarning) as record:
        est._check_params()
    messages = [str(w.message) for w in record]
    assert any(f"{old_seed} was renamed random_state" in m and "random_state=5" in m
               for m in messages)
    assert any(f"{old_cap} was renamed max_iter" in m and "max_iter=3" in m for m in messages)
    assert est._param("random_state") == 5 and est._param("max_iter") == 3


@pytest.mark.parametrize("cls,old_seed,old_cap", ALIASES)
def test_giving_both_names_is_an_error(cls, old_seed, old_cap):
    with pytest.raises(ValueError, match=f"give random_state only: {old_seed} is its deprecated"):
        cls(**{old_seed: 5, "random_state": 6})._check_params()
    with pytest.raises(ValueError, match=f"give max_iter only: {old_cap} is its deprecated"):
        cls(**{old_cap: 3, "max_iter": 4})._check_params()


@pytest.mark.parametrize("cls,old_seed,old_cap", ALIASES)
def test_old_names_are_validated(cls, old_seed, old_cap):
    with pytest.raises(ValueError, match=f"'{old_cap}' parameter"):
        cls(**{old_cap: 0})._check_params()
    with pytest.raises(ValueError, match=f"'{old_seed}' parameter"):
        cls(**{old_seed: -1})._check_params()


@pytest.mark.parametrize("cls", IN_MEMORY)
def test_old_and_new_spellings_fit_the_same_model(cls):
    X, y = _data()
    # the default kernel SDCA (with its bias) picks its pairs without the seed
    free = {"unregularized_bias": False} if cls is KernelSVMClassifier else {}
    new = cls(random_state=3, max_iter=4, tol=0, **free).fit(X, y)
    with pytest.warns(FutureWarning):
        old = cls(seed=3, max_epochs=4, tol=0, **free).fit(X, y)
    scores = "predict" if cls is LinearSVMRegressor else "decision_function"
    assert new.n_iter_ == old.n_iter_ == 4
    np.testing.assert_array_equal(getattr(new, scores)(X), getattr(old, scores)(X))
    # and the seed is used: another one visits in another order
    other = cls(random_state=4, max_iter=4, tol=0, **free).fit(X, y)
    assert not np.array_equal(getattr(other, scores)(X), getattr(new, scores)(X))


def test_kernel_verbose_prints_one_line_per_trained_svm(capsys):
    X, y = _data(60)
    y3 = np.digitize(X[:, 1], [-0.5, 0.5])
    KernelSVMClassifier(max_iter=3, tol=0).fit(X, y)
    assert capsys.readouterr().out == ""
    KernelSVMClassifier(verbose=1, max_iter=3, tol=0).fit(X, y3)
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 3      # one-vs-rest: one SVM per class
    assert all(re.fullmatch(r"\[KernelSVMClassifier\] epoch 3: objective \S+, status \w+", line)
               for line in lines), lines


# -- the regularization rule -----------------------------------------------------------

def test_the_regularization_rule():
    assert lambda_of(None, None, 10) == 0.1
    assert lambda_of(None, 2.0, 10) == 0.05
    assert lambda_of(0.3, None, 10) == 0.3
    with pytest.raises(ValueError, match="give either C or lambda_, not both"):
        lambda_of(0.3, 2.0, 10)
    with pytest.raises(ValueError, match=r"C = 1e-160 with n = 10 .* choose C in"):
        lambda_of(None, 1e-160, 10)
    with pytest.raises(ValueError, match=r"--lambda must be a number in \[1e-150, 1e150\]"):
        lambda_of(1e-200, None, 10, names=("-C", "--lambda"))


@pytest.mark.parametrize("cls", [LinearSVMClassifier, KernelSVMClassifier])
def test_estimators_apply_the_rule(cls):
    X, y = _data()
    with pytest.raises(ValueError, match="give either C or lambda_, not both"):
        cls(C=1.0, lambda_=0.1).fit(X, y)
    with pytest.raises(ValueError, match=r"C = 1e-160 with n = 40"):
        cls(C=1e-160).fit(X, y)


# -- the solver registry -----------------------------------------------------------------

def test_registry_lists_every_solver_of_the_objects():
    assert set(_solvers.LINEAR) == set(_svm._SOLVERS) - {"none"}
    assert set(_solvers.KERNEL) == set(_kernel_svm._KSOLVERS) - {"none"}
    assert set(_solvers.DASK) <= set(_solvers.LINEAR)
    for s in _solvers.SOLVERS:
        assert s.default_loss in s.losses and s.tol > 0 and s.max_iter >= 1
        assert s.bias in ("regularized", "unregularized", "optional", "none")


def test_registry_tolerances_are_the_objects_defaults():
    """SDCA's default tol per loss, written in the C object
    (SS_SDCA_DEFAULT_EPSILON_*, ss_svm_default_epsilon) and in the registry
    (which stays free of the compiled module, so that ``stochsvm --help``
    stays light): they must agree for every loss the registry lists. The
    other linear solvers' estimators default to their own tol (1e-3), not the
    object's 1e-2."""
    X, y = _data()
    y = np.where(y == 1, 1.0, -1.0)
    sdca = _solvers.get("linear", "sdca")
    for loss in sdca.losses:
        fresh = _svm.SVM(X, y, 0.1, solver="sdca", loss=loss)
        assert sdca.default_tol_for(loss) == fresh.get_epsilon(), loss


def _c_table(path, array):
    """The enumerators listed in the C array ``array`` of ``path``."""
    text = (ROOT / path).read_text(encoding="utf-8")
    body = re.search(rf"{array}\[\]\s*=\s*\{{([^}}]*)\}}", text).group(1)
    return [name.strip() for name in body.split(",") if name.strip()]


@pytest.mark.parametrize("path,array,prefix,kind", [
    ("tests/fuzz/fuzz_common.h", "fz_solvers", "SS_SOLVER_", "linear"),
    ("tests/fuzz/fuzz_kernel_train.c", "fz_kernel_solvers", "SS_KSOLVER_", "kernel"),
])
def test_fuzz_tables_match_the_registry(path, array, prefix, kind):
    listed = _c_table(path, array)
    assert all(name.startswith(prefix) for name in listed), listed
    names = {name[len(prefix):].lower() for name in listed}
    assert names == set(_solvers.names(kind)) | {"none"}, (
        f"{path}: {array} differs from stochsvm._solvers; a solver added to the core goes "
        f"in both")


def test_estimators_and_cli_take_the_registry_lists():
    from stochsvm import cli

    assert LinearSVMClassifier._parameter_constraints["solver"][0].options == _solvers.LINEAR
    assert KernelSVMClassifier._parameter_constraints["solver"][0].options == _solvers.KERNEL
    assert set(cli._solvers()) == set(_solvers.LINEAR)
    assert set(cli._kernel_solvers()) == set(_solvers.KERNEL)


# -- model files: the estimators own their conversion ---------------------------------

def test_model_file_names_no_estimator():
    tree = ast.parse((ROOT / "src/stochsvm/model_file.py").read_text(encoding="utf-8"))
    estimators = {"LinearSVMClassifier", "LinearSVMRegressor", "KernelSVMClassifier",
                  "DaskLinearSVMClassifier", "DaskLinearSVMRegressor"}
    used = {node.id for node in ast.walk(tree) if isinstance(node, ast.Name)}
    used |= {node.attr for node in ast.walk(tree) if isinstance(node, ast.Attribute)}
    imported = {alias.name for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)
                for alias in node.names}
    imported |= {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
    assert not (used | imported) & estimators
    assert not {"stochsvm.linear", "stochsvm.kernel", "linear", "kernel"} & imported
    # every estimator registered itself, under the name written in its files
    for cls in IN_MEMORY:
        assert model_file._CLASSES[cls._model_file_name] is cls


@pytest.mark.parametrize("cls", IN_MEMORY)
def test_files_with_the_old_names_load_silently(cls, tmp_path):
    X, y = _data()
    est = cls(random_state=7, max_iter=3, tol=0).fit(X, y)
    d = model_file.model_dict(est)
    meta = json.loads(d["metadata"])
    assert "random_state" in meta["params"] and "seed" not in meta["params"]
    params = meta["params"]
    params["seed"], params["max_epochs"] = params.pop("random_state"), params.pop("max_iter")
    d["metadata"] = json.dumps(meta)            # as an older version wrote it
    model_file.save_model(d, tmp_path / "old.ssvm")
    back = model_file.load_model(tmp_path / "old.ssvm")     # no FutureWarning (an error here)
    assert type(back) is cls
    assert back.get_params()["random_state"] == 7 and back.get_params()["max_iter"] == 3
    assert back.get_params()["seed"] == "deprecated"
    np.testing.assert_array_equal(back.predict(X), est.predict(X))


# -- random_state as scikit-learn takes it ---------------------------------------------

def _seeds(est):
    return {svm.get_seed() for svm in est._svms}


@pytest.mark.parametrize("cls", IN_MEMORY)
@pytest.mark.parametrize("make", [np.random.RandomState, np.random.default_rng],
                         ids=["RandomState", "Generator"])
def test_random_state_takes_a_numpy_random_state(cls, make, tmp_path):
    """A RandomState or Generator gives each fit a seed drawn from it (one seed
    for all of a fit's binary problems); the same state gives the same fit,
    the next fit of one estimator draws another seed, and a model file keeps
    the seed that was drawn."""
    X, y = _data(60)
    y = np.digitize(X[:, 0], [-0.4, 0.4]) if cls is not LinearSVMRegressor else X[:, 0]
    a = cls(random_state=make(5), max_iter=2, tol=0).fit(X, y)
    b = cls(random_state=make(5), max_iter=2, tol=0).fit(X, y)
    assert len(_seeds(a)) == 1 and _seeds(a) == _seeds(b)
    np.testing.assert_array_equal(a.predict(X), b.predict(X))
    first = _seeds(a)
    a.fit(X, y)
    assert len(_seeds(a)) == 1 and _seeds(a) != first
    seed, = _seeds(a)
    same = cls(random_state=seed, max_iter=2, tol=0).fit(X, y)
    np.testing.assert_array_equal(same.predict(X), a.predict(X))
    model_file.save_model(a, tmp_path / "a.ssvm")
    back = model_file.load_model(tmp_path / "a.ssvm")
    assert back.get_params()["random_state"] == seed
    np.testing.assert_array_equal(back.predict(X), a.predict(X))


@pytest.mark.parametrize("cls", IN_MEMORY)
def test_random_state_none_is_seed_zero(cls):
    X, y = _data()
    if cls is LinearSVMRegressor:
        y = X[:, 0]
    none = cls(random_state=None, max_iter=2, tol=0).fit(X, y)
    zero = cls(random_state=0, max_iter=2, tol=0).fit(X, y)
    assert _seeds(none) == _seeds(zero) == {0}
    np.testing.assert_array_equal(none.predict(X), zero.predict(X))


def test_unregistered_objects_are_refused(tmp_path):
    with pytest.raises(TypeError, match="cannot save a list"):
        model_file.save_model([1, 2], tmp_path / "x.ssvm")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(TypeError, match="cannot save a DaskLinearSVMClassifier"):
            model_file.save_model(DaskLinearSVMClassifier(), tmp_path / "x.ssvm")


@pytest.mark.parametrize("cls", IN_MEMORY)
def test_a_huge_max_iter_means_no_cap(cls):
    """max_iter times n beyond the core's 2^63 - 1 iterations was refused
    with a message about max_num_iterations, a parameter the user never
    gave: the cap is clamped, and the fit stops on tol as with no cap
    (a ConvergenceWarning would fail here: warnings are errors)."""
    X, y = _data()
    if cls is LinearSVMRegressor:
        y = X[:, 0] + 0.1
    est = cls(max_iter=10**18).fit(X, y)
    assert 1 <= est.n_iter_ < 10**6


@pytest.mark.parametrize("solver", ["sdca", "svmsgd2"])
def test_squared_hinge_is_scikit_learns_name_of_hinge2(solver, tmp_path):
    rng = np.random.default_rng(3)
    X = rng.normal(size=(120, 4))
    y = np.where(X[:, 0] + 0.3 * rng.normal(size=120) > 0, 1, -1)
    a = LinearSVMClassifier(solver=solver, loss="squared_hinge").fit(X, y)
    b = LinearSVMClassifier(solver=solver, loss="hinge2").fit(X, y)
    np.testing.assert_array_equal(a.coef_, b.coef_)
    assert a.get_params()["loss"] == "squared_hinge"  # the name given stays the parameter
    model_file.save_model(a, tmp_path / "m.ssvm")
    np.testing.assert_array_equal(model_file.load_model(tmp_path / "m.ssvm").coef_, b.coef_)
    c = LinearSVMClassifier(solver=solver, loss="hinge").fit(X, y)
    assert not np.array_equal(a.coef_, c.coef_)


def test_squared_hinge_counts_as_differentiable():
    est = LinearSVMClassifier(solver="res", loss="squared_hinge")
    est._check_params()
    assert est._loss() == "hinge2"
    with pytest.raises(ValueError, match="loss"):
        LinearSVMClassifier(loss="squared-hinge").fit(np.eye(2), [1, -1])
