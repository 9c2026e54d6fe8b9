"""stochsvm.datasets (the LIBSVM reader and the generators) and the benchmark
loader of stochsvm._testing (test and benchmark plumbing, not API)."""

import bz2
import gzip
import lzma
import os

import numpy as np
import pytest
import scipy.sparse as sp

from stochsvm._testing import load_benchmark
from stochsvm.datasets import (WORST_CASES, load_libsvm, make_classification, make_imbalanced,
                               make_outlier, make_separable, make_sparse_classification,
                               make_unscaled)

SMALL = b"""+1 1:0.5 3:-2 10:1e-3
-1 2:4
# a comment line
1 4:1.25 # trailing comment

-1
2 1:7 2:-0.000001 3:123456.75
"""


def _write(tmp_path, name, payload):
    path = tmp_path / name
    opener = {".xz": lzma.open, ".gz": gzip.open, ".bz2": bz2.open}.get(path.suffix, open)
    with opener(path, "wb") as f:
        f.write(payload)
    return path


def _expected_small():
    dense = np.zeros((5, 10))
    dense[0, [0, 2, 9]] = [0.5, -2, 1e-3]
    dense[1, 1] = 4
    dense[2, 3] = 1.25
    dense[4, :3] = [7, -0.000001, 123456.75]
    return dense, np.array([1, -1, 1, -1, 2], dtype=float)


@pytest.mark.parametrize("suffix", ["", ".xz", ".gz", ".bz2"])
def test_load_libsvm_small(tmp_path, suffix):
    path = _write(tmp_path, "small.svm" + suffix, SMALL)
    X, y = load_libsvm(path)
    dense, labels = _expected_small()
    assert sp.isspmatrix_csr(X) and X.dtype == np.float64 and X.has_sorted_indices
    np.testing.assert_array_equal(X.toarray(), dense)
    np.testing.assert_array_equal(y, labels)


def test_load_libsvm_n_features_and_dtype(tmp_path):
    path = _write(tmp_path, "small.svm", SMALL)
    X, _ = load_libsvm(path, n_features=20, dtype=np.float32)
    assert X.shape == (5, 20) and X.dtype == np.float32
    with pytest.raises(ValueError, match=r"line 1: feature index 10 is larger than n_features=5"):
        load_libsvm(path, n_features=5)
    with pytest.raises(ValueError, match="n_features"):
        load_libsvm(path, n_features=0)


def test_values_parse_exactly(tmp_path):
    # The vectorised decimal path must agree with Python's float() bit for bit.
    rng = np.random.default_rng(1)
    vals = np.concatenate([rng.standard_normal(500) * 10.0 ** rng.integers(-8, 8, 500),
                           rng.integers(-10**6, 10**6, 200)])
    texts = [repr(float(v)) for v in vals] + ["0.1", "-0.3", ".5", "5.", "+2", "1E-3",
                                              "12345678901234567890", "-0.0", "007",
                                              "0.000000000000000000000000000000000001"]
    lines = "\n".join(f"1 {i + 1}:{t}" for i, t in enumerate(texts)).encode()
    X, _ = load_libsvm(_write(tmp_path, "v.svm", lines))
    got = X.toarray()[np.arange(len(texts)), np.arange(len(texts))]
    np.testing.assert_array_equal(got, [float(t) for t in texts])


def test_unsorted_indices_are_sorted(tmp_path):
    X, _ = load_libsvm(_write(tmp_path, "u.svm", b"1 5:5 2:2 9:9\n-1 3:3 1:1\n"))
    assert X.has_sorted_indices
    np.testing.assert_array_equal(X.indices, [1, 4, 8, 0, 2])
    np.testing.assert_array_equal(X.data, [2, 5, 9, 1, 3])


def test_crlf_tabs_and_qid(tmp_path):
    X, y = load_libsvm(_write(tmp_path, "c.svm", b"1\tqid:3 1:2\r\n-1 qid:3  2:3\r\n"))
    np.testing.assert_array_equal(X.toarray(), [[2, 0], [0, 3]])
    np.testing.assert_array_equal(y, [1, -1])


@pytest.mark.parametrize("line, message", [
    (b"1 3:", "line 3: expected 'index:value'"),
    (b"1 :4", "line 3: expected 'index:value'"),
    (b"1 3:x", "line 3: cannot read '3:x'"),
    (b"1 3", "line 3: expected 'index:value'"),
    (b"a 3:1", "line 3: the label 'a' is not a number"),
    (b"1:1 3:1", "line 3: the line must start with a label"),
    (b"1 0:1", "line 3: feature index 0 is invalid"),
    (b"1 -2:1", "line 3: feature index -2 is invalid"),
    (b"1 2.5:1", "line 3: cannot read '2.5:1' as 'integer index:number'"),
    (b"1 2:1 2:3", "line 3: feature index 2 appears twice"),
    (b"1 2:nan", "line 3: a feature value is not finite"),
    (b"1 2:3:4", "line 3: expected 'index:value'"),
])
def test_malformed_line_is_named(tmp_path, line, message):
    payload = b"1 1:1\n-1 2:1\n" + line + b"\n1 4:1\n"
    path = _write(tmp_path, "bad.svm", payload)
    with pytest.raises(ValueError, match=message):
        load_libsvm(path)


@pytest.mark.parametrize("index", [b"1.0", b"3.", b".5", b"2.50", b"1_0", b"1e0"])
@pytest.mark.parametrize("other", [b"-1 2:1", b"-1 +2:1"])
def test_an_index_that_is_not_an_integer_is_refused_on_every_path(tmp_path, index, other):
    """'1.0:' was read as index 1 by the vectorised parser, and refused by the
    line-by-line one, which a valid '+2:' on another line selects; '1_0:' was
    index 10 (Python's int). sklearn and LIBSVM refuse them all."""
    payload = b"1 1:1\n" + other + b"\n1 " + index + b":2 4:1\n"
    path = _write(tmp_path, "bad.svm", payload)
    token = (index + b":2").decode()
    with pytest.raises(ValueError, match=f"line 3: cannot read '{token}' as 'integer index"):
        load_libsvm(path)
    pytest.importorskip("dask")
    from stochsvm.dask import read_libsvm

    with pytest.raises(ValueError, match=f"line 3: cannot read '{token}'"):
        read_libsvm(str(path))


def test_missing_file(tmp_path):
    with pytest.raises(FileNotFoundError, match="no such file"):
        load_libsvm(tmp_path / "nope.svm")


def test_empty_file(tmp_path):
    X, y = load_libsvm(_write(tmp_path, "e.svm", b"\n# nothing\n"))
    assert X.shape == (0, 1) and y.shape == (0,)


def test_agrees_with_sklearn(tmp_path):
    sklearn_datasets = pytest.importorskip("sklearn.datasets")
    X0, y0 = make_classification(300, 7, seed=3)
    X0[X0 < 0.1] = 0
    path = tmp_path / "r.svm"
    sklearn_datasets.dump_svmlight_file(X0, y0, str(path), zero_based=False)
    X, y = load_libsvm(path)
    X1, y1 = sklearn_datasets.load_svmlight_file(str(path), zero_based=False, n_features=7)
    np.testing.assert_array_equal(X.toarray(), X1.toarray())
    np.testing.assert_array_equal(y, y1)


# --------------------------------------------------------------------------
#                              make_classification
# --------------------------------------------------------------------------

def test_make_classification():
    X, y, (w, b) = make_classification(2000, 10, seed=5, noise=0.0, return_coef=True)
    assert X.shape == (2000, 10) and X.dtype == np.float64 and X.flags.c_contiguous
    assert set(np.unique(y)) == {-1.0, 1.0}
    # noise=0: the true rule separates the data.
    np.testing.assert_array_equal(np.where(X @ w + b >= 0, 1.0, -1.0), y)
    # Rows have norm close to 1.
    assert abs(np.mean(np.linalg.norm(X, axis=1)) - 1) < 0.1
    # Seeded and deterministic; noise flips about that fraction.
    X2, y2 = make_classification(2000, 10, seed=5, noise=0.2)
    np.testing.assert_array_equal(X, X2)
    assert 0.15 < np.mean(y2 != y) < 0.25
    X3, _ = make_classification(10, 4, seed=5, dtype=np.float32)
    assert X3.dtype == np.float32
    with pytest.raises(ValueError):
        make_classification(0, 3)
    with pytest.raises(ValueError):
        make_classification(10, 3, noise=0.5)


# --------------------------------------------------------------------------
#                               load_benchmark
# --------------------------------------------------------------------------

def test_load_benchmark_without_data(monkeypatch):
    monkeypatch.delenv("STOCHSVM_DATA", raising=False)
    with pytest.raises(FileNotFoundError, match="STOCHSVM_DATA"):
        load_benchmark("a9a")
    with pytest.raises(ValueError, match="unknown benchmark"):
        load_benchmark("nosuchset")


def test_load_benchmark_missing_file(monkeypatch, tmp_path):
    monkeypatch.setenv("STOCHSVM_DATA", str(tmp_path))
    with pytest.raises(FileNotFoundError, match="a9a.train.xz is missing from STOCHSVM_DATA"):
        load_benchmark("a9a")


def test_load_benchmark_cache(monkeypatch, tmp_path):
    """Fake benchmark files: mapping to +-1, training dimension, cache hit."""
    data = tmp_path / "data"
    data.mkdir()
    _write(data, "w8a.train.xz", b"2 1:1 3:1\n4 2:1\n2 3:0.5\n")
    _write(data, "w8a.test.xz", b"4 1:1\n2 2:1\n")
    cache = tmp_path / "cache"
    monkeypatch.setenv("STOCHSVM_DATA", str(data))
    monkeypatch.setenv("STOCHSVM_CACHE", str(cache))
    Xtr, ytr, Xte, yte = load_benchmark("w8a")
    assert Xtr.shape == (3, 3) and Xte.shape == (2, 3)
    np.testing.assert_array_equal(ytr, [-1, 1, -1])
    np.testing.assert_array_equal(yte, [1, -1])
    assert len(list(cache.glob("*.npz"))) == 2
    again = load_benchmark("w8a")
    for a, b in zip((Xtr, ytr, Xte, yte), again):
        np.testing.assert_array_equal(a.toarray() if sp.issparse(a) else a,
                                      b.toarray() if sp.issparse(b) else b)


def _real_data():
    folder = os.environ.get("STOCHSVM_DATA")
    required = os.environ.get("STOCHSVM_REQUIRE_DATA") == "1"
    if not folder or not os.path.isfile(os.path.join(folder, "a9a.train.xz")):
        if required:
            pytest.fail("STOCHSVM_REQUIRE_DATA=1 but $STOCHSVM_DATA/a9a.train.xz is missing")
        pytest.skip("real data not available: set STOCHSVM_DATA to the shared data folder")
    return folder


@pytest.mark.parametrize("name, shapes", [
    ("a9a", ((32561, 123), (16281, 123))),
    ("w8a", ((49749, 300), (14951, 300))),
    ("ijcnn1", ((49990, 22), (91701, 22))),
])
def test_real_benchmarks(name, shapes, monkeypatch, tmp_path):
    _real_data()
    monkeypatch.setenv("STOCHSVM_CACHE", str(tmp_path))
    Xtr, ytr, Xte, yte = load_benchmark(name)
    assert (Xtr.shape, Xte.shape) == shapes
    assert set(np.unique(ytr)) == set(np.unique(yte)) == {-1.0, 1.0}


@pytest.mark.slow
def test_real_covtype(monkeypatch, tmp_path):
    _real_data()
    monkeypatch.setenv("STOCHSVM_CACHE", str(tmp_path))
    Xtr, ytr, Xte, yte = load_benchmark("covtype")
    assert Xtr.shape == (464810, 54) and Xte.shape == (116202, 54)
    # Scaled by the column max-abs over all rows: column 5 reaches -1.
    both = sp.vstack([Xtr, Xte])
    assert abs(both).max() == 1.0 and both.min() < 0
    assert np.sum(ytr == 1) + np.sum(yte == 1) == 283301


# --------------------------------------------------------------------------
#                         make_sparse_classification
# --------------------------------------------------------------------------

def test_make_sparse_classification_structure():
    n, d, density = 4000, 3000, 0.01
    X, y, (w_star, threshold) = make_sparse_classification(n, d, density, seed=1, noise=0.1,
                                                          return_coef=True)
    assert sp.isspmatrix_csr(X) and X.shape == (n, d) and X.dtype == np.float64
    assert abs(X.nnz / (n * d) - density) < 0.05 * density
    # canonical: strictly increasing column indices within every row
    rows = np.repeat(np.arange(n), np.diff(X.indptr))
    assert np.all((np.diff(X.indices) > 0) | (np.diff(rows) > 0))
    assert np.all(np.diff(X.indptr) >= 1) and np.all(X.data > 0)
    np.testing.assert_allclose(np.sqrt(X.multiply(X).sum(axis=1)).A1, 1.0, rtol=1e-12)
    # power law: the 10 most frequent features are far more common than the median one
    df = np.bincount(X.indices, minlength=d)
    assert df[:10].mean() > 20 * np.median(df) and df[0] > df[d // 2]
    # labels: balanced, and about 1 - noise agree with the clean rule
    clean = np.where(X @ w_star > threshold, 1.0, -1.0)
    assert abs(np.mean(y == 1) - 0.5) < 0.05
    assert abs(np.mean(y != clean) - 0.1) < 0.02


def test_make_sparse_classification_seeds_and_dtypes():
    X1, y1 = make_sparse_classification(500, 200, 0.05, seed=3)
    X2, y2 = make_sparse_classification(500, 200, 0.05, seed=3)
    X3, _ = make_sparse_classification(500, 200, 0.05, seed=4)
    assert (X1 != X2).nnz == 0 and np.array_equal(y1, y2)
    assert (X1 != X3).nnz > 0
    X32, y32 = make_sparse_classification(500, 200, 0.05, seed=3, dtype=np.float32)
    assert X32.dtype == np.float32 and np.array_equal(X32.indices, X1.indices)
    np.testing.assert_allclose(X32.toarray(), X1.toarray(), rtol=1e-6)
    Xu, _ = make_sparse_classification(2000, 100, 0.1, exponent=0.0, seed=0)
    df = np.bincount(Xu.indices, minlength=100)
    assert df.max() < 1.5 * df.min()  # uniform frequencies
    X1x1, y1x1 = make_sparse_classification(1, 1, 1.0)
    assert X1x1.shape == (1, 1) and X1x1.nnz == 1


@pytest.mark.parametrize("kwargs", [dict(n=0, d=5, density=0.1), dict(n=5, d=0, density=0.1),
                                    dict(n=5, d=5, density=0.0), dict(n=5, d=5, density=1.5),
                                    dict(n=5, d=5, density=0.1, noise=0.5),
                                    dict(n=5, d=5, density=0.1, exponent=-1.0),
                                    dict(n=5, d=5, density=0.1, dtype=np.int32)])
def test_make_sparse_classification_rejects(kwargs):
    with pytest.raises(ValueError):
        make_sparse_classification(**kwargs)


def test_benchmark_plumbing_is_not_public_api():
    """load_benchmark, data_dir and the cache live in stochsvm._testing (not API);
    the public datasets module has only the reader and the generators, and
    importing stochsvm does not load the plumbing."""
    import subprocess
    import sys

    import stochsvm.datasets

    assert not {"load_benchmark", "data_dir", "BENCHMARKS"} & set(dir(stochsvm.datasets))
    code = "import sys, stochsvm, stochsvm.datasets; print('stochsvm._testing' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


# --------------------------------------------------------------------------
#                   Worst cases for default parameters
# --------------------------------------------------------------------------

@pytest.mark.parametrize("name", sorted(WORST_CASES))
def test_worst_cases_are_seeded(name):
    make = WORST_CASES[name]
    X, y = make(seed=3)
    X2, y2 = make(seed=3)
    X3, _ = make(seed=4)
    np.testing.assert_array_equal(X, X2)
    np.testing.assert_array_equal(y, y2)
    assert not np.array_equal(X, X3)
    assert X.dtype == np.float64 and X.flags.c_contiguous and np.all(np.isfinite(X))
    assert set(np.unique(y)) == {-1.0, 1.0}
    assert make(n=50, d=3, dtype=np.float32)[0].dtype == np.float32


def test_make_unscaled_spans_the_scales():
    X, _ = make_unscaled(n=4000, d=8)
    std = X.std(axis=0)
    np.testing.assert_allclose(std[0], 1e-3, rtol=0.1)
    np.testing.assert_allclose(std[-1], 1e4, rtol=0.1)
    assert np.all(np.diff(np.log10(std)) > 0.5)
    with pytest.raises(ValueError, match="d must be >= 2"):
        make_unscaled(d=1)
    with pytest.raises(ValueError, match="low"):
        make_unscaled(low=0.0)


def test_make_outlier_has_one_outlier():
    X, y = make_outlier(n=301, factor=100.0)
    norms = np.linalg.norm(X, axis=1)
    np.testing.assert_allclose(norms[150] / np.median(norms), 100.0, rtol=0.02)
    others = np.delete(norms, 150)
    assert others.max() < 5 * np.median(norms)
    # Only the outlier differs from the plain problem, and it keeps its direction.
    X0, y0 = make_classification(301, 12, seed=0, noise=0.05)
    np.testing.assert_array_equal(np.delete(X, 150, axis=0), np.delete(X0, 150, axis=0))
    np.testing.assert_array_equal(y, y0)
    np.testing.assert_allclose(X[150] / norms[150], X0[150] / np.linalg.norm(X0[150]))
    with pytest.raises(ValueError, match="factor"):
        make_outlier(factor=-1.0)


def test_make_separable_has_its_margin():
    X, y = make_separable(n=1000, d=5, seed=2, margin=0.2)
    _, _, (w, b) = make_classification(1000, 5, seed=2, noise=0.0, return_coef=True)
    distance = y * (X @ w + b) / np.linalg.norm(w)
    assert distance.min() >= 0.2 - 1e-12
    assert np.sum(np.isclose(distance, 0.2)) > 10  # rows were moved onto the margin
    with pytest.raises(ValueError, match="margin"):
        make_separable(margin=np.nan)


def test_make_imbalanced_counts_are_exact():
    X, y = make_imbalanced(n=630, ratio=20, noise=0.1)
    assert np.sum(y > 0) == 30 and np.sum(y < 0) == 600
    _, y_clean = make_imbalanced(n=630, ratio=20, noise=0.0)
    assert np.sum(y != y_clean) == 2 * 3  # three swapped pairs
    with pytest.raises(ValueError, match="ratio"):
        make_imbalanced(ratio=0)
    with pytest.raises(ValueError, match="n must be"):
        make_imbalanced(n=10, ratio=20)


@pytest.mark.parametrize("suffix, compress", [(".xz", lzma.compress), (".gz", gzip.compress),
                                              (".bz2", bz2.compress)])
@pytest.mark.parametrize("damage", ["garbage", "truncated", "flipped"])
def test_corrupt_compressed_file_is_a_value_error(tmp_path, suffix, compress, damage):
    # lzma's LZMAError is no OSError and escaped the CLI as a traceback.
    payload = b"".join(b"%d 1:%d 2:0.5\n" % (1 if i % 2 else -1, i) for i in range(20000))
    data = bytearray(compress(payload))
    if damage == "garbage":
        data = bytearray(b"junk")
    elif damage == "truncated":
        data = data[:len(data) // 2]
    else:
        for k in range(len(data) // 2, len(data) // 2 + 40):
            data[k] ^= 0x55
    path = tmp_path / ("bad.svm" + suffix)
    path.write_bytes(bytes(data))
    with pytest.raises(ValueError, match=rf"bad\.svm\{suffix}: not a valid \{suffix} file"):
        load_libsvm(path)


def test_a_nul_byte_is_refused_with_its_line(tmp_path):
    """A NUL inside a line was read as the end of its value (hostile pass R3)."""
    path = tmp_path / "nul.svm"
    path.write_bytes(b"1 1:0.5 2:1\n-1 1:0.5\x00 2:1\n")
    with pytest.raises(ValueError, match="line 2: a NUL byte"):
        load_libsvm(str(path))


def test_a_byte_order_mark_is_named(tmp_path):
    """A file saved with a UTF-8 BOM (Notepad's habit) was refused with
    "the label '\\ufeff1' is not a number"; the message now names the BOM."""
    path = tmp_path / "bom.svm"
    path.write_bytes("1 1:0.5 2:1\n-1 1:0.5\n".encode("utf-8-sig"))
    with pytest.raises(ValueError, match="line 1: the file starts with a UTF-8 byte-order mark"):
        load_libsvm(str(path))
