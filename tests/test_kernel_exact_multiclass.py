"""Kernel rows shared between the binary problems of a one-vs-rest fit
(KernelSVM.share_kernel_rows, src/core/kernel/kernel_cache.c): every problem
gets the iterates it has when trained alone, bit for bit, for any thread
count and with the problems trained at the same time; bad pairs are refused;
and the one-vs-rest estimator on digits solves each class-vs-rest problem to
SVC's dual objective and matches SVC's accuracy."""

from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.datasets import load_digits
from sklearn.metrics.pairwise import rbf_kernel
from sklearn.model_selection import train_test_split
from sklearn.svm import SVC

from stochsvm import KernelSVM, KernelSVMClassifier


def digits(n=None):
    X, y = load_digits(return_X_y=True)
    return (X[:n], y[:n]) if n else (X, y)


def binary(X, labels, k, gamma, C=1.0, threads=1):
    svm = KernelSVM(X, np.where(labels == k, 1.0, -1.0), 1.0 / (C * X.shape[0]), solver="sdca",
                    kernel="rbf", gamma=gamma)
    svm.set_unregularized_bias(True)
    svm.set_num_threads(threads)
    return svm


def same_iterates(a, b):
    return (np.array_equal(a.get_dual_variables(), b.get_dual_variables())
            and a.get_bias() == b.get_bias())


@pytest.mark.parametrize("threads,workers", [(1, 1), (2, 1), (1, 3), (2, 2)])
def test_shared_rows_give_the_iterates_of_each_problem_alone(threads, workers):
    X, labels = digits(500)
    gamma = 1.0 / (X.shape[1] * X.var())
    alone = [binary(X, labels, k, gamma) for k in range(10)]
    for svm in alone:
        svm.train()
    shared = [binary(X, labels, k, gamma, threads=threads) for k in range(10)]
    for svm in shared[1:]:
        svm.share_kernel_rows(shared[0])
    with ThreadPoolExecutor(workers) as pool:
        list(pool.map(lambda svm: svm.train(), shared))
    assert all(same_iterates(a, b) for a, b in zip(alone, shared))
    evaluations = sum(svm.get_num_kernel_evaluations() for svm in shared)
    assert evaluations < sum(svm.get_num_kernel_evaluations() for svm in alone)
    if workers == 1:  # one after the other: each row computed once
        assert evaluations <= X.shape[0] ** 2


def test_share_kernel_rows_refuses_other_rows():
    X, labels = digits(200)
    svm = binary(X, labels, 0, 0.01)
    with pytest.raises(ValueError, match="kernel rows differ"):
        svm.share_kernel_rows(binary(X.copy(), labels, 1, 0.01))  # other arrays
    with pytest.raises(ValueError, match="kernel rows differ"):
        svm.share_kernel_rows(binary(X, labels, 1, 0.02))  # other gamma
    with pytest.raises(TypeError):
        svm.share_kernel_rows("not a KernelSVM")
    other = binary(X, labels, 1, 0.01)
    other.share_kernel_rows(svm)
    other.share_kernel_rows(None)  # stop sharing
    del svm  # the store outlives the object that made it
    other.share_kernel_rows(binary(X, labels, 2, 0.01))
    other.train()
    assert same_iterates(other, train_alone(binary(X, labels, 1, 0.01)))


def train_alone(svm):
    svm.train()
    return svm


@pytest.mark.parametrize("n_jobs,sparse", [(1, False), (2, False), (1, True)])
def test_the_estimator_shares_rows_and_keeps_each_model(n_jobs, sparse):
    X, y = digits(600)
    X = sp.csr_matrix(X) if sparse else X  # (each KernelSVM copies a CSR structure)
    shared = KernelSVMClassifier(n_jobs=n_jobs).fit(X, y)
    # a cache too small for all rows keeps each problem's own cache: the
    # same models, computing the rows again for every class
    unshared = KernelSVMClassifier(n_jobs=n_jobs, cache_size=0.5).fit(X, y)
    assert np.array_equal(shared.decision_function(X), unshared.decision_function(X))
    assert np.array_equal(shared.dual_coef_, unshared.dual_coef_)
    assert shared.n_kernel_evaluations_ < unshared.n_kernel_evaluations_


def test_one_vs_rest_on_digits_reaches_svc():
    X, y = digits()
    Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=0.25, random_state=0)
    est = KernelSVMClassifier().fit(Xtr, ytr)
    gamma = est.gamma_
    K = rbf_kernel(Xtr, gamma=gamma)
    for k, svm in zip(est.classes_, est._svms):
        yk = np.where(ytr == k, 1.0, -1.0)
        svc = SVC(C=1.0, gamma=gamma).fit(Xtr, yk)
        a_svc = np.zeros(len(yk))
        a_svc[svc.support_] = np.abs(svc.dual_coef_[0])
        a_ours = np.asarray(svm.get_dual_variables())  # in [0, 1/(lambda n)] = [0, C]
        d_svc = a_svc.sum() - 0.5 * (a_svc * yk) @ K @ (a_svc * yk)
        d_ours = a_ours.sum() - 0.5 * (a_ours * yk) @ K @ (a_ours * yk)
        assert abs(d_ours - d_svc) <= 1e-3 * abs(d_svc)
    accuracy_svc = SVC(gamma=gamma).fit(Xtr, ytr).score(Xte, yte)
    assert est.score(Xte, yte) >= accuracy_svc - 0.01
