"""Model selection on the command line, as LIBSVM users do it:
``stochsvm train -v K`` (K-fold cross-validation, no model written) and
``stochsvm grid`` (C, and gamma for a kernel, on log2 grids like LIBSVM's
``grid.py``), and LIBSVM's ``-wLABEL WEIGHT`` class weights.

Folds are stratified (a regression's: one shuffle of all the examples) and
seeded (:func:`stochsvm.model_selection.stratified_folds`, ``--seed``). The
accuracy reported is LIBSVM's: the fraction of all the examples predicted
right when their fold was held out (mean squared error for a regressor).
Along C, linear SDCA warm-starts: its dual variables live in a box that does
not depend on lambda, so the solution at one C starts the next, larger C
(``ss_svm_set_lambda`` rebuilds the model from them). The other solvers
start from zero at every grid point.
"""

from __future__ import annotations

import argparse
import re
import sys

import numpy as np

from stochsvm import cli
from stochsvm.model_selection import log2_range, stratified_folds

#: LIBSVM's grid.py defaults: log2(C) from -5 to 15, log2(gamma) from 3 to -15, step 2.
DEFAULT_LOG2C = "-5,15,2"
DEFAULT_LOG2G = "3,-15,-2"
DEFAULT_FOLDS = 5

#: LIBSVM's -wLABEL, the label signed or not: -w1, -w+1, -w-1, -w0, -w2.5.
_CLASS_WEIGHT = re.compile(r"^-w([-+]?[0-9.]+(?:[eE][-+]?[0-9]+)?)$")


def rewrite_argv(argv):
    """LIBSVM's ``-wLABEL WEIGHT`` (``-w1 5``, ``-w+1 5``, ``-w-1 0.5``) as
    ``--class-weight=LABEL:WEIGHT``, a form argparse can read (it took
    ``-w+1`` for an unknown option). After ``--`` the arguments are file
    names and stay as they are."""
    out, k = [], 0
    while k < len(argv):
        token = str(argv[k])
        match = _CLASS_WEIGHT.match(token)
        if token == "--":
            return out + list(argv[k:])
        if match and k + 1 < len(argv):
            out.append(f"--class-weight={match.group(1)}:{argv[k + 1]}")
            k += 2
        else:
            out.append(argv[k])
            k += 1
    return out


#: LIBSVM's -t numbers.
_KERNEL_NUMBERS = {"0": "linear", "1": "poly", "2": "rbf", "3": "sigmoid"}


def kernel_type(text):
    """A kernel name, or LIBSVM's ``-t`` number (0 linear, 1 poly, 2 rbf, 3 sigmoid)."""
    return _KERNEL_NUMBERS.get(text, text)


def class_weight(text):
    """``LABEL:WEIGHT`` -> (label, weight), weight finite and >= 0."""
    label, sep, weight = text.rpartition(":")
    try:
        if not sep:
            raise ValueError
        pair = float(label), float(weight)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"a class weight is -wLABEL WEIGHT or --class-weight LABEL:WEIGHT, got {text!r}"
        ) from None
    if not (np.isfinite(pair).all() and pair[1] >= 0):
        raise argparse.ArgumentTypeError(f"class weight {text!r}: the weight must be finite "
                                         f"and >= 0")
    return pair


def example_weights(args, y, labels):
    """Per-example weights from ``--class-weight`` (None when there is none):
    each example weighs its class's weight, 1 by default."""
    pairs = getattr(args, "class_weight", None)
    if not pairs:
        return None
    if labels is None:
        raise cli._Fail("class weights (-wLABEL) need a classification loss")
    weights = np.ones(y.shape[0])
    for label, weight in pairs:
        if label not in labels:
            raise cli._Fail(f"-w{label:g}: no class {label:g} in the training file (labels "
                            f"{', '.join(f'{v:g}' for v in labels)})")
        weights[y == label] = weight
    return weights


def check_class_weights(args, y, labels):
    """Refuse class weights that leave fewer than 2 classes with weight, and
    warn of classes they weigh 0, on the whole training file ``y``: once,
    before any training. A fold or a held-out part may lack a class of a
    row or two, which a check of its own would take for a weight of 0.
    grid checks before its grid, then trains the best model through train:
    the second call says nothing (the warning came once)."""
    weights = example_weights(args, y, labels)
    if weights is None or getattr(args, "class_weights_checked", False):
        return
    args.class_weights_checked = True
    # as the estimators: one class with weight left, the SVM would learn
    # nothing (it used to train and write a model scoring 0 everywhere)
    weighted = [v for v in labels if weights[y == v].sum() > 0]
    if len(weighted) < 2:
        raise cli._Fail(f"class weights (-wLABEL) leave positive weight on {len(weighted)} "
                        f"class{'' if len(weighted) == 1 else 'es'}"
                        f"{' (' + ', '.join(f'{v:g}' for v in weighted) + ')' if weighted else ''}; "
                        f"the SVM needs examples of at least 2 classes with weight > 0")
    if len(weighted) < len(labels):
        zero = ", ".join(f"{v:g}" for v in labels if v not in weighted)
        print(f"stochsvm {args.command}: warning: class weights give the classes {zero} a "
              f"weight of 0: they are never predicted", file=sys.stderr)


def set_example_weights(svms, weights):
    if weights is None:
        return
    try:
        for svm in svms:
            svm.set_weights(weights)
    except (ValueError, RuntimeError) as exc:
        raise cli._Fail(f"class weights: {exc}") from None


def _label_vectors(y, task, labels):
    if task == "regression":
        return [np.asarray(y, dtype=np.float64)]
    if task == "binary":
        return [np.where(y == labels[1], 1.0, -1.0)]
    return [np.where(y == c, 1.0, -1.0) for c in labels]


def _train_to_end(svms):
    """Up to --epochs more epochs of every SVM: one train() call each (the
    SVMs are made with whole_run=True, cli._set_run)."""
    cli._train_epoch(svms, last=True)


def held_out_scores(args, X, y, task, labels, Cs, gamma=None):
    """The scores of every example when its fold was held out, for each C of
    ``Cs`` (ascending): an array of shape (len(Cs), n, outputs)."""
    folds = stratified_folds(y, args.cv, args.seed, stratify=task != "regression")
    outputs = 1 if task != "one_vs_rest" else len(labels)
    scores = np.empty((len(Cs), y.shape[0], outputs), dtype=np.float64)
    hkm = cli._homkermap(args.homkermap, args.homkermap_order)
    warm = args.kernel is None and args.solver == "sdca"
    fold_args = argparse.Namespace(**vars(args))
    fold_args.gamma = gamma if gamma is not None else args.gamma
    for fold in range(args.cv):
        train, test = folds != fold, folds == fold
        Xtr, ytr = X[train], y[train]
        vectors = _label_vectors(ytr, task, labels)
        weights = example_weights(args, ytr, labels)
        n = Xtr.shape[0]
        svms = None
        for k, C in enumerate(Cs):
            lam = cli._lambda_of(args.lam, None if args.lam is not None else C, n)
            if svms is not None and warm:
                for svm in svms:
                    svm.set_lambda(lam)
            elif args.kernel is None:
                svms = [cli._new_svm(Xtr, v, lam, fold_args, args.solver, hkm, whole_run=True)
                        for v in vectors]
            else:
                svms = [cli._new_kernel_svm(Xtr, v, lam, fold_args, whole_run=True)
                        for v in vectors]
            if k == 0 or not warm:
                set_example_weights(svms, weights)
            _train_to_end(svms)
            scores[k, test] = cli._scores(svms, X[test], f"{args.file} (held-out fold)")
    return scores


def cross_validate(args, X, y, task, labels, Cs, gamma=None):
    """For each C of ``Cs`` (ascending), (C, quality of the held-out
    predictions): LIBSVM's accuracy, or the mean squared error."""
    scores = held_out_scores(args, X, y, task, labels, Cs, gamma)
    return [(C, cli._quality(task, cli._predict(task, labels, scores[k]), y)[1])
            for k, C in enumerate(Cs)]


def platt_sigmoids(args, X, y, task, labels):
    """``train --probability``: Platt's (A, B) of every output, fitted on the
    scores of a 5-fold cross-validation (stratified, seeded by ``--seed``) of
    the same training set and parameters."""
    from stochsvm._probability import fold_count
    from stochsvm.calibration import fit_platt

    if task == "regression":
        raise cli._Fail("--probability needs a classifier (not the l1 or l2 loss)")
    cv_args = argparse.Namespace(**vars(args))
    cv_args.cv = fold_count(y)   # the estimators' folds (check_probability: before training)
    cv_args.validation = None  # X is already the training part
    C = args.C if args.C is not None else 1.0
    scores = held_out_scores(cv_args, X, y, task, labels, [C])[0]
    vectors = _label_vectors(y, task, labels)
    sigmoids = [fit_platt(scores[:, k], v) for k, v in enumerate(vectors)]
    print(f"probability: Platt sigmoids fitted on {cv_args.cv}-fold cross-validation scores")
    return sigmoids


def check_probability(args, y):
    """``--probability`` with a model to write: the estimators' rule on the
    labels ``y`` the sigmoids will be fitted on (2 examples of every class),
    checked before training, not after it."""
    if not (getattr(args, "probability", False) and args.model):
        return
    from stochsvm._probability import check_classes

    try:
        check_classes(y, "--probability")
    except ValueError as exc:
        raise cli._Fail(str(exc)) from None


def _folds_kind(task):
    """How held_out_scores deals the folds: by label, or (regression) not."""
    return "shuffled" if task == "regression" else "stratified"


def _check_cv_args(args, n):
    if args.cv > n:
        raise cli._Fail(f"-v {args.cv}: more folds than the {n} examples")
    if args.validation is not None:
        raise cli._Fail("-v (cross-validation) and --validation exclude each other")


def run_train_cv(args, X, y, task, labels):
    """``stochsvm train -v K``: report the K-fold accuracy; write no model."""
    _check_cv_args(args, X.shape[0])
    C = args.C if args.C is not None else 1.0
    (_, value), = cross_validate(args, X, y, task, labels, [C])
    name = cli._quality(task, y[:1], y[:1])[0]
    print(f"{args.cv}-fold cross-validation {name} {value:.4f} ({_folds_kind(task)}, seed "
          f"{args.seed}; "
          f"{'lambda ' + format(args.lam, 'g') if args.lam is not None else f'C {C:g}'})")
    print("no model written (cross-validation only; train without -v to write one)")
    return 0


def run_grid(args):
    """``stochsvm grid``: cross-validate every C (and gamma) of the grid, print
    a table, and train the best on the whole file when MODEL_FILE is given."""
    if args.lam is not None or args.C is not None:
        raise cli._Fail("grid searches C: drop -C/--lambda (use --log2c)")
    if args.cv is None:
        args.cv = DEFAULT_FOLDS
    if args.validation is not None:
        raise cli._Fail("grid cross-validates: drop --validation")
    if args.kernel is None and (args.log2g is not None or args.gamma is not None):
        raise cli._Fail("--log2g and --gamma need --kernel (a linear SVM has no gamma)")
    try:
        Cs = sorted(2.0 ** e for e in log2_range(args.log2c, "--log2c"))
        if args.kernel is None:
            gammas = [None]
        elif args.gamma is not None:
            gammas = [args.gamma]
        else:
            gammas = [2.0 ** e for e in log2_range(args.log2g or DEFAULT_LOG2G, "--log2g")]
    except ValueError as exc:
        raise cli._Fail(str(exc)) from None
    if args.loss is None:
        args.loss = cli._default_loss(args.solver)
    X, y = cli._load(args.file, np.float32 if args.float32 else np.float64)
    from stochsvm._cli_scale import scale_training_data

    X, _ = scale_training_data(args, X)
    cli._check_kernel_args(args, cli._solvers(), cli._kernel_solvers())
    cli.resolve_run_defaults(args, X)
    cli._check_homkermap_input(X, args.file, cli._homkermap(args.homkermap, args.homkermap_order))
    task, labels, _ = cli._problem(y, args.file, args.loss in cli._REGRESSION_LOSSES)
    check_class_weights(args, y, labels)
    check_probability(args, y)
    _check_cv_args(args, X.shape[0])
    if args.model:  # the best parameters' model: refused before the grid, not after it
        cli._check_output_file(args.model, inputs=(args.file,))
    name, _, higher = cli._quality(task, y[:1], y[:1])
    what = f"kernel {args.solver} ({args.kernel})" if args.kernel else args.solver
    print(f"stochsvm {cli._version()} grid: {args.file}, {X.shape[0]} examples; {what}, "
          f"{args.cv}-fold cross-validation ({_folds_kind(task)}, seed {args.seed}), {len(Cs)} C"
          + (f" x {len(gammas)} gamma" if args.kernel else "") + " values"
          + ("; warm start along C" if args.kernel is None and args.solver == "sdca" else ""))
    header = f"  {'log2 C':>7} {'C':>10}" + (f" {'log2 g':>7} {'gamma':>10}" if args.kernel
                                             else "") + f" {name:>9}"
    print(header)
    print("  " + "-" * (len(header) - 2))
    results = []
    for gamma in gammas:
        for C, value in cross_validate(args, X, y, task, labels, Cs, gamma):
            results.append((value, C, gamma))
            line = f"  {np.log2(C):>7g} {C:>10.4g}"
            if gamma is not None:
                line += f" {np.log2(gamma):>7g} {gamma:>10.4g}"
            print(line + f" {value:>9.4f}", flush=True)
    # the best value; among equals, the smallest C, then the smallest gamma
    best = min(results, key=lambda r: (-r[0] if higher else r[0], r[1], r[2] or 0.0))
    value, C, gamma = best
    print(f"best: C {C:g} (log2 {np.log2(C):g})"
          + (f", gamma {gamma:g} (log2 {np.log2(gamma):g})" if gamma is not None else "")
          + f", cross-validation {name} {value:.4f}")
    if not args.model:
        print("no model written (give a MODEL_FILE after TRAIN_FILE to train the best "
              "parameters on the whole file)")
        return 0
    print("training the best parameters on the whole file:")
    args.C, args.cv = C, None
    if gamma is not None:
        args.gamma = gamma
    return cli._run_train(args)
