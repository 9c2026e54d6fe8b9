"""The regularization rule, written once for the estimators, the Dask
estimators and the command line: ``lambda = 1/(C n)``; give ``C`` or
``lambda``, not both; neither means ``C = 1``; the result must lie in the C
core's range ``[SS_LAMBDA_MIN, SS_LAMBDA_MAX]`` = [1e-150, 1e150].

It needs NumPy and the compiled core only (the command line imports it
without scikit-learn).
"""

from stochsvm._svm import LAMBDA_MAX, LAMBDA_MIN

__all__ = ["LAMBDA_MIN", "LAMBDA_MAX", "check_C_or_lambda", "lambda_of"]


def check_C_or_lambda(C, lambda_, names=("C", "lambda_")):
    """Refuse ``C`` and ``lambda`` given together (``names``: how the caller
    spells them, e.g. ``("-C", "--lambda")`` for the command line)."""
    if C is not None and lambda_ is not None:
        raise ValueError(f"give either {names[0]} or {names[1]}, not both "
                         f"(C means lambda = 1/(C n))")


def lambda_of(lambda_, C, n, names=("C", "lambda_")):
    """lambda from ``lambda_`` (used as is) or ``C`` (``1/(C n)``; neither:
    ``C = 1``), in the C core's range; the error names the one given."""
    check_C_or_lambda(C, lambda_, names)
    if lambda_ is not None:
        lam = float(lambda_)
        if not LAMBDA_MIN <= lam <= LAMBDA_MAX:
            raise ValueError(f"{names[1]} must be a number in [1e-150, 1e150], got {lambda_!r}")
        return lam
    lam = 1.0 / ((1.0 if C is None else float(C)) * n)
    if not LAMBDA_MIN <= lam <= LAMBDA_MAX:
        raise ValueError(f"{names[0]} = {C!r} with n = {n} examples gives lambda = 1/(C n) = "
                         f"{lam:g}, outside the valid range [1e-150, 1e150]; choose "
                         f"{names[0]} in [{1 / (LAMBDA_MAX * n):g}, {1 / (LAMBDA_MIN * n):g}]")
    return lam
