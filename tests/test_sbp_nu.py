"""The SBP's nu derived from C on more rows than the warm-up's sample
(src/core/kernel/sbp_nu.c, "Large n"), SVC's optimum the oracle, and the
SBP's accuracy at it.

The set: 8000 generated rows with 20 % of the labels flipped, C = 10,
gamma = 1/2, where SVC's optimum fits the noise. The derived nu reads 0.73x
SVC's (the sample of 4096 rows at the same lambda, solved by SVC, reads
0.37x on a set like it). The SBP's objective is flat near the zero model for
a while: its window stopped there, "converged" within an epoch at 71-75 %
test accuracy (SVC 79.6 %) for seeds 1-3, until a stop within tol of the
best constant's objective was refused (kernel_svm.c, run_dual_bound)."""
import numpy as np
import pytest
from sklearn.datasets import make_classification
from sklearn.exceptions import ConvergenceWarning
from sklearn.metrics.pairwise import rbf_kernel
from sklearn.svm import SVC

import stochsvm
from stochsvm import KernelSVMClassifier

C, GAMMA = 10.0, 0.5


def _noisy_set():
    """8000 training rows and 4000 test rows of one distribution."""
    X, y = make_classification(n_samples=12000, n_features=8, n_informative=5, flip_y=0.2,
                               random_state=0, class_sep=1.0)
    y = np.where(y > 0, 1.0, -1.0)
    return X[:8000], y[:8000], X[8000:], y[8000:]


def _svc_nu(svc, X, y):
    """L(w*) / ||w*|| of SVC's optimum (its w is ours: lambda = 1/(C n))."""
    a = svc.dual_coef_[0]
    K = rbf_kernel(svc.support_vectors_, gamma=GAMMA)
    loss = np.maximum(0, 1 - y * svc.decision_function(X)).mean()
    return loss / np.sqrt(a @ K @ a)


@pytest.fixture(scope="module")
def noisy():
    X, y, Xt, yt = _noisy_set()
    return X, y, Xt, yt, SVC(C=C, gamma=GAMMA).fit(X, y)


def test_derived_nu_is_near_svcs_optimum(noisy):
    X, y, _, _, svc = noisy
    exact = _svc_nu(svc, X, y)
    svm = stochsvm.KernelSVM(X, y, 1 / (C * len(y)), solver="sbp", gamma=GAMMA, seed=0)
    svm.set_unregularized_bias(True)
    nu = svm.estimate_nu()
    assert exact / 1.5 < nu < 1.5 * exact, (nu, exact)


@pytest.mark.parametrize("seed", [0, 1])
def test_sbp_at_the_derived_nu_is_as_accurate_as_svc(noisy, seed):
    """One epoch of the SBP at the derived nu is within 0.5 pp of SVC's test
    accuracy (measured: 79.6-80.7 % for seeds 0-3 against 79.6 %; seed 1
    stopped at 74.6 % before the constant-objective guard). At its defaults
    the run goes on to its objective window (373 s at load 7)."""
    X, y, Xt, yt, svc = noisy
    est = KernelSVMClassifier(solver="sbp", C=C, gamma=GAMMA, max_iter=1, random_state=seed)
    with pytest.warns(ConvergenceWarning):
        est.fit(X, y)
    assert est.score(Xt, yt) >= svc.score(Xt, yt) - 0.005


def test_a_precomputed_kernel_is_sampled_as_the_kernel_is():
    """Above the warm-up's 4096 rows a precomputed Gram matrix is sampled as
    blocks at the sampled rows and columns (it was solved whole): nu equals
    the one derived through the kernel itself, from the same sample."""
    X, y = _noisy_set()[0][:4500], _noisy_set()[1][:4500]
    lam = 1 / len(y)  # C = 1: a quicker warm-up than the module's C = 10
    K = stochsvm.kernel_matrix(X, kernel="rbf", gamma=GAMMA)
    with_kernel = stochsvm.KernelSVM(X, y, lam, solver="sbp", gamma=GAMMA)
    gram = stochsvm.KernelSVM(K, y, lam, solver="sbp", kernel="precomputed")
    nu = with_kernel.estimate_nu()
    # the whole 4500 rows solved give another nu: the sample is what is compared
    assert gram.estimate_nu() == pytest.approx(nu, rel=1e-4)
