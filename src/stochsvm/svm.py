"""Thin Python layer over :class:`stochsvm.SVM`: the one-call :func:`svmtrain`."""

from stochsvm._svm import SVM

__all__ = ["SVM", "svmtrain"]

# Options of svmtrain, applied in this order (model, bias and iteration number
# last, so that they describe a warm start of the final parameters).
_OPTIONS = (
    "epsilon",
    "max_num_iterations",
    "diagnostic_frequency",
    "bias_multiplier",
    "bias_learning_rate",
    "t0",
    "loss",
    "weights",
    "diagnostic_function",
    "model",
    "bias",
    "iteration_number",
)


def svmtrain(X, y, lambda_, *, solver="sgd", seed=None, **options):
    """Train a linear SVM in one call (a mirror of VLFeat's ``vl_svmtrain``).

    Parameters
    ----------
    X : ndarray of shape (n, d) or scipy.sparse matrix/array
        Training examples, one per row (see :class:`stochsvm.SVM`).
    y : array_like of shape (n,)
        Labels, -1 or +1.
    lambda_ : float
        Regularization strength, finite and > 0.
    solver : {"sgd", "none"}, default "sgd"
        The solver; ``"none"`` evaluates the given ``model`` and ``bias``.
    seed : int or None, default None
        Seed of the random generator (None: 0).
    **options
        Any of ``epsilon``, ``max_num_iterations``, ``diagnostic_frequency``,
        ``bias_multiplier``, ``bias_learning_rate``, ``t0``, ``loss``,
        ``weights``, ``diagnostic_function``, ``model``, ``bias``,
        ``iteration_number``: each is passed to the ``SVM.set_<name>``
        method of the same name.

    Returns
    -------
    w : ndarray of shape (d,)
        The model.
    b : float
        The bias.
    info : dict
        The statistics of the run (see :meth:`stochsvm.SVM.get_statistics`).
    scores : ndarray of shape (n,)
        ``X @ w + b`` at the end of training.

    Raises
    ------
    TypeError
        For an unknown option, and as :class:`stochsvm.SVM` does.
    ValueError
        As :class:`stochsvm.SVM` and its setters do.

    Examples
    --------
    >>> import numpy as np
    >>> from stochsvm import svmtrain
    >>> X = np.array([[1.0, 2.0], [2.0, 1.0], [-1.0, -2.0], [-2.0, -1.0]])
    >>> y = np.array([1, 1, -1, -1])
    >>> w, b, info, scores = svmtrain(X, y, 0.1, max_num_iterations=1000)
    >>> bool(np.all(np.sign(scores) == y))
    True
    """
    unknown = sorted(set(options) - set(_OPTIONS))
    if unknown:
        raise TypeError(f"svmtrain() got unknown option(s) {', '.join(unknown)}; valid options "
                        f"are {', '.join(_OPTIONS)}")
    svm = SVM(X, y, lambda_, solver=solver, seed=seed)
    for name in _OPTIONS:
        if name in options:
            getattr(svm, "set_" + name)(options[name])
    info = svm.train()
    return svm.get_model(), svm.get_bias(), info, svm.get_scores()
