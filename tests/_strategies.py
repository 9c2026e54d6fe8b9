"""Hypothesis strategies shared by the property tests of the linear and the
kernel SVM (test_properties.py, test_properties_kernel.py). Import this only
after ``pytest.importorskip("hypothesis")``."""

import re

import numpy as np
import scipy.sparse as sp
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

from _helpers import unsorted_csr

EXAMPLES = 120

SETTINGS = settings(max_examples=EXAMPLES, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

DTYPES = [np.float16, np.float32, np.float64, np.int8, np.int32, np.int64, np.uint8, np.bool_,
          object, np.complex128]

# values: mostly ordinary numbers, sometimes the awkward ones
VALUES = st.one_of(
    st.sampled_from([0.0, 1.0, -1.0, 0.5, -2.0, 3.0]),
    st.floats(-10, 10, allow_nan=False),
    st.sampled_from([np.nan, np.inf, -np.inf, 1e300, -1e300, 1e-300, 5e-324, 65504.0, 1e38]),
)


def mostly(valid, invalid, valid_in_10=8):
    """``valid`` in valid_in_10 draws out of 10, else ``invalid``: most calls
    reach training, the rest probe the checks."""
    return st.integers(0, 9).flatmap(lambda k: valid if k < valid_in_10 else invalid)


# parameter values of every kind: valid, out of range, wrong type
ANY_NUMBER = st.one_of(
    st.sampled_from([0, 1, -1, 0.0, 1e-3, 0.1, 1.0, 2.0, 10.0, 1e6, -0.5, 1.5, 1e-300, 1e300,
                     float("nan"), float("inf"), -float("inf"), 2 ** 63, -(2 ** 63) - 1]),
    st.sampled_from([None, True, False, "1", "a", [1.0], (), np.float32(0.5), np.int64(3),
                     np.array(2.0), np.array([1.0, 2.0]), 1 + 2j, object()]),
    st.floats(allow_nan=True, allow_infinity=True),
    st.integers(-(2 ** 70), 2 ** 70),
)


@st.composite
def matrices(draw, max_n=10, max_d=5):
    """X in any dtype, layout or sparse format; returns (X, n)."""
    n = draw(mostly(st.integers(1, max_n), st.just(0), 9))
    d = draw(mostly(st.integers(1, max_d), st.just(0), 9))
    dtype = draw(mostly(st.sampled_from([np.float32, np.float64]), st.sampled_from(DTYPES), 6))
    value = mostly(st.sampled_from([0.0, 1.0, -1.0, 0.5, -2.0, 3.0]) | st.floats(-10, 10), VALUES, 9)
    values = np.array(draw(st.lists(value, min_size=n * d, max_size=n * d)), dtype=np.float64)
    base = values.reshape(n, d)
    if dtype is object:
        X = base.astype(object)
    elif dtype is np.complex128:
        X = base.astype(np.complex128)
    else:
        with np.errstate(all="ignore"):
            X = np.nan_to_num(base, nan=0, posinf=1, neginf=-1).astype(dtype) \
                if np.dtype(dtype).kind in "biu" else base.astype(dtype)
    layout = draw(st.sampled_from(["C", "F", "strided", "readonly", "transposed", "csr", "csc",
                                   "coo", "lil", "csr_array", "csr_unsorted", "list"]))
    if layout == "F":
        X = np.asfortranarray(X)
    elif layout == "strided":
        big = np.zeros((2 * n, 3 * d), dtype=X.dtype)
        big[::2, ::3] = X
        X = big[::2, ::3]
    elif layout == "readonly":
        X = X.copy()
        X.flags.writeable = False
    elif layout == "transposed":
        X = np.ascontiguousarray(X.T).T
    elif layout == "list":
        X = X.tolist()
    elif X.dtype.kind in "biufc" and X.dtype != np.float16:
        if layout == "csr_unsorted" and n > 0:
            X = unsorted_csr(X)
        elif layout == "csr_array":
            X = sp.csr_array(X)
        elif layout in ("csr", "csc", "coo", "lil"):
            X = getattr(sp, layout + "_matrix")(X)
    return X, n


@st.composite
def labels(draw, n):
    """Labels for n rows: mostly two classes, sometimes malformed."""
    kind = draw(mostly(st.sampled_from(["pm1", "pm1", "one_class", "list", "float"]),
                       st.sampled_from(["01", "12", "bool", "object", "short", "2d", "nan"]), 8))
    rng = np.random.default_rng(draw(st.integers(0, 2 ** 32 - 1)))
    y = np.where(rng.random(n) < 0.5, -1.0, 1.0)
    if kind == "01":
        return (y + 1) / 2
    if kind == "12":
        return (y + 3) / 2
    if kind == "float":
        return rng.normal(size=n)
    if kind == "bool":
        return y > 0
    if kind == "object":
        return y.astype(object)
    if kind == "one_class":
        return np.ones(n)
    if kind == "short":
        return y[: max(0, n - 1)]
    if kind == "2d":
        return y[:, None]
    if kind == "nan" and n > 0:
        y[0] = np.nan
        return y
    if kind == "list":
        return [int(v) for v in y]
    return y.astype(draw(st.sampled_from([np.float64, np.int64, np.int8, np.float32])))


def names_an_argument(message, names):
    """Whether ``message`` names one of ``names`` as a whole word."""
    return any(re.search(rf"(?<![A-Za-z_]){re.escape(name)}(?![A-Za-z_])", message)
               for name in names)
