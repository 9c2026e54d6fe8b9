"""inspect.signature(stochsvm.SVM) and KernelSVM show the constructor's
parameters (the class docstrings open with them in CPython's text-signature
form), and stay equal to the __init__ written in the .pyx files."""

import ast
import inspect
import pathlib
import re

import pytest

import stochsvm

SRC = pathlib.Path(__file__).resolve().parent.parent / "src" / "stochsvm"


def _init_signature(pyx, cls):
    """The parameters of ``cls.__init__`` as written in ``pyx`` (without self)."""
    text = (SRC / pyx).read_text()
    body = re.split(rf"cdef class {cls}\b[^:\n]*:", text, maxsplit=1)[1]
    start = body.index("    def __init__(")
    end = body.index(":\n", start)
    func = ast.parse(body[start:end].strip() + ": pass").body[0]
    return str(inspect.Signature([
        inspect.Parameter(a.arg, inspect.Parameter.POSITIONAL_OR_KEYWORD,
                          default=(ast.literal_eval(d) if d is not None else inspect.Parameter.empty))
        for a, d in zip(func.args.args[1:], [None] * (len(func.args.args) - 1
                                                      - len(func.args.defaults))
                        + list(func.args.defaults))]))


@pytest.mark.parametrize("cls, pyx", [(stochsvm.SVM, "_svm.pyx"),
                                      (stochsvm.KernelSVM, "_kernel_svm.pyx")])
def test_constructor_signature_is_visible_and_current(cls, pyx):
    signature = inspect.signature(cls)
    assert list(signature.parameters)[:3] == ["X", "y", "lambda_"]
    assert str(signature) == _init_signature(pyx, cls.__name__)
    doc = inspect.getdoc(cls)
    assert doc.startswith(("Linear SVM", "Kernel SVM")) and "--" not in doc.splitlines()[:2]


def test_methods_keep_their_signatures():
    assert str(inspect.signature(stochsvm.SVM.set_lambda)) == "(self, lambda_)"
    assert str(inspect.signature(stochsvm.KernelSVM.set_nu)) == "(self, nu)"
