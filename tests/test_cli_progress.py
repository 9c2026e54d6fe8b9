"""`stochsvm train`'s progress: an update at every diagnostic inside an epoch
(--diagnostic-frequency), with the live objective, for linear and kernel
solvers, as lines and as a bar (through subprocess, as a user runs it)."""

import os
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
    pytest.importorskip("tqdm")
    out = _train("--kernel", "rbf", "--solver", "sdca", "--epochs", "2", "--tol", "0",
                 "--diagnostic-frequency", "80", "--progress", train_file)
    # (text mode turns the carriage returns of the redraws into newlines)
    shown = re.findall(r"^train: .*epoch (\S+)/2, objective (\S+)\]", out.stderr, re.M)
    epochs = [float(e) for e, _ in shown]
    # a redraw at every diagnostic, the count read from the running SVM
    assert {0.2, 0.4, 0.6, 0.8} <= {e for e in epochs if 0 < e < 1}
    assert epochs[-1] in (1.0, 2.0)  # SDCA may converge after the first epoch
    assert "100%" in out.stderr.splitlines()[-1]
    assert not re.search(r"^ *epoch +[0-9.]+  objective", out.stdout, re.M)  # no lines


def test_progress_without_tqdm_prints_lines(train_file, tmp_path):
    # tqdm hidden: --progress falls back to the lines
    (tmp_path / "tqdm.py").write_text("raise ImportError('hidden by the test')\n")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [str(tmp_path)] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]))
    out = subprocess.run([sys.executable, "-m", "stochsvm", "train", "--solver", "sgd",
                          "--epochs", "2", "--tol", "0", "--diagnostic-frequency", "100", "--progress",
                          train_file], capture_output=True, text=True, timeout=300, env=env)
    assert out.returncode == 0, out.stderr
    inside = re.findall(r"^  epoch +(\d+\.\d+)  objective", out.stdout, re.M)
    assert [float(e) for e in inside] == [0.25, 0.5, 0.75, 1.25, 1.5, 1.75]
    assert "train:" not in out.stderr


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
    out = _train("--solver", "sgd", "--epochs", "1", "--tol", "0", "--diagnostic-frequency",
                 "150", "--jobs", "2", path)
    # three SVMs, one diagnostic each inside the epoch (iteration 150 of 300)
    # and one at its end: each line shows the mean over the classes, which
    # is below 1 until the last SVM's end
    inside = re.findall(r"^  epoch +(\d+\.\d+)", out.stdout, re.M)
    ends = re.findall(r"^epoch +(\d+)  objective", out.stdout, re.M)
    assert len(inside) + len(ends) == 6 and all(0 < float(e) < 1 for e in inside)
    assert ends == ["1"]


@pytest.mark.parametrize("loss", ["hinge", "l2"])
def test_printing_the_progress_does_not_change_the_model(train_file, tmp_path, loss):
    """The progress lines watch the SVMs through their diagnostic function,
    which used to put SDCA on the epoch schedule: without ``-q`` a9a
    stopped at epoch 211, with it at 215 (the estimators' stop), and the
    two model files differed."""
    quiet, loud = tmp_path / "quiet.ssvm", tmp_path / "loud.ssvm"
    q = _train("-q", "--loss", loss, train_file, quiet)
    v = _train("--loss", loss, train_file, loud)
    assert re.search(r"^epoch +\d+  objective", v.stdout, re.M)  # it printed progress
    assert not re.search(r"^epoch +\d+  objective", q.stdout, re.M)
    stop = [re.search(r"(converged|stopped).*? after (\d+) epochs", out.stdout).group(2)
            for out in (q, v)]
    assert stop[0] == stop[1]
    assert quiet.read_bytes() == loud.read_bytes()


def test_the_last_line_is_the_finished_model(train_file):
    """Kernel Pegasos hands over to the exact solver after its last
    diagnostic: the progress lines ended on the objective before the finish,
    the summary on the one after. A 'finish' line now shows it."""
    out = _train("--kernel", "rbf", "--solver", "pegasos", train_file)
    finish = re.findall(r"^  finish +objective (\S+)", out.stdout, re.M)
    summary = re.search(r"objective (\S+), training time", out.stdout)
    assert finish and summary and finish[-1] == summary.group(1).rstrip(",")


@pytest.mark.parametrize("solver_args", [["--kernel", "rbf", "--solver", "sdca",
                                          "--no-unregularized-bias"], ["--solver", "sgd"]],
                         ids=["kernel", "linear"])
def test_the_bar_of_an_interrupted_run_stays_where_it_stopped(train_file, solver_args,
                                                              monkeypatch, capsys):
    """Ctrl+C during a run: the bar ended at "100%" (its total shrunk to the
    stop point) beside the objective of the diagnostic before the stop,
    which is not the interrupted model's. Now it keeps its total and says
    "interrupted". (Ctrl+C here: SIGINT raised by the second diagnostic, the
    run stopping at its next poll.)"""
    import signal

    from stochsvm import _progress, cli

    updates = []

    class Sink:
        def update(self, done, total, text):
            updates.append((done, total, text))

        def close(self):
            updates.append("closed")

    monkeypatch.setattr(_progress, "new_sink", lambda title: Sink())
    diagnostic, calls = cli._Progress.diagnostic, []

    def interrupting(self, k, stats):
        calls.append(k)
        diagnostic(self, k, stats)
        if len(calls) == 2:
            signal.raise_signal(signal.SIGINT)

    monkeypatch.setattr(cli._Progress, "diagnostic", interrupting)
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        status = cli.main(["train", train_file, "--progress", "--epochs", "30", "--tol", "0",
                           "--diagnostic-frequency", "100", *solver_args])
    finally:
        signal.signal(signal.SIGINT, previous)
    assert status == 130 and "stochsvm: interrupted" in capsys.readouterr().err
    assert updates[-1] == "closed"
    done, total, text = updates[-2]
    assert 200 <= done < total == 30 * 400, updates[-2]
    assert text.endswith(", interrupted") and "objective" not in text, text
