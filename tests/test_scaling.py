"""stochsvm.scaling and `stochsvm train --scale`: scalers equal to
scikit-learn's, kept sparse where they can be, stored in the model file's
SCAL section and applied by `predict`; a hint when the data is badly scaled."""

import re
import struct
import warnings
import zlib

import numpy as np
import pytest
import scipy.sparse as sp

from stochsvm import _model_file, scaling
from stochsvm.cli import main
from stochsvm.model_file import ModelFileError, load_model, read_model, save_model
from stochsvm.scaling import METHODS, apply_scaler, fit_scaler, scaling_hint

preprocessing = pytest.importorskip("sklearn.preprocessing")


def _data(n=200, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 4)) * [1.0, 1e3, 1e-2, 5.0] + [0.0, 3e3, -1.0, 0.0]
    X[:, 3] = 2.0                                          # a constant column
    return X


@pytest.mark.parametrize("method, reference", [
    ("minmax", lambda: preprocessing.MinMaxScaler((-1, 1))),
    ("maxabs", lambda: preprocessing.MaxAbsScaler()),
    ("standard", lambda: preprocessing.StandardScaler()),
])
def test_scalers_equal_scikit_learn(method, reference):
    X, Xnew = _data(), _data(50, seed=1)
    scaler = fit_scaler(X, method)
    ref = reference().fit(X)
    ours, theirs = apply_scaler(Xnew, scaler), ref.transform(Xnew)
    np.testing.assert_allclose(ours[:, :3], theirs[:, :3], rtol=1e-12, atol=1e-12)
    if method == "maxabs":                                  # 2 / max |2|, as scikit-learn
        np.testing.assert_array_equal(ours[:, 3], theirs[:, 3])
    else:   # scikit-learn maps a constant column to 0; ours leaves it as it is
        np.testing.assert_array_equal(ours[:, 3], Xnew[:, 3])


def _hard_columns(n, seed):
    """Columns that defeat E[x^2] - E[x]^2 or an inverted rounding-noise std:
    constants (0.1 and 5.0 among those that did), a large offset with a small
    spread, a float32-sized offset, and a sparse column."""
    rng = np.random.default_rng(seed)
    sparse = np.where(rng.uniform(size=n) < 0.2, rng.normal(size=n), 0.0)
    return np.column_stack([rng.uniform(0, 10, n), np.full(n, 5.0), np.full(n, 0.1),
                            np.full(n, 1000.0), 1e8 + rng.uniform(0, 1, n),
                            1000 + rng.normal(size=n), sparse, np.zeros(n)])


@pytest.mark.parametrize("n", [60, 400])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("sparse", [False, True])
def test_standard_scaler_is_numerically_sound(n, dtype, sparse, monkeypatch):
    """The std of every column as scikit-learn's StandardScaler finds it on
    the same values in float64; a constant column is left as it is (scale 1,
    offset 0), whatever its value. The CLI reads CSR, so sparse is its path;
    small blocks, so that the sums run over several."""
    monkeypatch.setattr(scaling, "_BLOCK", 7)
    X = _hard_columns(n, seed=n).astype(dtype)
    ref = preprocessing.StandardScaler().fit(X.astype(np.float64))
    ours = fit_scaler(sp.csr_matrix(X) if sparse else X, "standard")
    constant = ref.var_ == 0     # and 1e8 + U(0, 1), in float32 all 1e8
    assert constant[[1, 2, 3, 7]].all() and not constant[[0, 5, 6]].any()
    np.testing.assert_allclose(1 / ours["scale"][~constant], ref.scale_[~constant], rtol=1e-6)
    np.testing.assert_allclose(ours["offset"][~constant], ref.mean_[~constant], rtol=1e-9)
    np.testing.assert_array_equal(ours["scale"][constant], 1.0)
    np.testing.assert_array_equal(ours["offset"][constant], 0.0)


def test_sparse_maxabs_stays_sparse_and_float32_stays_float32():
    X = sp.random(100, 30, density=0.1, random_state=0, format="csr") * 1e4
    scaler = fit_scaler(X, "maxabs")
    out = apply_scaler(X.astype(np.float32), scaler)
    assert sp.isspmatrix_csr(out) and out.dtype == np.float32 and out.nnz == X.nnz
    ref = preprocessing.MaxAbsScaler().fit(X).transform(X)
    np.testing.assert_allclose(out.toarray(), ref.toarray(), rtol=1e-6)
    dense = apply_scaler(X, fit_scaler(X, "minmax"))       # zeros move: dense
    assert isinstance(dense, np.ndarray) and dense.min() >= -1 and dense.max() <= 1


def test_bad_arguments():
    with pytest.raises(ValueError, match="method must be one of"):
        fit_scaler(_data(), "log")
    with pytest.raises(ValueError, match="the scaler has 4 features, X 3"):
        apply_scaler(np.ones((2, 3)), fit_scaler(_data(), "minmax"))


def test_hints():
    assert "feature ranges span" in scaling_hint(_data())
    X = np.random.default_rng(0).uniform(-1, 1, size=(100, 3))
    assert scaling_hint(X) is None and scaling_hint(X, "rbf") is None
    assert "gamma ||x||^2 is about" in scaling_hint(X * 100, "rbf")
    assert scaling_hint(X * 100) is None                     # the linear solvers do not mind


def test_hints_on_sparse_data_read_only_the_stored_entries():
    """The hint's column ranges for sparse X: the same answer as from the
    dense matrix (zeros included, columns never stored left out), and no
    array of d values: a file with feature index 2 * 10**7 and 6 entries
    took over a GB through every column's statistics (10**8: 7 GB)."""
    import tracemalloc

    X = sp.csr_matrix(_data())
    assert scaling_hint(X) == scaling_hint(_data())
    wide = sp.csr_matrix((np.array([0.5, 1e4, -0.5, -1.0, 2.0, 3.0]),
                          np.array([0, 19_999_998, 0, 1, 5, 19_999_998]), np.array([0, 2, 4, 6])),
                         shape=(3, 19_999_999))
    tracemalloc.start()
    try:
        hint = scaling_hint(wide)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert "feature ranges span" in hint    # 1 (column 1) to 1e4 (the last column)
    assert peak < 10 * 2**20, peak
    dense_columns = wide[:, [0, 1, 5, 19_999_998]].toarray()
    assert hint == scaling_hint(dense_columns)


def _model(tmp_path, scaler):
    d = {"kind": "linear", "task": "binary", "dimension": 4, "labels": np.array([-1.0, 1.0]),
         "loss": 0, "lambda": 0.1, "bias_multiplier": 1.0, "homkermap": None,
         "weights": np.array([[1.0, -2.0, 0.5, 0.0]]), "biases": [0.25], "metadata": None,
         "scaling": scaler}
    path = tmp_path / "m.ssvm"
    save_model(d, path)
    return path


def test_model_file_round_trip_and_a_critical_section(tmp_path):
    scaler = fit_scaler(_data(), "standard")
    path = _model(tmp_path, scaler)
    d = read_model(path)
    assert d["scaling"]["method"] == "standard"
    np.testing.assert_array_equal(d["scaling"]["offset"], scaler["offset"])
    np.testing.assert_array_equal(d["scaling"]["scale"], scaler["scale"])
    data = path.read_bytes()
    # the C core reads the section too (a reader that did not know it refused the file)
    core = _model_file.decode(data)["scaling"]
    assert core["method"] == "standard"
    np.testing.assert_array_equal(core["offset"], scaler["offset"])
    np.testing.assert_array_equal(core["scale"], scaler["scale"])
    # the section is the last one; its method codes are those of METHODS, from 1
    assert data[-(12 + 16 + 16 * 4 + 4):][:4] == b"SCAL"   # tag, length, payload, CRC
    assert _model_file.SCALINGS == {m: k + 1 for k, m in enumerate(METHODS)}
    # a file without scaling is the plain version-1 file, read as before
    assert read_model(_model(tmp_path, None))["scaling"] is None


def test_a_corrupted_scaling_section_is_refused(tmp_path):
    path = _model(tmp_path, fit_scaler(_data(), "minmax"))
    data = bytearray(path.read_bytes())
    data[-20] ^= 1                                            # inside the SCAL payload
    path.write_bytes(bytes(data))
    with pytest.raises(ModelFileError, match=r"checksum mismatch in section \d \(SCAL\)"):
        read_model(path)


def test_a_corrupted_section_is_named_alike_with_and_without_scaling(tmp_path):
    """The message names the section by position and tag, the same through
    read_model and the C decoder (when Python read SCAL itself and handed the
    rest on, it said "of 4" through Python and "of 5" through C)."""
    path = _model(tmp_path, fit_scaler(_data(), "minmax"))
    data = bytearray(path.read_bytes())
    (first,) = struct.unpack_from("<q", data, 16 + 4)            # HEAD's payload length
    second = 16 + 12 + first + 4                                  # where section 2 starts
    assert bytes(data[second:second + 4]) == b"LABL"
    data[second + 12] ^= 1                                        # inside its payload
    path.write_bytes(bytes(data))
    with pytest.raises(ModelFileError) as through_python:
        read_model(path)
    with pytest.raises(ValueError) as through_c:
        _model_file.decode(bytes(data))
    expected = "corrupted file: checksum mismatch in section 2 (LABL)"
    assert expected in str(through_python.value) and expected in str(through_c.value)


def _sections(data):
    """The (tag, payload) sections of model file bytes."""
    (count,) = struct.unpack_from("<I", data, 12)
    pos, out = 16, []
    for _ in range(count):
        tag, length = struct.unpack_from("<4sQ", data, pos)
        out.append((tag, data[pos + 12:pos + 12 + length]))
        pos += 12 + length + 4
    return out


def _file(sections):
    """Model file bytes of (tag, payload) sections, with valid checksums."""
    out = b"\x89SSVM\r\n\x1a" + struct.pack("<II", 1, len(sections))
    for tag, payload in sections:
        body = tag + struct.pack("<Q", len(payload)) + payload
        out += body + struct.pack("<I", zlib.crc32(body) & 0xFFFFFFFF)
    return out


@pytest.mark.parametrize("defect, message", [
    ("twice", "section SCAL appears twice"),
    ("first", "the first section is not HEAD"),
])
def test_python_refuses_the_scaling_files_the_c_core_refuses(tmp_path, capsys, defect, message):
    """A second SCAL section, or SCAL before HEAD, with valid checksums: the
    C core (ss_model_load) refuses both files, as the format says ("HEAD
    first, at most one section of each tag"), but Python took the last SCAL
    out of the file before the core saw it: read_model and `stochsvm predict`
    accepted both and scored with the last of two scalers without a word."""
    path = _model(tmp_path, fit_scaler(_data(), "minmax"))
    sections = _sections(path.read_bytes())
    assert [tag for tag, _ in sections][-1] == b"SCAL"
    other = (b"SCAL", struct.pack("<IIq", 2, 0, 4) + np.zeros(4).tobytes()
             + np.full(4, 1000.0).tobytes())
    crafted = (sections + [other] if defect == "twice"
               else [sections[-1]] + sections[:-1])
    path.write_bytes(_file(crafted))
    with pytest.raises(ModelFileError, match=message):
        _model_file.decode(path.read_bytes())
    for read in (read_model, load_model):
        with pytest.raises(ModelFileError, match=f"{re.escape(str(path))}: {message}"):
            read(path)
    data = _write(tmp_path / "x.svm", _data(5), np.arange(5) % 2)
    assert main(["predict", str(path), data]) == 2
    assert message in capsys.readouterr().err


def _write(path, X, y):
    path.write_text("".join(f"{label} " + " ".join(f"{j + 1}:{v:.9g}" for j, v in enumerate(x))
                            + "\n" for x, label in zip(X, y)))
    return str(path)


def test_values_whose_squares_overflow(tmp_path, capsys):
    """Values near 1e200 (squares beyond float64): standard scaling took a
    NaN std for "constant" (dense: scale 0), minmax over [-1e308, 1e308]
    stored scale 0, every method leaked numpy's overflow warnings, and
    unscaled training ended in a traceback. Now the scalers are right and
    quiet, and unscaled training is a one-line error."""
    big = np.array([[1e200], [-1e200], [2e200], [-3e200]])
    wide = np.array([[1e308], [-1e308], [5.0]])
    with warnings.catch_warnings():
        warnings.simplefilter("error")   # no RuntimeWarning
        for X in (big, sp.csr_matrix(big)):
            scaler = fit_scaler(X, "standard")
            np.testing.assert_allclose(1 / scaler["scale"], (big / 1e200).std() * 1e200,
                                       rtol=1e-12)
            np.testing.assert_allclose(scaler["offset"], big.mean(), rtol=1e-12)
            np.testing.assert_array_equal(fit_scaler(X, "maxabs")["scale"], 1 / 3e200)
        assert fit_scaler(wide, "minmax")["scale"][0] == 1e-308
        assert np.abs(apply_scaler(wide, fit_scaler(wide, "minmax"))).max() <= 1
    train = _write(tmp_path / "big.svm", big, [1, -1, 1, -1])
    for method in ("standard", "minmax", "maxabs"):
        assert main(["train", train, "--scale", method, "-q"]) == 0
        assert capsys.readouterr().err == ""
    for argv in (["train", train], ["train", train, "-v", "2"],
                 ["grid", train, "--log2c", "0", "-v", "2"]):
        assert main(argv + ["-q"]) == 2
        err = capsys.readouterr().err
        assert "Traceback" not in err and len(err.splitlines()) == 1
        assert "error: row 0 of the data X has a squared norm that is not finite" in err


def test_cli_scale_is_fitted_on_train_stored_and_applied_by_predict(tmp_path, capsys):
    rng = np.random.default_rng(0)
    Z = rng.uniform(-1, 1, size=(600, 2))
    y = np.where((Z ** 2).sum(axis=1) < 0.5, 1, -1)
    X = Z * [1e3, 1.0] + [5e3, 0.0]
    train, test = _write(tmp_path / "tr.svm", X[:400], y[:400]), _write(tmp_path / "te.svm",
                                                                         X[400:], y[400:])
    accuracy = {}
    for scale in ("none", "minmax"):
        model = str(tmp_path / f"{scale}.ssvm")
        assert main(["train", train, model, "-t", "2", "-g", "2", "-c", "10", "-q",
                     "--scale", scale, "--test", test]) == 0
        out = capsys.readouterr().out
        assert ("hint: " in out) == (scale == "none")
        assert main(["predict", model, test]) == 0
        accuracy[scale] = float(re.search(r"accuracy (\S+)", capsys.readouterr().err).group(1))
        assert f"test accuracy {accuracy[scale]:.4f}" in out   # train --test scales too
    assert accuracy["minmax"] > 0.9 and accuracy["minmax"] > accuracy["none"] + 0.2
    assert main(["info", str(tmp_path / "minmax.ssvm")]) == 0
    assert "scaling         minmax" in capsys.readouterr().out


def test_cli_scale_choices(tmp_path, capsys):
    train = _write(tmp_path / "tr.svm", _data(20), np.arange(20) % 2)
    assert main(["train", train, "--scale", "log"]) == 2
    assert "invalid choice: 'log'" in capsys.readouterr().err
    assert main(["train", train, "--scale", "maxabs", "-q"]) == 0
    assert "scaling: maxabs, fitted on the 20 training rows" in capsys.readouterr().out
    positive = _write(tmp_path / "pos.svm", np.abs(_data(20)), np.arange(20) % 2)
    assert main(["train", positive, "--scale", "minmax", "--homkermap", "chi2"]) == 2
    assert "use --scale maxabs" in capsys.readouterr().err


def test_load_model_does_not_drop_the_scaling(tmp_path, capsys):
    # load_model gave a linear --scale model back as an SVM that scored the raw
    # features unscaled: other scores than `stochsvm predict` and the C core.
    X = _data()
    y = np.where(X[:, 0] > 0, 1, -1)
    train = _write(tmp_path / "tr.svm", X, y)
    model = str(tmp_path / "m.ssvm")
    assert main(["train", train, model, "--scale", "standard", "-q"]) == 0
    d = load_model(model)
    assert isinstance(d, dict) and d["scaling"] is not None
    assert main(["train", train, str(tmp_path / "raw.ssvm"), "-q"]) == 0
    assert type(load_model(str(tmp_path / "raw.ssvm"))).__name__ == "SVM"


def test_a_class_that_cannot_scale_refuses_a_scaling_section(tmp_path):
    from stochsvm import LinearSVMClassifier, SVM

    X = _data()
    y = np.where(X[:, 0] > 0, 1, -1)
    for i, obj in enumerate([LinearSVMClassifier(max_iter=2, tol=0).fit(X, y),
                             SVM(X, y.astype(float), 0.1)]):
        path = tmp_path / f"m{i}.ssvm"
        save_model(obj, path)
        d = read_model(path)
        d["scaling"] = fit_scaler(X, "minmax")
        save_model(d, path)
        with pytest.raises(ModelFileError, match="cannot apply the file's feature scaling"):
            load_model(path)
