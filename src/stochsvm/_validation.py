"""Parameter validation shared by the estimators and the Dask estimators
(the regularization rule, which the command line shares too, is in
:mod:`stochsvm._regularization`).

* The constraints of scikit-learn's parameter validation
  (``_parameter_constraints``) for the kinds of parameters the estimators
  have: :func:`real`, :func:`integer`, :func:`options`,
  :func:`deprecated_alias`.
* Renamed parameters: the old name stays one release as a deprecated alias
  (:class:`RenamedParams`).
"""

import inspect
import math
import numbers
import warnings

import numpy as np
from sklearn.utils._param_validation import Hidden, Interval, StrOptions

from stochsvm._regularization import check_C_or_lambda, lambda_of

__all__ = ["check_C_or_lambda", "lambda_of", "real", "integer", "options", "deprecated_alias",
           "random_states", "seed_of", "DEPRECATED", "RenamedParams"]


# -- constraints for scikit-learn's _validate_params ------------------------------

class _Range(Interval):
    """scikit-learn's Interval without booleans (``True`` is no epoch count)."""

    def is_satisfied_by(self, val):
        return not isinstance(val, (bool, np.bool_)) and super().is_satisfied_by(val)


def real(low=None, high=None, closed="neither"):
    """A finite real number in the interval (``None``: unbounded; infinity and
    NaN never satisfy it)."""
    return _Range(numbers.Real, -math.inf if low is None else low,
                  math.inf if high is None else high, closed=closed)


def integer(low=None, high=None):
    """An integer (not a bool) in ``[low, high]`` (``None``: unbounded)."""
    closed = {(True, True): "both", (True, False): "left", (False, True): "right"}.get(
        (low is not None, high is not None), "neither")
    return _Range(numbers.Integral, low, high, closed=closed)


def random_states():
    """The constraint of ``random_state``: a seed (an integer >= 0), None, or a
    NumPy ``RandomState`` or ``Generator`` (scikit-learn's convention)."""
    return [integer(0), None, np.random.RandomState, np.random.Generator]


def seed_of(random_state):
    """The C core's seed for one fit: an integer as it is; None as it is (the
    solvers' seed 0); from a NumPy ``RandomState`` or ``Generator``, a seed
    drawn from it, so that each fit draws a new one, as scikit-learn's
    estimators do. Draw it once per fit: every class of a one-vs-rest fit
    then visits the examples in the same order, as with an integer."""
    if isinstance(random_state, np.random.RandomState):
        return int(random_state.randint(0, 2**63 - 1, dtype=np.int64))
    if isinstance(random_state, np.random.Generator):
        return int(random_state.integers(0, 2**63 - 1))
    return None if random_state is None else int(random_state)


class _Choices(StrOptions):
    """scikit-learn's StrOptions, listing the strings in the order given in
    its messages (a set's order changes from run to run)."""

    def __init__(self, names):
        super().__init__(set(names))
        self.options = tuple(names)


def options(*names):
    """One of the strings ``names``."""
    return _Choices(names)


# -- renamed parameters ---------------------------------------------------------

#: The default of a deprecated alias: "not given".
DEPRECATED = "deprecated"


def deprecated_alias():
    """The constraint of a deprecated alias's default (hidden from the error
    messages)."""
    return Hidden(StrOptions({DEPRECATED}))


class RenamedParams:
    """Parameters renamed to scikit-learn's names, the old name kept one release.

    A class lists ``_renamed = {"new": "old"}`` and declares both in its
    ``__init__`` (the old one with the default :data:`DEPRECATED`). Fitting
    calls :meth:`_check_renamed` (a FutureWarning for an old name, a
    ValueError when both are given); the code reads :meth:`_param`.
    """

    _renamed = {}
    # (the package is 0.1.0: the names changed during its development)
    _removed_in = "0.2.0"

    def _param(self, new):
        """The value in force of the parameter ``new`` (or of its old name)."""
        old = getattr(self, self._renamed[new])
        return getattr(self, new) if isinstance(old, str) and old == DEPRECATED else old

    def _check_renamed(self):
        """Warn for each old name given; refuse it next to its new name set to
        another value than its default."""
        defaults = inspect.signature(type(self).__init__).parameters
        for new, old in self._renamed.items():
            value = getattr(self, old)
            if isinstance(value, str) and value == DEPRECATED:
                continue
            if getattr(self, new) != defaults[new].default:
                raise ValueError(f"give {new} only: {old} is its deprecated alias "
                                 f"(got {new}={getattr(self, new)!r} and {old}={value!r})")
            warnings.warn(f"{type(self).__name__}: {old} was renamed {new} and will be "
                          f"removed in {self._removed_in}; use {new}={value!r}", FutureWarning,
                          stacklevel=3)

    @classmethod
    def _renamed_params(cls, params):
        """``params`` (e.g. read from an old model file) with old names
        replaced by the new ones, silently."""
        params = dict(params)
        for new, old in cls._renamed.items():
            if old in params:
                value = params.pop(old)
                if not (isinstance(value, str) and value == DEPRECATED):
                    params[new] = value
        return params
