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


def test_class_weights_that_leave_one_class_are_refused(tmp_path, capsys):
    # -w1 0 trained a model that scores 0 everywhere, status 0 (the
    # estimators refused it); a third class weighted 0 is warned about
    train, X, y = _problem(tmp_path)
    for weights in (["-w1", "0", "-w-1", "0"], ["-w1", "0"]):
        assert main(["train", train, str(tmp_path / "m.ssvm"), "-q", *weights]) == 2
        err = capsys.readouterr().err
        assert "class weights (-wLABEL) leave positive weight on" in err
        assert "the SVM needs examples of at least 2 classes with weight > 0" in err
    assert not (tmp_path / "m.ssvm").exists()
    three = _write(tmp_path / "three.svm", [f"{k % 3 + 1} 1:{x[0]:.5f} 2:{x[1]:.5f}\n"
                                            for k, x in enumerate(X)])
    assert main(["train", three, str(tmp_path / "m3.ssvm"), "-q", "-w3", "0"]) == 0
    assert "class weights give the classes 3 a weight of 0: they are never predicted" in \
        capsys.readouterr().err
    # grid checks before its grid and trains the best model through train: one warning
    assert main(["grid", three, str(tmp_path / "g3.ssvm"), "-v", "2", "--log2c", "0,1,1",
                 "-w3", "0"]) == 0
    assert capsys.readouterr().err.count("a weight of 0: they are never predicted") == 1


def test_usage_errors_come_before_the_work(tmp_path, capsys, monkeypatch):
    # each used to train (or run the whole grid) and then fail
    import stochsvm.cli as cli

    train, _, _ = _problem(tmp_path)

    def no_training(*args, **kwargs):
        raise AssertionError("trained before the usage error")

    monkeypatch.setattr(cli, "_new_svm", no_training)
    monkeypatch.setattr(cli, "_new_kernel_svm", no_training)
    cases = [(["train", train, str(tmp_path / "r.ssvm"), "--loss", "l2", "--probability"],
              "--probability needs a classifier (not the l1 or l2 loss)"),
             (["grid", train, train, "--log2c", "0,4,1"], "the same file as the input"),
             (["train", train, str(tmp_path / "b.ssvm"), "--blocksize", "1"],
              "--blocksize splits the file among Dask workers: it needs --dask"),
             (["grid", train, "--log2c", "1020,1030,5"],
              "--log2c: 2^1030 is not a finite number > 0; the exponents must lie in "
              "[-1074, 1023]"),
             (["grid", train, "--kernel", "rbf", "--log2c", "0", "--log2g", "-1100,-1100,1"],
              "--log2g: 2^-1100 is not a finite number > 0")]
    for argv, message in cases:
        assert main(argv) == 2, argv
        assert message in capsys.readouterr().err, argv


def test_a_long_model_name_is_written(tmp_path, capsys):
    # a valid name of 250 bytes: its temporary name (13 bytes longer) was
    # not, and the save failed after training (the C core's and --scale's)
    train, _, _ = _problem(tmp_path)
    for extra, name in ((), "m" * 250), (("--scale", "standard"), "s" * 250):
        assert main(["train", train, str(tmp_path / name), "-q", *extra]) == 0
        assert "model written to" in capsys.readouterr().out
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(["train.svm", "m" * 250, "s" * 250])


def test_predict_warns_of_negative_features_under_a_kernel_map(tmp_path, capsys):
    # train refuses them with --homkermap; predict took them in silence
    train = _write(tmp_path / "hk.svm", ["1 1:0.5 2:0.2\n", "-1 1:0.1 2:0.9\n",
                                         "1 1:0.6 2:0.1\n", "-1 1:0.2 2:0.8\n"])
    model = str(tmp_path / "hk.ssvm")
    assert main(["train", train, model, "-q", "--homkermap", "chi2"]) == 0
    negative = _write(tmp_path / "neg.svm", ["1 1:-0.5 2:0.2\n"])
    capsys.readouterr()
    assert main(["predict", model, negative, str(tmp_path / "p.txt")]) == 0
    assert "has negative features; the model's kernel map was trained on non-negative" in \
        capsys.readouterr().err
    assert main(["predict", model, train, str(tmp_path / "q.txt")]) == 0
    assert "warning" not in capsys.readouterr().err


def test_positionals_may_follow_options_and_errors_give_the_commands_usage(tmp_path, capsys):
    # `stochsvm train heart_scale -c 4 m7.ssvm -q` failed with the top-level
    # usage and "unrecognized arguments: m7.ssvm"; so did `predict m t -b 1`.
    train, X, y = _problem(tmp_path)
    first, second = str(tmp_path / "a.ssvm"), str(tmp_path / "b.ssvm")
    assert main(["train", train, "-C", "4", first, "-q"]) == 0
    assert main(["train", "-C", "4", "-q", train, second]) == 0
    with open(first, "rb") as a, open(second, "rb") as b:
        assert a.read() == b.read()
    out = str(tmp_path / "p.txt")
    capsys.readouterr()
    assert main(["predict", first, "--scores", train, out]) == 0
    with open(out) as f:
        assert len(f.read().splitlines()) == len(y)
    assert main(["predict", first, train, "-b", "1"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("usage: stochsvm predict")
    assert "-b takes no value: write -b (or --probability) alone" in err
    assert main(["train", train, first, "extra", "-q"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("usage: stochsvm train")
    assert "stochsvm train: error: unrecognized arguments: extra" in err


def test_file_names_after_a_double_dash_may_start_with_a_dash(tmp_path, monkeypatch, capsys):
    # The any-order parsing (Python 3.11's intermixed parse) read a file name
    # '-heart' after '--' again as '-h eart': "ignored explicit argument
    # 'eart'"; `info -- -m.ssvm` said MODEL_FILE was missing.
    train, X, y = _problem(tmp_path)
    monkeypatch.chdir(tmp_path)
    with open(train, "rb") as src, open("-heart", "wb") as dst:
        dst.write(src.read())
    assert main(["train", "-q", "--", "-heart", "-m.ssvm"]) == 0
    assert main(["predict", "--", "-m.ssvm", "-heart", "-out"]) == 0
    with open("-out") as f:
        assert len(f.read().splitlines()) == len(y)
    capsys.readouterr()
    assert main(["info", "--", "-m.ssvm"]) == 0
    assert capsys.readouterr().out.startswith("-m.ssvm: stochsvm model file")
    # nor is a file name after '--' LIBSVM's -wLABEL WEIGHT
    with open(train, "rb") as src, open("-w1", "wb") as dst:
        dst.write(src.read())
    assert main(["train", "-q", "--", "-w1", "-m.ssvm"]) == 0


def test_negative_values_and_signed_class_labels_are_read_as_values(tmp_path, capsys):
    # `--class-weight -1:2`, `--lambda -1e-3`, `--coef0 -1e-1` and `--tol -1e-4`
    # said "argument ...: expected one argument" (argparse took the value for
    # an option: it reads only '-5' and '-.5' as numbers), and `-w+1 3`
    # "unrecognized arguments" (heart_scale writes its labels +1; svm-train
    # takes -w+1). Now they are values, and an illegal one gets its option's
    # own range message.
    train, X, y = _problem(tmp_path)

    def model(*options):
        path = tmp_path / "m.ssvm"
        assert main(["train", train, str(path), "-q", *options]) == 0, capsys.readouterr().err
        return path.read_bytes()

    plain = model()
    assert model("-w+1", "3") == model("-w1", "3") == model("--class-weight", "+1:3") != plain
    assert model("--class-weight", "-1:2") == model("-w-1", "2") != plain
    assert model("--kernel", "poly", "--coef0", "-1e-1") != model("--kernel", "poly")
    for option, value, message in (("--lambda", "-1e-3", "--lambda must be > 0, got '-1e-3'"),
                                   ("--lam", "-1e-3", "--lambda must be > 0, got '-1e-3'"),
                                   ("--tol", "-1e-4", "--tol must be >= 0, got '-1e-4'"),
                                   ("-C", "-1e2", "-C must be > 0, got '-1e2'"),
                                   ("--gamma", "-1e-2", "--gamma must be > 0"),
                                   ("--bias-multiplier", "-1e-1", "must be >= 0"),
                                   ("--lambda", "-inf", "--lambda must be finite")):
        assert main(["train", train, option, value]) == 2
        err = capsys.readouterr().err
        assert message in err and "expected one argument" not in err, err
    # svm-train's -wLABEL for the labels 0, 1 and 2 of a three-class file
    three = _write(tmp_path / "three.svm", [f"{k % 3} 1:{x[0]:.5f} 2:{x[1]:.5f}\n"
                                            for k, x in enumerate(X)])
    assert main(["train", three, "-q", "-w0", "2", "-w+1", "0.5", "-w2", "3"]) == 0
    capsys.readouterr()
    # the grid's negative ranges, and the other commands' options
    assert main(["grid", train, "-q", "-v", "3", "--log2c", "-1,1,1"]) == 0
    assert main(["demo", "--noise", "-1e-1"]) == 2
    assert "--noise must be >= 0, got '-1e-1'" in capsys.readouterr().err


def test_a_kernel_whose_values_overflow_is_an_error(tmp_path, capsys):
    # CI's fuzzer: a polynomial kernel of degree 37 and coef0 -1.79e308
    # trained BSCA "successfully"; the model could not score its rows.
    train, _, _ = _problem(tmp_path)
    model = tmp_path / "m.ssvm"
    assert main(["train", train, str(model), "--kernel", "poly", "--degree", "37",
                 "--coef0=-1.79e308", "--gamma", "1", "--solver", "bsca", "-q"]) == 2
    err = capsys.readouterr().err
    assert "the kernel's values overflow" in err and "degree 37" in err
    assert not model.exists()


def test_kernel_values_whose_sum_overflows_are_an_error(tmp_path, capsys):
    # Every K = (<x_i, x_j> + 3e102)^3 finite (~2.7e307), their sums not:
    # kernel SDCA with the bias said "converged", then the CLI died with a
    # traceback scoring the training file (exit 1, no model).
    X = (np.arange(96) * 7 % 11 / 5.0 - 1.0).reshape(24, 4)
    train = _write(tmp_path / "sum.svm", [f"{1 if k % 3 else -1} " +
                                          " ".join(f"{j + 1}:{v:.1f}" for j, v in enumerate(x)) + "\n"
                                          for k, x in enumerate(X)])
    model = tmp_path / "m.ssvm"
    assert main(["train", train, str(model), "--kernel", "poly", "--degree", "3",
                 "--coef0", "3e102", "--gamma", "1", "--lambda", "0.01", "-q"]) == 2
    err = capsys.readouterr().err
    assert "the kernel's values overflow" in err and "coef0 3e+102" in err, err
    assert not model.exists()


def test_a_test_file_that_overflows_against_the_model_is_an_error(tmp_path, capsys):
    # The trained model's scores of the --test file's rows (values 1.7e308)
    # overflow: an error naming the file (exit 2), not a traceback (exit 1).
    train, _, _ = _problem(tmp_path)
    big = _write(tmp_path / "big.svm", ["1 1:1.7e308 2:1.7e308 3:1.7e308\n",
                                        "-1 1:-1.7e308 2:1.7e308 3:-1.7e308\n"])
    model = tmp_path / "m.ssvm"
    assert main(["train", train, str(model), "--kernel", "linear", "--test", big, "-q"]) == 2
    err = capsys.readouterr().err
    assert "big.svm: the score of row 0 of X is" in err and "overflow" in err, err
    assert "Traceback" not in err
    assert not model.exists()
