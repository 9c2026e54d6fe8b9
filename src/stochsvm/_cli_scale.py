"""``stochsvm train --scale``: fit a scaler on the training file, apply it to
every file the model scores, and hint when unscaled data looks badly scaled
(:mod:`stochsvm.scaling`)."""

from __future__ import annotations

from stochsvm import cli
from stochsvm.scaling import apply_scaler, fit_scaler, scaling_hint


def scale_training_data(args, X):
    """(X scaled, the scaler or None) for ``args.scale``; without scaling, a
    one-line hint when the data looks badly scaled."""
    method = getattr(args, "scale", "none")
    if method == "none":
        hint = scaling_hint(X, args.kernel, args.gamma)
        if hint:
            print(hint)
        return X, None
    if args.homkermap is not None and method != "maxabs":
        raise cli._Fail(f"--scale {method} makes features negative, which --homkermap cannot "
                        f"take: use --scale maxabs (it keeps non-negative data non-negative)")
    scaler = fit_scaler(X, method)
    print(f"scaling: {method}, fitted on the {X.shape[0]} training rows "
          f"(stored in the model file, applied by predict)")
    return scale(X, scaler, args.file), scaler


def scale(X, scaler, path):
    """``X`` under ``scaler`` (None: unchanged); a usage error naming ``path``."""
    if scaler is None:
        return X
    try:
        return apply_scaler(X, scaler)
    except ValueError as exc:
        raise cli._Fail(f"{path}: {exc}") from None
