"""The one-call :func:`svmtrain`, a mirror of VLFeat's ``vl_svmtrain`` over :class:`stochsvm.SVM`."""

import functools
import math
import sys
import warnings

import numpy as np

from stochsvm import _solvers
from stochsvm._svm import SVM, _as_homkermap, _as_int

__all__ = ["SVM", "svmtrain"]


def svmtrain(X, y, lambda_, *, solver="sdca", loss="hinge", epsilon=None, max_num_iterations=None,
             bias_multiplier=None, bias_learning_rate=None, diagnostic_function=None,
             diagnostic_frequency=None, model=None, bias=None, weights=None, homkermap=None,
             verbose=0, seed=None, t0=None, iteration_number=None, dual_variables=None,
             skip=None, file=None, vlfeat_defaults=False):
    """Train a linear SVM in one call (a mirror of VLFeat's ``vl_svmtrain``).

    Builds an :class:`stochsvm.SVM`, applies the options, trains once and
    returns the model. Every option left at ``None`` keeps the C core's
    default, listed below (these are the values in force, unlike the ones
    VLFeat's help text gives); ``vlfeat_defaults=True`` replaces them by
    VLFeat's.

    A run that did not reach its stopping test says so: a
    ``ConvergenceWarning`` (scikit-learn's when it is installed) names
    ``max_num_iterations`` or ``epsilon`` when training stopped on the
    iteration cap, or with a duality gap far above ``epsilon``, and warns
    when the final objective is above that of ``w = 0`` (a diverged or
    stalled run). ``info["status"]`` tells the same. ``epsilon=0`` (a fixed
    number of iterations) gives no cap warning. See :doc:`stopping`.

    Parameters
    ----------
    X : ndarray of shape (n, d) or scipy.sparse matrix/array
        Training examples, one per row (see :class:`stochsvm.SVM`).
    y : array_like of shape (n,)
        Labels: -1 or +1; any finite number for the ``l1``/``l2`` losses.
    lambda_ : float
        Regularization strength, finite and > 0 (VLFeat's ``LAMBDA``;
        LIBLINEAR's ``C`` is ``1 / (lambda_ * n)``).
    solver : {"sdca", "sgd", "svmsgd2", "sgdqn", "res", "lres", "none"}, default "sdca"
        As VLFeat's default. ``"svmsgd2"`` and ``"sgdqn"`` are Bordes, Bottou
        and Gallinari's solvers (see :class:`stochsvm.SVM`). ``"res"`` and
        ``"lres"`` (regularized stochastic BFGS, with their default
        parameters) need a differentiable loss such as ``"hinge2"``.
        ``"none"`` evaluates ``model`` and ``bias``.
    loss : {"hinge", "hinge2", "logistic", "l1", "l2"}, default "hinge"
    epsilon : float, default: the object's
        Relative stopping tolerance (default 1e-2; for SDCA 5e-4 with the
        hinge and l1 losses and 1e-8 with the others, the object's own
        default per loss: see :doc:`stopping`; ``vlfeat_defaults=True``:
        1e-2): SDCA stops when the duality gap
        ``P - D <= epsilon D``, which certifies ``P <= (1 + epsilon) P*``;
        the other solvers when the objective is flat within epsilon over the
        last half of the run and no longer falling steadily (a heuristic).
        0 disables the rule. See "Stopping: what the C core guarantees" in
        the docs (solvers page).
    max_num_iterations : int, default ``max(100 n, min(ceil(10 / lambda_), 1000 n))``
        Iterations (one example each) of this call; 1000 n in place of 100 n
        for SDCA with the hinge loss (the default solver and loss). At most
        1000 epochs, however small ``lambda_``: where the steps have not
        converged by then, the certified Newton finish takes over (docs:
        "The default cap at a tiny lambda"). A run that reaches the
        cap ends with ``info["status"] == "max_iterations"``.
    bias_multiplier : float, default 1
        B, the value of the constant feature that carries the bias
        (the bias is ``b = B w_b``; 0 freezes it).
    bias_learning_rate : float, default 1
        SGD only: the bias step is this times the model step (VLFeat's
        default, 0.01, slows the bias down a hundredfold; see
        ``docs/differences.rst``).
    diagnostic_function : callable, optional
        Called as ``diagnostic_function(info)`` at every diagnostic with the
        ``info`` dict described below (``status == "training"`` during the
        run); a truthy return value stops training.
    diagnostic_frequency : int, optional
        Iterations between diagnostics (VLFeat's default is n, one epoch).
        By default the object's schedule: the ends of epochs 1, 2, 3, 4, 6,
        9, ..., SDCA's on its work budget (``docs/solvers.rst``). A
        ``diagnostic_function`` or ``verbose=2`` is called at those and never
        moves them.
    model : array_like of shape (D,), optional
        Initial model (SGD) or the model to evaluate (``"none"``); D = d, or
        ``d * (2 * order + 1)`` with ``homkermap``. SDCA rejects it (its model
        is a function of the dual variables): pass ``dual_variables``.
    bias : float, optional
        Initial bias b (the additive term of the score, not ``w_b``);
        applied after ``bias_multiplier``, so the two options do not
        interact (VLFeat applies them the other way round and scales b by B).
    weights : array_like of shape (n,), optional
        Per-example weights c_i >= 0 (default all 1).
    homkermap : HomogeneousKernelMap or dict, optional
        Train on the homogeneous kernel map of X, computed on the fly (see
        :class:`stochsvm.HomogeneousKernelMap`); a dict gives its parameters
        (``kernel``, ``order``, ``gamma``, ``period``, ``window``), like
        VLFeat's ``vl_svmdataset(X, 'homkermap', ...)``.
    verbose : int, default 0
        1: print the parameters before training and the final diagnostic;
        2 or more: print every diagnostic too.
    seed : int, default 0
        Seed of the solver's random order (VLFeat has none).
    t0 : float or "auto", optional
        The learning-rate offset of SGD, SVMSGD2 and SGD-QN (default: see
        ``SVM.set_t0``). ``"auto"`` picks it with ``SVM.calibrate_t0`` (one
        pass over 10 % of the data per candidate 10, ..., 1e10) after every
        other option is applied.
    skip : int, optional
        SVMSGD2 and SGD-QN: iterations between regularization steps
        (default ``round(16 / density)``, see ``SVM.set_skip``).
    iteration_number : int, optional
        SGD: the iteration count to continue the learning-rate schedule from.
    dual_variables : array_like of shape (n,), optional
        SDCA: initial dual variables (an exact warm start).
    file : file object, default sys.stdout
        Where ``verbose`` output goes.
    vlfeat_defaults : bool, default False
        Use VLFeat's defaults for the options left at None, for code ported
        from MATLAB's ``vl_svmtrain``: ``epsilon=1e-2``,
        ``max_num_iterations=max(n, ceil(10 / lambda_))`` (a single epoch
        whenever ``lambda_ >= 10 / n``, i.e. LIBLINEAR's ``C <= 0.1``), and
        for SGD ``bias_learning_rate=0.01`` and ``t0=max(2, ceil(1 /
        lambda_))`` (what VLFeat's code uses). They often stop far from the
        optimum: the warnings above say when.

    Returns
    -------
    w : ndarray of shape (D,)
        The model.
    b : float
        The bias; the score of x is ``w @ x + b`` (``w @ Psi(x) + b`` with a
        kernel map).
    info : dict
        ``solver``, ``lambda``, ``bias_multiplier``, ``bias`` and the
        statistics of :meth:`stochsvm.SVM.get_statistics`: ``status``
        (``"converged"``, ``"max_iterations"``, ``"interrupted"``),
        ``iteration`` (iterations performed, a count), ``epoch``,
        ``objective``, ``regularizer``, ``loss``, ``dual_objective`` and
        ``duality_gap`` (SDCA; NaN otherwise), ``scores_variation`` (SGD),
        ``elapsed_time`` (seconds).
    scores : ndarray of shape (n,)
        The scores ``w @ x_i + b`` of every training example (including those
        of weight 0) with the final model.

    Raises
    ------
    TypeError
        For non-numeric arguments and a non-callable diagnostic function.
    ValueError
        As :class:`stochsvm.SVM` and its setters do, and for ``model`` or
        ``bias`` with SDCA.

    Examples
    --------
    >>> import numpy as np
    >>> from stochsvm import svmtrain
    >>> X = np.array([[1.0, 2.0], [2.0, 1.0], [-1.0, -2.0], [-2.0, -1.0]])
    >>> y = np.array([1, 1, -1, -1])
    >>> w, b, info, scores = svmtrain(X, y, 0.1, epsilon=1e-6)
    >>> info["status"], bool(np.all(np.sign(scores) == y))
    ('converged', True)
    """
    if solver == "sdca" and (model is not None or bias is not None):
        raise ValueError("model and bias cannot start SDCA: its model is a function of the dual "
                         "variables; pass dual_variables=, or use solver='sgd' (warm start) or "
                         "solver='none' (evaluation)")
    auto_t0 = isinstance(t0, str)
    if auto_t0 and t0 != "auto":
        raise ValueError(f"t0 must be a number > 1 or 'auto', got {t0!r}")
    if auto_t0 and solver not in ("sgd", "svmsgd2", "sgdqn"):
        raise ValueError(f"t0='auto' applies to solver 'sgd', 'svmsgd2' or 'sgdqn', not {solver!r}")
    if dual_variables is not None and solver != "sdca":
        raise ValueError(f"dual_variables apply to solver='sdca' only, not {solver!r}")
    if diagnostic_function is not None and not callable(diagnostic_function):
        raise TypeError(f"diagnostic_function must be callable, got "
                        f"{type(diagnostic_function).__name__}")
    verbose = int(verbose) if isinstance(verbose, bool) else _as_int(verbose, "verbose")
    out = sys.stdout if file is None else file
    if not isinstance(vlfeat_defaults, (bool, np.bool_)):
        raise TypeError(f"vlfeat_defaults must be a bool, got {vlfeat_defaults!r}")

    svm = SVM(X, y, lambda_, solver=solver, seed=seed, loss=loss,
              homkermap=_as_homkermap(homkermap))
    if vlfeat_defaults:
        vlfeat = _vlfeat_defaults(svm)
        epsilon = vlfeat["epsilon"] if epsilon is None else epsilon
        max_num_iterations = (vlfeat["max_num_iterations"] if max_num_iterations is None
                              else max_num_iterations)
        if solver == "sgd":
            bias_learning_rate = (vlfeat["bias_learning_rate"] if bias_learning_rate is None
                                  else bias_learning_rate)
            t0 = vlfeat["t0"] if t0 is None else t0
    # The order matters only where one option resets what another set:
    # weights (like the loss) reset SDCA's dual variables, so those come last;
    # the bias multiplier comes before the bias.
    setters = (
        ("epsilon", epsilon), ("max_num_iterations", max_num_iterations),
        ("diagnostic_frequency", diagnostic_frequency), ("bias_multiplier", bias_multiplier),
        ("bias_learning_rate", bias_learning_rate), ("t0", None if auto_t0 else t0),
        ("skip", skip), ("weights", weights),
        ("model", model), ("bias", bias), ("iteration_number", iteration_number),
        ("dual_variables", dual_variables),
    )
    for name, value in setters:
        if value is not None:
            getattr(svm, "set_" + name)(value)
    if auto_t0:
        svm.calibrate_t0()

    def info_of(statistics):
        info = {"solver": solver, "lambda": svm.get_lambda(),
                "bias_multiplier": svm.get_bias_multiplier(), "bias": svm.get_bias()}
        info.update(statistics)
        return info

    if diagnostic_function is not None or verbose >= 2:
        def on_diagnostic(statistics):
            info = info_of(statistics)
            if verbose >= 2:
                _print_diagnostic(info, out)
            return diagnostic_function(info) if diagnostic_function is not None else False

        svm.set_diagnostic_function(on_diagnostic)
    if verbose >= 1:
        _print_parameters(svm, solver, weights is not None, homkermap=svm.get_homkermap(), out=out)
    info = info_of(svm.train())
    if verbose == 1:
        _print_diagnostic(info, out)
    if solver != "none":
        zero = _zero_objective(y, svm.get_loss(), None if weights is None else svm.get_weights())
        _report_training("svmtrain", [(info, zero)], tol=svm.get_epsilon(),
                         cap=("max_num_iterations", svm.get_max_num_iterations()),
                         tol_name="epsilon",
                         stopping_rule=_solvers.get("linear", solver).stopping_rule,
                         fix="scale the features, or use solver='sdca', which needs no step "
                             "size",
                         scale_note=lambda: _scale_note(
                             X, _scale_alternative(solver, svm.get_loss())))
    return svm.get_model(), svm.get_bias(), info, svm.get_scores()


def _vlfeat_defaults(svm):
    """VLFeat's defaults for an SVM of this lambda and size (vl_svm_new's, and
    its SGD's t0 as the code computes it)."""
    lam, n = svm.get_lambda(), svm.get_num_data()
    return {"epsilon": 1e-2, "max_num_iterations": max(n, math.ceil(10.0 / lam)),
            "bias_learning_rate": 0.01, "t0": max(2.0, math.ceil(1.0 / lam))}



#: The loss of the score 0 for label y: the per-example objective of w = 0.
_LOSS_AT_ZERO = {"hinge": lambda y: np.ones_like(y), "hinge2": lambda y: np.ones_like(y),
                 "logistic": lambda y: np.full_like(y, math.log(2.0)),
                 "l1": np.abs, "l2": np.square}


def _zero_objective(y, loss, weights):
    """The objective of the zero model (w = 0, b = 0): ``1/n sum_i c_i loss(y_i, 0)``."""
    per_example = _LOSS_AT_ZERO[loss](np.asarray(y, dtype=np.float64))
    return float(np.mean(per_example if weights is None else weights * per_example))


#: Columns whose largest absolute values differ by more than this factor are
#: "on very different scales" for the cap warning's advice (the raw sets of
#: the unseen-data suite: 2.7e3 to 1e7; digits' pixels, one-hot and
#: [-1, 1]-scaled sets: 16 or less).
_SCALE_SPREAD = 100.0


def _feature_scale_spread(X):
    """The largest over the smallest of the columns' largest absolute values
    (all-zero columns left out; 1 when none is left): one O(nnz) pass.

    Not the columns' standard deviations: a rare binary feature of one-hot
    data has a small deviation though its values need no scaling (w8a: 32x
    between columns)."""
    import scipy.sparse as sp

    if sp.issparse(X):
        X = sp.csr_matrix(X)
        largest = np.asarray(abs(X).max(axis=0).todense()).ravel()
    else:
        X = np.asarray(X)
        if X.ndim != 2 or X.size == 0:
            return 1.0
        if X.dtype.kind != "f":  # (negating bool or unsigned values fails or wraps)
            X = X.astype(np.float64)
        largest = np.maximum(X.max(axis=0), -X.min(axis=0))
    largest = largest[largest > 0]
    return float(largest.max() / largest.min()) if largest.size else 1.0


#: The cap warning's alternative for features on very different scales: the
#: quasi-Newton LRES, which the unseen suite measured within 1.005x of the
#: optimum on the raw "unscaled" set and 1.07x on LIBSVM's raw breast-cancer
#: at every C, where SDCA and SGD end up to 100x and 13x above it
#: (bench/results/defaults.md, docs/stopping.rst).
_SCALE_ALTERNATIVE = "use solver='lres' with {} (quasi-Newton steps)"


def _scale_alternative(solver, loss):
    """:data:`_SCALE_ALTERNATIVE` with the differentiable losses of ``loss``'s
    task (a regressor takes only l1 and l2), None for the quasi-Newton
    solvers themselves."""
    if solver in ("res", "lres"):
        return None
    return _SCALE_ALTERNATIVE.format("loss='l2'" if loss in ("l1", "l2")
                                     else "loss='hinge2' or 'logistic'")


def _scale_note(X, alternative=None,
                standardize="standardize them (e.g. sklearn.preprocessing.StandardScaler)"):
    """The cap warning's advice for features on very different scales, or ""
    when their scales are alike (``_SCALE_SPREAD``): ``standardize``, then
    ``alternative`` (e.g. :data:`_SCALE_ALTERNATIVE`) if given."""
    spread = _feature_scale_spread(X)
    if not spread > _SCALE_SPREAD:
        return ""
    return (f"; the features are on very different scales (their largest absolute values "
            f"differ {spread:.3g}x between columns), where more epochs help little: "
            f"{standardize}" + (f", or {alternative}" if alternative else ""))


#: How far above ``tol`` (relative to the objective) a final duality gap may be
#: before the estimators warn (see _report_training).
_GAP_SLACK = 10.0
#: Relative gaps below this never warn: the check is a net for stops far
#: from the optimum, not a second contract for small tolerances (the
#: solver's own test is that).
_GAP_FLOOR = 1e-3


def _stop_reasons(stats):
    """The estimators' ``stop_reasons_``: the status of each binary problem's
    run (its statistics' ``"status"``), a str array in the problems' order."""
    return np.array([str(st["status"]) for st in stats])


def _zero_model_slack(status, tol):
    """How far above the zero model's objective (relative) a final objective
    may lie before it reads as "diverged or made no progress": rounding,
    1e-9; for a run that converged, also its tolerance. Where ``w = 0`` is
    itself the optimum (every point twice, once with each label: the
    squared hinge's and the logistic loss's optimum is the zero model) a
    converged run ends within its tolerance of it, on either side: RES
    stopped 1.9e-9 above it, SDCA's logistic run 2.8e-9, and both warned."""
    return max(1e-9, tol) if status == "converged" and tol > 0 else 1e-9


def _report_training(name, runs, *, tol, cap, fix, stopping_rule, tol_name="tol", cap_fix=None,
                     budget=None, scale_note=None):
    """Warn, or raise, about how a fit's training runs ended.

    ``runs`` holds one ``(statistics, zero_objective)`` pair per trained SVM;
    ``zero_objective`` is None for a solver that minimises no objective.
    ``stopping_rule`` is the name of what ``tol`` bounds, or None when the
    solver has no stopping test (it then always runs to its cap).
    ``cap`` is ``(name, value)`` of the iteration cap (``("max_iter",
    100)``), ``tol_name`` the name of the tolerance, as the caller's user
    knows them; ``fix`` is the advice for a run that diverged, ``cap_fix``
    (if given) that for a stop on the cap (else: raise the cap or tol).
    ``budget`` is ``(name, value)`` of a budgeted solver's budget (None:
    not budgeted). ``scale_note`` (if given) is called for a stop on the
    cap and its text (``_scale_note``'s) is added to that advice, so the
    features are read only when the warning is given.

    In order, for the first run that shows it:

    - status ``diverged`` (the C driver's), or a non-finite objective:
      FloatingPointError, the model is meaningless;
    - an objective above that of the zero model (by more than
      _zero_model_slack): ConvergenceWarning, the
      solver diverged or made no progress;
    - a stop by the budget rule (status ``budget_limited``: the budget was
      full and the gap stopped shrinking, or BSCA's estimate of it closed,
      after budget maintenance): ConvergenceWarning naming the budget to
      raise, and the gap reached where there is one (after maintenance
      there is none: the objective is not certified, and it says so);
    - a stop on the cap of a budgeted solver that reports no dual (BSCA or BSGD
      after budget maintenance): ConvergenceWarning saying the objective is
      not certified and naming the budget;
    - a stop on the cap while a stopping test was in force, or with a
      duality gap (where reported) above ``10 tol`` times the objective for
      a solver without a test: ConvergenceWarning naming the cap;
    - a stop before the cap with a duality gap (where reported) above
      ``10 tol`` times the objective: ConvergenceWarning. The solver's own
      test is the contract for ``tol``; this one catches a stop far from
      what it promises (an absolute gap test stopping 100x above the
      optimum at large C); gaps below 1e-3 of the objective do not warn.

    ``tol = 0`` asks for the whole cap: only the first two checks apply
    then. A run that early stopping ended (status ``validation``, the kernel
    estimator's: docs/stopping.rst) gets only the first two checks too: it
    stopped on purpose where its held-out accuracy stopped improving, and
    its gap says nothing about that stop.
    """
    for stats, zero in runs:
        objective = stats.get("primal_objective", stats["objective"])
        if stats["status"] == "diverged" or not math.isfinite(objective):
            raise FloatingPointError(f"{name} diverged (objective {objective:.6g}): the model "
                                     f"is meaningless; {fix}")
        if zero is not None and objective > zero * (1 + _zero_model_slack(stats["status"], tol)) + 1e-300:
            warnings.warn(f"{name} diverged or made no progress: its objective {objective:.6g} "
                          f"is above {zero:.6g}, that of the zero model; {fix}",
                          _convergence_warning(), stacklevel=3)
            return
    if tol <= 0:
        return
    cap_name, cap_value = cap
    for stats, _ in runs:
        if stats["status"] == "validation":
            continue
        gap, dual = stats.get("duality_gap", math.nan), stats.get("dual_objective", math.nan)
        objective = stats.get("primal_objective", stats["objective"])
        scale = max(abs(objective), abs(dual)) if math.isfinite(dual) else abs(objective)
        far = math.isfinite(gap) and gap > max(_GAP_SLACK * tol, _GAP_FLOOR) * scale
        gap_text = f" (duality gap {gap / scale:.3g} times the objective)" if far else ""
        if stats["status"] == "budget_limited":
            budget_name, budget_value = budget or ("budget", "?")
            why = (f"its relative duality gap stopped shrinking at {gap / scale:.3g}, above "
                   f"{tol_name}={tol}, while the budget of {budget_name}={budget_value} support "
                   f"vectors was full; raise {budget_name} for a closer fit (or raise {tol_name} "
                   f"to accept this one)" if math.isfinite(gap) else
                   # BSCA after budget maintenance: its dual is no dual value, no gap bounds it
                   f"the budget of {budget_name}={budget_value} support vectors was full and "
                   f"budget maintenance changed the model, so its objective is not certified and "
                   f"how far it is from the optimum is unknown (no duality gap bounds it; it has "
                   f"been 1.1x to over 100x); raise {budget_name} for a closer fit "
                   f"({budget_name} >= n_samples is certified)")
            warnings.warn(f"{name} stopped where its budget, not its iterations, bounds the "
                          f"accuracy: {why}", _convergence_warning(), stacklevel=3)
            return
        capped = stats["status"] == "max_iterations"
        newton = stats.get("num_newton_iterations", 0)
        finish = stats.get("finish_epochs", 0)
        if capped and (newton > 0 or finish > 0):
            # The solver handed over to its certified finish (the linear
            # Newton finish on a stall or the cap; the kernel SDCA finish on
            # the cap) and the finish ended uncertified: more epochs would not
            # help.
            finisher, method, rule, length = (
                ("its Newton finish", "Newton", stopping_rule or "stopping test",
                 f"{newton} iterations")
                if newton > 0 else
                ("exact kernel SDCA", "the SDCA", "relative duality gap", f"{finish:.0f} epochs"))
            warnings.warn(f"{name} stopped before its {rule} fell below {tol_name}={tol}"
                          f"{gap_text}: the run handed over to {finisher} after "
                          f"{stats['epoch']} epochs, and {method} ended after {length} without meeting "
                          f"its certificate (a nearly separable or badly scaled problem); "
                          f"raising {cap_name} rarely helps here: scale the features (e.g. "
                          f"sklearn.preprocessing.StandardScaler), lower C (raise lambda) or "
                          f"raise {tol_name}", _convergence_warning(), stacklevel=3)
            return
        if capped and budget is not None and stopping_rule is not None and not math.isfinite(dual):
            # BSCA or BSGD after budget maintenance: no dual value, so no gap to reach
            budget_name, budget_value = budget
            warnings.warn(f"{name} stopped on its cap {cap_name}={cap_value} with its objective "
                          f"not certified: budget maintenance (a budget of {budget_name}="
                          f"{budget_value} support vectors) changed the model, so no duality gap "
                          f"bounds how far it is from the optimum; raise {budget_name} for a "
                          f"closer fit ({budget_name} >= n_samples is certified)",
                          _convergence_warning(), stacklevel=3)
            return
        if capped and (stopping_rule is not None or far):
            note = scale_note() if scale_note is not None else ""
            if stopping_rule is not None:
                text = (f"stopped on its cap {cap_name}={cap_value} before its {stopping_rule} "
                        f"fell below {tol_name}={tol}{gap_text}; "
                        f"{cap_fix or f'increase {cap_name} (or {tol_name})'}")
            else:
                text = (f"ran to its cap {cap_name}={cap_value} (it has no stopping "
                        f"test){gap_text}; increase {cap_name}")
            warnings.warn(f"{name} {text}{note}", _convergence_warning(), stacklevel=3)
            return
        if far:
            warnings.warn(f"{name} stopped with a duality gap of {gap / scale:.3g} times the "
                          f"objective, above {tol_name}={tol}: the model may be that far from "
                          f"the optimum; decrease {tol_name}", _convergence_warning(),
                          stacklevel=3)
            return


@functools.cache
def _convergence_warning():
    """scikit-learn's ConvergenceWarning (so that its filters apply), or a
    UserWarning subclass of that name where scikit-learn is not installed
    (the object API does not need it)."""
    try:
        from sklearn.exceptions import ConvergenceWarning
    except ImportError:
        class ConvergenceWarning(UserWarning):
            """Training stopped before its stopping test was met."""
    return ConvergenceWarning


def _print_parameters(svm, solver, custom_weights, homkermap, out):
    n, lam = svm.get_num_data(), svm.get_lambda()
    lines = [
        f"svmtrain: solver {solver}, loss {svm.get_loss()}",
        f"  data: {n} examples, dimension {svm.get_dimension()}"
        + (f" ({homkermap!r})" if homkermap is not None else ""),
        f"  lambda {lam:g} (C = 1/(lambda n) = {1.0 / (lam * n):g})",
        f"  epsilon {svm.get_epsilon():g}, max iterations {svm.get_max_num_iterations()}, "
        f"diagnostic frequency {svm.get_diagnostic_frequency()}",
        f"  bias multiplier {svm.get_bias_multiplier():g}"
        + (f", bias learning rate {svm.get_bias_learning_rate():g}" if solver == "sgd" else ""),
        f"  weights: {'custom' if custom_weights else 'uniform'}, seed {svm.get_seed()}",
    ]
    print("\n".join(lines), file=out)


def _print_diagnostic(info, out):
    line = (f"  iteration {info['iteration']} (epoch {info['epoch']}), "
            f"{info['elapsed_time']:.3f} s: objective {info['objective']:.6g} "
            f"(regularizer {info['regularizer']:.6g}, loss {info['loss']:.6g})")
    if not math.isnan(info["duality_gap"]):
        line += f", dual {info['dual_objective']:.6g}, gap {info['duality_gap']:.3g}"
    elif info["solver"] == "sgd" and not math.isnan(info["scores_variation"]):
        line += f", scores variation {info['scores_variation']:.3g}"
    print(line + f" [{info['status']}]", file=out)
