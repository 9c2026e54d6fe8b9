"""The solver registry: every training solver of the linear and the kernel
SVM object, written once, with what the Python layer needs to know of it.

The estimators, the command line (choices and help), the Dask estimators
and the tests read their solver lists and defaults from here.
``tests/test_estimators_params.py`` checks the registry against the
compiled objects' own tables and against the C fuzz harnesses' tables
(``tests/fuzz/*.c``), so that a solver added to the core without an entry
here fails a test.
"""

import math
from dataclasses import dataclass

__all__ = ["Solver", "SOLVERS", "LINEAR", "KERNEL", "DASK", "names", "get"]

CLASSIFICATION_LOSSES = ("hinge", "hinge2", "logistic")
REGRESSION_LOSSES = ("l1", "l2")
#: Losses with a derivative everywhere (what RES and LRES need).
SMOOTH_LOSSES = ("hinge2", "logistic", "l2")


@dataclass(frozen=True)
class Solver:
    """One solver of the linear (``kind="linear"``) or kernel SVM object."""

    name: str
    kind: str
    #: The losses it minimises (classification, then regression).
    losses: tuple
    #: The estimators' defaults: the stopping threshold and the epoch cap.
    tol: float
    max_iter: int
    #: The stopping threshold with a loss whose gap falls linearly (squared
    #: hinge, logistic, l2), where it differs from ``tol`` (0: ``tol``).
    #: Linear SDCA's: SS_SDCA_DEFAULT_EPSILON_SMOOTH of the C object, whose
    #: default epsilon these thresholds are (``tol`` its
    #: SS_SDCA_DEFAULT_EPSILON_NONSMOOTH, for the hinge and l1 losses).
    smooth_tol: float = 0
    #: The estimators' default cap is at least the epochs that make this much
    #: work (0: max_iter epochs, whatever the size). An epoch's work is, for
    #: a linear solver, the stored values of X plus one per row; for a
    #: kernel solver, n^2 kernel evaluations (n steps against at most n
    #: support vectors).
    min_work: float = 0
    #: The least epochs of the default cap with the hinge loss (0: as any
    #: loss). SDCA's: its hinge epochs shrink to the examples off their
    #: bounds, and the Newton finish that takes over at the cap costs
    #: hundreds of passes (the C object's SS_SDCA_HINGE_DEFAULT_EPOCHS). Not
    #: the l1 loss, whose epochs SDCA does not shrink (docs/stopping.rst,
    #: "Why l1 keeps the 100-epoch cap").
    hinge_max_iter: int = 0
    #: What ``tol`` bounds; None: the solver has no stopping test.
    stopping_rule: str = "objective window"
    #: It takes per-example weights (any; False: equal weights only).
    sample_weights: bool = True
    #: ``warm_start`` and ``partial_fit`` continue its state.
    warm_start: bool = True
    partial_fit: bool = True
    #: ``"regularized"``: the weight of a constant feature (``bias_multiplier``);
    #: ``"unregularized"``: a free bias (on by default, ``unregularized_bias``
    #: turns it off); ``"none"``.
    bias: str = "regularized"
    #: It keeps a budget of support vectors (``budget``, ``budget_maintenance``).
    budget: bool = False
    #: The Dask estimators can train with it.
    dask: bool = False
    #: The classification loss used when the estimator's ``loss`` is None.
    default_loss: str = "hinge"
    #: One line for the command line's help.
    summary: str = ""

    def default_epochs(self, epoch_work):
        """The default epoch cap for epochs of ``epoch_work`` units of work
        each (see min_work): max_iter, or the epochs of min_work if more."""
        if not epoch_work > 0:
            return self.max_iter
        return max(self.max_iter, math.ceil(self.min_work / epoch_work))

    @property
    def learns_bias(self):
        """Whether it learns an unregularized bias by default (None: it has
        no such bias, ``unregularized_bias`` does not apply)."""
        return True if self.bias == "unregularized" else None

    def default_epochs_on(self, X, loss=None):
        """The default epoch cap on the training set ``X`` (an array or a
        scipy sparse matrix) with ``loss`` (None: the default loss): a
        linear epoch's work is the stored values of X plus one per row, a
        kernel epoch's n^2 kernel evaluations."""
        n = X.shape[0]
        if self.kind == "kernel":
            return self.default_epochs(float(n) ** 2)
        epochs = self.default_epochs((X.nnz if hasattr(X, "nnz") else X.size) + n)
        if (loss or self.default_loss) == "hinge":
            epochs = max(epochs, self.hinge_max_iter)
        return epochs

    @property
    def default_tol(self):
        """The default tol with the default loss; 0 for a solver with no
        stopping test."""
        return self.default_tol_for(None)

    def default_tol_for(self, loss):
        """The default tol with ``loss`` (None: the default loss); 0 for a
        solver with no stopping test."""
        if self.stopping_rule is None:
            return 0.0
        if self.smooth_tol > 0 and (loss or self.default_loss) in SMOOTH_LOSSES:
            return self.smooth_tol
        return self.tol


_LINEAR_ALL = CLASSIFICATION_LOSSES + REGRESSION_LOSSES
_LINEAR_SMOOTH = tuple(loss for loss in _LINEAR_ALL if loss in SMOOTH_LOSSES)

#: The linear solvers' work-based cap (min_work): small, badly scaled sets
#: need thousands of epochs (wine, breast_cancer raw:
#: bench/results/linear_sdca_unscaled.md for SDCA, bench/results/
#: defaults_epochs.md for the SGD family, whose O(1/(lambda t)) steps need
#: them at large C too); 3e7 is about 0.1 s of steps per binary problem and
#: leaves every set of 3e5 stored values or more (a9a, w8a, ijcnn1, covtype)
#: at 100 epochs. Not RES (a d x d product per step: its epochs cost d times
#: more) nor LRES (10x its epochs gained few runs, at ten times the cost).
_LINEAR_MIN_WORK = 3e7
#: SDCA's: a third more. Raw wine at C = 1e-3 (one-vs-rest, class 2) needs
#: 9,800 to 12,300 epochs to the default tol over seeds 0-5 (10,100 to
#: 16,300 before SDCA's epochs visited the active examples in an order of
#: their own); seed 0 needs 12,337 where 3e7 gives it 12,039.
_SDCA_MIN_WORK = 4e7
#: Kernel Pegasos and BSGD: at most 2e7 kernel evaluations' worth of
#: epochs, i.e. more than 100 epochs up to 447 rows (wine at C = 1e3 ended
#: above the zero model's objective after 100 epochs, not after 1000:
#: docs/stopping.rst).
_KERNEL_MIN_WORK = 2e7

SOLVERS = (
    Solver("sgd", "linear", _LINEAR_ALL, 1e-3, 100, min_work=_LINEAR_MIN_WORK, dask=True,
           summary="Pegasos-style stochastic gradient descent"),
    Solver("sdca", "linear", _LINEAR_ALL, 5e-4, 100, smooth_tol=1e-8, min_work=_SDCA_MIN_WORK,
           hinge_max_iter=1000,
           stopping_rule="relative duality gap", dask=True,
           summary="stochastic dual coordinate ascent (duality-gap certificate)"),
    Solver("svmsgd2", "linear", _LINEAR_ALL, 1e-3, 100, min_work=_LINEAR_MIN_WORK,
           summary="Bottou's SVMSGD2 (sparse updates with a skip)"),
    Solver("sgdqn", "linear", _LINEAR_ALL, 1e-3, 100, min_work=_LINEAR_MIN_WORK,
           summary="SGD-QN (diagonal quasi-Newton scaling)"),
    Solver("res", "linear", _LINEAR_SMOOTH, 1e-3, 100, default_loss="hinge2",
           summary="regularized stochastic BFGS (needs a differentiable loss)"),
    Solver("lres", "linear", _LINEAR_SMOOTH, 1e-3, 100, default_loss="hinge2",
           summary="limited-memory RES (needs a differentiable loss)"),
    Solver("sbp", "kernel", ("hinge",), 1e-2, 100, sample_weights=False, bias="unregularized",
           summary="Stochastic Batch Perceptron (solves the SVM of C through nu)"),
    Solver("pegasos", "kernel", ("hinge",), 1e-2, 100, min_work=_KERNEL_MIN_WORK, bias="none",
           summary="kernel Pegasos"),
    Solver("sdca", "kernel", ("hinge",), 1e-3, 1000, stopping_rule="relative duality gap",
           bias="unregularized",
           summary="kernel dual coordinate ascent (duality-gap certificate)"),
    Solver("perceptron", "kernel", ("hinge",), 1e-2, 10, stopping_rule=None, bias="none",
           summary="the online Perceptron (no objective, no stopping test)"),
    Solver("bsca", "kernel", ("hinge",), 1e-3, 100, stopping_rule="relative duality gap",
           bias="unregularized", budget=True,
           summary="budgeted stochastic coordinate ascent"),
    Solver("bsgd", "kernel", ("hinge",), 1e-2, 100, min_work=_KERNEL_MIN_WORK, bias="none",
           budget=True,
           summary="budgeted stochastic gradient descent"),
)


def names(kind, **features):
    """The names of the solvers of ``kind`` (``"linear"`` or ``"kernel"``)
    with the given features, e.g. ``names("kernel", budget=True)``."""
    return tuple(s.name for s in SOLVERS if s.kind == kind
                 and all(getattr(s, key) == value for key, value in features.items()))


def get(kind, name):
    """The :class:`Solver` ``name`` of ``kind``; KeyError if there is none."""
    for s in SOLVERS:
        if s.kind == kind and s.name == name:
            return s
    raise KeyError(f"no {kind} solver {name!r}")


LINEAR = names("linear")
KERNEL = names("kernel")
DASK = names("linear", dask=True)
