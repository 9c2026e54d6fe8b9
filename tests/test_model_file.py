"""Model files (stochsvm.model_file over src/core/model/model_file.c): round trips of
every model kind, corrupted/truncated/newer files, atomic writes, and the C
example (examples/score_model.c) scoring models trained here."""

import os
import shutil
import subprocess
import sys
import zlib
from pathlib import Path

import numpy as np
import pytest

import stochsvm
from stochsvm.model_file import (FORMAT_VERSION, ModelFileError, ModelFileVersionError,
                                 load_model, model_bytes, read_model, save_model)

ROOT = Path(__file__).resolve().parent.parent


def _blobs(n, d, k, seed):
    rng = np.random.default_rng(seed)
    y = np.arange(n) % k
    X = rng.normal(size=(k, d))[y] * 1.5 + rng.normal(size=(n, d))
    return X, y


def _models():
    """(name, fitted object, X) for every kind the Python side saves."""
    pytest.importorskip("sklearn")
    from stochsvm import LinearSVMClassifier, LinearSVMRegressor

    X2, y2 = _blobs(80, 4, 2, 0)
    X3, y3 = _blobs(90, 4, 3, 1)
    Xr = X3
    yr = Xr @ np.array([1.0, -2.0, 0.5, 0.0]) + 0.3
    Xh = np.abs(X2)
    svm = stochsvm.SVM(Xh, np.where(y2 == 1, 1.0, -1.0), 0.01, homkermap=stochsvm.HomogeneousKernelMap(
        "chi2", order=2))
    svm.train()
    plain = stochsvm.SVM(X2, np.where(y2 == 1, 1.0, -1.0), 0.01, solver="sdca")
    plain.train()
    short = dict(tol=0, max_iter=20)  # tol=0: no ConvergenceWarning (an error under pytest)
    return [
        ("binary", LinearSVMClassifier(**short).fit(X2, y2), X2),
        ("ovr", LinearSVMClassifier(solver="sgd", loss="logistic", **short).fit(X3, y3 + 10), X3),
        ("strings", LinearSVMClassifier(**short).fit(X3, np.array(["ant", "bee", "cat"])[y3]), X3),
        ("regression", LinearSVMRegressor(**short).fit(Xr, yr), Xr),
        ("svm_homkermap", svm, Xh),
        ("svm", plain, X2),
    ]


@pytest.fixture(scope="module")
def models():
    return _models()


def _scores(obj, X):
    return obj.decision_function(X) if hasattr(obj, "decision_function") else obj.predict(X)


def test_round_trip_every_kind(models, tmp_path):
    for name, obj, X in models:
        path = tmp_path / f"{name}.ssvm"
        save_model(obj, path)
        back = load_model(path)
        assert type(back) is type(obj), name
        np.testing.assert_array_equal(_scores(back, X), _scores(obj, X), err_msg=name)
        if hasattr(obj, "classes_"):
            np.testing.assert_array_equal(back.classes_, obj.classes_)
            assert back.classes_.dtype == obj.classes_.dtype
            np.testing.assert_array_equal(back.predict(X), obj.predict(X))
            assert back.get_params() == obj.get_params()
        if hasattr(obj, "n_features_in_"):
            assert back.n_features_in_ == obj.n_features_in_
        # saving what was loaded gives the same bytes
        assert model_bytes(back) == path.read_bytes(), name
        d = read_model(path)
        assert d["format_version"] == FORMAT_VERSION and d["kind"] == "linear"


def test_loaded_estimator_continues_training(tmp_path):
    pytest.importorskip("sklearn")
    from stochsvm import LinearSVMClassifier

    X, y = _blobs(120, 3, 3, 2)
    a = LinearSVMClassifier(solver="sgd", random_state=4)
    for _ in range(2):
        a.partial_fit(X, y, classes=[0, 1, 2])
    save_model(a, tmp_path / "a.ssvm")
    b = load_model(tmp_path / "a.ssvm")
    a.partial_fit(X, y)
    b.partial_fit(X, y)
    # the SGD schedule continues from the saved iteration number: same model
    np.testing.assert_allclose(b.coef_, a.coef_, rtol=1e-13, atol=1e-15)


@pytest.mark.parametrize("solver", ["sdca", "sgd", "svmsgd2", "sgdqn", "res", "lres"])
def test_what_partial_fit_continues_after_a_pickle_and_a_model_file(tmp_path, solver):
    """As docs/model_file.rst (META) and docs/estimators.rst say: after a
    pickle partial_fit continues every solver exactly but SDCA, whose dual
    variables neither a pickle nor a file keeps (model_file.rst said a pickle
    continued SDCA exactly: it differs by 0.7 in coef_ on heart); after a
    model file, SGD and SVMSGD2 exactly (the others approximately), and SDCA
    starts again as after a pickle."""
    import pickle

    from stochsvm import LinearSVMClassifier

    X, y = _blobs(120, 3, 2, 6)
    a = LinearSVMClassifier(solver=solver, random_state=4).partial_fit(X, y, classes=[0, 1])
    pickled = pickle.loads(pickle.dumps(a))
    save_model(a, tmp_path / "a.ssvm")
    loaded = load_model(tmp_path / "a.ssvm")
    a.partial_fit(X, y)
    for est in (pickled, loaded):
        if solver == "sdca":   # the training data are gone: SDCA says it starts again
            with pytest.warns(UserWarning, match="restarts the dual variables"):
                est.partial_fit(X, y)
        else:
            est.partial_fit(X, y)
    if solver == "sdca":
        np.testing.assert_array_equal(loaded.coef_, pickled.coef_)
        assert not np.array_equal(pickled.coef_, a.coef_)
    else:
        np.testing.assert_array_equal(pickled.coef_, a.coef_)
    if solver in ("sgd", "svmsgd2"):
        np.testing.assert_array_equal(loaded.coef_, a.coef_)


def test_c_written_model_loads_as_dict_or_svm(tmp_path):
    # No metadata (as a C program would write): a linear binary -1/+1 model
    # loads as an SVM, anything else as the plain dict.
    from stochsvm import _model_file

    w = np.array([[1.0, -2.0]])
    _model_file.save({"kind": "linear", "task": "binary", "dimension": 2, "labels": [-1.0, 1.0],
                      "weights": w, "biases": [0.5]}, tmp_path / "c.ssvm")
    svm = load_model(tmp_path / "c.ssvm")
    assert isinstance(svm, stochsvm.SVM)
    np.testing.assert_array_equal(svm.decision_function(np.eye(2)), [1.5, -1.5])
    _model_file.save({"kind": "kernel", "task": "regression", "dimension": 2, "kernel": "rbf",
                      "gamma": 0.5, "sv_indptr": [0, 1, 3], "sv_indices": [1, 0, 1],
                      "sv_values": [2.0, -1.0, 0.5], "coefficients": [[0.25, -1.0]],
                      "biases": [0.1]}, tmp_path / "k.ssvm")
    d = load_model(tmp_path / "k.ssvm")
    assert d["kind"] == "kernel" and d["kernel"] == "rbf" and d["labels"] is None
    np.testing.assert_array_equal(d["sv_indptr"], [0, 1, 3])
    np.testing.assert_array_equal(d["coefficients"], [[0.25, -1.0]])


# ---------------------------------------------------------------------------
#                          bad files and bad models
# ---------------------------------------------------------------------------

@pytest.fixture
def model_file(tmp_path):
    pytest.importorskip("sklearn")
    from stochsvm import LinearSVMClassifier

    X, y = _blobs(60, 3, 3, 3)
    path = tmp_path / "m.ssvm"
    save_model(LinearSVMClassifier(tol=0, max_iter=10).fit(X, y), path)
    return path


def test_truncated_files(model_file, tmp_path):
    data = model_file.read_bytes()
    bad = tmp_path / "truncated.ssvm"
    for length in list(range(0, 40)) + list(range(40, len(data), 7)):
        bad.write_bytes(data[:length])
        with pytest.raises(ModelFileError, match="truncated.ssvm: (truncated|not a stochsvm)"):
            read_model(bad)


def test_corrupted_files(model_file, tmp_path):
    data = bytearray(model_file.read_bytes())
    bad = tmp_path / "corrupted.ssvm"
    rng = np.random.default_rng(0)
    for pos in rng.choice(len(data), size=60, replace=False):
        copy = bytearray(data)
        copy[pos] ^= 0x20
        bad.write_bytes(bytes(copy))
        with pytest.raises(ModelFileError, match="corrupted.ssvm"):
            load_model(bad)
    # a payload byte: the checksum says so
    copy = bytearray(data)
    copy[-10] ^= 1
    bad.write_bytes(bytes(copy))
    with pytest.raises(ModelFileError, match="checksum mismatch"):
        read_model(bad)


def test_wrong_version_and_foreign_files(model_file, tmp_path):
    data = bytearray(model_file.read_bytes())
    data[8] = FORMAT_VERSION + 1
    newer = tmp_path / "newer.ssvm"
    newer.write_bytes(bytes(data))
    with pytest.raises(ModelFileVersionError, match="newer.ssvm: format version 2 is newer"):
        load_model(newer)
    text = tmp_path / "data.txt"
    text.write_text("+1 1:0.5 3:1\n")
    with pytest.raises(ModelFileError, match="data.txt: not a stochsvm model file"):
        load_model(text)
    with pytest.raises(FileNotFoundError):
        load_model(tmp_path / "missing.ssvm")


def test_checksum_is_zlib_crc32(model_file):
    data = model_file.read_bytes()
    assert data[:8] == b"\x89SSVM\r\n\x1a"
    # the first section (HEAD) starts at 16: tag, u64 length, payload, CRC
    length = int.from_bytes(data[20:28], "little")
    assert data[16:20] == b"HEAD" and length == 56
    crc = int.from_bytes(data[28 + length:32 + length], "little")
    assert crc == zlib.crc32(data[16:28 + length])


def test_atomic_write(model_file, tmp_path):
    pytest.importorskip("sklearn")
    from stochsvm import LinearSVMClassifier

    before = model_file.read_bytes()
    unfitted = LinearSVMClassifier()
    with pytest.raises(ValueError, match="not fitted"):
        save_model(unfitted, model_file)
    bad = {"kind": "linear", "task": "binary", "dimension": 2, "labels": [0.0, 1.0],
           "weights": [[1.0, np.nan]], "biases": [0.0]}
    with pytest.raises(ValueError, match="weight is not finite"):
        save_model(bad, model_file)
    assert model_file.read_bytes() == before
    with pytest.raises(OSError, match="no-such-dir"):
        save_model(load_model(model_file), tmp_path / "no-such-dir" / "m.ssvm")
    # overwriting replaces the file and leaves no temporary file behind
    X, y = _blobs(40, 3, 2, 5)
    save_model(LinearSVMClassifier(tol=0, max_iter=10).fit(X, y), model_file)
    assert read_model(model_file)["task"] == "binary"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m.ssvm"]
    with pytest.raises(TypeError, match="cannot save a str"):
        save_model("model", model_file)


def test_read_without_sklearn(model_file, tmp_path):
    svm = stochsvm.SVM(np.eye(3), np.array([1.0, -1.0, 1.0]), 0.1)
    svm.train()
    save_model(svm, tmp_path / "svm.ssvm")
    code = (
        "import sys; sys.modules['sklearn'] = None\n"
        "import numpy as np, stochsvm\n"
        f"d = stochsvm.read_model({str(model_file)!r})\n"
        "assert d['task'] == 'one_vs_rest' and d['weights'].shape == (3, 3)\n"
        f"svm = stochsvm.load_model({str(tmp_path / 'svm.ssvm')!r})\n"
        "print(type(svm).__name__, svm.get_model().shape)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "SVM (3,)"


# ---------------------------------------------------------------------------
#                     the C example reads Python's models
# ---------------------------------------------------------------------------

def _compiler():
    for cc in (os.environ.get("CC"), "cc", "gcc", "clang"):
        if cc and shutil.which(cc):
            return cc
    return None


@pytest.fixture(scope="module")
def score_model_binary(tmp_path_factory):
    cc = _compiler()
    if cc is None:
        pytest.skip("no C compiler to build examples/score_model.c")
    out = tmp_path_factory.mktemp("example") / "score_model"
    sources = sorted(str(p) for p in (ROOT / "src" / "core").glob("*/*.c"))   # as docs/embedding.rst says
    subprocess.run([cc, "-std=c11", "-O1", f"-I{ROOT / 'include'}",
                    str(ROOT / "examples" / "score_model.c"), *sources, "-lm", "-o", str(out)],
                   check=True, capture_output=True, text=True)
    return out


def _write_libsvm(path, X, y):
    with open(path, "w") as f:
        for xi, yi in zip(X, y):
            feats = " ".join(f"{j + 1}:{float(v)!r}" for j, v in enumerate(xi) if v != 0)
            f.write(f"{yi} {feats}\n")


def test_c_example_scores_python_models(models, tmp_path, score_model_binary):
    for name, obj, X in models:
        if name == "strings":
            continue  # the labels in a LIBSVM file are numbers
        path = tmp_path / f"{name}.ssvm"
        save_model(obj, path)
        if hasattr(obj, "classes_"):
            y = obj.predict(X)
            y[::5] = obj.classes_[0]  # some wrong labels: accuracy below 1
        elif name == "regression":
            y = obj.predict(X)
        else:
            y = obj.predict(X)
        data = tmp_path / f"{name}.txt"
        _write_libsvm(data, X, y)
        out = subprocess.run([str(score_model_binary), str(path), str(data)], capture_output=True,
                             text=True, check=True).stdout.splitlines()
        table = np.array([[float(v) for v in line.split()] for line in out[:-1]])
        scores = np.asarray(_scores(obj, X)).reshape(len(X), -1)
        np.testing.assert_allclose(table[:, 1:], scores, rtol=1e-12, atol=1e-12, err_msg=name)
        np.testing.assert_array_equal(table[:, 0], obj.predict(X), err_msg=name)
        if name == "regression":
            assert out[-1].startswith("# mse 0.000000")
        else:
            expected = np.mean(obj.predict(X) == y)
            assert out[-1] == f"# accuracy {expected:.6f} ({len(X)} rows)", name


@pytest.mark.parametrize("scale, kernel", [("minmax", "2"), ("maxabs", "0"), ("standard", "0")])
def test_c_example_scores_models_trained_with_scale(tmp_path, score_model_binary, scale, kernel):
    """A model written by `stochsvm train --scale` (a SCAL section) loads in C,
    which scales the raw rows itself: the C example's scores equal Python's
    scores of the rows scaled in Python."""
    from stochsvm.cli import main
    from stochsvm.scaling import apply_scaler

    rng = np.random.default_rng(3)
    X = rng.uniform(-1, 1, size=(120, 3)) * [100.0, 1.0, 0.01] + [50.0, 0.0, 0.0]
    X[rng.random(X.shape) < 0.3] = 0.0  # sparse rows: zeros that minmax/standard move
    y = np.where(X[:, 0] / 100 + X[:, 1] > 0.4, 1, -1)
    data, model = tmp_path / "d.svm", tmp_path / "m.ssvm"
    _write_libsvm(data, X, y)
    assert main(["train", str(data), str(model), "-t", kernel, "-q", "--scale", scale]) == 0
    d = read_model(model)
    assert d["scaling"]["method"] == scale
    out = subprocess.run([str(score_model_binary), str(model), str(data)], capture_output=True,
                         text=True, check=True).stdout.splitlines()
    table = np.array([[float(v) for v in line.split()] for line in out[:-1]])
    from stochsvm import _model_file  # the scoring `stochsvm predict` uses, after scaling

    scores = _model_file.decision_function({**d, "scaling": None},
                                           apply_scaler(X, d["scaling"])).ravel()
    np.testing.assert_allclose(table[:, 1], scores, rtol=1e-12, atol=1e-12)
    # the core scales the raw rows itself (the scoring of ss_model_decision_function)
    np.testing.assert_allclose(_model_file.decision_function(d, X).ravel(), table[:, 1],
                               rtol=1e-12, atol=1e-12)
    np.testing.assert_array_equal(table[:, 0], np.where(scores > 0, 1, -1))


def test_c_example_errors_name_file_and_line(model_file, tmp_path, score_model_binary):
    data = tmp_path / "bad.txt"
    data.write_text("1 1:0.5 2:1\n2 1:0.5 9:1\n")
    out = subprocess.run([str(score_model_binary), str(model_file), str(data)],
                         capture_output=True, text=True)
    assert out.returncode == 1
    assert f"{data}:2: feature 9 beyond the model's 3 features" in out.stderr
    bad_model = tmp_path / "bad.ssvm"
    bad_model.write_bytes(model_file.read_bytes()[:-3])
    out = subprocess.run([str(score_model_binary), str(bad_model), str(data)],
                         capture_output=True, text=True)
    assert out.returncode == 1 and "bad.ssvm: truncated" in out.stderr


def test_c_example_scores_python_kernel_model(tmp_path, score_model_binary):
    pytest.importorskip("sklearn")
    from stochsvm import KernelSVMClassifier

    X, y = _blobs(90, 4, 3, 6)
    clf = KernelSVMClassifier(solver="sbp", gamma=0.3, tol=0, max_iter=2).fit(X, y + 1)
    save_model(clf, tmp_path / "k.ssvm")
    data = tmp_path / "k.txt"
    _write_libsvm(data, X, y + 1)
    out = subprocess.run([str(score_model_binary), str(tmp_path / "k.ssvm"), str(data)],
                         capture_output=True, text=True, check=True).stdout.splitlines()
    table = np.array([[float(v) for v in line.split()] for line in out[:-1]])
    np.testing.assert_allclose(table[:, 1:], clf.decision_function(X), rtol=1e-12, atol=1e-12)
    np.testing.assert_array_equal(table[:, 0], clf.predict(X))
    assert out[-1] == f"# accuracy {clf.score(X, y + 1):.6f} (90 rows)"


@pytest.mark.parametrize("loss", ["hinge", "l1"])
def test_a_loaded_sdca_svm_has_the_default_finish(tmp_path, loss):
    # A model file keeps no Newton finish mode: the loaded SVM has the
    # default, "auto" (it read True, forced on under any cap, before).
    from stochsvm import SVM

    X, y = _blobs(60, 3, 2, 5)
    y = np.where(y == 1, 1.0, -1.0)
    svm = SVM(X, y, 0.1, solver="sdca", loss=loss)
    svm.train()
    save_model(svm, tmp_path / "s.ssvm")
    back = load_model(tmp_path / "s.ssvm")
    assert back.get_solver() == "sdca" and back.get_newton_fallback() == "auto"


@pytest.mark.parametrize("name", ["binary", "ovr", "strings"])
def test_metadata_classes_must_match_the_files_labels(models, tmp_path, name):
    """A C program may rewrite the labels and keep the metadata: Python took
    the classes from the metadata (predicting -1/1 where C said 10/20), or
    failed with an IndexError where the counts differed. Now both readers
    refuse such a file; the unchanged file still loads."""
    est = dict((n, obj) for n, obj, _ in models)[name]
    path = tmp_path / "m.ssvm"
    save_model(est, path)
    assert list(load_model(path).classes_) == list(est.classes_)
    d = read_model(path)
    relabelled = dict(d, labels=np.asarray(d["labels"]) + 100.0)
    save_model(relabelled, path)
    for read in (read_model, load_model):
        with pytest.raises(ModelFileError, match="classes .* do not match the file's labels"):
            read(path)
    from stochsvm.cli import main

    assert main(["info", str(path)]) == 2


def _linear_and_kernel():
    pytest.importorskip("sklearn")
    from stochsvm import KernelSVMClassifier, LinearSVMClassifier

    X, y = _blobs(60, 4, 3, 5)
    short = dict(tol=0, max_iter=3)
    return {"linear": LinearSVMClassifier(solver="sgd", **short).fit(X, y),
            "kernel": KernelSVMClassifier(solver="bsgd", **short).fit(X, y)}


@pytest.mark.parametrize("which, key, value, message", [
    ("linear", "n_iter", "abc", "n_iter is not a non-negative integer"),
    ("linear", "n_iter", -5, "n_iter is not a non-negative integer"),
    ("linear", "n_iter", [1, 2], "n_iter is not a non-negative integer"),
    ("linear", "n_iter", True, "n_iter is not a non-negative integer"),
    ("linear", "feature_names_in", ["a", "b"], "feature_names_in is not a list of 4 names"),
    ("linear", "feature_names_in", [1, 2, 3, 4], "feature_names_in is not a list of 4 names"),
    ("linear", "iteration_numbers", [1, 2], "iteration_numbers is not a list of 3 non-negative"),
    ("linear", "iteration_numbers", "abc", "iteration_numbers is not a list of 3 non-negative"),
    ("linear", "class_counts", [1, 2], "class_counts is not a list of 3 non-negative"),
    ("linear", "class_counts", [-1, 2, 3], "class_counts is not a list of 3 non-negative"),
    ("kernel", "n_iter", "abc", "n_iter is not a non-negative integer"),
    ("kernel", "dense_support_vectors", "yes", "dense_support_vectors is not true or false"),
    ("kernel", "support_order", [[0]], "support_order is not 3 list"),
    ("kernel", "support_order", [[0, 0], [], []], "support_order of output 0 repeats a row"),
    ("kernel", "support_order", [[-1], [], []], "support_order of output 0 holds other than"),
    ("kernel", "support_order", [[], [], []], "support_order of output 0 repeats a row or leaves"),
])
def test_bad_metadata_values_are_model_file_errors(tmp_path, which, key, value, message):
    """A file whose metadata holds an n_iter of "abc", -5 or [1, 2], or
    feature names of another count than the features, loaded as an estimator
    with those attributes (predict on a DataFrame then failed in scikit-learn);
    wrong iteration numbers dropped the SVMs without a word. Every such value
    is a ModelFileError naming the file, as the docs promise."""
    import json

    est = _linear_and_kernel()[which]
    path = tmp_path / "m.ssvm"
    save_model(est, path)
    d = read_model(path)
    save_model(dict(d, metadata=json.dumps({**d["metadata_json"], key: value})), path)
    with pytest.raises(ModelFileError, match=f"{path}: the saved parameters are invalid "
                                             f"\\(the metadata's {message}"):
        load_model(path)

