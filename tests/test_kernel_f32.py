"""Float32 kernel rows (KernelSVM.set_kernel_precision, KernelSVMClassifier's
kernel_precision; docs/kernel.rst, "Float32 kernel rows"): validation, models
close to the float64 rows' ones, threads, pickling and model files."""
import pickle

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.datasets import load_digits

from stochsvm import KernelSVM, KernelSVMClassifier
from stochsvm.model_file import load_model, save_model


@pytest.fixture(scope="module")
def digits():
    """Even against odd digits, X / 16 as float32 (values exact in float32)."""
    X, y = load_digits(return_X_y=True)
    X = (X[:600] / 16).astype(np.float32)
    return X, np.where(y[:600] % 2 == 0, 1.0, -1.0)


def test_default_is_float64(digits):
    X, y = digits
    assert KernelSVM(X, y, 0.01, solver="sdca").get_kernel_precision() == "float64"
    assert KernelSVMClassifier().kernel_precision == "float64"


@pytest.mark.parametrize("bad", ["half", "FLOAT32", np.float32, None, 32])
def test_bad_precision_is_refused(digits, bad):
    X, y = digits
    svm = KernelSVM(X, y, 0.01, solver="sdca")
    with pytest.raises(ValueError, match="kernel_precision"):
        svm.set_kernel_precision(bad)
    assert svm.get_kernel_precision() == "float64"


@pytest.mark.parametrize("solver, kernel, message", [
    ("sdca", "poly", "rbf kernel only"),
    ("sdca", "linear", "rbf kernel only"),
    ("bsca", "rbf", "not available for solver bsca"),
    ("bsgd", "rbf", "not available for solver bsgd"),
])
def test_unsupported_kernels_and_solvers_are_refused(digits, solver, kernel, message):
    X, y = digits
    svm = KernelSVM(X, y, 0.01, solver=solver, kernel=kernel)
    with pytest.raises(ValueError, match=message):
        svm.set_kernel_precision("float32")
    with pytest.raises(ValueError, match="kernel_precision='float32' needs kernel='rbf'"):
        KernelSVMClassifier(solver=solver, kernel=kernel, kernel_precision="float32").fit(X, y)


def test_float64_data_is_refused_by_the_object(digits):
    X, y = digits
    svm = KernelSVM(X.astype(np.float64), y, 0.01, solver="sdca")
    with pytest.raises(ValueError, match="need float32 data"):
        svm.set_kernel_precision("float32")
    svm = KernelSVM(X, y, 0.01, solver="sdca")
    svm.set_kernel_precision("float32")
    with pytest.raises(ValueError, match="kernel_precision float32 needs float32 data"):
        svm.set_data(X.astype(np.float64), y)
    with pytest.raises(ValueError, match="kernel_precision float32 needs float32 data"):
        svm.set_data(sp.csr_matrix(X.astype(np.float64)), y)
    svm.set_data(sp.csr_matrix(X), y)  # float32 CSR is accepted


def test_the_classifier_converts_x_to_float32(digits):
    X, y = digits
    kw = dict(C=10.0, gamma=0.5, kernel_precision="float32")
    a = KernelSVMClassifier(**kw).fit(X.astype(np.float64), y)
    b = KernelSVMClassifier(**kw).fit(X, y)
    np.testing.assert_array_equal(a.decision_function(X), b.decision_function(X))


@pytest.mark.parametrize("sparse", [False, True])
def test_exact_sdca_with_float32_rows_is_close(digits, sparse):
    """LIBSVM's dual solved on float32 rows: the dual objective within 1e-6
    relative of the float64 rows' (a kernel value moves by at most 1.5e-7),
    the same predictions; and the rows are not the float64 ones (the runs
    differ), and they are the same for 1 and 2 threads."""
    X, y = digits
    X = sp.csr_matrix(X) if sparse else X
    models = {}
    for precision, n_jobs in (("float64", 1), ("float32", 1), ("float32", 2)):
        est = KernelSVMClassifier(C=10.0, gamma=0.5, unregularized_bias=True, tol=1e-8,
                                  kernel_precision=precision, n_jobs=n_jobs).fit(X, y)
        models[precision, n_jobs] = est
    d64 = models["float64", 1]._stats[0]["dual_objective"]
    d32 = models["float32", 1]._stats[0]["dual_objective"]
    assert d32 != d64
    assert abs(d32 - d64) <= 1e-6 * abs(d64)
    f64 = models["float64", 1].decision_function(X)
    f32 = models["float32", 1].decision_function(X)
    assert np.max(np.abs(f32 - f64)) < 1e-3
    np.testing.assert_array_equal(np.sign(f32), np.sign(f64))
    np.testing.assert_array_equal(models["float32", 2].decision_function(X), f32)


@pytest.mark.parametrize("solver", ["sbp", "pegasos", "sdca", "perceptron"])
def test_every_row_solver_trains_on_float32_rows(digits, solver):
    X, y = digits
    kw = dict(solver=solver, C=10.0, gamma=0.5, max_iter=3, tol=0)
    a = KernelSVMClassifier(**kw).fit(X, y)
    b = KernelSVMClassifier(kernel_precision="float32", **kw).fit(X, y)
    assert np.mean(a.predict(X) == b.predict(X)) > 0.97


def test_pickle_and_model_file_keep_the_precision(digits, tmp_path):
    X, y = digits
    svm = KernelSVM(X, y, 0.01, solver="sdca", gamma=0.5)
    svm.set_kernel_precision("float32")
    svm.train()
    again = pickle.loads(pickle.dumps(svm))
    assert again.get_kernel_precision() == "float32"
    np.testing.assert_array_equal(again.decision_function(X), svm.decision_function(X))
    est = KernelSVMClassifier(C=10.0, gamma=0.5, kernel_precision="float32").fit(X, y)
    path = tmp_path / "model.ssm"
    save_model(est, path)
    loaded = load_model(path)
    assert loaded.kernel_precision == "float32"
    np.testing.assert_array_equal(loaded.decision_function(X), est.decision_function(X))


def test_warm_start_with_a_new_precision_starts_afresh(digits):
    X, y = digits
    kw = dict(C=10.0, gamma=0.5, max_iter=2, tol=0)
    est = KernelSVMClassifier(warm_start=True, **kw).fit(X, y)
    est.set_params(kernel_precision="float32").fit(X.astype(np.float64), y)
    assert est._svms[0].get_kernel_precision() == "float32"
    fresh = KernelSVMClassifier(kernel_precision="float32", **kw).fit(X, y)
    np.testing.assert_array_equal(est.decision_function(X), fresh.decision_function(X))
    est.set_params(kernel_precision="float64").fit(X.astype(np.float64), y)
    assert est._svms[0].get_kernel_precision() == "float64"
