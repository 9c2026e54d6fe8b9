"""Model selection on the command line: `train -v K`, `grid`, LIBSVM's short
options (-c, -g, -t, -wLABEL) and their errors."""

import re

import numpy as np
import pytest

import stochsvm
from stochsvm.cli import main
from stochsvm.datasets import load_libsvm, make_classification
from stochsvm.model_file import read_model
from stochsvm.model_selection import stratified_folds


def _write(path, X, y):
    with open(path, "w") as f:
        for row, label in zip(X, y):
            f.write(f"{label:g} " + " ".join(f"{j + 1}:{v:.6g}" for j, v in enumerate(row)) + "\n")
    return str(path)


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    folder = tmp_path_factory.mktemp("select")
    X, y = make_classification(300, 5, seed=3, noise=0.1)
    linear = _write(folder / "linear.svm", X, np.where(y > 0, 2, 1))
    rng = np.random.default_rng(0)
    Z = rng.uniform(-1, 1, size=(240, 2))
    circle = _write(folder / "circle.svm", Z, np.where((Z ** 2).sum(axis=1) < 0.5, 1, -1))
    return linear, circle, folder


def _untimed(out):
    return re.sub(r"\d+\.\d+ s\b", "T s", out)


def _cv_value(out):
    return float(re.search(r"-fold cross-validation accuracy (\S+)", out).group(1))


def test_train_v_equals_folds_trained_by_hand(data, capsys):
    linear, _, _ = data
    assert main(["train", linear, "-v", "4", "-c", "2", "--seed", "7", "--epochs", "10",
                 "--tol", "0", "-q"]) == 0
    out = capsys.readouterr().out
    assert "4-fold cross-validation accuracy" in out and "(stratified, seed 7; C 2)" in out
    assert "no model written" in out
    X, labels = load_libsvm(linear)
    y = np.where(labels == 2, 1.0, -1.0)
    folds = stratified_folds(labels, 4, seed=7)
    right = 0
    for k in range(4):
        tr, te = folds != k, folds == k
        svm = stochsvm.SVM(X[tr], y[tr], 1.0 / (2 * tr.sum()), solver="sdca", seed=7)
        svm.set_bias_multiplier(1.0)
        svm.set_epsilon(0.0)
        svm.set_max_num_iterations(10 * tr.sum())
        svm.train()
        right += np.sum(np.where(svm.decision_function(X[te]) > 0, 1.0, -1.0) == y[te])
    assert _cv_value(out) == pytest.approx(right / len(y), abs=1e-4)


def test_train_v_is_close_to_liblinear_cross_validation(data, capsys):
    sklearn = pytest.importorskip("sklearn.model_selection")
    from sklearn.svm import LinearSVC

    linear, _, _ = data
    assert main(["train", linear, "-v", "5", "-c", "1", "--epochs", "50", "-q"]) == 0
    ours = _cv_value(capsys.readouterr().out)
    X, labels = load_libsvm(linear)
    theirs = sklearn.cross_val_score(LinearSVC(C=1.0, loss="hinge", max_iter=100_000), X, labels,
                                     cv=sklearn.StratifiedKFold(5, shuffle=True,
                                                                random_state=0)).mean()
    assert abs(ours - theirs) < 0.04


def test_linear_grid_warm_starts_along_c_and_matches_cold_runs(data, capsys):
    linear, _, folder = data
    assert main(["grid", linear, "--log2c", "-4,2,3", "-v", "3", "--epochs", "30",
                 "--tol", "1e-4"]) == 0
    out = capsys.readouterr().out
    assert "warm start along C" in out
    table = {float(m.group(1)): float(m.group(2))
             for m in re.finditer(r"^ +(-?\d+) +\S+ +(\S+)$", out, flags=re.M)}
    assert sorted(table) == [-4, -1, 2]
    for log2c, value in table.items():
        assert main(["train", linear, "-v", "3", "-c", str(2.0 ** log2c), "--epochs", "30",
                     "--tol", "1e-4", "-q"]) == 0
        assert value == pytest.approx(_cv_value(capsys.readouterr().out), abs=0.02)
    best = max(table.values())
    assert f"cross-validation accuracy {best:.4f}" in out
    assert "no model written" in out


def test_kernel_grid_finds_a_gamma_that_learns_the_circle_and_writes_it(data, capsys):
    _, circle, folder = data
    model = folder / "best.ssvm"
    assert main(["grid", circle, str(model), "-t", "2", "--solver", "sdca",
                 "--log2c", "0,4,4", "--log2g", "-6,2,4", "-v", "3", "-q"]) == 0
    out = capsys.readouterr().out
    rows = re.findall(r"^ +(-?\d+) +\S+ +(-?\d+) +\S+ +(\S+)$", out, flags=re.M)
    assert len(rows) == 6
    by_gamma = {}
    for _, log2g, value in rows:
        by_gamma.setdefault(int(log2g), []).append(float(value))
    assert max(by_gamma[2]) > 0.85 > max(by_gamma[-6])   # a wide kernel cannot draw a circle
    best = re.search(r"best: C (\S+) \(log2 \S+\), gamma (\S+) \(log2 (\S+)\)", out)
    assert best and best.group(3) == "2"
    d = read_model(str(model))
    assert d["kind"] == "kernel" and d["gamma"] == pytest.approx(4.0)
    assert f"model written to {model}" in out


def test_short_options_are_libsvm_aliases(data, capsys):
    linear, circle, _ = data
    assert main(["train", circle, "-t", "2", "-g", "0.5", "-c", "4", "--solver", "sdca",
                 "-q"]) == 0
    short = _untimed(capsys.readouterr().out)
    assert main(["train", circle, "--kernel", "rbf", "--gamma", "0.5", "-C", "4",
                 "--solver", "sdca", "-q"]) == 0
    assert _untimed(capsys.readouterr().out) == short
    assert "rbf kernel (gamma 0.5)" in short


def test_class_weights_shift_the_decision(data, capsys):
    linear, _, folder = data
    counts = {}
    for weights in ([], ["-w1", "20"], ["-w2", "20"]):
        model = str(folder / "w.ssvm")
        assert main(["train", linear, model, "-q", *weights]) == 0
        capsys.readouterr()
        assert main(["predict", model, linear]) == 0
        predictions = np.array(capsys.readouterr().out.split(), dtype=float)
        counts[" ".join(weights)] = int(np.sum(predictions == 1))
    assert counts["-w1 20"] > counts[""] > counts["-w2 20"]
    assert main(["train", linear, "--class-weight", "1:0.5", "-q"]) == 0


def test_class_weights_are_checked_on_the_whole_file_not_on_folds(data, capsys):
    """A class of one row is missing from a fold's training part: -v, grid
    and --probability with -wLABEL refused it ("leave positive weight on 1
    class") or warned of a weight of 0 that no one gave. Weights that do
    leave one class are still refused, before any training. (--probability
    now refuses a class of one row itself, as probability=True does.)"""
    _, _, folder = data
    X, y = make_classification(40, 3, seed=5, noise=0.1)
    one = np.flatnonzero(y > 0)[:1]
    rows = np.r_[np.flatnonzero(y < 0), one]
    binary = _write(folder / "one_row.svm", X[rows], np.where(y[rows] > 0, 2, 1))
    labels = np.where(y > 0, 2, 1)
    labels[np.flatnonzero(y > 0)[1:3]] = 3
    rows = np.r_[rows, np.flatnonzero(y > 0)[1]]
    three = _write(folder / "three_one_row.svm", X[rows], labels[rows])   # classes 2, 3: 1 row
    for argv in (["train", binary, "-v", "5", "-w2", "3"],
                 ["grid", binary, "--log2c", "0,1,1", "-w2", "3"],
                 ["train", three, "-v", "5", "-w1", "2"]):
        assert main(argv + ["-q"]) == 0, argv
        assert "weight" not in capsys.readouterr().err, argv
    for command in (["train", binary, "-v", "5"], ["grid", binary, "--log2c", "0,1,1"]):
        assert main(command + ["-w2", "0", "-q"]) == 2
        captured = capsys.readouterr()
        assert "leave positive weight on 1 class (1)" in captured.err
        assert "cross-validation" not in captured.out


def test_regression_folds_are_not_called_stratified(data, capsys):
    """-v and grid with a regression loss said "stratified"; its folds are
    one shuffle of all the rows (stratify=False), and say so."""
    _, _, folder = data
    X, _ = make_classification(60, 3, seed=6, noise=0.1)
    targets = _write(folder / "reg.svm", X, X @ [1.0, -2.0, 0.5])
    assert main(["train", targets, "-v", "3", "--loss", "l2", "-q"]) == 0
    out = capsys.readouterr().out
    assert "3-fold cross-validation mse" in out and "(shuffled, seed 0; C 1)" in out
    assert main(["grid", targets, "--loss", "l2", "--log2c", "0", "-v", "3", "-q"]) == 0
    out = capsys.readouterr().out
    assert "3-fold cross-validation (shuffled, seed 0)" in out and "stratified" not in out
    linear = data[0]
    assert main(["train", linear, "-v", "3", "-q"]) == 0
    assert "(stratified, seed 0; C 1)" in capsys.readouterr().out


def test_selection_errors(data, capsys):
    linear, _, _ = data

    def error(*argv):
        assert main(list(argv)) == 2
        return capsys.readouterr().err

    err = error("train", linear, "-c", "abc")
    assert err.startswith("usage: stochsvm train") and "-C must be a number" in err
    assert "usage: stochsvm train" in error("train", linear, "-c")
    assert "-v must be >= 2" in error("train", linear, "-v", "1")
    assert "more folds than the 300 examples" in error("train", linear, "-v", "301")
    assert "exclude each other" in error("train", linear, "-v", "3", "--validation", "0.2")
    assert "-w5: no class 5" in error("train", linear, "-w5", "2")
    assert "the weight must be finite and >= 0" in error("train", linear, "-w1", "-2")
    assert "need --kernel" in error("grid", linear, "--log2g", "-1,1,1")
    assert "drop -C/--lambda" in error("grid", linear, "-c", "1")
    assert "--log2c: the step" in error("grid", linear, "--log2c", "5,1,1")
    assert "invalid choice: 'gauss'" in error("train", linear, "-t", "gauss")
