"""`stochsvm train`'s progress: an update at every diagnostic inside an epoch
(--diagnostic-frequency), with the live objective, for linear and kernel
solvers, as lines and as a bar (through subprocess, as a user runs it)."""

import re
import subprocess
import sys

import numpy as np
import pytest

from stochsvm.datasets import make_classification


@pytest.fixture(scope="module")
def train_file(tmp_path_factory):
    X, y = make_classification(400, 5, seed=3, noise=0.05)
    path = tmp_path_factory.mktemp("progress") / "train.svm"
    with open(path, "w") as f:
        for row, label in zip(X, y):
            f.write(f"{label:g} " + " ".join(f"{j + 1}:{v:.6g}" for j, v in enumerate(row)) + "\n")
    return str(path)


def _train(*argv):
    out = subprocess.run([sys.executable, "-m", "stochsvm", "train", *map(str, argv)],
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    return out


@pytest.mark.parametrize("solver_args", [["--solver", "sgd"], ["--solver", "sdca"],
                                         ["--kernel", "rbf", "--solver", "pegasos"],
                                         ["--kernel", "rbf", "--solver", "bsgd"]])
def test_lines_at_every_diagnostic(train_file, solver_args):
    out = _train(*solver_args, "--epochs", "2", "--diagnostic-frequency", "100", train_file)
    # 400 examples, a diagnostic every 100 iterations: 3 inside each epoch
    inside = re.findall(r"^  epoch +(\d+\.\d+)  objective (\S+)", out.stdout, re.M)
    assert [float(e) for e, _ in inside] == [0.25, 0.5, 0.75, 1.25, 1.5, 1.75]
    ends = re.findall(r"^epoch +(\d+)  objective (\S+)", out.stdout, re.M)
    assert [int(e) for e, _ in ends] == [1, 2]
    # the live objective: the values inside the epochs are not all the same
    assert len({v for _, v in inside}) > 1


def test_bar_redrawn_inside_an_epoch(train_file):
    out = _train("--kernel", "rbf", "--solver", "sdca", "--epochs", "2",
                 "--diagnostic-frequency", "80", "--progress", train_file)
    # (text mode turns the carriage returns of the redraws into newlines)
    shown = re.findall(r"^\[[#.]+\] epoch (\S+)/2  objective (\S+)", out.stderr, re.M)
    epochs = [float(e) for e, _ in shown]
    first = [e for e in epochs if 0 < e < 1]
    assert first == [0.2, 0.4, 0.6, 0.8]
    assert epochs[-1] in (1.0, 2.0)  # SDCA may converge after the first epoch


def test_default_is_once_per_epoch(train_file):
    out = _train("--solver", "sgd", "--epochs", "3", train_file)
    assert not re.search(r"^  epoch", out.stdout, re.M)
    assert len(re.findall(r"^epoch +\d+  objective", out.stdout, re.M)) == 3


def test_multiclass_progress_averages(tmp_path):
    rng = np.random.default_rng(0)
    k = np.arange(300) % 3
    X = rng.normal(size=(3, 4))[k] * 2 + rng.normal(size=(300, 4))
    path = tmp_path / "three.svm"
    with open(path, "w") as f:
        for row, label in zip(X, k + 1):
            f.write(f"{label} " + " ".join(f"{j + 1}:{v:.6g}" for j, v in enumerate(row)) + "\n")
    out = _train("--solver", "sgd", "--epochs", "1", "--diagnostic-frequency", "150",
                 "--jobs", "2", path)
    # three SVMs, one diagnostic each inside the epoch (iteration 150 of 300)
    inside = re.findall(r"^  epoch +(\d+\.\d+)", out.stdout, re.M)
    assert len(inside) == 3 and all(0 < float(e) < 1 for e in inside)
