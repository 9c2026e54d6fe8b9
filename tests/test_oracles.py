"""The tests' hinge optimum, checked by a second method.

liblinear_reference.liblinear answers -s 3 at eps <= 1e-6 with Newton's
method and its certified dual bound on up to 5,000 rows, and with
scikit-learn's copy of LIBLINEAR's -s 3, run without the iteration cap, on
more (the module's docstring says why LIBLINEAR's own cap cannot be used).
On problems where both run, the two must meet, and both must be at least as
low as what liblinear-official returns.
"""

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.datasets import load_breast_cancer
from sklearn.preprocessing import StandardScaler

from liblinear_reference import _dual_coordinate_descent, liblinear, objective, one_hot


def _problems():
    X, y = load_breast_cancer(return_X_y=True)
    X = sp.csr_matrix(StandardScaler().fit_transform(X))
    yield "breast_cancer scaled, C = 0.1", X, np.where(y == 1, 1.0, -1.0), 0.1
    X, y = one_hot(600)
    yield "one-hot, C = 1", X, y, 1.0
    yield "one-hot, C = 128", X, y, 128.0  # LIBLINEAR's cap ends 2.1-2.5x above


@pytest.mark.parametrize("case", list(_problems()), ids=lambda case: case[0])
def test_newton_and_uncapped_coordinate_descent_agree(case):
    _, X, y, C = case
    lam = 1.0 / (C * X.shape[0])
    P_newton = objective(X, y, *liblinear(X, y, 3, lam, 1e-9), lam, "hinge")
    P_cd = objective(X, y, *_dual_coordinate_descent(X, y, 3, C, 1e-9), lam, "hinge")
    assert P_newton == pytest.approx(P_cd, rel=1e-8)
    # liblinear-official itself (eps > 1e-6 goes to it)
    P_official = objective(X, y, *liblinear(X, y, 3, lam, 1e-5), lam, "hinge")
    assert max(P_newton, P_cd) <= P_official * (1 + 1e-9)
