"""What a warm fit may continue: the data and the parameters the estimators'
SVMs were made with.

A warm ``fit`` (``warm_start=True``) or a later ``partial_fit`` continues the
SVMs of the call before. That is right only while they still describe the
problem asked for:

* **The data.** The SVMs borrow the arrays they were given. The same data
  given again, as the same object or another (a list, a DataFrame, a copy
  made by validation), continue the training; other data are given to them
  anew (``set_data``). Data are compared by a fingerprint taken when they were
  given (type, dtype, shape and a CRC-32 of the bytes), so an array the caller
  refilled in place since counts as other data, and so does any array
  compared with one that has been refilled.
* **The parameters.** Each estimator names the parameters its SVMs are made
  with (solver, loss, kernel, seed, ...). A warm ``fit`` after one of them
  changed starts afresh, as a cold fit would; ``partial_fit`` refuses, since
  it would lose the state it is asked to continue. ``C`` and ``lambda_`` are
  applied to the SVMs by a warm ``fit`` (``set_lambda``: a grid over C).
"""

import zlib

import numpy as np
import scipy.sparse as sp

#: Bytes per CRC-32 call: a large array is read in place, block by block.
_BLOCK_BYTES = 1 << 24


def fingerprint(a):
    """A value equal for two arrays (NumPy, CSR or None) of the same type,
    dtype, shape and bytes; read in place (no copy of a C-contiguous array)."""
    if a is None:
        return None
    if sp.issparse(a):
        return ("sparse", a.format, a.shape) + tuple(
            fingerprint(np.asarray(part)) for part in (a.indptr, a.indices, a.data))
    a = np.asarray(a)
    flat = np.ascontiguousarray(a).reshape(-1).view(np.uint8)
    crc = 0
    for start in range(0, flat.size, _BLOCK_BYTES):
        crc = zlib.crc32(flat[start:start + _BLOCK_BYTES], crc)
    return ("dense", a.dtype.str, a.shape, crc)


class TrainingData:
    """The data an estimator's SVMs were given last (validated X, label
    vectors, weights), and their fingerprints as they were then. The arrays
    are the ones the SVMs borrow already: keeping them costs no memory."""

    def __init__(self, X, problems, weights, _prints=None):
        self.X, self.problems, self.weights = X, list(problems), weights
        self._prints = _prints or (fingerprint(X), [fingerprint(p) for p in self.problems])
        self._weights_print = fingerprint(weights)

    def same_examples(self, other):
        """Same X and labels (the weights aside) as ``other``, whose X (the
        array the SVMs borrow) still holds them: refilled in place since, it
        would train the SVMs on its new values."""
        return self._prints == other._prints and (
            self.X is other.X or fingerprint(other.X) == other._prints[0])

    def same_weights(self, other):
        """The same weights as ``other`` (compared by fingerprint)."""
        return self._weights_print == other._weights_print

    def with_weights(self, weights):
        """These arrays (the ones the SVMs borrow) with other weights."""
        return TrainingData(self.X, self.problems, weights, self._prints)

    def __eq__(self, other):
        return (isinstance(other, TrainingData) and self.same_examples(other)
                and self.same_weights(other))

    __hash__ = None


def _same_value(a, b):
    if a is b:
        return True
    try:
        return bool(a == b)
    except (TypeError, ValueError):
        return False


class SvmParams:
    """Mixin of the estimators: which of the parameters named by
    ``_SVM_PARAMS`` changed since the SVMs were made."""

    #: Constructor parameters the SVMs are made with (the estimators name theirs).
    _SVM_PARAMS = ()
    #: The regularization, which a warm fit applies (and partial_fit refuses to change).
    _LAMBDA_PARAMS = ("C", "lambda_")

    def _svm_param_values(self):
        renamed = getattr(self, "_renamed", {})
        return {name: (self._param(name) if name in renamed else getattr(self, name))
                for name in self._SVM_PARAMS + self._LAMBDA_PARAMS}

    def _remember_svm_params(self):
        """Called when the SVMs are made: the values they are made with."""
        self._svm_params = self._svm_param_values()

    def _changed_svm_params(self, names=None):
        """``[(name, then, now)]`` for each parameter (of ``names``, default
        ``_SVM_PARAMS``) that differs from the value the SVMs were made with;
        empty for an estimator that predates this record (an older pickle)."""
        then = getattr(self, "_svm_params", None)
        if then is None:
            return []
        now = self._svm_param_values()
        return [(k, then.get(k), now[k]) for k in (names or self._SVM_PARAMS)
                if not _same_value(then.get(k), now[k])]

    def _refuse_changed_params(self, changed):
        """partial_fit's answer to ``changed`` (non-empty): it continues the
        SVMs of the first call, and cannot make them another problem's."""
        what = ", ".join(f"{k} from {a!r} to {b!r}" for k, a, b in changed)
        raise ValueError(f"partial_fit continues the SVMs its first call made, and {what} "
                         f"changed since; call fit (or clone the estimator) to start afresh "
                         f"with the new value")
