"""probability=True (stochsvm._probability): Platt sigmoids on an internal
stratified, seeded cross-validation, against scikit-learn's
CalibratedClassifierCV(method="sigmoid") on the same folds."""

import pickle
import warnings

import numpy as np
import pytest
from sklearn.calibration import CalibratedClassifierCV
from sklearn.exceptions import ConvergenceWarning, NotFittedError
from sklearn.metrics import log_loss
from sklearn.svm import SVC

from stochsvm import KernelSVMClassifier, LinearSVMClassifier
from stochsvm._probability import PROBABILITY_FOLDS, folds_of


def _data(n=400, classes=2, seed=0):
    """Overlapping clusters, one per class (the centres do not depend on the seed)."""
    centres = np.random.default_rng(42).normal(size=(classes, 4)) * 1.5
    rng = np.random.default_rng(seed)
    y = rng.permutation(np.arange(n) % classes)
    return centres[y] + rng.normal(size=(n, 4)), y


ESTIMATORS = {
    "linear": lambda: LinearSVMClassifier(C=0.1, max_iter=1000),
    "kernel": lambda: KernelSVMClassifier(C=1.0, gamma=0.25),
}


def _calibrated(make, X, y, folds, ensemble):
    splits = [(np.flatnonzero(folds != k), np.flatnonzero(folds == k))
              for k in range(folds.max() + 1)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return CalibratedClassifierCV(make(), method="sigmoid", cv=splits,
                                      ensemble=ensemble).fit(X, y)


@pytest.mark.parametrize("classes", [2, 3])
@pytest.mark.parametrize("kind", sorted(ESTIMATORS))
def test_matches_calibrated_classifier_cv_on_the_same_folds(kind, classes):
    make = ESTIMATORS[kind]
    X, y = _data(classes=classes)
    Xt, _ = _data(200, classes=classes, seed=1)
    clf = make().set_params(probability=True).fit(X, y)
    P = clf.predict_proba(Xt)
    folds = folds_of(clf, y)
    # ensemble=False is the same method: held-out scores of the same fold
    # models, one sigmoid per output, the model fitted on all the data,
    # normalised one-vs-rest. The sigmoid fits differ (our Newton method to a
    # gradient of 1e-5 against scikit-learn's L-BFGS to 1e-6): measured 1e-8.
    same = _calibrated(make, X, y, folds, ensemble=False).predict_proba(Xt)
    np.testing.assert_allclose(P, same, atol=1e-6)
    # The default ensemble=True averages the probabilities of the 5 fold
    # models, each with a sigmoid of its fold: close, not equal (measured
    # mean differences 0.005 to 0.051, largest 0.15 for the kernel model).
    ensemble = _calibrated(make, X, y, folds, ensemble=True).predict_proba(Xt)
    assert np.abs(P - ensemble).mean() < 0.08
    assert np.abs(P - ensemble).max() > 1e-4


@pytest.mark.parametrize("classes", [2, 4])
@pytest.mark.parametrize("kind", sorted(ESTIMATORS))
def test_probabilities_are_a_distribution_that_helps(kind, classes):
    X, y = _data(classes=classes)
    Xt, yt = _data(300, classes=classes, seed=2)
    clf = ESTIMATORS[kind]().set_params(probability=True).fit(X, y)
    P = clf.predict_proba(Xt)
    assert P.shape == (300, classes)
    assert np.all((P >= 0) & (P <= 1))
    np.testing.assert_allclose(P.sum(axis=1), 1.0, rtol=0, atol=1e-12)
    np.testing.assert_allclose(clf.predict_log_proba(Xt), np.log(P))
    assert clf.probA_.shape == clf.probB_.shape == (1 if classes == 2 else classes,)
    assert np.all(clf.probA_ < 0)   # larger scores, more likely the output's class
    # better calibrated than the class frequencies
    prior = np.tile(np.bincount(y) / len(y), (300, 1))
    assert log_loss(yt, P) < 0.8 * log_loss(yt, prior)
    # the most probable class is mostly the predicted one
    # (one-vs-rest sigmoids may reorder close scores)
    assert np.mean(clf.classes_[P.argmax(axis=1)] == clf.predict(Xt)) > 0.8


@pytest.mark.parametrize("kind", sorted(ESTIMATORS))
def test_predict_proba_exists_as_for_svc(kind):
    X, y = _data(100)
    clf = ESTIMATORS[kind]()
    assert hasattr(clf, "predict_proba") is hasattr(SVC(), "predict_proba") is False
    with pytest.raises(AttributeError, match="no attribute 'predict_log_proba'") as error:
        clf.fit(X, y).predict_log_proba(X)
    assert "not available when probability=False" in str(error.value.__cause__)
    clf.set_params(probability=True)
    assert hasattr(clf, "predict_proba") and hasattr(clf, "predict_log_proba")
    with pytest.raises(NotFittedError):
        ESTIMATORS[kind]().set_params(probability=True).predict_proba(X)
    # fitted without probability, switched on afterwards: fit again first
    with pytest.raises(NotFittedError, match="call fit"):
        clf.predict_proba(X)


def test_logistic_loss_keeps_its_own_probabilities():
    X, y = _data(200)
    clf = LinearSVMClassifier(loss="logistic").fit(X, y)
    assert not hasattr(clf, "probA_")
    own = clf.predict_proba(X)
    platt = clf.set_params(probability=True).fit(X, y).predict_proba(X)
    assert hasattr(clf, "probA_") and not np.allclose(own, platt)


@pytest.mark.parametrize("kind", sorted(ESTIMATORS))
def test_seeded(kind):
    X, y = _data(200, classes=3)
    fit = lambda seed: ESTIMATORS[kind]().set_params(probability=True, random_state=seed).fit(X, y)
    a, b, c = fit(0), fit(0), fit(5)
    np.testing.assert_array_equal(a.probA_, b.probA_)
    np.testing.assert_array_equal(a.predict_proba(X), b.predict_proba(X))
    assert not np.array_equal(a.probA_, c.probA_)   # other folds


def test_folds_are_stratified_and_seeded():
    _, y = _data(103, classes=3)
    folds = folds_of(LinearSVMClassifier(random_state=3), y)
    assert folds.max() + 1 == PROBABILITY_FOLDS
    for k in range(PROBABILITY_FOLDS):
        counts = np.bincount(y[folds == k], minlength=3)
        assert counts.max() - counts.min() <= 1 + 1   # each class in its share
    np.testing.assert_array_equal(folds, folds_of(LinearSVMClassifier(random_state=3), y))


def test_partial_fit_makes_the_sigmoids_stale():
    X, y = _data(200)
    clf = LinearSVMClassifier(solver="sgd", probability=True, tol=0, max_iter=3).fit(X, y)
    clf.predict_proba(X)
    clf.partial_fit(X, y)
    with pytest.raises(NotFittedError, match="partial_fit"):
        clf.predict_proba(X)
    clf.fit(X, y)
    assert clf.predict_proba(X).shape == (200, 2)


def test_bad_inputs():
    X, y = _data(50)
    with pytest.raises(ValueError, match="probability.* must be an instance of .bool"):
        LinearSVMClassifier(probability="yes").fit(X, y)
    with pytest.raises(ValueError, match="probability.* must be an instance of .bool"):
        KernelSVMClassifier(probability=1).fit(X, y)
    y1 = y.copy()
    y1[0] = 7   # a class with one example
    with pytest.raises(ValueError, match="at least 2 examples of every class.*7"):
        LinearSVMClassifier(probability=True, tol=0, max_iter=2).fit(X, y1)


def test_pickle_and_sample_weight():
    X, y = _data(200)
    w = np.where(y == 1, 3.0, 1.0)
    clf = KernelSVMClassifier(probability=True, gamma=0.25).fit(X, y, sample_weight=w)
    again = pickle.loads(pickle.dumps(clf))
    np.testing.assert_array_equal(again.predict_proba(X), clf.predict_proba(X))
    # the weights reach the fold fits (the sigmoids are fitted unweighted)
    unweighted = KernelSVMClassifier(probability=True, gamma=0.25).fit(X, y)
    assert abs(clf.probB_[0] - unweighted.probB_[0]) > 0.05


def test_the_deprecated_seed_seeds_the_folds():
    y = np.repeat([0, 1], 20)
    with pytest.warns(FutureWarning, match="seed was renamed random_state"):
        old = LinearSVMClassifier(seed=3)
        old._check_renamed()
    np.testing.assert_array_equal(folds_of(old, y), folds_of(LinearSVMClassifier(random_state=3), y))
    assert not np.array_equal(folds_of(LinearSVMClassifier(random_state=4), y),
                              folds_of(LinearSVMClassifier(random_state=3), y))


@pytest.mark.parametrize("kind", ESTIMATORS)
@pytest.mark.parametrize("classes", [2, 3])
def test_model_files_keep_the_sigmoids(kind, classes, tmp_path):
    """save_model wrote the model without its sigmoids: the loaded
    estimator said probability=True and raised NotFittedError in
    predict_proba, and ``stochsvm predict -b`` refused the file."""
    import json
    import subprocess
    import sys

    from stochsvm import load_model, save_model
    from stochsvm.model_file import ModelFileError, model_dict, save

    X, y = _data(classes=classes)
    clf = ESTIMATORS[kind]().set_params(probability=True).fit(X, y)
    path = tmp_path / "m.ssvm"
    save_model(clf, path)
    back = load_model(path)
    np.testing.assert_array_equal(back.probA_, clf.probA_)
    np.testing.assert_array_equal(back.probB_, clf.probB_)
    np.testing.assert_allclose(back.predict_proba(X), clf.predict_proba(X), rtol=0, atol=1e-12)
    # the command line reads the same sigmoids
    data = tmp_path / "t.svm"
    data.write_text("".join(f"{label} " + " ".join(f"{j + 1}:{float(v)!r}" for j, v in enumerate(row))
                            + "\n" for row, label in zip(X[:20], y[:20])))
    out = subprocess.run([sys.executable, "-m", "stochsvm", "predict", "-b", str(path), str(data),
                          str(tmp_path / "p.txt")], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    lines = (tmp_path / "p.txt").read_text().splitlines()
    assert lines[0] == "labels " + " ".join(str(c) for c in clf.classes_)
    shown = np.array([[float(v) for v in line.split()[1:]] for line in lines[1:]])
    np.testing.assert_allclose(shown, clf.predict_proba(X[:20]), atol=1e-6)
    # a model without probability=True has none; a damaged entry is an error
    plain = ESTIMATORS[kind]().fit(X, y)
    assert "platt" not in json.loads(model_dict(plain)["metadata"])
    d = model_dict(clf)
    meta = json.loads(d["metadata"])
    for bad in ("abc", [[1.0, 2.0]] * (classes + 1 if classes > 2 else 2), [[1.0, float("nan")]],
                [[True, 0.0]] * (classes if classes > 2 else 1)):
        d["metadata"] = json.dumps({**meta, "platt": bad})
        save(d, tmp_path / "bad.ssvm")
        with pytest.raises(ModelFileError, match="platt"):
            load_model(tmp_path / "bad.ssvm")
        out = subprocess.run([sys.executable, "-m", "stochsvm", "predict", "-b",
                              str(tmp_path / "bad.ssvm"), str(data), str(tmp_path / "q.txt")],
                             capture_output=True, text=True, timeout=300)
        assert out.returncode == 2 and "platt" in out.stderr and "Traceback" not in out.stderr


@pytest.mark.parametrize("kind", ESTIMATORS)
def test_rows_of_weight_zero_are_dropped_as_by_libsvm(kind):
    """Rows of sample_weight 0 took part in the folds and in the Platt fit:
    the probabilities moved by up to 0.13 against the fit without those rows,
    where SVC's (LIBSVM drops them first) do not move at all."""
    X, y = _data(n=300, classes=3)
    w = (np.random.default_rng(1).random(len(y)) > 0.3).astype(float)
    keep = w > 0
    # (to a tight tol: the two runs take other paths to the same optimum)
    make = lambda: ESTIMATORS[kind]().set_params(probability=True, tol=1e-8)  # noqa: E731
    weighted = make().fit(X, y, sample_weight=w)
    dropped = make().fit(X[keep], y[keep])
    np.testing.assert_allclose(weighted.predict_proba(X), dropped.predict_proba(X), rtol=0,
                               atol=1e-6)


@pytest.mark.parametrize("kind", ESTIMATORS)
def test_a_class_without_weight_keeps_its_rows_in_the_folds(kind):
    """A class weighted 0 among three is never predicted; its rows stay in
    the folds (the fold models need the fit's classes), while the other
    classes' rows of weight 0 are left out as usual: the probabilities are
    those of the fit without the latter."""
    X, y = _data(n=300, classes=3)
    w = (np.random.default_rng(1).random(len(y)) > 0.3).astype(float)
    w[y == 2] = 0
    keep = (w > 0) | (y == 2)
    make = lambda: ESTIMATORS[kind]().set_params(probability=True, tol=1e-8)  # noqa: E731
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        warnings.simplefilter("ignore", UserWarning)  # class 2 has a total weight of 0
        weighted = make().fit(X, y, sample_weight=w)
        kept = make().fit(X[keep], y[keep], sample_weight=w[keep])
    P = weighted.predict_proba(X)
    assert np.all(np.isfinite(P)) and np.allclose(P.sum(axis=1), 1)
    np.testing.assert_allclose(P, kept.predict_proba(X), rtol=0, atol=1e-6)


@pytest.mark.parametrize("classes", [2, 3])
@pytest.mark.parametrize("kind", ESTIMATORS)
def test_a_class_of_one_row_with_weight_is_refused_before_training(kind, classes):
    """One row of positive weight in a class: the fit trained, then a fold
    fit without that row raised "sample_weight and class_weight leave
    positive weight on 1 class (0)" (two classes), which blamed the input
    (it has two classes with weight), or trained a fold model without the
    class (three). Now refused before training, naming the class."""
    X, y = _data(n=200, classes=classes)
    w = np.ones(len(y))
    w[np.flatnonzero(y == 1)[1:]] = 0
    clf = ESTIMATORS[kind]().set_params(probability=True)
    with pytest.raises(ValueError, match=r"probability=True needs at least 2 rows of positive "
                                         r"weight in every class .* one row of class 1 "):
        clf.fit(X, y, sample_weight=w)
    assert not hasattr(clf, "n_iter_")   # not trained
    w[np.flatnonzero(y == 1)[1]] = 1.0   # two rows are enough
    assert clf.fit(X, y, sample_weight=w).probA_.shape == (1 if classes == 2 else classes,)


def test_fold_models_use_the_fits_gamma():
    """gamma="scale": each fold model computed its own gamma from its rows,
    so the sigmoids calibrated another kernel's scores; rows of weight 0,
    which count in gamma_ (as SVC's), gave the weighted fit the sigmoid of
    the fit without them at its own gamma (predict_proba off by 0.08 on
    breast cancer). Now the folds use gamma_, as SVC's do: a weighted fit's
    probabilities are those of the fit without the rows of weight 0 at
    gamma=gamma_, and equal CalibratedClassifierCV's at gamma=gamma_."""
    X, y = _data(n=300)
    X[:40] *= 5   # rows of weight 0 that move gamma="scale"
    w = np.ones(len(y))
    w[:40] = 0
    make = lambda **kw: KernelSVMClassifier(probability=True, tol=1e-8, **kw)  # noqa: E731
    weighted = make().fit(X, y, sample_weight=w)
    assert abs(weighted.gamma_ / make().fit(X[40:], y[40:]).gamma_ - 1) > 0.5
    fixed = make(gamma=weighted.gamma_).fit(X[40:], y[40:])
    np.testing.assert_allclose(weighted.decision_function(X), fixed.decision_function(X),
                               rtol=0, atol=1e-6)
    np.testing.assert_allclose(weighted.predict_proba(X), fixed.predict_proba(X), rtol=0,
                               atol=1e-6)
    # without weights: the folds' kernel is the fit's
    clf = make().fit(X, y)
    same = _calibrated(lambda: KernelSVMClassifier(tol=1e-8, gamma=clf.gamma_), X, y,
                       folds_of(clf, y), ensemble=False)
    np.testing.assert_allclose(clf.predict_proba(X), same.predict_proba(X), atol=1e-6)


@pytest.mark.parametrize("probability", [False, True])
def test_far_out_rows_of_one_vs_rest_probabilities(probability):
    """Every score of a row below about -745: the sigmoids underflowed to 0
    and the normalisation gave NaN (the logistic loss) or a uniform row whose
    argmax was class 0 whatever the scores (Platt). In logs they keep their
    order."""
    X, y = _data(n=300, classes=3)
    clf = LinearSVMClassifier(loss="logistic", probability=probability).fit(X, y)
    # along v every class's score falls: rows scored about -1000 and -3000
    v = np.linalg.lstsq(clf.coef_, -np.ones(3), rcond=None)[0]
    rows = np.outer([1e3, 3e3], v / np.abs(clf.coef_ @ v).min())
    f = clf.decision_function(rows)
    assert f.max() < -745
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)  # no 0 / 0
        P, logP = clf.predict_proba(rows), clf.predict_log_proba(rows)
    assert np.all(np.isfinite(P)) and np.allclose(P.sum(axis=1), 1)
    assert np.all(np.isfinite(logP))
    if not probability:  # the logistic loss's own probabilities follow the scores
        np.testing.assert_array_equal(P.argmax(axis=1), clf.predict(rows))
    else:  # Platt's follow the sigmoids (a uniform row's argmax was class 0 whatever they said)
        from stochsvm.calibration import log_platt_probability

        logs = np.column_stack([log_platt_probability(f[:, k], a, b)
                                for k, (a, b) in enumerate(zip(clf.probA_, clf.probB_))])
        np.testing.assert_array_equal(P.argmax(axis=1), logs.argmax(axis=1))
        assert np.ptp(P, axis=1).min() > 0.01  # not a uniform row
    # near the data the values are those of the plain normalisation
    near = clf.predict_proba(X)
    if not probability:
        from scipy.special import expit

        plain = expit(clf.decision_function(X))
        np.testing.assert_allclose(near, plain / plain.sum(axis=1, keepdims=True), rtol=1e-12)
