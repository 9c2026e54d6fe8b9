"""The ``stochsvm`` command line.

    stochsvm demo [--plot FILE.png] [--data TRAIN [TEST]]
                                        every solver on a linear and a non-linear
                                        generated problem (or on your files): a table
    stochsvm train [options] TRAIN_FILE [MODEL_FILE]
                                        train on a LIBSVM file, write a model file
    stochsvm train -v K [options] TRAIN_FILE
                                        K-fold cross-validation accuracy, no model
    stochsvm train --dask ADDRESS [options] TRAIN_FILE [MODEL_FILE]
                                        train by CoCoA+ on a Dask cluster
                                        (tcp://host:port or local:N)
    stochsvm grid [options] TRAIN_FILE [MODEL_FILE]
                                        search C (and gamma) by cross-validation,
                                        like LIBSVM's grid.py; write the best
    stochsvm predict MODEL_FILE TEST_FILE [OUT]
                                        labels (or scores) of a LIBSVM file, accuracy
    stochsvm info MODEL_FILE            what a model file holds
    stochsvm --version

Training prints one line per diagnostic (a tqdm progress bar, redrawn every
half second, with the ETA and the live objective when standard error is a
terminal and tqdm is installed): by default at the ends of epochs 1, 2, 3,
4, 6, 9, ... (linear SDCA: on its work budget), or every
``--diagnostic-frequency`` iterations. Printing never changes the model. Usage errors, missing or malformed files
(named, with the line) and out-of-range values exit with status 2 and a
one-line message; a training failure exits with status 1. Nothing here needs
scikit-learn.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import stat
import sys
import tempfile
import threading
import time

import numpy as np

__all__ = ["main"]

_CLASSIFICATION_LOSSES = ("hinge", "hinge2", "logistic")
_REGRESSION_LOSSES = ("l1", "l2")
_HOM_KERNELS = ("chi2", "intersection", "js")
_SCALINGS = ("minmax", "maxabs", "standard")
#: How the command line spells C and lambda (in the regularization rule's messages).
CLI_REGULARIZATION = ("-C", "--lambda")


def _version():
    try:
        import stochsvm

        v = getattr(stochsvm, "__version__", None)
        if v:
            return str(v)
    except ImportError:
        pass
    try:
        from importlib.metadata import version

        return version("stochsvm")
    except Exception:  # not installed as a distribution
        return "unknown"


def _kernel_solvers(**features):
    """The solvers of the kernel SVM object (:mod:`stochsvm._solvers`), those
    with ``features`` only if given (e.g. ``budget=True``)."""
    from stochsvm import _solvers

    return _solvers.names("kernel", **features)


def _solvers():
    """The training solvers of the SVM object (:mod:`stochsvm._solvers`)."""
    from stochsvm import _solvers

    return _solvers.LINEAR


# --------------------------------------------------------------------------
#                         Argument types (exit 2 on error)
# --------------------------------------------------------------------------

def _number(text, what, low=None, low_open=False, high=None, high_open=False):
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{what} must be a number, got {text!r}") from None
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"{what} must be finite, got {text!r}")
    if low is not None and (value < low or (low_open and value == low)):
        op = ">" if low_open else ">="
        raise argparse.ArgumentTypeError(f"{what} must be {op} {low:g}, got {text!r}")
    if high is not None and (value > high or (high_open and value == high)):
        op = "<" if high_open else "<="
        raise argparse.ArgumentTypeError(f"{what} must be {op} {high:g}, got {text!r}")
    return value


def _positive(what):
    return lambda text: _number(text, what, 0.0, low_open=True)


def _nonnegative(what):
    return lambda text: _number(text, what, 0.0)


def _count(what, low=1):
    def parse(text):
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{what} must be an integer, got {text!r}") from None
        if value < low:
            raise argparse.ArgumentTypeError(f"{what} must be >= {low}, got {text!r}")
        return value
    return parse


def _output_path(what):
    def parse(text):
        if not text:
            raise argparse.ArgumentTypeError(f"{what} is empty; give a file name")
        return text
    return parse


def _seed(text):
    value = _count("--seed", 0)(text)
    if value >= 2 ** 64:
        raise argparse.ArgumentTypeError(f"--seed must be < 2**64, got {text!r}")
    return value


def _t0(text):
    value = _number(text, "--t0")
    if not value > 1:
        raise argparse.ArgumentTypeError(f"--t0 must be > 1, got {text!r}")
    return value


def _noise(text):
    value = _number(text, "--noise", 0.0)
    if value >= 0.5:
        raise argparse.ArgumentTypeError(f"--noise must be in [0, 0.5), got {text!r}")
    return value


def _fraction(what):
    return lambda text: _number(text, what, 0.0, True, 1.0, True)


def _looks_like_a_number(text):
    """'-1e-3', '-.5', '-inf', '-1:2' (a class weight), '-5,15,2' (a log2 range)."""
    if text[1:2].isdigit() or text[1:2] == ".":
        return True
    try:
        float(text)
    except ValueError:
        return False
    return True


class _CommandParser(argparse.ArgumentParser):
    """A command's parser: its positionals may come between the options
    (``train heart_scale -c 4 m.ssvm``, argparse's intermixed parsing), and an
    argument nothing takes is an error in the command's own usage (the
    command-line parser returned it to the top level, whose usage names no
    option of the command)."""

    _inner = False   # parse_known_intermixed_args calls parse_known_args twice

    def _option_taking_a_value(self, token):
        """The action of option ``token`` (or of the one long option it
        abbreviates) when it takes one value; else None."""
        action = self._option_string_actions.get(token)
        if action is None and token.startswith("--") and "=" not in token:
            actions = {a for name, a in self._option_string_actions.items()
                       if name.startswith(token)}
            action = actions.pop() if len(actions) == 1 else None
        return action if action is not None and action.nargs is None else None

    def _join_negative_values(self, args):
        """``--lambda -1e-3``, ``--coef0 -1e-1``, ``--class-weight -1:2``,
        ``--log2c -5,15,2`` as ``--lambda=-1e-3``...: argparse reads only
        '-5' and '-.5' as negative numbers and took the others for options
        ('expected one argument'). A value is an argument starting with '-'
        and a digit or a point (no option does), or a number ('-inf'). Not
        after '--': those are file names."""
        out, k = [], 0
        while k < len(args):
            token = args[k]
            if token == "--":
                return out + args[k:]
            value = args[k + 1] if k + 1 < len(args) else ""
            if (value.startswith("-") and _looks_like_a_number(value)
                    and self._option_taking_a_value(token)):
                out.append(f"{token}={value}")
                k += 2
            else:
                out.append(token)
                k += 1
        return out

    def parse_known_args(self, args=None, namespace=None):
        if self._inner:
            return super().parse_known_args(args, namespace)
        args = self._join_negative_values(list(sys.argv[1:] if args is None else args))
        if "--" in args:
            # After '--' every argument is a file name, even '-heart'; Python
            # 3.11's intermixed parsing parsed it again as '-h eart'. The
            # plain parse keeps the '--' (positionals then come after the options).
            return super().parse_known_args(args, namespace)
        for flag, value in zip(args, args[1:]):
            if flag == "-b" and value in ("0", "1") and self.prog.endswith(" predict"):
                self.error(f"-b takes no value: write -b (or --probability) alone, "
                           f"not svm-predict's '-b {value}'")
        self._inner = True
        try:
            namespace, extras = self.parse_known_intermixed_args(args, namespace)
        finally:
            self._inner = False
        if extras:
            self.error(f"unrecognized arguments: {' '.join(extras)}")
        return namespace, extras


def _build_parser():
    parser = argparse.ArgumentParser(
        prog="stochsvm",
        description="Fast stochastic SVM solvers (a C core with VLFeat's vl_svm API, fixed).",
        epilog="Run 'stochsvm COMMAND --help' for the options of a command.")
    parser.add_argument("--version", action="version", version=f"stochsvm {_version()}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_CommandParser)
    solvers = _solvers()

    def solver_options(p, losses):
        p.add_argument("--lambda", dest="lam", type=_positive("--lambda"), metavar="L",
                       help="regularization strength lambda > 0 (default: from -C)")
        p.add_argument("-C", "-c", dest="C", type=_positive("-C"), default=None, metavar="C",
                       help="LIBLINEAR's C > 0: lambda = 1/(C n) (default 1 when --lambda "
                            "is not given)")
        p.add_argument("--epochs", type=_count("--epochs"), default=None, metavar="E",
                       help="at most E passes over the training set (default: the estimators' "
                            "cap for the solver: 100, 1000 for kernel SDCA, 10 for the "
                            "Perceptron; more on small sets for sgd, sdca, svmsgd2, sgdqn, "
                            "kernel pegasos and bsgd)")
        p.add_argument("--loss", choices=losses, default=None,
                       help="loss function (default hinge; hinge2 for the solvers that need "
                            "a differentiable loss, res and lres" +
                            ("; l1 and l2 train a regressor)" if len(losses) > 3 else ")"))
        p.add_argument("--bias-multiplier", type=_nonnegative("--bias-multiplier"),
                       default=1.0, metavar="B",
                       help="constant feature B of the bias, >= 0; 0 learns no bias (default 1)")
        p.add_argument("--bias-learning-rate", type=_positive("--bias-learning-rate"),
                       default=None, metavar="R",
                       help="SGD: relative step of the bias, > 0 (default: the library's)")
        p.add_argument("--t0", type=_t0, default=None, metavar="T0",
                       help="SGD: offset of the step size 1/(lambda (t + t0)), > 1 "
                            "(default: the library's, from lambda and the data)")
        p.add_argument("--tol", "--epsilon", dest="tol", type=_nonnegative("--tol"), default=None,
                       metavar="EPS",
                       help="stop when the solver's stopping rule falls below EPS (SDCA, BSCA: "
                            "relative duality gap; the others: the objective window); 0 runs "
                            "every epoch (default: the estimators' tol: for linear SDCA "
                            "5e-4 with the hinge and l1 losses, 1e-8 with the others; 1e-3 "
                            "for the other linear solvers and kernel SDCA, 1e-2 for the "
                            "primal kernel solvers)")
        p.add_argument("--seed", type=_seed, default=0, help="seed of the visiting order (default 0)")
        p.add_argument("--no-shrinking", dest="shrinking", action="store_false",
                       help="SDCA (linear, and kernel with the bias): visit every example "
                            "(shrinking skips those stuck at a bound of the hinge losses; "
                            "default on)")
        p.add_argument("--float32", action="store_true",
                       help="keep the data in single precision (the model is double)")
        p.add_argument("--homkermap", choices=_HOM_KERNELS, default=None, metavar="KERNEL",
                       help="train on a homogeneous kernel map of the features "
                            f"({', '.join(_HOM_KERNELS)}; non-negative data)")
        p.add_argument("--homkermap-order", type=_count("--homkermap-order", 0), default=3,
                       metavar="K", help="approximation order of the map (default 3)")

    # -- demo ------------------------------------------------------------------
    demo = sub.add_parser(
        "demo", help="compare every solver on generated linear and non-linear problems",
        description="Train every solver on two seeded generated problems and print a comparison "
                    "table (objective, test accuracy, time, kernel evaluations): a linear one "
                    "(stochsvm.datasets.make_classification) and a non-linear one "
                    "(stochsvm.datasets.make_nonlinear), where the linear solvers also run on a "
                    "homogeneous kernel map. --data runs the same comparison on your files.")
    demo.add_argument("--n", type=_count("--n", 2), default=200_000,
                      help="training examples of the linear problem (default 200000; the "
                           "non-linear one has a quarter)")
    demo.add_argument("--n-test", type=_count("--n-test"), default=50_000,
                      help="test examples of the linear problem (default 50000; a quarter for "
                           "the non-linear one)")
    demo.add_argument("--d", type=_count("--d"), default=50,
                      help="features of the linear problem (default 50; the non-linear one "
                           "has 4)")
    demo.add_argument("--noise", type=_noise, default=0.05,
                      help="fraction of flipped labels, in [0, 0.5) (default 0.05)")
    demo.add_argument("--lambda", dest="lam", type=_positive("--lambda"), default=1e-4,
                      metavar="L", help="regularization strength (default 1e-4)")
    demo.add_argument("--epochs", type=_count("--epochs"), default=10, metavar="E",
                      help="epochs per solver (default 10)")
    demo.add_argument("--loss", choices=_CLASSIFICATION_LOSSES, default="hinge",
                      help="loss function (default hinge)")
    demo.add_argument("--seed", type=_seed, default=0, help="seed of the data and the solvers")
    demo.add_argument("--float32", action="store_true", help="single-precision data")
    demo.add_argument("--solvers", default=",".join(solvers), metavar="LIST",
                      help=f"comma-separated solvers to run (default {','.join(solvers)})")
    demo.add_argument("--kernel-solvers", default=",".join(_kernel_solvers()), metavar="LIST",
                      help="comma-separated kernel solvers for the non-linear problem (default "
                           f"{','.join(_kernel_solvers())}; '' for none)")
    demo.add_argument("--gamma", type=_positive("--gamma"), default=_DEMO_GAMMA, metavar="G",
                      help="RBF kernel coefficient of the kernel solvers (default "
                           f"{_DEMO_GAMMA:g}, a width that fits the non-linear problem)")
    demo.add_argument("--kernel-rows", type=_count("--kernel-rows", 2), default=2000,
                      metavar="M", help="training rows the kernel solvers use (their cost grows "
                                        "with the square of it; default 2000)")
    demo.add_argument("--plot", metavar="FILE.png", default=None,
                      help="write convergence curves (primal objective after each epoch) to FILE.png "
                           "(needs matplotlib)")
    demo.add_argument("--data", nargs="+", metavar=("TRAIN", "TEST"), default=None,
                      help="run on a LIBSVM training file (and test file) instead of the "
                           "generated problems")

    # -- train -----------------------------------------------------------------
    train = sub.add_parser(
        "train", help="train on a LIBSVM file and write a model file",
        description="Train on a LIBSVM/SVMlight text file (plain, .xz, .gz or .bz2) and write "
                    "the model to MODEL_FILE (stochsvm's portable model format, readable from "
                    "C). Two classes train one SVM, more train one-vs-rest; the losses l1 and "
                    "l2 train a regressor.")
    train.add_argument("file", metavar="TRAIN_FILE", help="training data in LIBSVM format")
    train.add_argument("model", metavar="MODEL_FILE", nargs="?", default=None,
                       type=_output_path("MODEL_FILE"),
                       help="where to write the model (written atomically)")
    kernel_solvers = _kernel_solvers()
    train.add_argument("--solver", choices=sorted(set(solvers) | set(kernel_solvers)),
                       default="sdca",
                       help=f"the solver (default sdca); linear: {', '.join(solvers)}; with "
                            f"--kernel: {', '.join(kernel_solvers)}")
    solver_options(train, _CLASSIFICATION_LOSSES + _REGRESSION_LOSSES)
    from stochsvm import _cli_select

    train.add_argument("--kernel", "-t", choices=("rbf", "linear", "poly", "sigmoid"),
                       type=_cli_select.kernel_type, default=None,
                       help="train a kernel SVM (support vectors and coefficients; hinge loss, "
                            "no bias except SBP, BSCA and SDCA, see --unregularized-bias); -t also "
                            "takes LIBSVM's numbers 0 linear, 1 poly, 2 rbf, 3 sigmoid")
    train.add_argument("--gamma", "-g", type=_positive("--gamma"), default=None, metavar="G",
                       help="kernel coefficient (default 1/d)")
    train.add_argument("--degree", type=_count("--degree"), default=3, metavar="P",
                       help="polynomial degree (default 3)")
    train.add_argument("--coef0", type=lambda t: _number(t, "--coef0"), default=0.0,
                       metavar="R", help="poly and sigmoid offset (default 0)")
    train.add_argument("--nu", type=_positive("--nu"), default=None, metavar="NU",
                       help="SBP: slack budget per example (default: derived from the "
                            "regularization, so that the SBP solves the SVM of -C/--lambda)")
    train.add_argument("--unregularized-bias", action=argparse.BooleanOptionalAction,
                       default=None,
                       help="SBP, BSCA, SDCA: learn an unregularized bias or not (default "
                            "the estimators': on; SDCA with a bias solves LIBSVM's dual "
                            "exactly, with a kernel-row cache and shrinking)")
    train.add_argument("--budget", type=_count("--budget"), default=None, metavar="B",
                       help="BSCA/BSGD: keep at most B support vectors (default the "
                            "library's, 500)")
    train.add_argument("--cache-size", type=_positive("--cache-size"), default=None, metavar="MB",
                       help="SDCA with the bias: the kernel-row cache in MB (default 200, as "
                            "SVC's; the running time changes, never the model)")
    train.add_argument("--maintenance", choices=("auto", "merge", "remove", "project"),
                       default=None,
                       help="BSCA/BSGD: how a model of B + 1 points returns to B (default "
                            "auto: merge for rbf, remove otherwise)")
    train.add_argument("--validation", type=_fraction("--validation"), default=None,
                       metavar="F", help="hold out a fraction F in (0, 1) of the training rows "
                                         "(stratified), stop each SVM when its score on them "
                                         "stops improving and keep its best model (the "
                                         "estimators' early_stopping)")
    train.add_argument("--patience", type=_count("--patience"), default=5, metavar="P",
                       help="with --validation: stop after P epochs (diagnostics) without an "
                            "improvement (the estimators' n_iter_no_change; default 5)")
    train.add_argument("--validation-tol", dest="validation_tol",
                       type=_nonnegative("--validation-tol"), default=1e-4, metavar="T",
                       help="with --validation: the score gain that counts as an improvement "
                            "(accuracy as a fraction, or mse; default 1e-4, the estimators')")
    train.add_argument("--jobs", type=_count("--jobs"), default=1, metavar="J",
                       help="threads training the one-vs-rest SVMs at once (default 1; the "
                            "model does not depend on it)")
    train.add_argument("-v", "--cv", dest="cv", type=_count("-v", 2), default=None, metavar="K",
                       help="K-fold cross-validation accuracy, or mse for a regression "
                            "(folds stratified by label, a regression's shuffled; seeded by "
                            "--seed) instead of training; no model is written")
    train.add_argument("--class-weight", dest="class_weight", action="append",
                       type=_cli_select.class_weight, default=None, metavar="LABEL:W",
                       help="multiply the loss of class LABEL's examples by W (LIBSVM's "
                            "-wLABEL W, e.g. -w1 5, -w+1 5, -w-1 2; repeatable)")
    train.add_argument("--probability", action="store_true",
                       help="also fit Platt sigmoids on 5-fold cross-validation scores (fewer "
                            "folds for fewer examples; every class needs 2) and store them "
                            "in the model, for predict --probability")
    train.add_argument("--scale", choices=("none",) + _SCALINGS, default="none",
                       help="scale the features, fitted on TRAIN_FILE and stored in the model "
                            "(predict applies it): minmax to [-1, 1] like svm-scale, maxabs "
                            "(keeps sparse data sparse), standard (default none)")
    train.add_argument("--test", metavar="FILE", default=None,
                       help="evaluate the final model on this LIBSVM file")
    train.add_argument("--progress", action="store_true",
                       help="draw the progress bar (tqdm; without it, lines) on standard error "
                            "even when it is not a terminal")
    train.add_argument("--quiet", "-q", action="store_true", help="no progress output (the same model)")
    train.add_argument("--diagnostic-frequency", type=_count("--diagnostic-frequency"),
                       default=None, metavar="F",
                       help="iterations between diagnostics, each of which tests the stopping "
                            "rule and updates the progress with the live objective (default: the "
                            "estimators' schedule, ends of epochs 1, 2, 3, 4, 6, 9, ..., linear "
                            "SDCA's on its work budget; a diagnostic costs a pass over the data, "
                            "a kernel one n x support vectors kernel evaluations)")

    # -- grid --------------------------------------------------------------------
    grid = sub.add_parser(
        "grid", parents=[train], add_help=False, conflict_handler="resolve",
        help="search C (and gamma) by cross-validation, like LIBSVM's grid.py",
        description="Cross-validate every C of a log2 grid (and every gamma, with --kernel), "
                    "print a table and the best, and with MODEL_FILE train the best on the "
                    "whole TRAIN_FILE and write it. Takes train's options; -v K sets the folds "
                    f"(default {_cli_select.DEFAULT_FOLDS}).")
    grid.add_argument("--log2c", metavar="BEGIN,END,STEP", default=_cli_select.DEFAULT_LOG2C,
                      help=f"log2 of C (default {_cli_select.DEFAULT_LOG2C}, as grid.py)")
    grid.add_argument("--log2g", metavar="BEGIN,END,STEP", default=None,
                      help=f"log2 of gamma, with --kernel (default {_cli_select.DEFAULT_LOG2G}; "
                           f"--gamma G fixes it)")
    from stochsvm import _cli_dask

    _cli_dask.add_arguments(train)  # after grid: grid does not take --dask

    # -- predict -----------------------------------------------------------------
    predict = sub.add_parser(
        "predict", help="predict the rows of a LIBSVM file with a model file",
        description="Write one prediction per row of TEST_FILE (a label, or a value for a "
                    "regressor) to OUT, or to standard output. Prints the accuracy (or the "
                    "mean squared error) when the file has labels.")
    predict.add_argument("model", metavar="MODEL_FILE")
    predict.add_argument("file", metavar="TEST_FILE")
    predict.add_argument("out", metavar="OUT", nargs="?", default=None)
    predict.add_argument("--scores", action="store_true",
                         help="write the scores after each prediction (one per output)")
    predict.add_argument("--probability", "-b", action="store_true",
                         help="write the class probabilities after each prediction, after a "
                              "first line 'labels ...', the prediction then being the most "
                              "probable class, as svm-predict -b 1 (a model trained with "
                              "--probability)")

    # -- info --------------------------------------------------------------------
    info = sub.add_parser("info", help="describe a model file",
                          description="Print what a model file holds.")
    info.add_argument("model", metavar="MODEL_FILE")
    return parser


# --------------------------------------------------------------------------
#                                  Running
# --------------------------------------------------------------------------

class _Fail(Exception):
    """A user-facing error: message and exit status."""

    def __init__(self, message, status=2):
        super().__init__(message)
        self.status = status


_DASH = ("'-' is not standard input or output here: the command line reads and writes "
         "named files only (name a file)")


def _check_file(path):
    """Exit 2 unless ``path`` is a regular file (a FIFO or device could block
    the reader or never end)."""
    if path == "-":
        raise _Fail(_DASH)
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        raise _Fail(f"no such file: {path}") from None
    except (OSError, ValueError) as exc:
        raise _Fail(f"{path}: cannot read ({exc})") from None
    if stat.S_ISDIR(mode):
        raise _Fail(f"{path} is a folder, not a file")
    if not stat.S_ISREG(mode):
        raise _Fail(f"{path} is not a regular file (a FIFO or device is not read)")


def _load(path, dtype=np.float64, n_features=None):
    """A LIBSVM file as (CSR X, y); with n_features, columns are cut or padded to it."""
    from stochsvm.datasets import load_libsvm

    _check_file(path)
    try:
        X, y = load_libsvm(path, dtype=dtype)
    except (ValueError, OSError, EOFError) as exc:
        text = str(exc)
        raise _Fail(text if text.startswith(str(path)) else f"{path}: {text}") from None
    if X.shape[0] < 1:
        raise _Fail(f"{path} has no examples")
    if n_features is not None and X.shape[1] != n_features:
        import scipy.sparse as sp

        if X.shape[1] > n_features:
            # Features the model never had get weight 0: drop them, and say so.
            print(f"warning: {path} has {X.shape[1]} features, the model {n_features}: "
                  f"features {n_features + 1}-{X.shape[1]} are ignored", file=sys.stderr)
            X = X[:, :n_features]
        else:
            X = sp.csr_matrix((X.data, X.indices, X.indptr), shape=(X.shape[0], n_features))
    return X, y


def _homkermap(kernel, order):
    if kernel is None:
        return None
    import stochsvm

    try:
        return stochsvm.HomogeneousKernelMap(kernel, order=order)
    except ValueError as exc:
        raise _Fail(f"--homkermap-order: {exc}") from None


def _has_negative_values(X):
    """Whether X (CSR or dense) holds a value below 0."""
    data = X.data if hasattr(X, "data") and not isinstance(X, np.ndarray) else X
    return bool(np.any(np.asarray(data) < 0))


def _check_homkermap_input(X, path, hkm):
    if hkm is not None and _has_negative_values(X):
        raise _Fail(f"{path}: --homkermap needs non-negative features (the map of a "
                    f"negative value is defined by symmetry, but the kernel is not)")


def _shown_epoch(epoch):
    """Whether the epoch lines show this epoch: 1-10, then 20, 30, ..., 100,
    200, ...: a run of thousands of epochs (the default caps on small sets)
    prints a few dozen lines."""
    step = 10 ** max(0, len(str(epoch)) - 1)
    return epoch <= 10 or epoch % step == 0


class _Progress:
    """One line per diagnostic of the SVMs (one train() call each) with
    their live objective (:meth:`diagnostic`, the SVMs' diagnostic
    callback, which never moves a diagnostic): on the default schedule, the
    ends of epochs 1, 2, 3, 4, 6, 9, ... (linear SDCA's on its work budget);
    under ``--validation`` (``monitors``), a diagnostic every epoch, from
    epoch 10 on only the round epochs (_shown_epoch), with the held-out
    score. With ``bar`` and tqdm installed, a tqdm bar instead,
    redrawn every half second from the SVMs' iteration counters (ETA from the
    epoch cap; for one-vs-rest, the classes training and done) and at every
    diagnostic (stochsvm._progress); without tqdm, the lines."""

    def __init__(self, total, enabled, bar, svms=(), n=1, labels=None, monitors=None):
        from stochsvm import _progress

        self.total, self.enabled = total, enabled
        # --validation: the ValidationMonitors whose last scores the lines show
        self.monitors = monitors
        self.start = time.perf_counter()
        self.n = n
        self.iterations = [0] * len(svms)
        self.objectives = [math.nan] * len(svms)
        self.lock = threading.Lock()
        sink = _progress.new_sink("train") if enabled and bar else None
        self.live = _progress.FitProgress(svms, [total * n] * len(svms), n, sink,
                                          classes=labels if len(svms) > 1 else None)
        self.bar = self.live.drawing
        if enabled:
            for k, svm in enumerate(svms):
                svm.set_diagnostic_function(lambda stats, k=k: self.diagnostic(k, stats))

    def _draw(self, epoch, text, finish=False):
        elapsed = time.perf_counter() - self.start
        if self.bar:
            self.live.note(text)
        elif finish:
            print(f"  finish      {text}  elapsed {elapsed:.3f} s", flush=True)
        elif float(epoch).is_integer():
            print(f"epoch {int(epoch):4d}  {text}  elapsed {elapsed:.3f} s", flush=True)
        else:
            print(f"  epoch {epoch:7.2f}  {text}  elapsed {elapsed:.3f} s", flush=True)

    def diagnostic(self, k, stats):
        """A diagnostic of SVM k (on its training thread): redraw."""
        with self.lock:
            # the end of a run whose finish (or final status) changed its
            # statistics after its last diagnostic: no new iterations
            finish = stats["status"] != "training" and int(stats["iteration"]) == self.iterations[k]
            self.iterations[k] = int(stats["iteration"])
            self.objectives[k] = float(stats["objective"])
            epoch = sum(self.iterations) / (len(self.iterations) * self.n)
            live = [v for v in self.objectives if not math.isnan(v)]
            text = f"objective {sum(live) / len(live):.6f}"
            if self.monitors:
                # a diagnostic every epoch: from epoch 10 on, the round ones
                if (stats["status"] == "training" and float(epoch).is_integer()
                        and not (self.bar or _shown_epoch(int(epoch)))):
                    return None
                scored = [m.scores[-1] for m in self.monitors if m.scores]
                if scored:
                    name, value = _validation_score(self.monitors[0], np.mean(scored))
                    text += f"  validation {name} {value:.4f}"
            self._draw(epoch, text, finish)
        return None

    def observer(self, k):
        """The progress's part of SVM k's diagnostic function, or None."""
        return (lambda stats: self.diagnostic(k, stats)) if self.enabled else None


def _lambda(args, n):
    return _lambda_of(args.lam, args.C, n)


def _lambda_of(lam, C, n):
    """lambda from --lambda or -C (:func:`stochsvm._regularization.lambda_of`)."""
    from stochsvm._regularization import lambda_of

    try:
        return lambda_of(lam, C, n, names=CLI_REGULARIZATION)
    except ValueError as exc:
        raise _Fail(str(exc)) from None


def _default_loss(solver, loss="hinge"):
    """``loss``, or the squared hinge where the solver needs a differentiable
    loss and ``loss`` is not (RES and LRES)."""
    from stochsvm import _svm

    if solver in _svm._QUASI_NEWTON and loss in _svm._NON_DIFFERENTIABLE:
        return "hinge2"
    return loss


def _set_run(svm, n, args, whole_run):
    """What one train() call of ``svm`` (n rows) runs. ``whole_run``: all of
    ``--epochs`` (at most), with the diagnostics on the estimators' schedule
    (or every ``--diagnostic-frequency`` iterations), so that the stopping
    rules judge what they judge in the estimators (the objective window reads
    the spread of the objectives it records: one per epoch records more of
    SGD's noise, and at the default tol it may never close). Otherwise one
    epoch, with a diagnostic at its end (the demo's curves)."""
    from stochsvm.linear import epochs_to_iterations

    if whole_run:
        svm.set_max_num_iterations(epochs_to_iterations(args.epochs, n))
        if (hasattr(svm, "set_newton_fallback") and svm.get_solver() != "none"
                and getattr(args, "epochs_default", False)):
            # The Newton finish under the default cap, as the estimators' with
            # max_iter=None ("auto": off for the primal solvers and SDCA's
            # hinge once --epochs is given: docs/stopping.rst).
            svm.set_newton_fallback(True)
        if hasattr(svm, "set_sdca_finish") and getattr(args, "epochs_default", False):
            # The kernel SDCA finish under the default cap, as the estimators'
            # with max_iter=None (kernel_finish.c, docs/stopping.rst).
            svm.set_sdca_finish(True)
        if getattr(args, "diagnostic_frequency", None):
            svm.set_diagnostic_frequency(args.diagnostic_frequency)
    else:
        svm.set_max_num_iterations(n)  # one epoch per train() call (train N = N/2 + N/2)
        svm.set_diagnostic_frequency(getattr(args, "diagnostic_frequency", None) or n)


def _new_svm(X, y, lam, args, solver, hkm, loss=None, whole_run=False):
    import stochsvm

    try:
        svm = stochsvm.SVM(X, y, lam, solver=solver, seed=args.seed, loss=loss or args.loss,
                           homkermap=hkm)
    except ValueError as exc:
        raise _Fail(str(exc)) from None
    svm.set_bias_multiplier(args.bias_multiplier)
    if getattr(args, "bias_learning_rate", None) is not None:
        svm.set_bias_learning_rate(args.bias_learning_rate)
    # Per-solver knobs are set only on their solver (the object refuses others).
    from stochsvm import _svm

    if getattr(args, "t0", None) is not None and solver in _svm._T0_SOLVERS:
        svm.set_t0(args.t0)
    svm.set_epsilon(getattr(args, "tol", 0.0))
    if solver == "sdca":
        svm.set_shrinking(getattr(args, "shrinking", True))
    _set_run(svm, X.shape[0], args, whole_run)
    return svm


def _kernel_bias(args):
    """--unregularized-bias in force: as given, else the estimators' default
    (on for SBP, BSCA and SDCA; None for a solver without a bias)."""
    from stochsvm import _solvers

    if args.unregularized_bias is not None:
        return args.unregularized_bias
    return _solvers.get("kernel", args.solver).learns_bias


def _new_kernel_svm(X, y, lam, args, whole_run=False):
    import stochsvm

    try:
        svm = stochsvm.KernelSVM(X, y, lam, solver=args.solver, kernel=args.kernel,
                                 gamma=args.gamma, coef0=args.coef0, degree=args.degree,
                                 seed=args.seed)
        if args.nu is not None:
            svm.set_nu(args.nu)
        bias = _kernel_bias(args)
        if bias is not None:
            svm.set_unregularized_bias(bias)
        if args.budget is not None:
            svm.set_budget(args.budget)
        if args.maintenance is not None:
            svm.set_budget_maintenance(args.maintenance)
        svm.set_shrinking(getattr(args, "shrinking", True))
        if getattr(args, "cache_size", None) is not None:
            svm.set_cache_size(args.cache_size)
    except (ValueError, RuntimeError) as exc:
        raise _Fail(str(exc)) from None
    svm.set_epsilon(args.tol)
    _set_run(svm, X.shape[0], args, whole_run)
    return svm


def _check_kernel_args(args, solvers, kernel_solvers):
    if args.kernel is None:
        if args.solver not in solvers:
            raise _Fail(f"--solver {args.solver} is a kernel solver: give --kernel too")
        if args.nu is not None or args.unregularized_bias:
            raise _Fail("--nu and --unregularized-bias need --kernel (and --solver sbp; bsca for the bias)")
        if args.budget is not None or args.maintenance is not None:
            raise _Fail("--budget and --maintenance need --kernel and --solver bsca or bsgd")
        if getattr(args, "cache_size", None) is not None:
            raise _Fail("--cache-size needs --kernel (the kernel-row cache of SDCA with the bias)")
        return
    if args.solver not in kernel_solvers:
        raise _Fail(f"--kernel needs a kernel solver ({', '.join(kernel_solvers)}), "
                    f"not {args.solver}")
    if args.loss != "hinge":
        raise _Fail("the kernel solvers train the hinge loss: drop --loss")
    if args.homkermap is not None:
        raise _Fail("--homkermap is for the linear solvers: drop it or --kernel")
    bias_solvers = _kernel_solvers(bias="unregularized")
    if args.unregularized_bias and args.solver not in bias_solvers:
        raise _Fail(f"--unregularized-bias needs --solver {' or '.join(bias_solvers)}")
    if args.nu is not None and args.solver != "sbp":
        raise _Fail(f"--nu is the SBP's slack: it needs --solver sbp, not {args.solver}")
    budget_solvers = _kernel_solvers(budget=True)
    if (args.budget is not None or args.maintenance is not None) \
            and args.solver not in budget_solvers:
        raise _Fail(f"--budget and --maintenance need --solver {' or '.join(budget_solvers)}")


#: Statuses that end the command's epoch loop: the stopping rule fired, or the
#: budget rule (a budgeted solver whose gap stopped shrinking: docs/stopping.rst).
_DONE = ("converged", "budget_limited")


def _train_epoch(svms, pool=None, progress=None, last=False, run=None):
    """One more train() call of every SVM, one epoch or the whole run
    (_set_run; ``last``: the whole run), in the thread pool if any (training
    releases the GIL), tracked by ``progress`` (a _Progress); the statistics
    of each. ``run(svm)`` trains one SVM (default ``svm.train()``)."""
    run = run or (lambda svm: svm.train())
    train = run if progress is None else progress.live.track(run, last=last)
    try:
        if pool is None:
            return [train(svm) for svm in svms]
        from stochsvm._cancel import map_cancellable

        # Ctrl+C, or one model's error, stops the others (stochsvm._cancel)
        return map_cancellable(train, svms, pool=pool)
    except FloatingPointError as exc:  # the message says what to change
        raise _Fail(str(exc), 1) from None
    except ValueError as exc:  # data the core refuses (values whose squares overflow): bad data
        raise _Fail(str(exc)) from None


def _hold_out(args, X, y, task):
    """``(X, y, X_held, y_held)``: the rows to train on and the held-out
    fraction ``--validation`` of them, drawn from ``--seed``: stratified, as
    the estimators' ``early_stopping`` (stochsvm._early_stopping), or for a
    regression a plain random draw of as many rows."""
    from stochsvm._early_stopping import validation_split

    n = X.shape[0]
    if task == "regression":
        held = math.ceil(args.validation * n)
        if held >= n:
            raise _Fail(f"--validation {args.validation:g} of {n} rows holds out {held}: no "
                        f"training row is left")
        order = np.random.default_rng(args.seed).permutation(n)
        train, held = np.sort(order[held:]), np.sort(order[:held])
    else:
        try:
            train, held = validation_split(y, args.validation, args.seed,
                                           words=("--validation", "--validation ",
                                                  "drop --validation"))
        except ValueError as exc:
            raise _Fail(str(exc)) from None
    return X[train], y[train], X[held], y[held]


def _monitors(args, svms, Xv, yv, task, labels):
    """One ValidationMonitor per SVM on the held-out rows (--patience,
    --validation-tol; the held-out rows weighted by --class-weight)."""
    from stochsvm import _cli_select
    from stochsvm._early_stopping import ValidationMonitor

    problems = _label_vectors(yv, labels)
    weights = _cli_select.example_weights(args, yv, labels)
    return [ValidationMonitor(svm, Xv, yb, weights, args.patience, args.validation_tol,
                              regression=task == "regression")
            for svm, yb in zip(svms, problems)]


def _validation_score(monitor, score):
    """(name, value) of a monitor's score as the lines show it: an accuracy,
    or the mean squared error (the monitor's score is minus it)."""
    return ("mse", -score) if monitor.regression else ("accuracy", score)


def _scores(svms, X, what):
    """The trained models' scores of the rows of ``X`` (the file ``what``);
    finite values whose scores overflow against a model are an error of
    that file (exit 2), not a traceback."""
    try:
        return np.column_stack([svm.decision_function(X) for svm in svms])
    except ValueError as exc:
        raise _Fail(f"{what}: {exc}") from None


#: Weights larger than this (bytes), for features most of which never occur,
#: mean a feature index that is out of proportion to the file.
_ABSURD_WEIGHT_BYTES = 1 << 30


def _check_model_size(X, num_outputs, path):
    """Exit 2 before allocating weights for a dimension the data cannot use
    (a feature index of 2**31 - 1 in a two-line file: 16 GiB per output)."""
    d = X.shape[1]
    weight_bytes = 8 * d * num_outputs
    if weight_bytes > _ABSURD_WEIGHT_BYTES and d > X.nnz:
        raise _Fail(f"{path}: the largest feature index is {d} but the file has only {X.nnz} "
                    f"nonzeros; the model would need {weight_bytes / 2**30:.1f} GiB of weights. "
                    f"Number the features densely (1, 2, ...)")


def _check_output_file(path, inputs=()):
    """Exit 2 before training if the model cannot replace ``path`` (see ss_model_save),
    or if ``path`` names one of the command's ``inputs`` (a typo that would
    overwrite the training data with the model)."""
    if path is not None and os.path.exists(path) and not os.path.isfile(path):
        raise _Fail(f"{path}: not a regular file; the model is only written to a regular file "
                    f"(or a new name)")
    _check_output_folder(path, replaced_by_rename=True)
    _check_not_an_input(path, inputs)


def _check_output_folder(path, replaced_by_rename=False):
    """Exit 2 before the work if ``path`` is a folder, lies in a missing one,
    or cannot be written (else the write fails only after training or
    predicting). A model is written to a temporary file beside ``path`` and
    renamed over it (ss_model_save: ``replaced_by_rename``), so its folder
    must take a new file: the test creates, then removes, one there. The
    predictions are written to ``path`` itself: an existing file (or device,
    such as ``/dev/stdout``) must be writable, a new one needs the folder."""
    if path is None:
        return
    if path == "-":
        raise _Fail(_DASH)
    if os.path.isdir(path):
        raise _Fail(f"{path} is a folder, not a file")
    folder = os.path.dirname(path)
    if folder and not os.path.isdir(folder):
        raise _Fail(f"{path}: the folder {folder} does not exist (create it first)")
    if os.path.exists(path) and not replaced_by_rename:
        if not os.access(path, os.W_OK):
            raise _Fail(f"{path}: not writable; write the output elsewhere")
        return
    try:
        with tempfile.NamedTemporaryFile(dir=folder or ".", prefix=".stochsvm-write-test-"):
            pass
    except OSError as exc:
        raise _Fail(f"{path}: cannot create a file in the folder {folder or '.'} "
                    f"({exc.strerror or exc}); write the output elsewhere") from None


def _check_not_an_input(path, inputs):
    """Exit 2 if the output ``path`` is the same file as one of ``inputs``."""
    if path is None or not os.path.exists(path):
        return
    for source in inputs:
        try:
            same = source is not None and os.path.samefile(path, source)
        except OSError:
            same = False
        if same:
            raise _Fail(f"{path}: the same file as the input {source}; writing there would "
                        f"overwrite it: give another output name")


def _problem(y, path, regression):
    """(task, labels, label vectors of the SVMs) for the targets y."""
    if regression:
        return "regression", None, [np.asarray(y, dtype=np.float64)]
    classes = np.unique(y)
    if classes.size < 2:
        raise _Fail(f"{path}: a classifier needs at least two label values, found "
                    f"{classes.size}")
    if classes.size > 100 and 2 * classes.size > y.size:
        raise _Fail(f"{path}: {classes.size} distinct labels in {y.size} rows are too many "
                    f"classes for the rows (fewer than 2 examples per class; one-vs-rest would "
                    f"train {classes.size} SVMs); if the labels are real-valued targets, "
                    f"train a regressor with --loss l2 (or l1)")
    return "binary" if classes.size == 2 else "one_vs_rest", classes, _label_vectors(y, classes)


def _label_vectors(y, labels):
    """The targets of the SVMs: y itself for a regression (``labels`` None),
    +-1 for the larger of two labels, one +-1 vector per label otherwise."""
    if labels is None:
        return [np.asarray(y, dtype=np.float64)]
    if len(labels) == 2:
        return [np.where(y == labels[1], 1.0, -1.0)]
    return [np.where(y == c, 1.0, -1.0) for c in labels]


def _predict(task, labels, scores):
    if task == "regression":
        return scores[:, 0]
    if task == "binary":
        return labels[(scores[:, 0] > 0).astype(int)]
    return labels[np.argmax(scores, axis=1)]


def _quality(task, predictions, y):
    """(name, value, higher is better) of predictions against labels."""
    if task == "regression":
        return "mse", float(np.mean((predictions - y) ** 2)), False
    return "accuracy", float(np.mean(predictions == y)), True


def _model_dict(task, labels, svms, args, d, hkm, lam, extra):
    from stochsvm.model_file import LOSS_CODES, _homkermap_dict

    meta = {"written_by": f"stochsvm {_version()} train", "solver": args.solver,
            "loss": args.loss, "epochs": args.epochs, "seed": args.seed,
            "iteration_numbers": [int(s.get_iteration_number()) for s in svms]}
    meta.update(extra)
    return {"kind": "linear", "task": task, "dimension": d,
            "labels": None if labels is None else np.asarray(labels, dtype=np.float64),
            "loss": LOSS_CODES[args.loss], "lambda": lam, "bias_multiplier": args.bias_multiplier,
            "homkermap": _homkermap_dict(hkm), "weights": np.vstack([s.get_model() for s in svms]),
            "biases": [s.get_bias() for s in svms], "metadata": json.dumps(meta)}


def _notice_steps(args, svms, problems, stats):
    """The notices of a linear run's steps, on stderr: the step back-offs it
    took (docs/stopping.rst), and a model whose objective is above the zero
    model's (the steps diverged or made no progress: it is not reliable)."""
    from stochsvm import _svm
    from stochsvm.linear import _FIRST_EPOCH_SLACK
    from stochsvm.svm import _zero_model_slack, _zero_objective

    backoffs = max(s.get("num_step_backoffs", 0) for s in stats)
    if backoffs:
        step = "eps0" if args.solver in ("res", "lres") else "--t0"
        print(f"stochsvm train: notice: the steps were backed off {backoffs} "
              f"time{'s' if backoffs > 1 else ''}: at the default {step} the objective went "
              f"non-finite or rose above the zero model's, and training restarted from w = 0 "
              f"with shorter steps", file=sys.stderr)
    for svm, yb, st in zip(svms, problems, stats):
        zero = _zero_objective(yb, args.loss, svm.get_weights())
        # (as partial_fit: the first epoch's large steps only warn far above it)
        slack = (1 + _zero_model_slack(st["status"], svm.get_epsilon())
                 if st["iteration"] > svm.get_num_data() else _FIRST_EPOCH_SLACK)
        if st["objective"] > zero * slack:
            scale = "add --scale standard (or maxabs, which keeps sparse data sparse)"
            if args.solver == "sdca":  # no steps: its primal is poor until its dual converges
                why, fix = ("the dual is far from converged", f"{scale}, or raise --epochs")
            else:
                shorter = ", raise --t0 (shorter steps)" if args.solver in _svm._T0_SOLVERS else ""
                why, fix = ("the steps diverged or made no progress",
                            f"{scale}{shorter}, or use --solver sdca, which needs no step size")
            print(f"stochsvm train: warning: the objective {st['objective']:.6g} is above "
                  f"{zero:.6g}, that of the zero model: {why} and the model is not reliable; "
                  f"{fix}", file=sys.stderr)
            return


def _tests_tol(args):
    """Whether the solver in use has a stopping test on --tol (every linear
    solver; the kernel solvers with a stopping rule in stochsvm._solvers)."""
    from stochsvm import _solvers

    return args.kernel is None or _solvers.get("kernel", args.solver).stopping_rule is not None


def resolve_run_defaults(args, X):
    """--epochs and --tol not given: the estimators' defaults for the solver
    (stochsvm._solvers), on the training set X: what ``LinearSVMClassifier``
    or ``KernelSVMClassifier`` at its defaults would run."""
    from stochsvm import _solvers

    solver = _solvers.get("linear" if args.kernel is None else "kernel", args.solver)
    args.epochs_default = args.epochs is None  # (the primal solvers' Newton finish: _set_run)
    if args.epochs is None:
        args.epochs = solver.default_epochs_on(X, getattr(args, "loss", None))
    if args.tol is None:
        args.tol = solver.default_tol_for(getattr(args, "loss", None))


def _run_train(args):
    if getattr(args, "dask", None) is not None:
        from stochsvm import _cli_dask

        return _cli_dask.run_train(args)
    if getattr(args, "blocksize", None) is not None:
        raise _Fail("--blocksize splits the file among Dask workers: it needs --dask")
    if args.loss is None:
        args.loss = _default_loss(args.solver)
    if args.probability and args.loss in _REGRESSION_LOSSES:  # before training, not after it
        raise _Fail("--probability needs a classifier (not the l1 or l2 loss)")
    dtype = np.float32 if args.float32 else np.float64
    t = time.perf_counter()
    X, y = _load(args.file, dtype)
    load_time = time.perf_counter() - t
    _check_kernel_args(args, _solvers(), _kernel_solvers())
    resolve_run_defaults(args, X)
    hkm = _homkermap(args.homkermap, args.homkermap_order)
    _check_homkermap_input(X, args.file, hkm)
    regression = args.loss in _REGRESSION_LOSSES
    task, labels, _ = _problem(y, args.file, regression)
    _check_model_size(X, 1 if labels is None or len(labels) == 2 else len(labels), args.file)
    _check_output_file(args.model, inputs=(args.file, getattr(args, "test", None)))
    if getattr(args, "test", None):
        _check_file(args.test)   # before training, not after it
    n_all, d = X.shape
    print(f"stochsvm {_version()} train: {args.file}: {n_all} examples, {d} features, "
          f"{X.nnz} nonzeros (read in {load_time:.2f} s); "
          f"{task.replace('_', '-')}{'' if labels is None else f', {len(labels)} classes'}")
    from stochsvm import _cli_scale, _cli_select

    _cli_select.check_class_weights(args, y, labels)
    X, scaler = _cli_scale.scale_training_data(args, X)
    if args.cv is not None:
        return _cli_select.run_train_cv(args, X, y, task, labels)
    Xv = yv = None
    if args.validation is not None:
        X, y, Xv, yv = _hold_out(args, X, y, task)
        print(f"validation: {Xv.shape[0]} rows held out, patience {args.patience} epochs")
    _cli_select.check_probability(args, y)
    _, _, problems = _problem(y, args.file, regression)
    n = X.shape[0]
    lam = _lambda(args, n)
    if args.kernel is None:
        print(f"{args.solver}, {args.loss} loss, lambda {lam:g}, at most {args.epochs} epochs, "
              f"bias multiplier {args.bias_multiplier:g}, seed {args.seed}"
              + (f", {hkm.kernel} kernel map of order {hkm.order}" if hkm is not None else ""))
        svms = [_new_svm(X, yb, lam, args, args.solver, hkm, whole_run=True)
                for yb in problems]
    else:
        svms = [_new_kernel_svm(X, yb, lam, args, whole_run=True) for yb in problems]
        kern = svms[0].get_kernel()
        print(f"kernel {args.solver}, {kern['kernel']} kernel (gamma {kern['gamma']:g}), lambda "
              f"{lam:g}, at most {args.epochs} epochs, seed {args.seed}")
    _cli_select.set_example_weights(svms, _cli_select.example_weights(args, y, labels))
    monitors = None if Xv is None else _monitors(args, svms, Xv, yv, task, labels)
    bar = args.progress or sys.stderr.isatty()
    progress = _Progress(args.epochs, not args.quiet, bar, svms, n,
                         None if labels is None else [f"{v:g}" for v in labels], monitors)
    run = None
    if monitors is not None:
        from stochsvm._early_stopping import train_watched

        # a diagnostic every epoch (the SBP keeps its finer default schedule)
        frequency = getattr(args, "diagnostic_frequency", None) or (
            None if args.kernel is not None and args.solver == "sbp" else n)
        watched = {id(svm): (monitor, progress.observer(k))
                   for k, (svm, monitor) in enumerate(zip(svms, monitors))}
        run = lambda svm: train_watched(svm, watched[id(svm)][0], frequency,  # noqa: E731
                                        watched[id(svm)][1])
    t = time.perf_counter()
    epoch = 0
    pool = None
    if args.jobs > 1 and len(svms) > 1:
        from concurrent.futures import ThreadPoolExecutor

        pool = ThreadPoolExecutor(max_workers=min(args.jobs, len(svms)))
    try:
        # (Ctrl+C leaves the bar where the run stopped, "interrupted")
        with progress.live:
            stats = _train_epoch(svms, pool, progress, last=True, run=run)
        epoch = max(-(-int(s["iteration"]) // n) for s in stats)  # epochs begun
        objective = float(np.mean([s["objective"] for s in stats]))
    finally:
        if pool is not None:
            pool.shutdown()
    train_time = time.perf_counter() - t
    limited = [s for s in stats if s["status"] == "budget_limited"]
    uncertified = [s for s in stats
                   if s["status"] == "max_iterations" and s.get("num_newton_iterations", 0)]
    unfinished = [s for s in stats
                  if s["status"] == "max_iterations" and s.get("finish_epochs", 0)]
    stopped = [s for s in stats if s["status"] == "validation"]
    status = "converged" if all(s["status"] == "converged" for s in stats) else (
        "not converged" if uncertified or unfinished else
        "budget limited" if limited and all(s["status"] in _DONE for s in stats) else
        "early stop" if stopped and all(s["status"] in _DONE + ("validation",) for s in stats)
        else "epoch limit")
    newton = max(s.get("num_newton_iterations", 0) for s in stats)
    finish = max(s.get("finish_epochs", 0) for s in stats)
    certified = " (certified)" if (newton or finish) and status == "converged" else ""
    print(f"{status} after {epoch} epochs"
          + (f" and {newton} Newton iteration{'s' if newton > 1 else ''}{certified}" if newton else "")
          + (f" and {finish:.0f} epochs of the kernel SDCA finish{certified}" if finish else "")
          + f", objective {objective:.6f}, training time {train_time:.3f} s")
    if uncertified and args.tol > 0:
        # The run handed over to its Newton finish, which ended short of tol:
        # more epochs rarely help (docs/stopping.rst).
        print(f"stochsvm train: notice: {args.solver} handed over to its Newton finish, which "
              f"ended after {max(s['num_newton_iterations'] for s in uncertified)} iterations "
              f"without its relative duality gap falling below --tol {args.tol:g} (a nearly "
              f"separable or badly scaled problem); raising --epochs rarely helps: add --scale "
              f"standard, lower -C or raise --tol", file=sys.stderr)
    elif unfinished and args.tol > 0:
        # The run handed over to the kernel SDCA finish, which hit its cap.
        print(f"stochsvm train: notice: {args.solver} handed over to exact kernel SDCA on the "
              f"epoch cap, which ended after {max(s['finish_epochs'] for s in unfinished):.0f} "
              f"epochs without its relative duality gap falling below min(--tol {args.tol:g}, "
              f"1e-3); add --scale standard, lower -C or raise --tol", file=sys.stderr)
    elif (status == "epoch limit" and args.tol > 0 and args.solver in ("bsca", "bsgd") and
          any(s["status"] == "max_iterations" and math.isnan(s["dual_objective"]) for s in stats)):
        # BSCA or BSGD after budget maintenance: no dual value, so no gap for more epochs to close
        print(f"stochsvm train: notice: stopped on the epoch cap (--epochs {args.epochs}) with the "
              f"objective not certified: budget maintenance changed the model (--budget "
              f"{svms[0].get_budget()}), so no duality gap bounds how far it is from the optimum; "
              f"raise --budget (to the number of examples for a certified fit)", file=sys.stderr)
    elif status == "epoch limit" and args.tol > 0 and _tests_tol(args):
        from stochsvm.svm import _scale_note

        quasi_newton = args.solver in ("res", "lres")
        note = _scale_note(X, None if args.kernel is not None or quasi_newton else
                           "--solver lres --loss hinge2 (or logistic: quasi-Newton steps)",
                           standardize="add --scale standard (or maxabs, which keeps sparse "
                                       "data sparse)")
        print(f"stochsvm train: notice: stopped on the epoch cap (--epochs {args.epochs}) before "
              f"the stopping rule fell below --tol {args.tol:g}; raise --epochs{note}",
              file=sys.stderr)
    if args.kernel is None:
        _notice_steps(args, svms, problems, stats)
    if limited:
        gaps = [s["duality_gap"] / max(s["primal_objective"], s["dual_objective"]) for s in limited]
        why = (f"the relative duality gap stopped shrinking at {max(gaps):.3g}, above --tol "
               f"{args.tol:g}; raise --budget" if all(map(math.isfinite, gaps)) else
               # BSCA after budget maintenance: its dual is no dual value (docs/stopping.rst)
               "budget maintenance changed the model, so its objective is not certified and how "
               "far it is from the optimum is unknown (no duality gap bounds it); raise --budget "
               "(to the number of examples for a certified fit)")
        print(f"stochsvm train: notice: stopped where the budget bounds the accuracy (--budget "
              f"{svms[0].get_budget()}): {why}", file=sys.stderr)
    extra = {}
    if monitors is not None:
        # Each SVM keeps its best model where the rule ended its run, its last otherwise.
        kept = [-(-int(m.best_iteration if m.stopped else s["iteration"]) // n)
                for m, s in zip(monitors, stats)]
        held = _scores(svms, Xv, f"{args.file} (validation rows)")
        name, value, _ = _quality(task, _predict(task, labels, held), yv)
        extra = {"best_epochs": kept, "validation": value}
        which = (f"best epoch {kept[0]}" if len(kept) == 1 else
                 f"best epochs {', '.join(map(str, kept))} (one per class)")
        print(f"{which}: validation {name} {value:.4f}")
    name, value, _ = _quality(task, _predict(task, labels, _scores(svms, X, args.file)), y)
    line = f"train {name} {value:.4f}"
    if args.test:
        Xt, yt = _load(args.test, dtype, n_features=d)
        Xt = _cli_scale.scale(Xt, scaler, args.test)
        if labels is not None:
            unknown = np.setdiff1d(np.unique(yt), labels)
            if unknown.size:
                raise _Fail(f"{args.test}: label {unknown[0]:g} does not occur in the training "
                            f"file (labels {', '.join(f'{v:g}' for v in labels)})")
        name, value, _ = _quality(task, _predict(task, labels, _scores(svms, Xt, args.test)), yt)
        line += f", test {name} {value:.4f} ({Xt.shape[0]} examples)"
    print(line)
    if args.model and args.probability:
        extra["platt"] = _cli_select.platt_sigmoids(args, X, y, task, labels)
    model = None
    if args.model is not None:
        from stochsvm.model_file import kernel_model_dict

        if args.kernel is None:
            model = _model_dict(task, labels, svms, args, d, hkm, lam, extra)
        else:
            meta = {"written_by": f"stochsvm {_version()} train", "solver": args.solver,
                    "epochs": args.epochs, "seed": args.seed, "nu": svms[0].get_nu(), **extra}
            model = kernel_model_dict(svms, task, None if labels is None else
                                      np.asarray(labels, dtype=np.float64), d, meta)
        model["scaling"] = scaler
    _write_model(model, args.model)
    return 0


def _write_model(model, path):
    """Save ``model`` to ``path`` (a failed write exits 1), or say that none
    was written when no MODEL_FILE was given (``path`` None)."""
    if path is None:
        print("no model written (give a MODEL_FILE after TRAIN_FILE to save one)")
        return
    from stochsvm.model_file import save_model

    try:
        save_model(model, path)
    except OSError as exc:
        raise _Fail(str(exc), 1) from None
    print(f"model written to {path}")


# -- predict and info ------------------------------------------------------------

def _looks_like_a_model(path):
    """True if ``path`` starts with a stochsvm model file's signature."""
    from stochsvm.model_file import ModelFileError, read_model

    try:
        read_model(path)
    except (ModelFileError, OSError):
        return False
    return True


def _read_model(path):
    from stochsvm.model_file import ModelFileError, read_model

    _check_file(path)
    try:
        return read_model(path)
    except ModelFileError as exc:
        raise _Fail(str(exc)) from None
    except OSError as exc:
        raise _Fail(f"{path}: {exc}") from None


def _run_predict(args):
    from stochsvm import _model_file

    if args.out:
        _check_output_folder(args.out)
        _check_not_an_input(args.out, (args.model, args.file))
    try:
        d = _read_model(args.model)
    except _Fail as exc:
        if "wrong signature" in str(exc) and _looks_like_a_model(args.file):
            raise _Fail(f"{exc}; the model file comes first: stochsvm predict MODEL_FILE "
                        f"TEST_FILE [OUT] (LIBSVM's svm-predict takes the test file first)") from None
        raise
    X, y = _load(args.file, n_features=d["dimension"])
    if d["scaling"] is not None:
        from stochsvm._cli_scale import scale

        X = scale(X, d["scaling"], args.file)
    if d.get("homkermap") is not None and _has_negative_values(X):
        # train refuses them (_check_homkermap_input); the map still takes
        # them, by symmetry, so the scores exist but the kernel is not the one trained
        print(f"stochsvm predict: warning: {args.file} has negative features; the model's "
              f"kernel map was trained on non-negative ones (a negative value maps by "
              f"symmetry, which is not the kernel)", file=sys.stderr)
    try:
        # X is scaled above, as train scaled its rows (the core would scale them again)
        scores = _model_file.decision_function({**d, "scaling": None}, X)
    except ValueError as exc:  # (finite values that overflow against the model)
        raise _Fail(f"{args.file}: {exc}") from None
    labels = None if d["labels"] is None else np.asarray(d["labels"])
    meta = d["metadata_json"]
    classes = meta.get("classes")  # estimators saved with string labels
    if classes is not None and labels is not None:
        labels = np.asarray(classes["values"], dtype=np.dtype(classes["dtype"]))
    predictions = _predict(d["task"], labels, scores)
    lines, probabilities = [], None
    if args.probability:
        from stochsvm.calibration import class_probabilities

        from stochsvm.model_file import ModelFileError, platt_sigmoids

        try:
            sigmoids = platt_sigmoids(meta, scores.shape[1], args.model)
        except ModelFileError as exc:
            raise _Fail(str(exc)) from None
        if not sigmoids:
            raise _Fail(f"{args.model} has no probability model (train it with --probability, "
                        f"or fit the estimator with probability=True)")
        probabilities = class_probabilities(scores, sigmoids)
        # the most probable class, as svm-predict -b 1 writes (the sigmoids
        # can reorder two close scores); its columns are in the labels' order
        predictions = labels[np.argmax(probabilities, axis=1)]
        lines.append("labels " + " ".join(f"{v:g}" if isinstance(v, (float, np.floating))
                                          else str(v) for v in labels))
    for k in range(X.shape[0]):
        p = predictions[k]
        text = f"{p:.17g}" if isinstance(p, (float, np.floating)) else str(p)
        if args.scores:
            text += " " + " ".join(f"{s:.17g}" for s in scores[k])
        if probabilities is not None:
            text += " " + " ".join(f"{q:.6g}" for q in probabilities[k])
        lines.append(text)
    report = sys.stdout
    if args.out:
        try:
            with open(args.out, "w") as f:
                f.write("\n".join(lines) + "\n")
        except OSError as exc:
            raise _Fail(f"{args.out}: cannot write ({exc.strerror})", 1) from None
    else:
        print("\n".join(lines))
        report = sys.stderr
    numeric = labels is None or labels.dtype.kind in "iubf"
    if numeric and (d["task"] == "regression" or np.isin(y, labels.astype(np.float64)).all()):
        # the file's labels are numbers: compare as float64 (1 == 1.0, 1 != 1.5)
        name, value, _ = _quality(d["task"], predictions.astype(np.float64), y)
        print(f"{name} {value:.4f} ({X.shape[0]} examples)", file=report)
    else:
        print(f"({args.file} has labels the model does not know: no accuracy)", file=report)
    return 0


def _run_info(args):
    d = _read_model(args.model)
    meta = d["metadata_json"]
    size = os.path.getsize(args.model)
    print(f"{args.model}: stochsvm model file, format version {d['format_version']}, "
          f"{size} bytes")
    print(f"kind            {d['kind']}")
    print(f"task            {d['task'].replace('_', '-')}")
    print(f"input features  {d['dimension']}")
    if d["labels"] is not None:
        classes = meta.get("classes")
        shown = classes["values"] if classes else [f"{v:g}" for v in d["labels"]]
        print(f"classes         {len(shown)}: {', '.join(map(str, shown[:10]))}"
              f"{', ...' if len(shown) > 10 else ''}")
    from stochsvm.model_file import _LOSS_NAMES

    print(f"loss            {_LOSS_NAMES.get(d['loss'], 'custom')}")
    print(f"lambda          {d['lambda']:g}")
    print(f"bias multiplier {d['bias_multiplier']:g}")
    if d["scaling"] is not None:
        print(f"scaling         {d['scaling']['method']} of the input features (SCAL section)")
    if d["homkermap"] is not None:
        from stochsvm.model_file import _homkermap_object

        h = _homkermap_object(d["homkermap"])
        print(f"feature map     homogeneous kernel map: {h.kernel}, order {h.order}, "
              f"gamma {h.gamma:g}, period {h.period:g}, {h.window} window "
              f"({d['weights'].shape[1]} weights per output)")
    if d["kind"] == "linear":
        W = d["weights"]
        norms = ", ".join(f"{v:.4g}" for v in np.linalg.norm(W, axis=1)[:10])
        print(f"weights         {W.shape[0]} x {W.shape[1]}, {np.count_nonzero(W)} nonzero, "
              f"norms {norms}")
    else:
        print(f"kernel          {d['kernel']} (gamma {d['gamma']:g}, coef0 {d['coef0']:g}, "
              f"degree {d['degree']})")
        print(f"support vectors {d['sv_indptr'].size - 1} ({d['sv_values'].size} nonzeros)")
    print(f"biases          {', '.join(f'{b:.6g}' for b in d['biases'][:10])}")
    if meta:
        print(f"metadata        {json.dumps(meta, sort_keys=True)}")
    elif d["metadata"]:  # plain text (C programs may write any UTF-8 text)
        print(f"metadata        {json.dumps(d['metadata'])}")
    return 0


# -- demo ------------------------------------------------------------------------

def _demo_rows(name, Xtr, ytr, Xte, yte, args, configs):
    """Train each (label, solver, map) on one problem; rows of the table and curves
    (label -> [(epoch, objective)] at each diagnostic, epoch = iteration / n)."""
    rows, curves = [], {}
    n = Xtr.shape[0]
    for label, solver, hkm in configs:
        loss = _default_loss(solver, args.loss)
        if loss != args.loss:
            label = f"{label} ({loss})"
        svm = _new_svm(Xtr, ytr, args.lam, args, solver, hkm, loss)
        svm.set_max_num_iterations(args.epochs * n)
        history = []

        def record(st, history=history):
            history.append((st["iteration"] / n, st["objective"]))
            return False

        svm.set_diagnostic_function(record)
        cpu = time.process_time()
        try:
            st = svm.train()
        except FloatingPointError as exc:
            raise _Fail(f"{name}, {label}: {exc}", 1) from None
        cpu = time.process_time() - cpu
        accuracy = float(np.mean(svm.predict(Xte) == yte))
        rows.append((label, st["epoch"], st["objective"], accuracy, cpu, "-"))
        curves[label] = history
    return rows, curves


def _demo_kernel_rows(Xtr, ytr, Xte, yte, args, solvers):
    """Each kernel solver (RBF kernel, gamma ``args.gamma``) on the first rows of a problem;
    rows and curves as _demo_rows' (the diagnostics fall at epochs 1, 2, 3, 4, 6, 9, ...)."""
    import stochsvm

    rows, curves = [], {}
    m = min(args.kernel_rows, Xtr.shape[0])
    X, y = Xtr[:m], ytr[:m]
    for solver in solvers:
        svm = stochsvm.KernelSVM(X, y, args.lam, solver=solver, kernel="rbf", gamma=args.gamma,
                                 seed=args.seed)
        svm.set_max_num_iterations(args.epochs * m)
        svm.set_epsilon(0.0)
        history = []

        def record(st, history=history):
            history.append((st["iteration"] / m, st["primal_objective"]))
            return False

        svm.set_diagnostic_function(record)
        cpu = time.process_time()
        st = svm.train()
        cpu = time.process_time() - cpu
        accuracy = float(np.mean(svm.predict(Xte) == yte))
        label = f"kernel {solver} (rbf, gamma {args.gamma:g}, {m} rows)"
        rows.append((label, st["epoch"], st["primal_objective"], accuracy, cpu,
                     str(st["num_kernel_evaluations"])))
        curves[label] = history
    return rows, curves


def _print_table(title, rows):
    print(f"\n{title}")
    width = max([34] + [len(row[0]) for row in rows])
    head = f"  {'solver':<{width}} {'epochs':>6} {'objective':>11} {'test acc':>9} {'CPU s':>7} " \
           f"{'kernel evals':>12}"
    print(head)
    print("  " + "-" * (len(head) - 2))
    for label, epochs, objective, accuracy, cpu, kevals in rows:
        print(f"  {label:<{width}} {epochs:>6} {objective:>11.6f} {accuracy:>9.4f} {cpu:>7.2f} "
              f"{kevals:>12}")


#: Solvers left out on the mapped features: RES factorises its d x d curvature
#: matrix at every step (O(d^3)), too slow for the demo on the map's ~100
#: features (LRES, its limited-memory form, runs there).
_DEMO_UNMAPPED_ONLY = ("res",)


#: The non-linear problem of the demo: 4 features, each with three arches of
#: sin(3 pi x) on [0, 1), and the RBF width that fits them (sigma = 1/sqrt(2
#: gamma) ~ 0.22, about two thirds of an arch). On 2,000 rows every kernel
#: solver scores about 0.85-0.90, the linear solvers about 0.5 (chance).
_DEMO_NONLINEAR_D = 4
_DEMO_GAMMA = 10.0


def _demo_configs(solvers, hkm):
    configs = [(s, s, None) for s in solvers]
    if hkm is not None:
        configs += [(f"{s} + {hkm.kernel} map (order {hkm.order})", s, hkm) for s in solvers
                    if s not in _DEMO_UNMAPPED_ONLY]
    return configs


def _pyplot():
    """matplotlib's pyplot on a file-only backend, or a usage error naming the install."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise _Fail("--plot needs matplotlib (pip install matplotlib)") from None
    return plt


def _curve_styles():
    """Distinct (colour, line style, marker) triples for up to 20 x 4 curves: 20
    colours, and the style and marker change with every colour cycle."""
    import matplotlib

    colours = matplotlib.colormaps["tab20"].colors
    lines, markers = ("-", "--", "-.", ":"), ("o", "s", "^", "D")
    k = 0
    while True:
        yield colours[k % 20], lines[(k // 20 + k) % 4], markers[(k // 20) % 4]
        k += 1


def _check_plot_file(path):
    """Exit 2 unless matplotlib can write a plot to ``path``: installed, a
    format it knows (the name's extension: .png, .pdf, .svg, ...; none: a
    PNG, matplotlib's default), a folder that exists and takes the file."""
    plt = _pyplot()
    formats = plt.figure().canvas.get_supported_filetypes()
    plt.close("all")
    extension = os.path.splitext(path)[1][1:].lower()
    if extension and extension not in formats:
        raise _Fail(f"--plot {path}: matplotlib cannot write .{extension} files; give a name "
                    f"ending in one of {', '.join('.' + f for f in sorted(formats))}")
    _check_output_folder(path)


def _plot(path, problems):
    plt = _pyplot()
    fig, axes = plt.subplots(1, len(problems), figsize=(8.5 * len(problems), 5), squeeze=False)
    for ax, (title, curves) in zip(axes[0], problems):
        for (label, points), (colour, line, marker) in zip(curves.items(), _curve_styles()):
            epochs, values = zip(*points) if points else ((), ())
            ax.plot(epochs, values, color=colour, linestyle=line, marker=marker, ms=3,
                    label=label)
        ax.set_title(title, fontsize=10)
        ax.set_xlabel("epoch")
        ax.set_ylabel("primal objective (lower is better)")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0.0)
    fig.tight_layout()
    try:
        fig.savefig(path, dpi=100, bbox_inches="tight")
    except OSError as exc:
        raise _Fail(f"{path}: cannot write the plot ({exc.strerror})", 1) from None
    plt.close(fig)


def _run_demo(args):
    from stochsvm.datasets import make_classification, make_nonlinear

    known = _solvers()
    solvers = [s.strip() for s in args.solvers.split(",") if s.strip()]
    unknown = [s for s in solvers if s not in known]
    if unknown or not solvers:
        raise _Fail(f"--solvers: unknown solver {unknown[0] if unknown else '(none)'!r}; "
                    f"choose from {', '.join(known)}")
    known_kernel = _kernel_solvers()
    kernel_solvers = [s.strip() for s in args.kernel_solvers.split(",") if s.strip()]
    unknown = [s for s in kernel_solvers if s not in known_kernel]
    if unknown:
        raise _Fail(f"--kernel-solvers: unknown solver {unknown[0]!r}; choose from "
                    f"{', '.join(known_kernel)}")
    if args.plot:  # matplotlib, the format and the folder: before minutes of training, not after
        _check_plot_file(args.plot)
    args.tol, args.bias_multiplier = 0.0, 1.0
    dtype = np.float32 if args.float32 else np.float64
    print(f"stochsvm {_version()} demo: {', '.join(solvers)}"
          + (f"; kernel {', '.join(kernel_solvers)}" if kernel_solvers and not args.data else "")
          + f" ({args.loss} loss, lambda "
          f"{args.lam:g}, {args.epochs} epochs each, seed {args.seed}). Times are process CPU "
          f"seconds; objective = lambda/2 |w|^2 + mean loss, the same problem for every solver "
          f"of a table, except rows marked (hinge2): RES and LRES need a differentiable loss "
          f"and minimise the squared hinge instead.")
    problems = []
    if args.data:
        if len(args.data) > 2:
            raise _Fail("--data takes a training file and at most one test file")
        Xtr, ytr_raw = _load(args.data[0], dtype)
        task, labels, vectors = _problem(ytr_raw, args.data[0], False)
        if task != "binary":
            raise _Fail(f"{args.data[0]}: the demo compares binary classifiers; this file has "
                        f"{len(labels)} classes (use stochsvm train)")
        ytr = vectors[0]
        if len(args.data) == 2:
            Xte, yte_raw = _load(args.data[1], dtype, n_features=Xtr.shape[1])
            if not np.isin(yte_raw, labels).all():
                raise _Fail(f"{args.data[1]}: labels other than the training file's "
                            f"{labels[0]:g}, {labels[1]:g}")
            yte = np.where(yte_raw == labels[1], 1.0, -1.0)
        else:
            Xte, yte = Xtr, ytr
        nonnegative = Xtr.data.min(initial=0.0) >= 0
        hkm = _homkermap("chi2", 3) if nonnegative else None
        title = (f"{args.data[0]}: {Xtr.shape[0]} x {Xtr.shape[1]}, tested on "
                 f"{args.data[1] if len(args.data) == 2 else 'the training file'} "
                 f"({Xte.shape[0]} rows)")
        rows, curves = _demo_rows(title, Xtr, ytr, Xte, yte, args, _demo_configs(solvers, hkm))
        _print_table(title, rows)
        problems.append((os.path.basename(args.data[0]), curves))
    else:
        t = time.process_time()
        n, m = args.n, args.n_test
        X, y = make_classification(n + m, args.d, seed=args.seed, noise=args.noise, dtype=dtype)
        title = (f"linear: make_classification, {n} train + {m} test rows, d = {args.d}, "
                 f"{args.noise:.0%} label noise")
        rows, curves = _demo_rows(title, X[:n], y[:n], X[n:], y[n:], args,
                                  _demo_configs(solvers, None))
        _print_table(title, rows)
        problems.append(("linear (make_classification)", curves))
        n4, m4 = max(2, n // 4), max(1, m // 4)
        X, y = make_nonlinear(n4 + m4, _DEMO_NONLINEAR_D, seed=args.seed,
                              noise=min(args.noise, 0.02), dtype=dtype)
        hkm = _homkermap("intersection", 5)
        title = (f"non-linear: make_nonlinear, {n4} train + {m4} test rows, "
                 f"d = {_DEMO_NONLINEAR_D}, label = sign(sum_j sin(3 pi x_j) - 2d/(3 pi))")
        rows, curves = _demo_rows(title, X[:n4], y[:n4], X[n4:], y[n4:], args,
                                  _demo_configs(solvers, hkm))
        kernel_rows, kernel_curves = _demo_kernel_rows(X[:n4], y[:n4], X[n4:], y[n4:], args,
                                                       kernel_solvers)
        _print_table(title, rows + kernel_rows)
        curves.update(kernel_curves)
        problems.append(("non-linear (make_nonlinear)", curves))
        if any(s in solvers for s in _DEMO_UNMAPPED_ONLY):
            print(f"\n{', '.join(_DEMO_UNMAPPED_ONLY)}: not run on the map's features (a d x d "
                  f"factorisation per step, O(d^3); its limited-memory form lres runs there).")
        m_kernel = min(args.kernel_rows, n4)
        print(f"\nNo linear rule beats chance on the non-linear problem; the kernel map (on "
              f"all {n4} training rows) and the Gaussian kernel (on the first {m_kernel}) learn "
              f"it. Kernel evaluations: '-' for the linear solvers, which evaluate none (the map "
              f"is explicit features). The kernel solvers' objective is the regularized hinge "
              f"primal without bias (SBP optimises a margin under a slack budget instead). "
              f"Test accuracies are on {m} (linear) and {m4} (non-linear) held-out rows. "
              f"Total {time.process_time() - t:.1f} CPU s.")
    if args.plot:
        _plot(args.plot, problems)
        print(f"convergence curves written to {args.plot}")
    return 0


def main(argv=None):
    """Run the command line with ``argv`` (default ``sys.argv[1:]``); return the exit status."""
    from stochsvm._cli_select import rewrite_argv, run_grid

    parser = _build_parser()
    argv = rewrite_argv(sys.argv[1:] if argv is None else list(argv))
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # --help, --version, usage errors (status 2)
        return exc.code if isinstance(exc.code, int) else 2
    if args.command is None:
        parser.print_help()
        return 2
    run = {"demo": _run_demo, "train": _run_train, "grid": run_grid, "predict": _run_predict,
           "info": _run_info}
    try:
        status = run[args.command](args)
        sys.stdout.flush()   # here, so that a closed pipe is caught below
        return status
    except _Fail as exc:
        print(f"stochsvm {args.command}: error: {exc}", file=sys.stderr)
        return exc.status
    except OSError as exc:
        # The output failed: the reader went away (`stochsvm info m | head`,
        # BrokenPipeError: a quiet exit), or a write did (`stochsvm predict m
        # t > /dev/full`: a message, not a traceback; the files the commands
        # name raise _Fail themselves). Either way stdout then points at
        # devnull, so that the interpreter's own final flush does not fail again.
        if not isinstance(exc, BrokenPipeError):
            what = (f"{exc.filename}: {exc.strerror or exc}" if exc.filename is not None
                    else f"cannot write the standard output ({exc.strerror or exc})")
            print(f"stochsvm {args.command}: error: {what}", file=sys.stderr)
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    except KeyboardInterrupt:
        print("stochsvm: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
