"""Platt scaling (stochsvm.calibration) and `train --probability` /
`predict --probability`: the sigmoid is the exact maximum-likelihood fit
(against scipy.optimize), and the command line's probabilities are close to
scikit-learn's CalibratedClassifierCV on the same folds."""

import re

import numpy as np
import pytest
from scipy.optimize import minimize

from stochsvm.calibration import class_probabilities, fit_platt, platt_probability
from stochsvm.cli import main
from stochsvm.datasets import load_libsvm, make_classification
from stochsvm.model_selection import stratified_folds


def _platt_data(n=2000, seed=0, slope=3.0, offset=0.4):
    rng = np.random.default_rng(seed)
    f = rng.normal(size=n)
    y = np.where(rng.random(n) < 1 / (1 + np.exp(-(slope * f - offset))), 1, -1)
    return f, y


def test_fit_platt_is_the_maximum_likelihood_sigmoid():
    f, y = _platt_data()
    A, B = fit_platt(f, y)
    n_pos, n_neg = np.sum(y > 0), np.sum(y < 0)
    t = np.where(y > 0, (n_pos + 1) / (n_pos + 2), 1 / (n_neg + 2))

    def nll(v):
        z = v[0] * f + v[1]
        return np.sum(t * z + np.logaddexp(0, -z))

    exact = minimize(nll, [0.0, 0.0], method="BFGS", options={"gtol": 1e-10}).x
    np.testing.assert_allclose([A, B], exact, atol=1e-5)
    assert A == pytest.approx(-3.0, abs=0.3) and B == pytest.approx(0.4, abs=0.2)


def test_fit_platt_survives_huge_scores_and_separable_data():
    f, y = _platt_data()
    A, B = fit_platt(f * 1e6, y)
    assert np.isfinite([A, B]).all()
    A, B = fit_platt([-3.0, -2.0, 2.0, 3.0], [-1, -1, 1, 1])
    p = platt_probability([-3.0, 3.0], A, B)
    assert p[0] < 0.5 < p[1] and np.isfinite([A, B]).all()
    with pytest.raises(ValueError, match="finite"):
        fit_platt([0.0, np.nan], [1, -1])
    with pytest.raises(ValueError, match="one length"):
        fit_platt([0.0, 1.0], [1])


def test_class_probabilities_sum_to_one():
    scores = np.array([[2.0, -1.0, 0.5], [-3.0, -3.0, -3.0]])
    P = class_probabilities(scores, [(-2.0, 0.0)] * 3)
    np.testing.assert_allclose(P.sum(axis=1), 1.0)
    assert P[0].argmax() == 0 and np.allclose(P[1], 1 / 3)
    binary = class_probabilities(scores[:, :1], [(-2.0, 0.1)])
    np.testing.assert_allclose(binary[:, 1], platt_probability(scores[:, 0], -2.0, 0.1))
    np.testing.assert_allclose(binary.sum(axis=1), 1.0)


def _write(path, X, y):
    path.write_text("".join(f"{label:g} " + " ".join(f"{j + 1}:{v:.9g}" for j, v in enumerate(x))
                            + "\n" for x, label in zip(X, y)))
    return str(path)


def _cli_probabilities(argv, capsys):
    assert main(argv) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    assert lines[0].startswith("labels ")
    return lines[0].split()[1:], np.array([[float(v) for v in line.split()[1:]]
                                           for line in lines[1:]])


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
def test_cli_probabilities_are_close_to_calibrated_classifier_cv(tmp_path, capsys):
    pytest.importorskip("sklearn")
    from sklearn.calibration import CalibratedClassifierCV
    from sklearn.model_selection import PredefinedSplit

    from stochsvm import LinearSVMClassifier

    X, y = make_classification(1200, 6, seed=2, noise=0.15)
    labels = np.where(y > 0, 2, 1)
    train = _write(tmp_path / "tr.svm", X[:900], labels[:900])
    test = _write(tmp_path / "te.svm", X[900:], labels[900:])
    model = str(tmp_path / "m.ssvm")
    assert main(["train", train, model, "--probability", "--epochs", "50", "--tol", "1e-6",
                 "-q"]) == 0
    assert "Platt sigmoids fitted on 5-fold" in capsys.readouterr().out
    names, ours = _cli_probabilities(["predict", model, test, "--probability"], capsys)
    assert names == ["1", "2"]
    Xtr, ytr = load_libsvm(train)
    Xte, _ = load_libsvm(test, n_features=6)
    folds = stratified_folds(ytr, 5, seed=0)
    reference = CalibratedClassifierCV(
        LinearSVMClassifier(C=1.0, max_iter=50, tol=1e-6, random_state=0), method="sigmoid",
        cv=PredefinedSplit(folds), ensemble=False).fit(Xtr, ytr)
    theirs = reference.predict_proba(Xte)
    assert np.abs(ours - theirs).max() < 0.05
    # calibrated: on held-out rows the predicted probability of class 2 tracks its frequency
    truth = labels[900:] == 2
    assert abs(ours[:, 1].mean() - truth.mean()) < 0.05


def test_cli_multiclass_probabilities_and_errors(tmp_path, capsys):
    rng = np.random.default_rng(3)
    k = np.arange(300) % 3
    X = rng.normal(size=(3, 4))[k] * 2 + rng.normal(size=(300, 4))
    train = _write(tmp_path / "tr3.svm", X, k + 1)
    model = str(tmp_path / "m3.ssvm")
    assert main(["train", train, model, "--probability", "-q"]) == 0
    capsys.readouterr()
    names, P = _cli_probabilities(["predict", model, train, "-b"], capsys)
    assert names == ["1", "2", "3"] and P.shape == (300, 3)
    np.testing.assert_allclose(P.sum(axis=1), 1.0, atol=1e-5)
    assert np.mean(P.argmax(axis=1) == k) > 0.8
    plain = str(tmp_path / "plain.ssvm")
    assert main(["train", train, plain, "-q"]) == 0
    assert main(["predict", plain, train, "-b"]) == 2
    assert "has no probability model (train it with --probability" in capsys.readouterr().err
    assert main(["train", train, model, "--probability", "--loss", "l2", "-q"]) == 2
    assert re.search(r"--probability needs a classifier", capsys.readouterr().err)


def test_cli_probability_takes_the_estimators_rule_before_training(tmp_path, capsys):
    """train --probability refused 4 rows (2 per class) after the whole
    training, and took a class of 1 row, the reverse of probability=True.
    Now one rule (stochsvm._probability.check_classes): 4 rows make 4 folds
    and the sigmoid the estimator fits; a class of 1 row is refused before
    any training."""
    import json

    from stochsvm import LinearSVMClassifier
    from stochsvm.model_file import read_model

    X, y = np.array([[1.0], [-1.0], [2.0], [-2.0]]), np.array([1, -1, 1, -1])
    tiny, model = _write(tmp_path / "tiny.svm", X, y), tmp_path / "m.ssvm"
    assert main(["train", tiny, str(model), "--probability", "-q"]) == 0
    assert "Platt sigmoids fitted on 4-fold" in capsys.readouterr().out
    ours = json.loads(read_model(str(model))["metadata"])["platt"]
    epochs = json.loads(read_model(str(model))["metadata"])["epochs"]
    clf = LinearSVMClassifier(C=1.0, max_iter=epochs, random_state=0, probability=True)
    clf.fit(X, y)
    np.testing.assert_allclose(ours, np.column_stack([clf.probA_, clf.probB_]), rtol=1e-9,
                               atol=1e-12)
    odd = _write(tmp_path / "odd.svm", np.vstack([X, [[5.0]]]), np.r_[y, 7])
    assert main(["train", odd, str(tmp_path / "o.ssvm"), "--probability"]) == 2
    captured = capsys.readouterr()
    assert ("--probability needs at least 2 examples of every class for its internal "
            "cross-validation; class 7 has 1") in captured.err
    assert "epoch" not in captured.out and "lambda" not in captured.out   # no training
    assert not (tmp_path / "o.ssvm").exists()
    with pytest.raises(ValueError, match="at least 2 examples of every class"):
        LinearSVMClassifier(probability=True).fit(np.vstack([X, [[5.0]]]), np.r_[y, 7])


def test_cli_predict_b_writes_the_most_probable_class(tmp_path, capsys):
    """predict -b wrote the largest score's class beside probabilities that
    made another class the most probable; LIBSVM's svm-predict -b 1 (which
    the docs name) writes the most probable, and so does it now. Sigmoids
    of different slopes reorder close scores: the two labels differ on some
    rows, and the estimator's predict keeps the largest score's."""
    from stochsvm import LinearSVMClassifier
    from stochsvm.model_file import save_model

    rng = np.random.default_rng(4)
    k = np.arange(300) % 3
    X = rng.normal(size=(3, 4))[k] + rng.normal(size=(300, 4))
    clf = LinearSVMClassifier(probability=True, random_state=0).fit(X, k + 1)
    clf.probA_, clf.probB_ = np.array([-4.0, -4.0, -0.5]), np.array([0.0, 0.0, -1.0])
    model, test = str(tmp_path / "m.ssvm"), _write(tmp_path / "t.svm", X, k + 1)
    save_model(clf, model)
    names, P = _cli_probabilities(["predict", model, test, "-b"], capsys)
    np.testing.assert_allclose(P, clf.predict_proba(X), atol=1e-5)
    assert main(["predict", model, test, "-b"]) == 0
    written = np.array([float(line.split()[0])
                        for line in capsys.readouterr().out.splitlines()[1:]])
    most_probable = np.array(names, dtype=float)[P.argmax(axis=1)]
    np.testing.assert_array_equal(written, most_probable)
    assert np.any(written != clf.predict(X))
