"""The bad-input matrix of docs/bad_inputs.rst: each bad input and the exact
exception and message it gets. ``MATRIX`` is the one source of truth: the
parametrized test checks every row against the library, and
``test_every_row_is_in_the_docs`` checks that the docs page quotes every
message verbatim (so the table cannot drift from the code).

Extending it: a new entry point (KernelSVM, the estimators, the CLI) adds its
rows here and to the table; a row whose ``exc`` is None documents a bad-looking
input that is accepted on purpose (the check then asserts a finite model).
"""

import os
import threading

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.utils._param_validation import InvalidParameterError

from stochsvm import SVM, HomogeneousKernelMap, KernelSVM, homkermap, svmtrain
from stochsvm import model_file
from stochsvm.kernel import KernelSVMClassifier
from stochsvm.linear import LinearSVMClassifier

DOC = os.path.join(os.path.dirname(__file__), "..", "docs", "bad_inputs.rst")


def _data(n=20, d=3):
    rng = np.random.default_rng(7)
    X = rng.normal(size=(n, d))
    y = np.where(X[:, 0] > 0, 1.0, -1.0)
    return X, y


def _with(value, at=(0, 0)):
    X, y = _data()
    X[at] = value
    return X, y


def _load_junk():
    """Load a file that is not a model file (from the working directory, so
    that the message, which starts with the path, is the same everywhere)."""
    import tempfile
    with tempfile.TemporaryDirectory() as folder:
        cwd = os.getcwd()
        os.chdir(folder)
        try:
            with open("junk.ssvm", "wb") as f:
                f.write(b"not a model")
            model_file.load_model("junk.ssvm")
        finally:
            os.chdir(cwd)


def _svm(solver="sgd", **kw):
    X, y = _data()
    return SVM(X, y, 0.1, solver=solver, **kw)


def _while_training(action):
    """Call ``action(svm)`` while ``svm.train()`` runs on another thread
    (paused inside its first diagnostic)."""
    svm = _svm()
    svm.set_epsilon(0)
    svm.set_max_num_iterations(10 ** 9)
    started, release = threading.Event(), threading.Event()

    def diagnostic(stats):
        started.set()
        release.wait(30)
        return True

    svm.set_diagnostic_function(diagnostic)
    _while_held(svm, svm.train, (), started, release, action)


def _while_held(svm, target, args, started, release, action):
    """Run ``target(*args)`` on another thread, which sets ``started`` and
    waits for ``release``; call ``action(svm)`` meanwhile."""
    worker = threading.Thread(target=target, args=args)
    worker.start()
    try:
        assert started.wait(30)
        action(svm)
    finally:
        release.set()
        worker.join(30)


def _while_scoring(action):
    """Call ``action(svm)`` while ``svm.decision_function`` runs on another
    thread (held inside the object: its X waits in ``__array__``)."""
    svm = _svm()
    svm.train()
    started, release = threading.Event(), threading.Event()

    class HeldX:
        def __array__(self, dtype=None, copy=None):
            started.set()
            release.wait(30)
            return X0

    _while_held(svm, svm.decision_function, (HeldX(),), started, release, action)


def _labels_invalid_for_the_loss():
    X, y = _data()
    svm = SVM(X, 2 * y, 0.1, loss="l2")
    svm.set_loss("hinge")
    svm.train()


def _diverges():
    X, y = _data()
    svm = SVM(X, y, 1e-9, loss="hinge2")
    svm.set_t0(1.0001)
    svm.set_max_num_iterations(1000)
    svm.train()


def _overflows():
    X, y = _data()
    svm = SVM(X * 1e300, y, 0.1)
    svm.set_max_num_iterations(100)
    svm.train()


def _kernel_overflows():
    X, y = _data()
    KernelSVM(X * 1e300, y, 0.1, solver="sdca").train()


def _kernel_values_overflow():
    # CI's fuzzer: K(x_i, x_i) = (||x_i||^2 - 1.79e308)^37 = -inf; the fit
    # "succeeded" and only the decision function raised
    X, y = _data()
    KernelSVMClassifier(solver="bsca", kernel="poly", degree=37, coef0=-1.79e308,
                        gamma=1.0).fit(X, y)


def _kernel_values_overflow_in_the_run():
    # K(x_i, x_i) = (1e200 - 1e200)^3 = 0, K(x_i, x_j) = (-1e200)^3 = -inf for
    # orthogonal rows: trained with a finite primal, a model that cannot score
    X = np.zeros((12, 4))
    X[np.arange(12), np.arange(12) % 4] = np.where(np.arange(12) // 4 % 2, -1e100, 1e100)
    KernelSVMClassifier(solver="sdca", kernel="poly", degree=3, coef0=-1e200,
                        gamma=1.0).fit(X, np.arange(12) % 3 == 0)


def _kernel_values_overflow_in_the_sum():
    # every K(x_i, x_j) = (<x_i, x_j> + 3e102)^3 is finite (~2.7e307), the
    # model's sum of 16 of them is not: SDCA with the bias read its scores
    # from its gradient cache (its pairs' updates cancel) and said
    # "converged" with a model that could not score its rows
    X = (np.arange(96) * 7 % 11 / 5.0 - 1.0).reshape(24, 4)
    svm = KernelSVM(X, np.where(np.arange(24) % 3, 1.0, -1.0), 0.01, solver="sdca",
                    kernel="poly", degree=3, gamma=1.0, coef0=3e102)
    svm.set_unregularized_bias(True)
    svm.train()


def _csr(indices, data=None, n=20, d=3):
    """A CSR matrix whose first row holds ``indices`` (the other rows are empty)."""
    data = np.ones(len(indices)) if data is None else np.asarray(data, dtype=float)
    indptr = np.array([0] + [len(indices)] * n)
    return sp.csr_matrix((data, np.array(indices), indptr), shape=(n, d))


def _one_class():
    X, _ = _data()
    svm = SVM(X, np.ones(20), 0.1)
    svm.train()
    return svm


def _unsorted_csr():
    _, y = _data()
    a = SVM(_csr([2, 0], [1.0, 2.0]), y, 0.1)
    b = SVM(_csr([0, 2], [2.0, 1.0]), y, 0.1)
    a.train()
    b.train()
    np.testing.assert_array_equal(a.get_model(), b.get_model())
    return a


def _duplicate_csr():
    _, y = _data()
    a = SVM(_csr([1, 1], [1.0, 2.0]), y, 0.1)
    b = SVM(_csr([1], [3.0]), y, 0.1)
    a.train()
    b.train()
    np.testing.assert_array_equal(a.get_model(), b.get_model())
    return a


def _untrained_statistics():
    stats = _svm().get_statistics()
    assert stats["status"] == "untrained"
    assert all(np.isnan(stats[k]) for k in ("objective", "regularizer", "loss", "dual_objective",
                                            "duality_gap", "scores_variation"))
    return None


# -- issue 19: model files as untrusted input --------------------------------------------

def _sections(blob):
    """(header, [[tag, payload], ...]) of an encoded model file."""
    import struct
    head, at, out = blob[:16], 16, []
    while at < len(blob):
        (length,) = struct.unpack("<Q", blob[at + 4:at + 12])
        out.append([blob[at:at + 4], blob[at + 12:at + 12 + length]])
        at += 16 + length
    return head, out


def _assemble(head, sections):
    """The file of these sections, with their lengths and CRC-32s recomputed."""
    import struct
    import zlib
    blob = bytearray(head[:12]) + struct.pack("<I", len(sections))
    for tag, payload in sections:
        part = tag + struct.pack("<Q", len(payload)) + payload
        blob += part + struct.pack("<I", zlib.crc32(part))
    return bytes(blob)


def _svm_file(**replace):
    """A valid SVM model file with some section payloads replaced ({tag: payload})."""
    svm = _svm()
    svm.train()
    head, sections = _sections(model_file.model_bytes(svm))
    return _assemble(head, [[t, replace.get(t.decode(), p)] for t, p in sections])


def _poly_degree_file():
    """A kernel model file whose polynomial degree is 10**9 (the KERN payload's i32 at 4)."""
    import struct
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est = KernelSVMClassifier(kernel="poly", max_iter=1).fit(X0, Y0)
    head, sections = _sections(model_file.model_bytes(est))
    return _assemble(head, [[t, p[:4] + struct.pack("<i", 10 ** 9) + p[8:] if t == b"KERN"
                             else p] for t, p in sections])


def _huge_section_length_file():
    blob = bytearray(_svm_file())
    blob[20:28] = b"\xff" * 8             # the HEAD section's length: 2**64 - 1
    return bytes(blob)


def _load_bytes(data):
    """load_model of a file holding ``data``, named ``m.ssvm`` in the working
    directory (so that the message, which starts with the name, is fixed)."""
    import tempfile
    with tempfile.TemporaryDirectory() as folder:
        cwd = os.getcwd()
        os.chdir(folder)
        try:
            with open("m.ssvm", "wb") as f:
                f.write(data() if callable(data) else data)
            return model_file.load_model("m.ssvm")
        finally:
            os.chdir(cwd)


def _iteration_number_without_room():
    svm = _svm()
    svm.set_max_num_iterations(100)
    svm.set_iteration_number(2 ** 63 - 1)


def _cap_raised_without_room():
    svm = _svm()
    svm.set_max_num_iterations(100)
    svm.set_iteration_number(2 ** 63 - 101)
    svm.set_max_num_iterations(200)  # the setters allow either order: train() checks
    svm.train()


def _kernel_cap_without_room():
    svm = KernelSVM(X0, Y0, 0.1, solver="perceptron")
    svm.set_max_num_iterations(20)
    svm.train()
    svm.set_max_num_iterations(2 ** 63 - 1)
    svm.train()


def _meta(python_class, **more):
    import json
    return json.dumps({"python_class": python_class, **more}).encode()


X0, Y0 = _data()

# (row id, call, exception type or None, exact message or None)
MATRIX = [
    # data
    ("nan-in-X", lambda: SVM(*_with(np.nan), 0.1), ValueError,
     "X contains NaN or infinity; remove or impute those values first"),
    ("inf-in-X", lambda: SVM(*_with(np.inf), 0.1), ValueError,
     "X contains NaN or infinity; remove or impute those values first"),
    ("inf-in-sparse-X", lambda: SVM(_csr([1], [np.inf]), Y0, 0.1), ValueError,
     "X contains NaN or infinity; remove or impute those values first"),
    ("empty-X-no-rows", lambda: SVM(np.zeros((0, 3)), [], 0.1), ValueError,
     "X is empty (shape (0, 3)); it needs at least one example (row) and one feature (column)"),
    ("empty-X-no-columns", lambda: SVM(np.zeros((3, 0)), [1, 1, 1], 0.1), ValueError,
     "X is empty (shape (3, 0)); it needs at least one example (row) and one feature (column)"),
    ("X-1d", lambda: SVM(X0[:, 0], Y0, 0.1), ValueError,
     "X must be a 2-D array (n examples x d features), got a 1-D array of shape (20,); for a "
     "single example use X.reshape(1, -1), for a single feature X.reshape(-1, 1)"),
    ("X-complex", lambda: SVM(X0.astype(complex), Y0, 0.1), TypeError,
     "X has a complex dtype (complex128); stochsvm needs real numbers: take the real part or "
     "the magnitude explicitly"),
    ("X-object", lambda: SVM(X0.astype(object), Y0, 0.1), TypeError,
     "X has dtype object, which is not numeric; convert it to float32 or float64 "
     "(e.g. X.astype(np.float64))"),
    ("csr-unsorted-indices", _unsorted_csr, None, None),
    ("csr-duplicate-indices", _duplicate_csr, None, None),
    ("csr-index-out-of-range", lambda: SVM(_csr([5]), Y0, 0.1), ValueError,
     "X is not a valid CSR matrix: a column index is out of range [0, 3)"),
    ("csr-column-beyond-int32",
     lambda: SVM(sp.csr_matrix((np.ones(1), np.array([2 ** 40]), np.array([0, 1])),
                               shape=(1, 2 ** 41)), [1], 0.1), ValueError,
     "X has 2199023255552 columns; stochsvm's sparse format indexes columns with 32-bit "
     "integers, so at most 2**31 = 2147483648"),
    ("data-squares-overflow", _overflows, ValueError,
     "row 0 of the data X has a squared norm that is not finite (inf): its values overflow "
     "when squared; scale the features (e.g. to unit variance)"),
    ("kernel-data-squares-overflow", _kernel_overflows, ValueError,
     "row 0 of the data X has a squared norm that is not finite (inf): its values overflow "
     "when squared; scale the features (e.g. to unit variance)"),
    ("kernel-values-overflow", _kernel_values_overflow, ValueError,
     "train: the kernel's values overflow: K(x_0, x_0) = -inf for finite row 0 of X with the "
     "polynomial kernel (degree 37, gamma 1, coef0 -1.79e+308); lower the degree, gamma or "
     "|coef0|, or scale X"),
    ("kernel-values-overflow-in-the-run", _kernel_values_overflow_in_the_run, ValueError,
     "train: the kernel's values overflow: K(x_1, z_0) = -inf for finite row 1 of X and support "
     "vector 0 with the polynomial kernel (degree 3, gamma 1, coef0 -1e+200); lower the degree, "
     "gamma or |coef0|, or scale X"),
    ("kernel-values-overflow-in-the-sum", _kernel_values_overflow_in_the_sum, ValueError,
     "train: the kernel's values overflow: finite row 0 of X has no finite score: its 16 kernel "
     "values reach 2.7e+307 with the polynomial kernel (degree 3, gamma 1, coef0 3e+102); lower "
     "the degree, gamma or |coef0|, or scale X"),
    # labels
    ("nan-in-y", lambda: SVM(X0, np.where(np.arange(20) == 3, np.nan, Y0), 0.1), ValueError,
     "y contains NaN or infinity; labels must be -1 or +1"),
    ("labels-0-1", lambda: SVM(X0, (Y0 + 1) / 2, 0.1), ValueError,
     "y must contain only the labels -1 and +1, found {0, 1}; convert 0/1 labels with y = 2*y - 1"),
    ("labels-not-pm1", lambda: SVM(X0, Y0 + 2, 0.1), ValueError,
     "y must contain only the labels -1 and +1, found {1, 3}; map your two classes to -1 and "
     "+1, e.g. y = np.where(y == positive_class, 1, -1)"),
    ("labels-invalid-for-the-loss", _labels_invalid_for_the_loss, ValueError,
     "the labels are not valid for the hinge loss: they must be -1 or +1, got labels[0] = "
     "2 (the regression losses l1 and l2 take any finite label)"),
    ("one-class-only", _one_class, None, None),
    ("y-object", lambda: SVM(X0, Y0.astype(object), 0.1), TypeError,
     "y must contain the numbers -1 and +1, got dtype object"),
    ("y-2d", lambda: SVM(X0, Y0[:, None], 0.1), ValueError,
     "y must be a 1-D array of labels, got shape (20, 1); use y.ravel()"),
    ("mismatched-lengths", lambda: SVM(X0, Y0[:5], 0.1), ValueError,
     "y has 5 labels but X has 20 rows (examples); they must match"),
    # parameters
    ("lambda-zero", lambda: SVM(X0, Y0, 0.0), ValueError,
     "lambda_ must be a number in [1e-150, 1e150], got 0.0"),
    ("lambda-negative", lambda: svmtrain(X0, Y0, -1), ValueError,
     "lambda_ must be a number in [1e-150, 1e150], got -1"),
    ("lambda-nan", lambda: SVM(X0, Y0, float("nan")), ValueError,
     "lambda_ must be a number in [1e-150, 1e150], got nan"),
    ("lambda-bool", lambda: SVM(X0, Y0, True), TypeError,
     "lambda_ must be a real number, got a boolean (True)"),
    ("negative-weights", lambda: _svm().set_weights(-np.ones(20)), ValueError,
     "weights must be 20 finite values >= 0 (set_weights: weights[0] must be finite and >="
     " 0, got -1)"),
    ("weights-wrong-length", lambda: svmtrain(X0, Y0, 0.1, weights=np.ones(3)), ValueError,
     "weights must be a 1-D array of 20 values (one per example), got shape (3,)"),
    ("max-num-iterations-zero", lambda: _svm().set_max_num_iterations(0), ValueError,
     "max_num_iterations must be an integer >= 1, got 0"),
    ("t0-at-most-1", lambda: _svm().set_t0(0.5), ValueError,
     "t0 must be a finite number > 1, got 0.5"),
    ("epsilon-negative", lambda: _svm().set_epsilon(-1), ValueError,
     "epsilon must be a finite number >= 0 (0 disables the stopping rule), got -1"),
    ("bias-multiplier-negative", lambda: _svm().set_bias_multiplier(-1), ValueError,
     "bias_multiplier must be a finite number >= 0 (0: the bias is not learned), got -1"),
    ("seed-negative", lambda: SVM(X0, Y0, 0.1, seed=-1), ValueError,
     "seed must be an integer in [0, 2**64), got -1"),
    ("verbose-not-an-integer", lambda: svmtrain(X0, Y0, 0.1, verbose="a"), TypeError,
     "verbose must be an integer, got str ('a')"),
    ("unknown-solver", lambda: svmtrain(X0, Y0, 0.1, solver="x"), ValueError,
     "solver must be one of 'sgd', 'sdca', 'none', 'svmsgd2', 'sgdqn', 'res', 'lres', got 'x'"),
    ("unknown-loss", lambda: SVM(X0, Y0, 0.1, loss="nope"), ValueError,
     "loss must be one of 'hinge', 'hinge2', 'squared_hinge', 'logistic', 'l1', 'l2', got 'nope'"),
    ("diverging-training", _diverges, FloatingPointError,
     "training diverged: the objective rose to 5.96e+267, over 1e4 times its value at w = "
     "0 (1), by iteration 40 (solver sgd): the steps are too large for the scale of the "
     "data. The model is not reliable: reset it (set_model, set_bias, "
     "set_iteration_number) and use a larger t0 (a smaller step; for res/lres a smaller "
     "eps0), a larger lambda, a smaller bias_learning_rate, or scaled data"),
    # the homogeneous kernel map
    ("kernel-gamma-zero", lambda: HomogeneousKernelMap(gamma=0), ValueError,
     "gamma must be a finite number > 0, got 0"),
    ("kernel-gamma-negative", lambda: svmtrain(X0, Y0, 0.1, homkermap={"gamma": -1}), ValueError,
     "gamma must be a finite number > 0, got -1"),
    ("kernel-map-order", lambda: HomogeneousKernelMap(order=100), ValueError,
     "order must be an integer in [0, 64], got 100"),
    ("kernel-map-period-tiny", lambda: HomogeneousKernelMap(period=1e-310), ValueError,
     "period must be > 2.6e-305 (the angle 2 pi / period * ln(x) must stay finite), got 1e-310"),
    # the kernel SVM (KernelSVM) and its kernel
    ("budget-zero", lambda: KernelSVM(X0, Y0, 0.1, solver="bsgd").set_budget(0), ValueError,
     "budget must be an integer >= 1, got 0"),
    ("kernel-svm-bias-unsupported",
     lambda: KernelSVM(X0, Y0, 0.1, solver="pegasos").set_unregularized_bias(True), ValueError,
     "unregularized_bias=True needs the solver 'sbp', 'bsca' or 'sdca'; this KernelSVM's "
     "solver 'pegasos' has no bias"),
    # (any value by its truth: "False", nan and [0] switched them on)
    ("kernel-svm-bias-string", lambda: KernelSVM(X0, Y0, 0.1, solver="sbp").set_unregularized_bias(
        "False"), TypeError, "unregularized_bias must be True or False, got 'False'"),
    ("kernel-svm-shrinking-nan", lambda: KernelSVM(X0, Y0, 0.1).set_shrinking(float("nan")),
     TypeError, "shrinking must be True or False, got nan"),
    ("kernel-svm-gamma-zero", lambda: KernelSVM(X0, Y0, 0.1, kernel="rbf", gamma=0), ValueError,
     "gamma must be a finite number > 0, got 0"),
    ("kernel-svm-gamma-negative", lambda: KernelSVM(X0, Y0, 0.1, kernel="rbf", gamma=-1), ValueError,
     "gamma must be a finite number > 0, got -1"),
    ("kernel-svm-lambda-zero", lambda: KernelSVM(X0, Y0, 0.0), ValueError,
     "lambda_ must be a number in [1e-150, 1e150], got 0.0"),
    ("kernel-svm-degree-zero", lambda: KernelSVM(X0, Y0, 0.1, kernel="poly", degree=0), ValueError,
     "degree must be an integer in [1, 64], got 0"),
    ("kernel-svm-nu-zero", lambda: KernelSVM(X0, Y0, 0.1, solver="sbp").set_nu(0), ValueError,
     "nu must be a finite number > 0, got 0"),
    ("kernel-svm-nu-not-sbp", lambda: KernelSVM(X0, Y0, 0.1, solver="sdca").set_nu(0.1),
     ValueError, "nu applies to solver 'sbp' only; this KernelSVM's solver 'sdca' has no slack "
     "budget"),
    ("kernel-svm-eta0-not-sbp", lambda: KernelSVM(X0, Y0, 0.1, solver="pegasos").set_eta0(0.5),
     ValueError, "eta0 applies to solver 'sbp' only; this KernelSVM's solver 'pegasos' has no "
     "eta0"),
    ("kernel-svm-budget-not-budgeted", lambda: KernelSVM(X0, Y0, 0.1, solver="sbp").set_budget(10),
     ValueError, "budget applies to the solvers 'bsca' and 'bsgd' only; this KernelSVM's solver "
     "'sbp' keeps every support vector"),
    ("kernel-svm-merge-without-rbf",
     lambda: KernelSVM(X0, Y0, 0.1, solver="bsgd", kernel="linear").set_budget_maintenance("merge"),
     ValueError, "budget_maintenance='merge' needs the rbf kernel; use 'remove' or 'project' with "
     "other kernels"),
    ("kernel-svm-precomputed-not-square", lambda: KernelSVM(X0, Y0, 0.1, kernel="precomputed"),
     ValueError, "with kernel='precomputed' X must be the square n x n Gram matrix, got shape (20, 3)"),
    ("kernel-svm-budgeted-precomputed",
     lambda: KernelSVM(X0 @ X0.T, Y0, 0.1, solver="bsgd", kernel="precomputed"), ValueError,
     "solver='bsgd' does not support kernel='precomputed' (budget maintenance needs the feature "
     "vectors); use another kernel or solver"),
    ("kernel-svm-labels-not-pm1", lambda: KernelSVM(X0, 2 * Y0, 0.1), ValueError,
     "y must contain only the labels -1 and +1, found {-2, 2}; map your two classes to -1 and +1, "
     "e.g. y = np.where(y == positive_class, 1, -1)"),
    ("kernel-svm-weights-negative",
     lambda: KernelSVM(X0, Y0, 0.1, solver="sdca").set_weights(-np.ones(20)), ValueError,
     "weights must be 20 finite values >= 0 (set_weights: weights[0] must be finite and >="
     " 0, got -1)"),
    ("kernel-svm-weights-nan",
     lambda: KernelSVM(X0, Y0, 0.1, solver="sdca").set_weights(np.full(20, np.nan)), ValueError,
     "weights must be 20 finite values >= 0 (set_weights: weights[0] must be finite and >="
     " 0, got nan)"),
    ("kernel-svm-weights-wrong-length",
     lambda: KernelSVM(X0, Y0, 0.1, solver="sdca").set_weights(np.ones(3)), ValueError,
     "weights must be a 1-D array of 20 values (one per example), got shape (3,)"),
    ("kernel-svm-weights-sbp",
     lambda: KernelSVM(X0, Y0, 0.1, solver="sbp").set_weights(np.arange(20.0)), ValueError,
     "weights are not supported by solver='sbp' (its slack-constrained problem has no weighted "
     "form here); use 'sdca', 'pegasos', 'perceptron', 'bsca' or 'bsgd'"),
    # the scikit-learn estimators
    ("estimator-C-negative", lambda: LinearSVMClassifier(C=-1).fit(X0, Y0), InvalidParameterError,
     "The 'C' parameter of LinearSVMClassifier must be a float in the range (0.0, inf) or None. "
     "Got -1 instead."),
    ("estimator-one-class", lambda: LinearSVMClassifier().fit(X0, np.ones(20)), ValueError,
     "the training data need samples of at least 2 classes; got 1 class (np.float64(1.0))"),
    ("estimator-wrong-dimension", lambda: LinearSVMClassifier().fit(X0, Y0).predict(X0[:, :2]),
     ValueError, "X has 2 features, but LinearSVMClassifier is expecting 3 features as input."),
    ("kernel-estimator-gamma-negative", lambda: KernelSVMClassifier(gamma=-1).fit(X0, Y0),
     InvalidParameterError, "The 'gamma' parameter of KernelSVMClassifier must be a float in the "
     "range (0.0, inf), a str among {'scale', 'auto'} or None. Got -1 instead."),
    ("kernel-estimator-mismatched-lengths", lambda: KernelSVMClassifier().fit(X0, Y0[:5]), ValueError,
     "Found input variables with inconsistent numbers of samples: [20, 5]"),
    ("kernel-estimator-sbp-sample-weight",
     lambda: KernelSVMClassifier(solver="sbp").fit(X0, Y0, sample_weight=np.arange(20.0)),
     ValueError, "sample_weight and class_weight (weights that differ between examples or "
     "between a class and another) are not supported by solver='sbp', whose slack-constrained "
     "problem has no weighted form; use 'sdca', 'pegasos', 'perceptron', 'bsca' or 'bsgd'"),
    ("kernel-estimator-negative-sample-weight",
     lambda: KernelSVMClassifier().fit(X0, Y0, sample_weight=-np.ones(20)), ValueError,
     "sample_weight must be >= 0"),
    ("kernel-estimator-budget-without-budget-solver",
     lambda: KernelSVMClassifier(budget=10).fit(X0, Y0), ValueError,
     "budget applies to the budgeted solvers 'bsca', 'bsgd' only; solver='sdca' keeps every "
     "support vector (leave budget=None)"),
    ("kernel-estimator-nu-not-sbp", lambda: KernelSVMClassifier(solver="sdca", nu=0.1).fit(X0, Y0),
     ValueError, "nu is the SBP's setting; solver='sdca' has none and would ignore it (leave "
     "nu=None)"),
    ("kernel-estimator-budget-maintenance-unknown",
     lambda: KernelSVMClassifier(solver="bsca", budget_maintenance="drop").fit(X0, Y0),
     InvalidParameterError, "The 'budget_maintenance' parameter of KernelSVMClassifier must be a "
     "str among {'auto', 'merge', 'remove', 'project'} or None. Got 'drop' instead."),
    ("kernel-estimator-class-weight-unknown",
     lambda: KernelSVMClassifier(class_weight="heavy").fit(X0, Y0), InvalidParameterError,
     "The 'class_weight' parameter of KernelSVMClassifier must be an instance of 'dict', a str "
     "among {'balanced'} or None. Got 'heavy' instead."),
    # model files
    ("model-file-not-a-model", _load_junk, model_file.ModelFileError,
     "junk.ssvm: not a stochsvm model file (wrong signature)"),
    ("model-file-save-unknown-object", lambda: model_file.save_model(object(), "never-written.ssvm"),
     TypeError, "cannot save a object: expected a stochsvm estimator, an SVM or a model dict"),
    # warm start
    ("warm-start-model-wrong-dimension", lambda: svmtrain(X0, Y0, 0.1, solver="sgd",
                                                          model=np.zeros(2)), ValueError,
     "model must be a 1-D array of 3 values (the dimension), got shape (2,)"),
    ("warm-start-data-wrong-dimension", lambda: _svm().set_data(X0[:, :2], Y0), ValueError,
     "X has 2 features (columns), but this SVM has dimension 3"),
    ("sdca-given-a-model", lambda: _svm("sdca").set_model(np.zeros(3)), RuntimeError,
     "the sdca solver derives its model from the dual variables: use set_dual_variables "
     "instead of set_model"),
    ("sdca-dual-variables-out-of-domain", lambda: _svm("sdca").set_dual_variables(np.full(20, 5.0)),
     ValueError,
     "alpha must be 20 finite values, each in the domain of the hinge loss's conjugate "
     "(set_dual_variables: alpha[0] = 5 is outside the domain of the hinge loss (label 1, "
     "weight 1))"),
    ("dual-variables-wrong-length", lambda: _svm("sdca").set_dual_variables(np.zeros(3)), ValueError,
     "alpha must be a 1-D array of 20 values (the number of examples), got shape (3,)"),
    # state
    ("scores-before-training", lambda: _svm().get_scores(), RuntimeError,
     "no scores yet: call train() first (scores are computed at every diagnostic)"),
    ("statistics-before-training", _untrained_statistics, None, None),
    ("train-twice-concurrently", lambda: _while_training(lambda svm: svm.train()), RuntimeError,
     "train() is already running on this SVM"),
    ("setter-during-training", lambda: _while_training(lambda svm: svm.set_lambda(1.0)), RuntimeError,
     "cannot call set_lambda() while train() is running on this SVM"),
    ("setter-while-scoring", lambda: _while_scoring(lambda svm: svm.set_num_threads(2)),
     RuntimeError, "cannot call set_num_threads() while another thread is scoring with this SVM "
     "(decision_function, predict, estimate_nu or nu_from_model is running): call it after "
     "they return"),
    # issue 19: ranges, Python values beyond C's, ragged and mixed inputs
    ("lambda-subnormal", lambda: SVM(X0, Y0, 1e-320, solver="sdca"), ValueError,
     "lambda_ must be a number in [1e-150, 1e150], got 1e-320"),
    ("kernel-svm-lambda-subnormal", lambda: KernelSVM(X0, Y0, 1e-320), ValueError,
     "lambda_ must be a number in [1e-150, 1e150], got 1e-320"),
    ("estimator-C-beyond-lambda-range", lambda: LinearSVMClassifier(C=1e300).fit(X0, Y0),
     ValueError, "C = 1e+300 with n = 20 examples gives lambda = 1/(C n) = 5e-302, outside the "
     "valid range [1e-150, 1e150]; choose C in [5e-152, 5e+148]"),
    ("iteration-number-without-room", _iteration_number_without_room, ValueError, "iteration_number must leave room for max_num_iterations = 100 more iterations "
     "(at most 9223372036854775707), got 9223372036854775807"),
    ("cap-raised-without-room", _cap_raised_without_room, RuntimeError,
     "the iteration number 9223372036854775707 leaves no room for max_num_iterations = 200 "
     "more iterations (the counter is a 64-bit integer): lower set_iteration_number or "
     "set_max_num_iterations"),
    ("kernel-svm-cap-without-room", _kernel_cap_without_room, RuntimeError,
     "the iteration number 20 leaves no room for max_num_iterations = 9223372036854775807 more "
     "iterations (the counter is a 64-bit integer): lower set_max_num_iterations"),
    ("bias-integer-beyond-double", lambda: _svm().set_bias(10 ** 400), ValueError,
     "bias must be a finite number, got an integer of 1329 bits, beyond the range of doubles"),
    ("X-ragged-list", lambda: SVM([[1.0, 2.0], [3.0]], [1, -1], 0.1), ValueError,
     "X must be a rectangular array of numbers, got a ragged nested sequence (rows of "
     "different lengths)"),
    ("y-ragged-list", lambda: SVM(X0[:2], [[1], [1, 2]], 0.1), ValueError,
     "y must be a rectangular array of numbers, got a ragged nested sequence (rows of "
     "different lengths)"),
    ("estimator-X-ragged-list", lambda: LinearSVMClassifier().fit([[1.0, 2.0], [3.0]], [0, 1]),
     ValueError, "X must be a rectangular array of numbers, got a ragged nested sequence (rows "
     "of different lengths)"),
    ("estimator-mixed-label-types",
     lambda: LinearSVMClassifier().fit(X0, np.array(["a", 1] * 10, dtype=object)), TypeError,
     "y mixes labels that cannot be compared (int, str); give labels of one type (all strings "
     "or all numbers)"),
    ("kernel-estimator-mixed-label-types",
     lambda: KernelSVMClassifier().fit(X0, np.array(["a", 1] * 10, dtype=object)), TypeError,
     "y mixes labels that cannot be compared (int, str); give labels of one type (all strings "
     "or all numbers)"),
    ("homkermap-init-twice", lambda: HomogeneousKernelMap().__init__("js"), RuntimeError,
     "HomogeneousKernelMap.__init__ cannot be called twice (an SVM may be using the map); "
     "create a new HomogeneousKernelMap"),
    ("homkermap-overflow", lambda: homkermap(np.array([[1e300]]), gamma=4.0), ValueError,
     "the map overflows in float64: |x|**(gamma/2) is not finite for gamma 4.0 and the "
     "largest |x|; scale X down or lower gamma"),
    # issue 19: model files are untrusted input
    ("model-file-metadata-not-utf8", lambda: _load_bytes(lambda: _svm_file(META=b"\xff\xfe")),
     model_file.ModelFileError,
     "m.ssvm: inconsistent model: the metadata is not UTF-8 text (byte 0)"),
    ("model-file-metadata-json-not-object", lambda: _load_bytes(lambda: _svm_file(META=b"[1, 2]")),
     model_file.ModelFileError, "m.ssvm: the metadata section is JSON but not an object (got list)"),
    ("model-file-metadata-json-too-deep",
     lambda: _load_bytes(lambda: _svm_file(META=b"[" * 100000 + b"]" * 100000)),
     model_file.ModelFileError, "m.ssvm: the metadata section is JSON nested too deeply"),
    ("model-file-metadata-plain-text",
     lambda: _load_bytes(lambda: _svm_file(META=b"written by a C program")), None, None),
    ("model-file-class-mismatch",
     lambda: _load_bytes(lambda: _svm_file(META=_meta("stochsvm.kernel.KernelSVMClassifier"))),
     model_file.ModelFileError, "m.ssvm: the metadata names stochsvm.kernel.KernelSVMClassifier, "
     "which does not hold a linear binary model"),
    ("model-file-missing-params",
     lambda: _load_bytes(lambda: _svm_file(META=_meta("stochsvm.linear.LinearSVMClassifier"))),
     model_file.ModelFileError,
     "m.ssvm: the metadata names stochsvm.linear.LinearSVMClassifier but has no params object"),
    ("model-file-invalid-params",
     lambda: _load_bytes(lambda: _svm_file(META=_meta("stochsvm.linear.LinearSVMClassifier",
                                                      params={"C": -1, "solver": "sgd"}))),
     model_file.ModelFileError, "m.ssvm: the saved parameters are invalid (The 'C' parameter of "
     "LinearSVMClassifier must be a float in the range (0.0, inf) or None. Got -1 instead.)"),
    ("model-file-section-length-2**64-1", lambda: _load_bytes(_huge_section_length_file),
     model_file.ModelFileError, "m.ssvm: truncated file: section 1 of 4 declares "
     "18446744073709551615 bytes of payload, 327 remain"),
    ("model-file-poly-degree-1e9", lambda: _load_bytes(_poly_degree_file), model_file.ModelFileError,
     "m.ssvm: the saved parameters are invalid (degree must be an integer in [1, 64], got "
     "1000000000)"),
    ("model-file-load-int", lambda: model_file.load_model(123), model_file.ModelFileError,
     "123: path must be a file name (str or os.PathLike), got int"),
    ("model-file-save-nul-in-path", lambda: model_file.save_model(_svm(), "a\x00b"), ValueError,
     "'a\\x00b': path contains a NUL character"),
    ("model-file-save-int-path", lambda: model_file.save_model(_svm(), 3), TypeError,
     "3: path must be a file name (str or os.PathLike), got int"),
]


@pytest.mark.parametrize("row, call, exc, message", MATRIX, ids=[r[0] for r in MATRIX])
def test_bad_input(row, call, exc, message):
    if exc is None:
        result = call()
        if isinstance(result, SVM):
            assert np.all(np.isfinite(result.get_model())) and np.isfinite(result.get_bias())
        return
    with pytest.raises(exc) as info:
        call()
    assert type(info.value) is exc
    assert str(info.value) == message


def test_row_ids_are_unique():
    ids = [r[0] for r in MATRIX]
    assert len(ids) == len(set(ids))


def test_every_row_is_in_the_docs():
    with open(DOC, encoding="utf-8") as f:
        text = " ".join(f.read().split())
    for row, _, exc, message in MATRIX:
        assert f"``{row}``" in text, f"row {row} is missing from docs/bad_inputs.rst"
        if exc is not None:
            assert " ".join(message.split()) in text, f"the message of row {row} differs from the docs"
