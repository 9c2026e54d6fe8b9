"""``stochsvm train --dask ADDRESS``: train on a Dask cluster (CoCoA+).

The training file(s) are read on the workers by
:func:`stochsvm.dask.read_libsvm` (split into ``--blocksize`` blocks at line
boundaries; no single-machine read) and the model is fitted by
:class:`stochsvm.dask.DaskLinearSVMClassifier` (or
:class:`~stochsvm.dask.DaskLinearSVMRegressor` for the losses l1 and l2).
Options map to the estimator's parameters: ``--epochs`` is ``max_iter``
(one local epoch per partition and round), ``--tol`` the relative duality gap
that stops CoCoA+ (default: the estimator's tol; 0 runs every round),
``-C``/``--lambda``, ``--loss``, ``--solver`` (sdca: CoCoA+, sgd: parameter
mixing), ``--seed``, ``--bias-multiplier``, ``--bias-learning-rate`` and
``--t0``. The model file is the one in-memory training writes (a linear model
dict).

ADDRESS is a scheduler address (``tcp://host:port``; any address
``distributed.Client`` takes) or ``local:N``: a ``LocalCluster`` of N worker
processes (one thread each), started for the run and closed after.
"""

import importlib.util
import inspect
import json
import sys
import time
import warnings

import numpy as np
from sklearn.exceptions import ConvergenceWarning

#: Default --blocksize: bytes of a plain training file per partition.
DEFAULT_BLOCKSIZE = "64MiB"


def add_arguments(train):
    """Add --dask and --blocksize to the train subparser."""
    train.add_argument("--dask", metavar="ADDRESS", default=None,
                       help="train on a Dask cluster by CoCoA+ (stochsvm.dask): a scheduler "
                            "address (tcp://host:port) or local:N (a LocalCluster of N worker "
                            "processes for the run); TRAIN_FILE may be a glob, read by the "
                            "workers in --blocksize blocks. --epochs caps the rounds, --tol is "
                            "the relative duality gap (default 1e-3, the Dask estimators' tol; "
                            "0 runs every round)")
    train.add_argument("--blocksize", default=None, metavar="BYTES",
                       help=f"with --dask: bytes of a plain training file per partition "
                            f"(default {DEFAULT_BLOCKSIZE}; e.g. 16MiB, 1000000)")


def _has_distributed():
    """Whether dask and distributed are installed."""
    return all(importlib.util.find_spec(name) is not None for name in ("dask", "distributed"))


def _fail(message, status=2):
    from stochsvm.cli import _Fail

    return _Fail(message, status)


def _check_args(args):
    """Usage errors (exit 2) for the options --dask does not apply to."""
    from stochsvm import dask as sdask

    given = [("--kernel", args.kernel is not None), ("--homkermap", args.homkermap is not None),
             ("--scale", args.scale != "none"), ("-v/--cv", args.cv is not None),
             ("--validation", args.validation is not None),
             ("--probability", args.probability), ("--class-weight", bool(args.class_weight)),
             ("--nu", args.nu is not None), ("--budget", args.budget is not None),
             ("--maintenance", args.maintenance is not None),
             ("--unregularized-bias", args.unregularized_bias is not None),
             ("--no-shrinking", not args.shrinking), ("--jobs", args.jobs != 1),
             ("--diagnostic-frequency", args.diagnostic_frequency is not None)]
    bad = [name for name, on in given if on]
    if bad:
        raise _fail(f"--dask does not take {', '.join(bad)} (in-memory training only)")
    if args.solver not in sdask.SOLVERS:
        raise _fail(f"--dask trains with --solver {' or '.join(sdask.SOLVERS)} "
                    f"(sdca: CoCoA+), not {args.solver}")
    if args.loss not in sdask.CLASSIFICATION_LOSSES + sdask.REGRESSION_LOSSES:
        raise _fail(f"--dask cannot train the {args.loss} loss")
    from stochsvm._regularization import check_C_or_lambda
    from stochsvm.cli import CLI_REGULARIZATION

    try:
        check_C_or_lambda(args.C, args.lam, names=CLI_REGULARIZATION)
    except ValueError as exc:
        raise _fail(str(exc)) from None
    try:
        from dask.utils import parse_bytes

        size = parse_bytes(args.blocksize if args.blocksize is not None else DEFAULT_BLOCKSIZE)
    except (ValueError, TypeError):
        size = None
    if size is None or size < 1:
        raise _fail(f"--blocksize: expected a positive number of bytes (16MiB, 1000000), "
                    f"got {args.blocksize!r}")
    return int(size)


def _local_workers(address):
    """N of ``local:N``, None for a scheduler address."""
    if not address.startswith("local:"):
        if "://" not in address and ":" not in address:
            raise _fail(f"--dask: expected a scheduler address (tcp://host:port) or local:N, "
                        f"got {address!r}")
        return None
    text = address[len("local:"):]
    if not text.isdigit() or int(text) < 1:
        raise _fail(f"--dask local:N: N must be a positive number of workers, got {text!r}")
    return int(text)


def _connect(address, n_workers):
    """(client, cluster or None)."""
    from distributed import Client, LocalCluster

    if n_workers is not None:
        cluster = LocalCluster(n_workers=n_workers, processes=True, threads_per_worker=1,
                               host="127.0.0.1", dashboard_address=None, silence_logs=40,
                               # no dashboard; the scheduler's HTTP server on a free port
                               scheduler_kwargs={"dashboard_address": "127.0.0.1:0",
                                                 "dashboard": False})
        try:
            return Client(cluster), cluster
        except BaseException:
            cluster.close()
            raise
    try:
        return Client(address, timeout=10), None
    except (OSError, TimeoutError, ValueError) as exc:
        raise _fail(f"--dask {address}: cannot connect to the scheduler ({exc})", 1) from None


def _model_dict(est, task, args, d):
    """The model file dict in-memory training writes, from a fitted Dask estimator."""
    from stochsvm import cli
    from stochsvm.model_file import LOSS_CODES

    meta = {"written_by": f"stochsvm {cli._version()} train --dask",
            "solver": f"dask-{args.solver}", "loss": args.loss, "epochs": args.epochs,
            "seed": args.seed, "rounds": int(est.n_iter_), "converged": bool(est.converged_)}
    if args.solver == "sdca":
        meta["relative_gap"] = float(est.relative_gap_)
    if task == "regression":
        labels, weights, biases = None, np.asarray(est.coef_)[None, :], [float(est.intercept_)]
    else:
        labels = np.asarray(est.classes_, dtype=np.float64)
        weights = np.atleast_2d(np.asarray(est.coef_, dtype=np.float64))
        biases = [float(b) for b in np.atleast_1d(est.intercept_)]
    return {"kind": "linear", "task": task, "dimension": d, "labels": labels,
            "loss": LOSS_CODES[args.loss], "lambda": float(est.lambda_effective_),
            "bias_multiplier": args.bias_multiplier, "homkermap": None,
            "weights": weights, "biases": biases, "metadata": json.dumps(meta),
            "scaling": None}


def run_train(args):
    """``stochsvm train --dask``: exit status."""
    from stochsvm import cli

    if args.loss is None:
        args.loss = "hinge"
    if not _has_distributed():
        raise _fail("--dask needs dask and distributed: pip install 'stochsvm[dask]'")
    blocksize = _check_args(args)
    n_workers = _local_workers(args.dask)
    cli._check_output_file(args.model, inputs=(args.file, getattr(args, "test", None)))
    from stochsvm import _dask_libsvm
    from stochsvm import dask as sdask

    try:  # missing files fail before a cluster starts
        _dask_libsvm._expand(args.file)
    except (FileNotFoundError, ValueError) as exc:
        raise _fail(str(exc).replace("read_libsvm: ", "")) from None

    regression = args.loss in sdask.REGRESSION_LOSSES
    client, cluster = _connect(args.dask, n_workers)
    try:
        t = time.perf_counter()
        try:
            X, y = sdask.read_libsvm(args.file, blocksize=blocksize,
                                     dtype=np.float32 if args.float32 else np.float64)
        except (ValueError, OSError, EOFError) as exc:
            text = str(exc)
            raise _fail(text if text.startswith(str(args.file)) else f"{args.file}: {text}") \
                from None
        n, d = X.shape
        if n < 1:
            raise _fail(f"{args.file} has no examples")
        where = f"local cluster of {n_workers} workers" if n_workers else args.dask
        print(f"stochsvm {cli._version()} train --dask: {args.file}: {n} examples, {d} features, "
              f"{X.numblocks[0]} partitions on {where} (read in {time.perf_counter() - t:.2f} s)")
        Est = sdask.DaskLinearSVMRegressor if regression else sdask.DaskLinearSVMClassifier
        defaults = inspect.signature(Est).parameters  # --epochs, --tol not given: Est's own
        if args.epochs is None:
            args.epochs = defaults["max_iter"].default
        if args.tol is None:
            args.tol = defaults["tol"].default
        est = Est(loss=args.loss, solver=args.solver, C=args.C, lambda_=args.lam,
                  bias_multiplier=args.bias_multiplier,
                  bias_learning_rate=args.bias_learning_rate, t0=args.t0, local_epochs=1,
                  max_iter=args.epochs, tol=args.tol, random_state=args.seed)
        name = "CoCoA+ (sdca)" if args.solver == "sdca" else "parameter mixing (sgd)"
        reg = f"lambda {args.lam:g}" if args.lam is not None else f"C {args.C or 1.0:g}"
        print(f"{name}, {args.loss} loss, {reg}, "
              f"at most {args.epochs} rounds, relative gap tol {args.tol:g}, seed {args.seed}")

        def objective(stats):  # in-memory train's: the mean over one-vs-rest SVMs
            return float(np.mean(stats["objectives"]))

        def show(stats):
            if not args.quiet:
                gap = stats.get("relative_gap")
                print(f"round {stats['round']}: objective {objective(stats):.6f}"
                      + ("" if gap is None else f", relative gap {gap:.3g}"))
            return False

        t = time.perf_counter()
        try:
            with warnings.catch_warnings():  # the notice below says it, with the CLI's names
                warnings.filterwarnings("ignore", "DaskLinearSVM", ConvergenceWarning)
                est.fit(X, y, callback=show)
        except ValueError as exc:
            raise _fail(f"{args.file}: {exc}") from None
        except RuntimeError as exc:
            raise _fail(f"training failed: {exc}", 1) from None
        status = "converged" if est.converged_ else "round limit"
        gap = (f"final relative duality gap {est.relative_gap_:.3g}" if args.solver == "sdca"
               else "no duality gap (sgd)")
        print(f"{status} after {est.n_iter_} rounds, {gap}, "
              f"objective {objective(est.history_[-1]):.6f}, "
              f"training time {time.perf_counter() - t:.3f} s")
        if not est.converged_ and args.tol > 0:
            print(f"stochsvm train: notice: stopped on the round cap (--epochs {args.epochs}) "
                  f"before the relative gap fell below --tol {args.tol:g}; raise --epochs",
                  file=sys.stderr)
        task = "regression" if regression else (
            "binary" if len(est.classes_) == 2 else "one_vs_rest")
        model = _model_dict(est, task, args, d)
        pred = est.predict(X)
        if regression:
            line = f"train mse {float(((pred - y) ** 2).mean().compute()):.4f}"
        else:
            line = f"train accuracy {float((pred == y).mean().compute()):.4f}"
        if args.test:
            Xt, yt = cli._load(args.test, np.float64, n_features=d)
            name, value, _ = cli._quality(task, np.asarray(est.predict(Xt)), yt)
            line += f", test {name} {value:.4f} ({Xt.shape[0]} examples)"
        print(line)
    finally:
        client.close()
        if cluster is not None:
            cluster.close()
    from stochsvm.cli import _write_model

    _write_model(model, args.model)
    sys.stdout.flush()
    return 0
