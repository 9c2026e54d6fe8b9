"""The command line: `stochsvm demo`, `stochsvm train`, `--version`, and its errors."""

import os
import re
import subprocess
import sys
import time

import numpy as np
import pytest

import stochsvm
from stochsvm.cli import main
from stochsvm.datasets import make_classification


def _write_libsvm(path, X, y):
    with open(path, "w") as f:
        for row, label in zip(X, y):
            feats = " ".join(f"{j + 1}:{v:.6g}" for j, v in enumerate(row) if v != 0)
            f.write(f"{label:g} {feats}\n")
    return str(path)


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """A train and a test file with labels 1/2 (mapped by the CLI: 2 -> +1)."""
    folder = tmp_path_factory.mktemp("cli")
    X, y = make_classification(3000, 8, seed=11, noise=0.02)
    labels = np.where(y > 0, 2, 1)
    train = _write_libsvm(folder / "train.svm", X[:2000], labels[:2000])
    test = _write_libsvm(folder / "test.svm", X[2000:], labels[2000:])
    return train, test, folder


def _accuracy(out, which):
    return float(re.search(which + r" accuracy (\S+?),?\s", out + " ").group(1))


def test_version(capsys):
    assert main(["--version"]) == 0
    assert capsys.readouterr().out.strip() == f"stochsvm {stochsvm.__version__}"


def test_no_command_prints_help(capsys):
    assert main([]) == 2
    assert "demo" in capsys.readouterr().out


def test_demo_default_is_fast(capsys):
    t = time.perf_counter()
    assert main(["demo"]) == 0
    elapsed = time.perf_counter() - t
    out = capsys.readouterr().out
    assert "200000 x 50" in out
    epochs = re.findall(r"^epoch +(\d+) +objective (\S+) .* elapsed (\S+) s$", out, flags=re.M)
    assert [int(e[0]) for e in epochs] == [1, 2, 3, 4, 5]
    assert all(float(e[1]) > 0 for e in epochs)
    assert "training time" in out
    assert _accuracy(out, "test") > 0.9
    assert elapsed < 30  # a few seconds on the project's machine


def test_demo_options(capsys):
    argv = ["demo", "--n", "5000", "--n-test", "1000", "--d", "5", "--epochs", "2",
            "--lambda", "1e-3", "--loss", "logistic", "--bias-multiplier", "2",
            "--bias-learning-rate", "0.5", "--seed", "7", "--noise", "0", "--float32",
            "--t0", "5000"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "float32" in out and "logistic loss" in out
    assert len(re.findall(r"^epoch ", out, flags=re.M)) == 2
    assert _accuracy(out, "test") > 0.9
    assert main(argv + ["--quiet"]) == 0
    assert not re.findall(r"^epoch ", capsys.readouterr().out, flags=re.M)


def test_demo_is_deterministic(capsys):
    argv = ["demo", "--n", "3000", "--n-test", "500", "--d", "4", "--quiet"]
    main(argv)
    first = capsys.readouterr().out
    main(argv)
    second = capsys.readouterr().out
    strip = lambda s: re.sub(r"[\d.]+ s\b", "", s)  # noqa: E731 (times differ)
    assert strip(first) == strip(second)


def test_train_with_test_file(files, capsys):
    train, test, _ = files
    assert main(["train", train, "--lambda", "1e-3", "--epochs", "5", "--test", test]) == 0
    out = capsys.readouterr().out
    assert "2000 examples, 8 features" in out
    assert "labels 1 -> -1 and 2 -> +1" in out
    assert len(re.findall(r"^epoch ", out, flags=re.M)) == 5
    assert "5 epochs" in out and "status max_iterations" in out
    assert _accuracy(out, "train") > 0.9
    assert _accuracy(out, "test") > 0.9


@pytest.mark.parametrize("loss", ["hinge", "hinge2", "logistic"])
def test_train_options(files, capsys, loss):
    train, test, _ = files
    argv = ["train", train, "--lambda", "0.01", "--epochs", "3", "--loss", loss,
            "--bias-multiplier", "0", "--seed", "3", "--float32", "--epsilon", "0.5",
            "--test", test, "-q"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert f"{loss} loss" in out and "test accuracy" in out


def test_train_compressed_file(files, capsys):
    import lzma

    train, _, folder = files
    xz = folder / "train.svm.xz"
    with open(train, "rb") as f:
        xz.write_bytes(lzma.compress(f.read()))
    assert main(["train", str(xz), "--lambda", "1e-3", "--epochs", "1", "-q"]) == 0
    assert "2000 examples" in capsys.readouterr().out


def test_test_file_with_more_features(files, capsys):
    train, _, folder = files
    wide = folder / "wide.svm"
    wide.write_text("2 1:1 12:5\n1 2:-1\n")
    assert main(["train", train, "--lambda", "1e-3", "--epochs", "1", "-q",
                 "--test", str(wide)]) == 0
    assert "(2 examples)" in capsys.readouterr().out


def _error(argv, capsys, status=2):
    assert main(argv) == status
    return capsys.readouterr().err


def test_errors(files, capsys, tmp_path):
    train, test, folder = files
    assert "no such file: nope.svm" in _error(["train", "nope.svm", "--lambda", "1"], capsys)
    assert "--lambda is required" in _error(["train", train], capsys)
    assert "--lambda must be > 0" in _error(["train", train, "--lambda", "-1"], capsys)
    assert "--lambda must be finite" in _error(["train", train, "--lambda", "nan"], capsys)
    assert "--lambda must be a number" in _error(["train", train, "--lambda", "x"], capsys)
    assert "--epochs must be >= 1" in _error(["train", train, "--lambda", "1", "--epochs", "0"],
                                             capsys)
    assert "invalid choice" in _error(["train", train, "--lambda", "1", "--loss", "l1"], capsys)
    assert "--bias-multiplier must be >= 0" in _error(
        ["train", train, "--lambda", "1", "--bias-multiplier", "-1"], capsys)
    assert "--bias-learning-rate must be > 0" in _error(
        ["train", train, "--lambda", "1", "--bias-learning-rate", "0"], capsys)
    assert "--t0 must be > 1" in _error(["train", train, "--lambda", "1", "--t0", "1"], capsys)
    assert "--seed must be >= 0" in _error(["train", train, "--lambda", "1", "--seed", "-1"],
                                           capsys)
    assert "no such file" in _error(["train", train, "--lambda", "1", "--test", "missing.svm"],
                                    capsys)
    assert "is a folder" in _error(["train", str(tmp_path), "--lambda", "1"], capsys)
    assert "--noise must be in [0, 0.5)" in _error(["demo", "--noise", "0.5"], capsys)
    assert "unrecognized arguments" in _error(["demo", "--bogus"], capsys)

    bad = tmp_path / "bad.svm"
    bad.write_text("1 1:1\n-1 2:x\n")
    err = _error(["train", str(bad), "--lambda", "1"], capsys)
    assert "line 2" in err and "bad.svm" in err
    three = tmp_path / "three.svm"
    three.write_text("1 1:1\n2 1:2\n3 1:3\n")
    assert "exactly two label values" in _error(["train", str(three), "--lambda", "1"], capsys)
    other = tmp_path / "other.svm"
    other.write_text("5 1:1\n")
    assert "label 5 does not occur" in _error(
        ["train", train, "--lambda", "1", "--test", str(other)], capsys)


def test_divergence_exits_1(tmp_path, capsys):
    rng = np.random.default_rng(0)
    X = rng.standard_normal((300, 5)) * 100.0
    y = np.where(rng.random(300) < 0.5, 1, -1)
    path = _write_libsvm(tmp_path / "huge.svm", X, y)
    # A first step of 1/(lambda t0) = 1/(1.5e-4) on rows of norm ~200 overshoots.
    err = _error(["train", path, "--lambda", "1e-4", "--loss", "hinge2", "--epochs", "2", "-q",
                  "--t0", "1.5"], capsys, status=1)
    assert err.startswith("stochsvm train: error:")


def test_real_a9a(capsys):
    folder = os.environ.get("STOCHSVM_DATA")
    if not folder or not os.path.isfile(os.path.join(folder, "a9a.train.xz")):
        if os.environ.get("STOCHSVM_REQUIRE_DATA") == "1":
            pytest.fail("STOCHSVM_REQUIRE_DATA=1 but $STOCHSVM_DATA/a9a.train.xz is missing")
        pytest.skip("STOCHSVM_DATA is not set or has no a9a (the shared data folder)")
    argv = ["train", os.path.join(folder, "a9a.train.xz"), "--lambda", "1e-4", "--epochs", "5",
            "--test", os.path.join(folder, "a9a.test.xz"), "-q"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "32561 examples, 123 features" in out
    assert _accuracy(out, "test") > 0.8


def test_python_m_stochsvm():
    env = dict(os.environ)
    result = subprocess.run(
        [sys.executable, "-m", "stochsvm", "demo", "--n", "4000", "--n-test", "1000", "--d", "6",
         "--epochs", "2"], capture_output=True, text=True, timeout=120, env=env)
    assert result.returncode == 0, result.stderr
    assert len(re.findall(r"^epoch ", result.stdout, flags=re.M)) == 2
    assert "test accuracy" in result.stdout
    bad = subprocess.run([sys.executable, "-m", "stochsvm", "train", "nope.svm", "--lambda", "1"],
                         capture_output=True, text=True, timeout=120, env=env)
    assert bad.returncode == 2
    assert "no such file" in bad.stderr
