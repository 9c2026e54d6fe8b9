"""The command line: `stochsvm demo`, `train`, `predict`, `info`, `--version`, and
their errors; end to end through subprocess (the installed console script's
module) and in process for the many error cases."""

import importlib.util
import os
import re
import subprocess
import sys

import numpy as np
import pytest
from _helpers import write_libsvm as _write_libsvm

import stochsvm
from stochsvm.cli import _kernel_solvers, _solvers, main
from stochsvm.datasets import make_classification
from stochsvm.model_file import read_model


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """A train and a test file with labels 1/2, and a three-class pair."""
    folder = tmp_path_factory.mktemp("cli")
    X, y = make_classification(3000, 8, seed=11, noise=0.02)
    labels = np.where(y > 0, 2, 1)
    train = _write_libsvm(folder / "train.svm", X[:2000], labels[:2000])
    test = _write_libsvm(folder / "test.svm", X[2000:], labels[2000:])
    rng = np.random.default_rng(3)
    k = np.arange(900) % 3
    X3 = rng.normal(size=(3, 5))[k] * 2 + rng.normal(size=(900, 5))
    train3 = _write_libsvm(folder / "train3.svm", X3[:600], k[:600] + 1)
    test3 = _write_libsvm(folder / "test3.svm", X3[600:], k[600:] + 1)
    return train, test, folder, train3, test3


def _run(*argv, check=True):
    """`python -m stochsvm ARGV` as a user would run it."""
    out = subprocess.run([sys.executable, "-m", "stochsvm", *map(str, argv)],
                         capture_output=True, text=True, timeout=300)
    if check:
        assert out.returncode == 0, out.stderr
    return out


def _value(out, name):
    return float(re.search(name + r" (\S+?),?\s", out + " ").group(1))


# ---------------------------------------------------------------------------
#                         end to end, through subprocess
# ---------------------------------------------------------------------------

def test_train_predict_info_end_to_end(files, tmp_path):
    train, test, _, _, _ = files
    model = tmp_path / "model.ssvm"
    out = _run("train", train, model, "--solver", "sdca", "-C", "1", "--epochs", "20",
               "--tol", "1e-4", "--test", test).stdout
    assert "2000 examples, 8 features" in out and "binary, 2 classes" in out
    assert f"model written to {model}" in out
    assert _value(out, "train accuracy") > 0.9
    test_acc = _value(out, "test accuracy")
    d = read_model(model)
    assert d["task"] == "binary" and list(d["labels"]) == [1.0, 2.0]
    assert d["weights"].shape == (1, 8)
    # predict: labels to a file, accuracy on stdout, equal to train's test accuracy
    preds = tmp_path / "preds.txt"
    out = _run("predict", model, test, preds).stdout
    assert _value(out, "accuracy") == test_acc
    labels = np.loadtxt(preds)
    assert labels.shape == (1000,) and set(labels) <= {1.0, 2.0}
    # the predictions are those of the saved model (scores computed independently)
    from stochsvm.datasets import load_libsvm

    Xt, yt = load_libsvm(test, n_features=8)
    scores = np.asarray(Xt @ d["weights"][0]).ravel() + d["biases"][0]
    np.testing.assert_array_equal(labels, np.where(scores > 0, 2.0, 1.0))
    assert np.mean(labels == yt) == pytest.approx(test_acc, abs=1e-4)
    # predictions and scores to stdout, accuracy to stderr
    out = _run("predict", model, test, "--scores")
    rows = [line.split() for line in out.stdout.splitlines()]
    assert len(rows) == 1000 and all(len(r) == 2 for r in rows)
    np.testing.assert_allclose([float(r[1]) for r in rows], scores, rtol=1e-12, atol=1e-12)
    assert "accuracy" in out.stderr
    # info
    out = _run("info", model).stdout
    assert "format version 1" in out and "task            binary" in out
    assert "classes         2: 1, 2" in out and "input features  8" in out
    assert '"solver": "sdca"' in out


def test_multiclass_validation_early_stopping(files, tmp_path):
    _, _, _, train3, test3 = files
    model = tmp_path / "m3.ssvm"
    out = _run("train", train3, model, "--solver", "sgd", "--epochs", "30", "--validation",
               "0.25", "--patience", "3", "--progress", "--test", test3)
    assert "one-vs-rest, 3 classes" in out.stdout
    assert "validation: 150 rows held out" in out.stdout
    # each one-vs-rest SVM stops on its own rule (the estimators' early
    # stopping, tests/test_early_stopping.py): the epochs of the models kept
    best = re.search(r"best epochs ([\d, ]+) \(one per class\): validation accuracy (\S+)",
                     out.stdout)
    assert best, out.stdout
    kept = [int(e) for e in best.group(1).split(", ")]
    stop = re.search(r"(early stop|epoch limit|converged) after (\d+) epochs", out.stdout)
    assert len(kept) == 3 and stop and 1 <= min(kept) and max(kept) <= int(stop.group(2))
    if stop.group(1) == "early stop":  # the last to stop ended 3 epochs without a gain
        assert int(stop.group(2)) - max(kept) <= 3
    # the progress bar went to stderr with the live objective (tqdm); without
    # tqdm, --progress falls back to lines on stdout (docs/progress.rst)
    if importlib.util.find_spec("tqdm"):
        assert "objective" in out.stderr and "[" in out.stderr and "validation accuracy" in out.stderr
    else:
        assert "objective" in out.stdout and "validation accuracy" in out.stdout
    assert _value(out.stdout, "test accuracy") > 0.8
    d = read_model(model)
    assert d["task"] == "one_vs_rest" and d["weights"].shape == (3, 5)
    assert d["metadata_json"]["best_epochs"] == kept
    out = _run("predict", model, test3)
    assert "accuracy" in out.stderr and len(out.stdout.split()) == 300
    # threads change nothing: the same model with --jobs 2
    again = tmp_path / "m3-jobs.ssvm"
    _run("train", train3, again, "--solver", "sgd", "--epochs", "30", "--validation", "0.25",
         "--patience", "3", "--jobs", "2", "-q")
    np.testing.assert_array_equal(read_model(again)["weights"], d["weights"])


def test_regression_and_homkermap(tmp_path):
    rng = np.random.default_rng(4)
    X = rng.random((400, 3))
    y = 3 * X[:, 0] - X[:, 1] + 0.5
    data = _write_libsvm(tmp_path / "reg.svm", X, y)
    model = tmp_path / "reg.ssvm"
    out = _run("train", data, model, "--loss", "l2", "-C", "100", "--epochs", "50", "-q").stdout
    assert "regression" in out and _value(out, "train mse") < 1e-3
    assert read_model(model)["task"] == "regression"
    out = _run("predict", model, data).stderr
    assert _value(out, "mse") < 1e-3
    mapped = tmp_path / "hkm.ssvm"
    labels = np.where(np.sin(3 * np.pi * X).sum(1) > 2 * 3 / (3 * np.pi), 1, -1)
    cls = _write_libsvm(tmp_path / "cls.svm", X, labels)
    _run("train", cls, mapped, "--homkermap", "intersection", "--homkermap-order", "2", "-q")
    out = _run("info", mapped).stdout
    assert "homogeneous kernel map: intersection, order 2" in out
    assert "(15 weights per output)" in out
    assert "accuracy" in _run("predict", mapped, cls).stderr


@pytest.mark.parametrize("solver", _kernel_solvers())
def test_train_kernel_models(files, tmp_path, solver):
    _, _, _, train3, test3 = files
    model = tmp_path / f"{solver}.ssvm"
    out = _run("train", train3, model, "--kernel", "rbf", "--gamma", "0.5", "--solver", solver,
               "--epochs", "3", "--jobs", "2", "--test", test3, "-q").stdout
    assert f"kernel {solver}, rbf kernel (gamma 0.5)" in out
    test_acc = _value(out, "test accuracy")
    assert test_acc > 0.6
    d = read_model(model)
    assert d["kind"] == "kernel" and d["task"] == "one_vs_rest" and d["gamma"] == 0.5
    assert d["coefficients"].shape == (3, d["sv_indptr"].size - 1)
    # predict (the C core's kernel expansion) gives the accuracy train reported
    assert _value(_run("predict", model, test3).stderr, "accuracy") == test_acc


def test_train_kernel_cache_size_and_shrinking(files, tmp_path, capsys):
    """--cache-size and --no-shrinking reach the exact kernel SDCA: the same
    model (the cache never changes the iterates; shrinking off reaches the
    same optimum to the tolerance); refused without --kernel or when <= 0."""
    train, _, _, _, _ = files
    common = ["--kernel", "rbf", "--gamma", "0.5", "--solver", "sdca", "--tol", "1e-8", "-q"]
    models = {}
    for name, extra in [("default", []), ("small", ["--cache-size", "0.01"]),
                        ("full", ["--no-shrinking"])]:
        models[name] = tmp_path / f"{name}.ssvm"
        assert main(["train", train, str(models[name]), *common, *extra]) == 0
    d = {k: read_model(v) for k, v in models.items()}
    np.testing.assert_array_equal(d["small"]["coefficients"], d["default"]["coefficients"])
    # the flags reach the object the command trains
    from stochsvm import cli

    X, y = np.eye(4), np.array([1.0, -1.0, 1.0, -1.0])
    for extra, size, shrinking in [([], 200, True), (["--cache-size", "0.5"], 0.5, True),
                                   (["--no-shrinking"], 200, False)]:
        args = cli._build_parser().parse_args(["train", train, *common, *extra])
        svm = cli._new_kernel_svm(X, y, 0.1, args)
        assert (svm.get_cache_size(), svm.get_shrinking()) == (size, shrinking)
    np.testing.assert_allclose(d["full"]["biases"], d["default"]["biases"], atol=1e-3)
    capsys.readouterr()
    assert "--cache-size needs --kernel" in _error(["train", train, "--cache-size", "5"], capsys)
    assert "--cache-size must be > 0" in _error(["train", train, *common, "--cache-size", "0"],
                                                capsys)


@pytest.mark.parametrize("solver", ["bsca", "bsgd"])
@pytest.mark.parametrize("maintenance", ["remove", "merge", "project"])
def test_train_budget_options(files, tmp_path, capsys, solver, maintenance):
    """--budget caps every one-vs-rest model's support vectors, with every
    maintenance strategy (the default budget, 500, would keep more)."""
    _, _, _, train3, test3 = files
    model = tmp_path / "budget.ssvm"
    assert main(["train", train3, str(model), "--kernel", "rbf", "--gamma", "0.5", "--solver",
                 solver, "--budget", "7", "--maintenance", maintenance, "--epochs", "2",
                 "--test", test3, "-q"]) == 0
    d = read_model(model)
    counts = np.count_nonzero(d["coefficients"], axis=1)
    assert counts.max() <= 7 and counts.min() >= 1
    assert _value(capsys.readouterr().out, "test accuracy") > 0.5


def test_predict_models_written_elsewhere(files, tmp_path):
    """Models saved by the estimators (string labels) and kernel models written
    through the C core predict through the same command."""
    pytest.importorskip("sklearn")
    from stochsvm import LinearSVMClassifier, _model_file, save_model
    from stochsvm.datasets import load_libsvm

    _, _, _, train3, test3 = files
    X, y = load_libsvm(train3)
    names = np.array(["ant", "bee", "cat"])[(y - 1).astype(int)]
    clf = LinearSVMClassifier(tol=0, max_iter=5).fit(X, names)
    save_model(clf, tmp_path / "names.ssvm")
    out = _run("predict", tmp_path / "names.ssvm", test3)
    Xt, _ = load_libsvm(test3, n_features=X.shape[1])
    assert out.stdout.split() == clf.predict(Xt).tolist()
    assert "labels the model does not know" in out.stderr
    assert "classes         3: ant, bee, cat" in _run("info", tmp_path / "names.ssvm").stdout
    # an RBF expansion over 2 support vectors, scored by the core
    kernel = {"kind": "kernel", "task": "binary", "dimension": 5, "labels": [1.0, 3.0],
              "kernel": "rbf", "gamma": 0.1, "sv_indptr": [0, 2, 5], "sv_indices": [0, 3, 0, 1, 4],
              "sv_values": [1.0, 2.0, -1.0, 0.5, 3.0], "coefficients": [[0.7, -0.4]],
              "biases": [0.05]}
    _model_file.save(kernel, tmp_path / "rbf.ssvm")
    out = _run("predict", tmp_path / "rbf.ssvm", test3, "--scores")
    rows = np.array([[float(v) for v in line.split()] for line in out.stdout.splitlines()])
    sv = np.zeros((2, 5))
    sv[0, [0, 3]] = [1.0, 2.0]
    sv[1, [0, 1, 4]] = [-1.0, 0.5, 3.0]
    Xd = Xt.toarray()
    dist = ((Xd[:, None, :] - sv[None]) ** 2).sum(-1)
    scores = np.exp(-0.1 * dist) @ [0.7, -0.4] + 0.05
    np.testing.assert_allclose(rows[:, 1], scores, rtol=1e-12, atol=1e-14)
    np.testing.assert_array_equal(rows[:, 0], np.where(scores > 0, 3.0, 1.0))
    info = _run("info", tmp_path / "rbf.ssvm").stdout
    assert "kernel          rbf (gamma 0.1" in info and "support vectors 2 (5 nonzeros)" in info


def test_demo_end_to_end(tmp_path):
    plot = tmp_path / "curves.png"
    # 4 epochs: on this small mapped set (1000 rows, C = 10) SDCA's primal
    # model swings from epoch to epoch while its dual rises (test accuracy
    # 0.57-0.85 over epochs 1-10, 0.85 at 4; the SGD family 0.78-0.87)
    out = _run("demo", "--n", "4000", "--n-test", "1000", "--d", "6", "--epochs", "4",
               "--plot", plot).stdout
    solvers = _solvers()
    tables = out.split("\n\n")
    linear = next(t for t in tables if t.startswith("linear:"))
    nonlinear = next(t for t in tables if t.startswith("non-linear:"))
    for solver in solvers:
        # RES and LRES need a differentiable loss: the demo runs them on the squared hinge
        loss = r" \(hinge2\)" if solver in ("res", "lres") else ""
        row = re.search(rf"^  {solver}{loss} +(\d+) +(\S+) +(\S+) +(\S+) +-$", linear,
                        flags=re.M)
        assert row, linear
        assert 0 < float(row.group(2)) < 1 and float(row.group(3)) > 0.85
        mapped = re.search(rf"^  {solver} \+ intersection map \(order 5\){loss} +\d+ +\S+ +(\S+)",
                           nonlinear, flags=re.M)
        raw = re.search(rf"^  {solver}{loss} +\d+ +\S+ +(\S+)", nonlinear, flags=re.M)
        if solver == "res":   # O(d^3) per step: the demo leaves it out on the map, and says so
            assert mapped is None and "res: not run on the map's features" in out
            continue
        # the map makes the non-linear problem learnable; raw features do not
        assert float(mapped.group(1)) > float(raw.group(1)) + 0.2

    for solver in _kernel_solvers():
        row = re.search(rf"^  kernel {solver} \(rbf, gamma 10, 1000 rows\) +4 +(\S+) +(\S+) +\S+ "
                        r"+(\d+)$", nonlinear, flags=re.M)
        assert row, nonlinear
        assert 0 <= float(row.group(2)) <= 1 and int(row.group(3)) > 0
    assert plot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert f"convergence curves written to {plot}" in out


def test_demo_on_files(files):
    train, test, _, _, _ = files
    out = _run("demo", "--data", train, test, "--epochs", "2").stdout
    assert "train.svm: 2000 x 8, tested on" in out
    assert re.search(r"^  sdca +2 ", out, flags=re.M)
    # negative features: no kernel map rows
    assert "map" not in out.split("tested on", 1)[1]


def test_bad_files_name_file_and_line(tmp_path, files):
    train, _, _, _, _ = files
    bad = tmp_path / "bad.svm"
    bad.write_text("1 1:1\n-1 2:x\n")
    out = _run("train", bad, check=False)
    assert out.returncode == 2
    assert f"{bad}: line 2" in out.stderr
    nan = tmp_path / "nan.svm"
    nan.write_text("1 1:1\n-1 1:2\n1 3:nan\n")
    out = _run("predict", tmp_path / "missing.ssvm", nan, check=False)
    assert out.returncode == 2 and "no such file" in out.stderr
    model = tmp_path / "m.ssvm"
    _run("train", train, model, "-q")
    out = _run("predict", model, nan, check=False)
    assert out.returncode == 2 and f"{nan}: line 3: a feature value is not finite" in out.stderr
    out = _run("info", bad, check=False)
    assert out.returncode == 2 and f"{bad}: not a stochsvm model file" in out.stderr
    truncated = tmp_path / "t.ssvm"
    truncated.write_bytes(model.read_bytes()[:50])
    out = _run("predict", truncated, train, check=False)
    assert out.returncode == 2 and f"{truncated}: truncated file" in out.stderr


# ---------------------------------------------------------------------------
#                         in process: options and errors
# ---------------------------------------------------------------------------

def test_version(capsys):
    assert main(["--version"]) == 0
    assert capsys.readouterr().out.strip() == f"stochsvm {stochsvm.__version__}"


def test_no_command_prints_help(capsys):
    assert main([]) == 2
    out = capsys.readouterr().out
    assert all(c in out for c in ("demo", "train", "predict", "info"))


def test_demo_is_deterministic(capsys):
    argv = ["demo", "--n", "3000", "--n-test", "500", "--d", "4", "--epochs", "2"]
    main(argv)
    first = capsys.readouterr().out
    main(argv)
    second = capsys.readouterr().out
    strip = lambda s: re.sub(r"\d+\.\d\d( |$)|[\d.]+ CPU s", "", s, flags=re.M)  # noqa: E731
    assert strip(first) == strip(second)


@pytest.mark.parametrize("loss", ["hinge", "hinge2", "logistic"])
@pytest.mark.parametrize("solver", _solvers())
def test_train_options(files, capsys, loss, solver, tmp_path):
    train, test, _, _, _ = files
    argv = ["train", train, str(tmp_path / "m.ssvm"), "--solver", solver, "--lambda", "0.01",
            "--epochs", "3", "--loss", loss, "--bias-multiplier", "0", "--seed", "3",
            "--float32", "--tol", "0.5", "--no-shrinking", "--test", test, "-q"]
    if solver in ("res", "lres") and loss == "hinge":
        # an explicit non-differentiable loss is refused with the reason
        assert main(argv) == 2
        assert "needs a differentiable loss" in capsys.readouterr().err
        return
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert f"{solver}, {loss} loss, lambda 0.01" in out and "test accuracy" in out
    d = read_model(tmp_path / "m.ssvm")
    assert d["bias_multiplier"] == 0 and d["biases"][0] == 0  # B = 0: no bias learned


@pytest.mark.parametrize("solver", ["res", "lres"])
def test_train_quasi_newton_defaults_to_squared_hinge(files, capsys, solver, tmp_path):
    train, _, _, _, _ = files
    assert main(["train", train, str(tmp_path / "m.ssvm"), "--solver", solver,
                 "--epochs", "1", "-q"]) == 0
    assert f"{solver}, hinge2 loss" in capsys.readouterr().out


def test_train_compressed_file(files, capsys):
    import lzma

    train, _, folder, _, _ = files
    xz = folder / "train.svm.xz"
    with open(train, "rb") as f:
        xz.write_bytes(lzma.compress(f.read()))
    assert main(["train", str(xz), "--epochs", "1", "-q"]) == 0
    assert "2000 examples" in capsys.readouterr().out


@pytest.mark.parametrize("command", ["train", "predict"])
def test_corrupt_xz_file_exits_2(files, capsys, command, tmp_path):
    # Was a traceback (lzma.LZMAError) with status 1.
    train, _, folder, _, _ = files
    bad = folder / "bad.svm.xz"
    bad.write_bytes(b"junk")
    argv = ["train", str(bad), "-q"]
    if command == "predict":
        model = str(tmp_path / "m.ssvm")
        assert main(["train", train, model, "--epochs", "1", "-q"]) == 0
        argv = ["predict", model, str(bad)]
    assert main(argv) == 2
    assert "bad.svm.xz: not a valid .xz file" in capsys.readouterr().err


def test_test_file_with_more_features(files, capsys):
    train, _, folder, _, _ = files
    wide = folder / "wide.svm"
    wide.write_text("2 1:1 12:5\n1 2:-1\n")
    assert main(["train", train, "--epochs", "1", "-q", "--test", str(wide)]) == 0
    assert "(2 examples)" in capsys.readouterr().out


def _error(argv, capsys, status=2):
    assert main(argv) == status
    return capsys.readouterr().err


def test_errors(files, capsys, tmp_path):
    train, test, folder, _, _ = files
    assert "no such file: nope.svm" in _error(["train", "nope.svm"], capsys)
    assert "--lambda must be > 0" in _error(["train", train, "--lambda", "-1"], capsys)
    assert "--lambda must be finite" in _error(["train", train, "--lambda", "nan"], capsys)
    assert "--lambda must be a number" in _error(["train", train, "--lambda", "x"], capsys)
    assert "either -C or --lambda" in _error(["train", train, "--lambda", "1", "-C", "1"], capsys)
    assert "--epochs must be >= 1" in _error(["train", train, "--epochs", "0"], capsys)
    assert "invalid choice" in _error(["train", train, "--loss", "l3"], capsys)
    assert "invalid choice" in _error(["train", train, "--solver", "adam"], capsys)
    assert "--bias-multiplier must be >= 0" in _error(
        ["train", train, "--bias-multiplier", "-1"], capsys)
    assert "--bias-learning-rate must be > 0" in _error(
        ["train", train, "--bias-learning-rate", "0"], capsys)
    assert "--t0 must be > 1" in _error(["train", train, "--t0", "1"], capsys)
    assert "--seed must be >= 0" in _error(["train", train, "--seed", "-1"], capsys)
    assert "--validation must be < 1" in _error(["train", train, "--validation", "1"], capsys)
    assert "--validation cannot split the training data" in _error(
        ["train", train, "--validation", "1e-4"], capsys)  # (no held-out row of one class)
    assert "lower --validation" in _error(
        ["train", train, "--validation", "0.9999"], capsys)  # (no training row of one class)
    assert "--validation-tol must be >= 0" in _error(
        ["train", train, "--validation", "0.2", "--validation-tol", "-1"], capsys)
    assert "no such file" in _error(["train", train, "--test", "missing.svm"], capsys)
    assert "is a folder" in _error(["train", str(tmp_path)], capsys)
    assert "--noise must be in [0, 0.5)" in _error(["demo", "--noise", "0.5"], capsys)
    assert "unrecognized arguments" in _error(["demo", "--bogus"], capsys)
    assert "unknown solver 'adam'" in _error(["demo", "--solvers", "sgd,adam"], capsys)
    assert "at most one test file" in _error(["demo", "--data", train, test, test], capsys)

    one = tmp_path / "one.svm"
    one.write_text("1 1:1\n1 1:2\n")
    assert "at least two label values" in _error(["train", str(one)], capsys)
    other = tmp_path / "other.svm"
    other.write_text("5 1:1\n")
    assert "label 5 does not occur" in _error(["train", train, "--test", str(other)], capsys)
    negative = tmp_path / "neg.svm"
    negative.write_text("1 1:-1\n-1 1:2\n")
    assert "non-negative features" in _error(["train", str(negative), "--homkermap", "chi2"],
                                             capsys)
    assert "give --kernel too" in _error(["train", train, "--solver", "sbp"], capsys)
    assert "needs a kernel solver" in _error(["train", train, "--kernel", "rbf", "--solver",
                                              "sgd"], capsys)
    assert "hinge loss" in _error(["train", train, "--kernel", "rbf", "--loss", "logistic"],
                                  capsys)
    assert "--gamma must be > 0" in _error(["train", train, "--kernel", "rbf", "--gamma", "0"],
                                           capsys)
    assert "--budget must be >= 1" in _error(["train", train, "--kernel", "rbf", "--solver",
                                              "bsca", "--budget", "0"], capsys)
    assert "need --solver bsca or bsgd" in _error(["train", train, "--kernel", "rbf",
                                                   "--solver", "sdca", "--budget", "5"], capsys)
    assert "need --kernel" in _error(["train", train, "--maintenance", "remove"], capsys)
    # A missing folder is found before training (it was status 1, after it).
    err = _error(["train", train, str(tmp_path / "no-dir" / "m.ssvm"), "-q"], capsys)
    assert "no-dir does not exist" in err


def test_divergence_exits_1(tmp_path, capsys):
    rng = np.random.default_rng(0)
    X = rng.standard_normal((300, 5)) * 100.0
    y = np.where(rng.random(300) < 0.5, 1, -1)
    path = _write_libsvm(tmp_path / "huge.svm", X, y)
    # A first step of 1/(lambda t0) = 1/(1.5e-4) on rows of norm ~200 overshoots.
    err = _error(["train", path, "--solver", "sgd", "--lambda", "1e-4", "--loss", "hinge2",
                  "--epochs", "2", "-q", "--t0", "1.5"], capsys, status=1)
    assert err.startswith("stochsvm train: error:")


def test_real_a9a(capsys, tmp_path):
    folder = os.environ.get("STOCHSVM_DATA")
    if not folder or not os.path.isfile(os.path.join(folder, "a9a.train.xz")):
        if os.environ.get("STOCHSVM_REQUIRE_DATA") == "1":
            pytest.fail("STOCHSVM_REQUIRE_DATA=1 but $STOCHSVM_DATA/a9a.train.xz is missing")
        pytest.skip("STOCHSVM_DATA is not set or has no a9a (the shared data folder)")
    argv = ["train", os.path.join(folder, "a9a.train.xz"), str(tmp_path / "a9a.ssvm"),
            "--lambda", "1e-4", "--epochs", "5", "--test", os.path.join(folder, "a9a.test.xz"),
            "-q"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "32561 examples, 123 features" in out
    assert _value(out, "test accuracy") > 0.8


@pytest.mark.parametrize("solver", ["sdca", "sgd", "svmsgd2"])
def test_train_defaults_are_the_estimators(files, capsys, tmp_path, solver):
    """Without --epochs and --tol, train runs the estimators' defaults for the
    solver (their cap and tol, stochsvm._solvers; not the old fixed 10
    epochs at tol 0) in one train() call, as they do: the model is the
    estimator's, bit for bit, and the header names its cap. (Epoch by
    epoch, SGD's objective window recorded one objective per epoch and never
    closed at the default tol.) -q: the progress lines' diagnostic callback
    puts SDCA's diagnostics on the epoch schedule instead of its work budget
    (epochs.c), as an estimator's verbose progress does."""
    from sklearn.datasets import load_svmlight_file

    from stochsvm import LinearSVMClassifier

    train, _, _, _, _ = files
    assert main(["train", train, str(tmp_path / "m.ssvm"), "--solver", solver, "-C", "4",
                 "-q"]) == 0
    out = capsys.readouterr().out
    X, y = load_svmlight_file(str(train))
    est = LinearSVMClassifier(solver=solver, C=4).fit(X, y)   # a warning would be an error
    cap = est._max_iter(X)
    assert cap > 10 and f"at most {cap} epochs" in out
    assert f"converged after {est.n_iter_} epochs" in out
    d = read_model(tmp_path / "m.ssvm")
    np.testing.assert_array_equal(d["weights"][0], est.coef_[0])
    assert d["biases"][0] == est.intercept_[0]


def test_long_runs_print_round_epochs_only(files, capsys, tmp_path):
    """With a diagnostic every epoch (--validation), a long run prints epochs
    1-10, then 20, 30, ..., 100, 200, and its last (the run's end)."""
    train, _, _, _, _ = files
    assert main(["train", train, str(tmp_path / "m.ssvm"), "--solver", "sgd", "--epochs", "250",
                 "--tol", "0", "--validation", "0.2", "--patience", "1000"]) == 0
    shown = [int(m) for m in re.findall(r"^epoch +(\d+) ", capsys.readouterr().out, re.M)]
    assert shown == list(range(1, 11)) + list(range(20, 101, 10)) + [200, 250]


@pytest.mark.parametrize("solver", ["sbp", "bsca", "sdca"])
def test_kernel_bias_default_is_the_estimators(files, tmp_path, solver):
    """Without --[no-]unregularized-bias, a kernel solver learns the bias the
    estimator learns by default (yes): the model equals the one trained with
    the flag given explicitly."""
    train, _, _, _, _ = files
    common = ["--kernel", "rbf", "--solver", solver, "--epochs", "2", "--tol", "0", "-q"]
    assert main(["train", train, str(tmp_path / "default.ssvm"), *common]) == 0
    assert main(["train", train, str(tmp_path / "flag.ssvm"), *common,
                 "--unregularized-bias"]) == 0
    default, given = read_model(tmp_path / "default.ssvm"), read_model(tmp_path / "flag.ssvm")
    np.testing.assert_array_equal(default["biases"], given["biases"])
    np.testing.assert_array_equal(default["coefficients"], given["coefficients"])
    assert default["biases"][0] != 0


def test_train_reports_newton_iterations_and_an_uncertified_newton_end(tmp_path, capsys):
    """Linear SDCA's Newton fallback: the summary counts its iterations; when
    it ends short of --tol the notice says so and does not ask for more
    epochs (raw breast_cancer, squared hinge, C = 1e7: near separable)."""
    from sklearn.datasets import load_breast_cancer

    X, y = load_breast_cancer(return_X_y=True)
    cancer = _write_libsvm(tmp_path / "cancer.svm", X, 2 * y - 1)
    assert main(["train", cancer, str(tmp_path / "c.ssvm"), "-C", "1000", "--loss", "logistic"]) == 0
    out = capsys.readouterr()
    assert re.search(r"^converged after \d+ epochs and \d+ Newton iterations", out.out, re.M), out.out
    assert main(["train", cancer, str(tmp_path / "d.ssvm"), "-C", "1e7", "--loss", "hinge2"]) == 0
    out = capsys.readouterr()
    assert re.search(r"^not converged after \d+ epochs and 1000 Newton iterations", out.out, re.M), out.out
    assert "notice: sdca handed over to its Newton finish" in out.err
    assert "raising --epochs rarely helps" in out.err and "raise --epochs;" not in out.err


@pytest.mark.parametrize("where", ["model", "test"])
def test_missing_output_folder_or_test_file_exits_2_before_training(files, capsys, tmp_path, where):
    # A model path in a missing folder, or a missing --test file, failed only
    # after training (exit 1, "cannot create a temporary file beside it").
    train, _, _, _, _ = files
    model = tmp_path / "m.ssvm"
    if where == "model":
        model = tmp_path / "no_such_folder" / "m.ssvm"
    argv = ["train", train, str(model), "-q"]
    if where == "test":
        argv += ["--test", str(tmp_path / "no_such.svm")]
    assert main(argv) == 2
    captured = capsys.readouterr()
    expected = "the folder .*no_such_folder does not exist" if where == "model" else "no such file: .*no_such.svm"
    assert re.search(expected, captured.err), captured.err
    assert "converged" not in captured.out and "train accuracy" not in captured.out  # nothing was trained
    assert not model.exists()


@pytest.mark.parametrize("kind", ["missing folder", "folder"])
def test_predict_output_in_missing_folder_or_a_folder_exits_2(files, capsys, tmp_path, kind):
    # Was exit 1 after predicting ("cannot write (No such file or directory)").
    train, test, _, _, _ = files
    model = str(tmp_path / "m.ssvm")
    assert main(["train", train, model, "--epochs", "1", "-q"]) == 0
    out = tmp_path / "nowhere" / "p.txt" if kind == "missing folder" else tmp_path
    assert main(["predict", model, test, str(out)]) == 2
    err = capsys.readouterr().err
    assert ("does not exist" if kind == "missing folder" else "is a folder, not a file") in err, err


@pytest.mark.parametrize("where", ["data", "model out", "predictions out"])
def test_a_dash_is_refused_as_a_file_name(files, capsys, tmp_path, where, monkeypatch):
    # Was: predict wrote a file named '-', and a later `predict m - out` read
    # that file back as data and printed an accuracy of a meaningless run.
    monkeypatch.chdir(tmp_path)
    train, test, _, _, _ = files
    model = str(tmp_path / "m.ssvm")
    assert main(["train", train, model, "--epochs", "1", "-q"]) == 0
    argv = {"data": ["predict", model, "-"], "model out": ["train", train, "-", "-q"],
            "predictions out": ["predict", model, test, "-"]}[where]
    assert main(argv) == 2
    assert "'-' is not standard input or output here" in capsys.readouterr().err
    assert not (tmp_path / "-").exists()


def _unwritable_folder(tmp_path):
    """A folder that exists but where no file can be created: a mode-0500
    folder for a user without root's override, else a read-only system
    folder (None if this machine has neither)."""
    import tempfile
    folder = tmp_path / "locked"
    folder.mkdir()
    folder.chmod(0o500)
    candidates = [str(folder), "/sys", "/proc"]
    for candidate in candidates:
        try:
            with tempfile.NamedTemporaryFile(dir=candidate):
                pass
        except OSError:
            return candidate
    return None


@pytest.mark.parametrize("command", ["train", "predict"])
def test_unwritable_output_folder_exits_2_before_the_work(files, capsys, tmp_path, command):
    # Was: train ran to its end, then failed (exit 1) on the model's write.
    train, test, _, _, _ = files
    folder = _unwritable_folder(tmp_path)
    if folder is None:
        pytest.skip("no folder on this machine refuses a new file")
    model = str(tmp_path / "m.ssvm")
    if command == "train":
        argv = ["train", train, os.path.join(folder, "m.ssvm")]
    else:
        assert main(["train", train, model, "--epochs", "1", "-q"]) == 0
        capsys.readouterr()
        argv = ["predict", model, test, os.path.join(folder, "p.txt")]
    assert main(argv) == 2
    captured = capsys.readouterr()
    assert "cannot create a file in the folder" in captured.err, captured.err
    assert "converged" not in captured.out and "accuracy" not in captured.out  # no work was done
    (tmp_path / "locked").chmod(0o700)
