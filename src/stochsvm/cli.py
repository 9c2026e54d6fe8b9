"""The ``stochsvm`` command line.

    stochsvm demo                      train SGD on a generated problem (a few seconds)
    stochsvm train FILE --lambda L     train on a LIBSVM file, optionally test on another
    stochsvm --version

Every run prints one line per epoch (from the SVM's diagnostic callback), then
the final statistics and the accuracies. Usage errors, missing or malformed
files and out-of-range values exit with status 2 and a one-line message;
a training failure exits with status 1.
"""

from __future__ import annotations

import argparse
import math
import sys
import time

import numpy as np

__all__ = ["main"]

_LOSSES = ("hinge", "hinge2", "logistic")


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


# --------------------------------------------------------------------------
#                         Argument types (exit 2 on error)
# --------------------------------------------------------------------------

def _number(text, what, low=None, low_open=False):
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{what} must be a number, got {text!r}") from None
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"{what} must be finite, got {text!r}")
    if low is not None and (value < low or (low_open and value == low)):
        op = ">" if low_open else ">="
        raise argparse.ArgumentTypeError(f"{what} must be {op} {low:g}, got {text!r}")
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


def _build_parser():
    parser = argparse.ArgumentParser(
        prog="stochsvm",
        description="Fast stochastic SVM solvers (a C core with VLFeat's vl_svm API, fixed).",
        epilog="Run 'stochsvm COMMAND --help' for the options of a command.")
    parser.add_argument("--version", action="version", version=f"stochsvm {_version()}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    def common(p, epochs):
        p.add_argument("--lambda", dest="lam", type=_positive("--lambda"), metavar="L",
                       help="regularization strength lambda > 0")
        p.add_argument("--epochs", type=_count("--epochs"), default=epochs, metavar="E",
                       help=f"passes over the training set (default {epochs})")
        p.add_argument("--loss", choices=_LOSSES, default="hinge",
                       help="loss function (default hinge)")
        p.add_argument("--bias-multiplier", type=_nonnegative("--bias-multiplier"),
                       default=1.0, metavar="B",
                       help="constant feature B of the bias, >= 0; 0 learns no bias (default 1)")
        p.add_argument("--bias-learning-rate", type=_positive("--bias-learning-rate"),
                       default=None, metavar="R",
                       help="relative step of the bias, > 0 (default: the library's)")
        p.add_argument("--t0", type=_t0, default=None, metavar="T0",
                       help="offset of the step size 1/(lambda (t + t0)), > 1 "
                            "(default: the library's, from lambda and the data)")
        p.add_argument("--epsilon", type=_nonnegative("--epsilon"), default=0.0, metavar="EPS",
                       help="stop early when the scores variation falls below EPS "
                            "(default 0: run all epochs)")
        p.add_argument("--seed", type=_seed, default=0, help="seed of the visiting order (default 0)")
        p.add_argument("--float32", action="store_true",
                       help="keep the data in single precision (the model is double)")
        p.add_argument("--quiet", "-q", action="store_true", help="no per-epoch lines")

    demo = sub.add_parser(
        "demo", help="train SGD on a generated problem and report accuracy and time",
        description="Train the SGD solver on a seeded synthetic problem "
                    "(stochsvm.datasets.make_classification) and print per-epoch statistics, "
                    "the final train/test accuracy and the training time.")
    common(demo, epochs=5)
    demo.add_argument("--n", type=_count("--n", 2), default=200_000,
                      help="training examples (default 200000)")
    demo.add_argument("--n-test", type=_count("--n-test"), default=50_000,
                      help="test examples (default 50000)")
    demo.add_argument("--d", type=_count("--d"), default=50, help="features (default 50)")
    demo.add_argument("--noise", type=_noise, default=0.05,
                      help="fraction of flipped labels, in [0, 0.5) (default 0.05)")
    demo.set_defaults(lam=1e-4)

    train = sub.add_parser(
        "train", help="train on a LIBSVM file",
        description="Train on a LIBSVM/SVMlight text file (plain, .xz, .gz or .bz2). "
                    "Two-class labels other than -1/+1 are mapped: the larger becomes +1.")
    train.add_argument("file", metavar="FILE", help="training data in LIBSVM format")
    common(train, epochs=10)
    train.add_argument("--test", metavar="FILE", default=None,
                       help="test data in LIBSVM format, read with the training dimension")
    return parser


# --------------------------------------------------------------------------
#                                  Running
# --------------------------------------------------------------------------

class _Fail(Exception):
    """A user-facing error: message and exit status."""

    def __init__(self, message, status=2):
        super().__init__(message)
        self.status = status


def _make_svm(X, y, args):
    import stochsvm

    svm = stochsvm.SVM(X, y, args.lam, solver="sgd", seed=args.seed)
    n = X.shape[0]
    svm.set_loss(args.loss)
    svm.set_bias_multiplier(args.bias_multiplier)
    if args.bias_learning_rate is not None:
        svm.set_bias_learning_rate(args.bias_learning_rate)
    if args.t0 is not None:
        svm.set_t0(args.t0)
    svm.set_epsilon(args.epsilon)
    svm.set_max_num_iterations(args.epochs * n)
    svm.set_diagnostic_frequency(n)
    if not args.quiet:
        def report(st):
            print(f"epoch {st['epoch']:4d}  objective {st['objective']:.6f}  "
                  f"loss {st['loss']:.6f}  regularizer {st['regularizer']:.6f}  "
                  f"elapsed {st['elapsed_time']:.3f} s", flush=True)
            return False
        svm.set_diagnostic_function(report)
    return svm


def _train(svm):
    try:
        return svm.train()
    except FloatingPointError as exc:  # the message says what to change
        raise _Fail(str(exc), 1) from None


def _accuracy(svm, X, y):
    return float(np.mean(svm.predict(X) == y))


def _summary(st, train_time):
    return (f"status {st['status']}, {st['iteration']} iterations ({st['epoch']} epochs), "
            f"objective {st['objective']:.6f} = regularizer {st['regularizer']:.6f} "
            f"+ loss {st['loss']:.6f}, training time {train_time:.3f} s")


def _run_demo(args):
    from stochsvm.datasets import make_classification

    dtype = np.float32 if args.float32 else np.float64
    t = time.perf_counter()
    X, y = make_classification(args.n + args.n_test, args.d, seed=args.seed, noise=args.noise,
                               dtype=dtype)
    gen_time = time.perf_counter() - t
    Xtr, ytr, Xte, yte = X[:args.n], y[:args.n], X[args.n:], y[args.n:]
    print(f"stochsvm {_version()} demo: SGD, {args.loss} loss, lambda {args.lam:g}, "
          f"{args.n} x {args.d} training and {args.n_test} test examples "
          f"({np.dtype(dtype).name}, {args.noise:.0%} label noise; generated in {gen_time:.2f} s)")
    svm = _make_svm(Xtr, ytr, args)
    t = time.perf_counter()
    st = _train(svm)
    train_time = time.perf_counter() - t
    print(_summary(st, train_time))
    print(f"train accuracy {_accuracy(svm, Xtr, ytr):.4f}, test accuracy "
          f"{_accuracy(svm, Xte, yte):.4f}, bias {svm.get_bias():+.4f}")
    return 0


def _load(path, n_features=None, dtype=np.float64):
    from stochsvm.datasets import load_libsvm

    try:
        return load_libsvm(path, n_features=n_features, dtype=dtype)
    except FileNotFoundError:
        raise _Fail(f"no such file: {path}") from None
    except (ValueError, OSError, EOFError) as exc:
        raise _Fail(f"cannot read {path}: {exc}") from None


def _labels_pm1(y, path, classes=None):
    """Map two classes to -1/+1 (larger -> +1). Returns (y_pm1, classes)."""
    found = np.unique(y)
    if classes is None:
        if found.size != 2:
            raise _Fail(f"{path}: a binary problem needs exactly two label values, found "
                        f"{found.size} ({', '.join(f'{v:g}' for v in found[:6])}"
                        f"{', ...' if found.size > 6 else ''})")
        classes = found
    else:
        unknown = np.setdiff1d(found, classes)
        if unknown.size:
            raise _Fail(f"{path}: label {unknown[0]:g} does not occur in the training file "
                        f"(labels {classes[0]:g}, {classes[1]:g})")
    return np.where(y == classes[1], 1.0, -1.0), classes


def _run_train(args):
    import os

    if args.lam is None:
        raise _Fail("the argument --lambda is required (e.g. --lambda 1e-4)")
    for path in [args.file] + ([args.test] if args.test else []):
        if not os.path.exists(path):
            raise _Fail(f"no such file: {path}")
        if os.path.isdir(path):
            raise _Fail(f"{path} is a folder, not a LIBSVM file")
    dtype = np.float32 if args.float32 else np.float64
    t = time.perf_counter()
    X, y_raw = _load(args.file, dtype=dtype)
    load_time = time.perf_counter() - t
    if X.shape[0] < 1:
        raise _Fail(f"{args.file} has no examples")
    y, classes = _labels_pm1(y_raw, args.file)
    n, d = X.shape
    mapping = "" if set(classes.tolist()) == {-1.0, 1.0} else \
        f", labels {classes[0]:g} -> -1 and {classes[1]:g} -> +1"
    print(f"stochsvm {_version()} train: {args.file}: {n} examples, {d} features, "
          f"{X.nnz} nonzeros (read in {load_time:.2f} s){mapping}")
    print(f"SGD, {args.loss} loss, lambda {args.lam:g}, {args.epochs} epochs, "
          f"bias multiplier {args.bias_multiplier:g}, seed {args.seed}")
    svm = _make_svm(X, y, args)
    t = time.perf_counter()
    st = _train(svm)
    train_time = time.perf_counter() - t
    print(_summary(st, train_time))
    line = f"train accuracy {_accuracy(svm, X, y):.4f}"
    if args.test:
        Xte, yte_raw = _load(args.test, dtype=dtype)
        if Xte.shape[1] > d:
            # Features the training file never had get weight 0: drop them.
            Xte = Xte[:, :d]
        elif Xte.shape[1] < d:
            import scipy.sparse as sp

            Xte = sp.csr_matrix((Xte.data, Xte.indices, Xte.indptr), shape=(Xte.shape[0], d))
        yte, _ = _labels_pm1(yte_raw, args.test, classes)
        line += f", test accuracy {_accuracy(svm, Xte, yte):.4f} ({Xte.shape[0]} examples)"
    print(line)
    return 0


def main(argv=None):
    """Run the command line with ``argv`` (default ``sys.argv[1:]``); return the exit status."""
    parser = _build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # --help, --version, usage errors (status 2)
        return exc.code if isinstance(exc.code, int) else 2
    if args.command is None:
        parser.print_help()
        return 2
    try:
        if args.command == "demo":
            return _run_demo(args)
        return _run_train(args)
    except _Fail as exc:
        print(f"stochsvm {args.command}: error: {exc}", file=sys.stderr)
        return exc.status
    except KeyboardInterrupt:
        print("stochsvm: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
