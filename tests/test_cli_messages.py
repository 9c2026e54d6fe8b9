"""Cases the command line used to pass over in silence: one line each."""

import numpy as np

from stochsvm.cli import main


def _write(path, rows):
    path.write_text("".join(rows))
    return str(path)


def _problem(tmp_path):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 3))
    y = np.where(X[:, 0] > 0, 1, -1)
    rows = [f"{label} " + " ".join(f"{j + 1}:{v:.5f}" for j, v in enumerate(x)) + "\n"
            for x, label in zip(X, y)]
    return _write(tmp_path / "train.svm", rows), X, y


def test_predict_warns_when_the_file_has_more_features_than_the_model(tmp_path, capsys):
    train, X, y = _problem(tmp_path)
    model = str(tmp_path / "m.ssvm")
    assert main(["train", train, model, "-q"]) == 0
    wide = _write(tmp_path / "wide.svm", [f"{label} 1:{x[0]:.5f} 5:1 7:2\n"
                                          for x, label in zip(X, y)])
    capsys.readouterr()
    assert main(["predict", model, wide]) == 0
    err = capsys.readouterr().err
    assert f"warning: {wide} has 7 features, the model 3: features 4-7 are ignored" in err
    # a file as wide as the model, or narrower, is not warned about
    assert main(["predict", model, train]) == 0
    assert "warning" not in capsys.readouterr().err
    narrow = _write(tmp_path / "narrow.svm", [f"{label} 1:{x[0]:.5f}\n" for x, label in zip(X, y)])
    assert main(["predict", model, narrow]) == 0
    assert "warning" not in capsys.readouterr().err


def test_train_without_a_model_path_says_no_model_was_written(tmp_path, capsys):
    train, _, _ = _problem(tmp_path)
    assert main(["train", train, "-q"]) == 0
    out = capsys.readouterr().out
    assert "no model written (give a MODEL_FILE after TRAIN_FILE to save one)" in out
    assert main(["train", train, str(tmp_path / "m.ssvm"), "-q"]) == 0
    out = capsys.readouterr().out
    assert "no model written" not in out and "model written to" in out


def test_predict_with_the_files_swapped_says_the_model_comes_first(tmp_path, capsys):
    train, _, _ = _problem(tmp_path)
    model = str(tmp_path / "m.ssvm")
    assert main(["train", train, model, "-q"]) == 0
    capsys.readouterr()
    assert main(["predict", train, model]) == 2   # LIBSVM's order: test file first
    err = capsys.readouterr().err
    assert "the model file comes first: stochsvm predict MODEL_FILE TEST_FILE" in err
    # a file that is no model in either place gets the plain message
    assert main(["predict", train, train]) == 2
    err = capsys.readouterr().err
    assert "wrong signature" in err and "comes first" not in err


def test_a_closed_output_pipe_ends_quietly(tmp_path):
    """`stochsvm info m | head -1` where head has gone: exit status 1 and no
    traceback (Python ignores SIGPIPE, so the write raises BrokenPipeError)."""
    import os
    import subprocess
    import sys

    train, _, _ = _problem(tmp_path)
    model = str(tmp_path / "m.ssvm")
    assert main(["train", train, model, "-q"]) == 0
    read_end, write_end = os.pipe()
    os.close(read_end)   # the reader is gone before the first write
    try:
        done = subprocess.run([sys.executable, "-m", "stochsvm", "info", model],
                              stdout=write_end, stderr=subprocess.PIPE, timeout=120)
    finally:
        os.close(write_end)
    assert done.returncode == 1
    assert done.stderr == b""


def test_a_full_standard_output_is_an_error_not_a_traceback(tmp_path):
    """`stochsvm predict m t > /dev/full`: one line and status 1, where a
    write that failed (no space left) raised a traceback."""
    import os
    import subprocess
    import sys

    import pytest

    if not os.path.exists("/dev/full"):
        pytest.skip("needs /dev/full")
    train, _, _ = _problem(tmp_path)
    model = str(tmp_path / "m.ssvm")
    assert main(["train", train, model, "-q"]) == 0
    for command in (["predict", model, train], ["info", model]):
        with open("/dev/full", "w") as full:
            done = subprocess.run([sys.executable, "-m", "stochsvm", *command], stdout=full,
                                  stderr=subprocess.PIPE, timeout=120)
        err = done.stderr.decode()
        assert done.returncode == 1, err
        assert "Traceback" not in err
        assert err.strip() == (f"stochsvm {command[0]}: error: cannot write the standard output "
                               "(No space left on device)")


def test_nu_for_a_solver_without_one_is_refused(tmp_path, capsys):
    # --nu with --solver sdca (or pegasos, ...) trained and ignored it.
    train, _, _ = _problem(tmp_path)
    assert main(["train", train, "--kernel", "rbf", "--solver", "sdca", "--nu", "0.1", "-q"]) == 2
    assert "--nu is the SBP's slack: it needs --solver sbp, not sdca" in capsys.readouterr().err
    assert main(["train", train, "--kernel", "rbf", "--solver", "sbp", "--nu", "0.1", "-q"]) == 0
