"""Brief fuzzing of the two readers of untrusted files on the Python side
(issue 19): the model-file reader (``load_model``, ``read_model``) and the
command line's LIBSVM reader (``stochsvm train`` / ``predict``).

Hypothesis mutates valid inputs byte by byte. A model file may load or fail
with ModelFileError, nothing else; the command line may succeed (0), fail
training (1) or refuse the input (2), always with a one-line message and no
traceback. Mutations that keep the checksums right (``_resealed``) reach the
parsing behind them: metadata, sizes, parameters. The C readers have their
own fuzz harnesses (tests/fuzz/).
"""

import json
import os
import struct
import zlib

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import stochsvm
from stochsvm import model_file
from stochsvm.cli import main

#: A brief, reproducible run in the test suite; STOCHSVM_FUZZ_EXAMPLES=N
#: runs N random examples per test instead (a longer campaign).
_CAMPAIGN = int(os.environ.get("STOCHSVM_FUZZ_EXAMPLES", "0"))
FUZZ = settings(max_examples=_CAMPAIGN or 80, deadline=None, derandomize=not _CAMPAIGN,
                suppress_health_check=[HealthCheck.function_scoped_fixture,
                                       HealthCheck.too_slow])


def _seeds():
    """Valid model files of every kind the Python package writes."""
    import warnings

    from stochsvm.kernel import KernelSVMClassifier
    from stochsvm.linear import LinearSVMClassifier, LinearSVMRegressor

    rng = np.random.default_rng(5)
    X = rng.normal(size=(30, 3))
    y = np.where(X[:, 0] > 0, 1, -1)
    y3 = np.digitize(X[:, 1], [-0.5, 0.5])
    svm = stochsvm.SVM(X, y.astype(float), 0.1)
    svm.train()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        models = [svm, LinearSVMClassifier(max_iter=2).fit(X, y3.astype(str)),
                  LinearSVMRegressor(max_iter=2).fit(X, X[:, 0]),
                  KernelSVMClassifier(kernel="poly", max_iter=2).fit(X, y3)]
    return [model_file.model_bytes(m) for m in models]


SEEDS = _seeds()


def _resealed(blob):
    """``blob`` with every section's CRC-32 recomputed (where the structure
    still parses), so that a mutation reaches the checks behind the checksum."""
    out, at = bytearray(blob[:16]), 16
    while at + 16 <= len(blob):
        (length,) = struct.unpack("<Q", blob[at + 4:at + 12])
        if length > len(blob) - at - 16:
            break
        part = blob[at:at + 12 + length]
        out += part + struct.pack("<I", zlib.crc32(part))
        at += 16 + length
    return bytes(out + blob[at:])


@st.composite
def mutated_model_files(draw):
    blob = bytearray(draw(st.sampled_from(SEEDS)))
    for _ in range(draw(st.integers(1, 4))):
        kind = draw(st.sampled_from(["flip", "set", "truncate", "insert", "delete"]))
        at = draw(st.integers(0, len(blob) - 1))
        if kind == "flip":
            blob[at] ^= 1 << draw(st.integers(0, 7))
        elif kind == "set":
            blob[at] = draw(st.sampled_from([0, 0x7F, 0x80, 0xFF, ord("{"), ord("[")]))
        elif kind == "truncate":
            del blob[at:]
        elif kind == "insert":
            blob[at:at] = draw(st.binary(min_size=1, max_size=8))
        elif len(blob) > 1:
            del blob[at]
        if not blob:
            break
    blob = bytes(blob)
    return _resealed(blob) if draw(st.booleans()) else blob


@FUZZ
@given(data=mutated_model_files())
def test_fuzz_model_file_reader(tmp_path, data):
    path = tmp_path / "fuzzed.ssvm"
    path.write_bytes(data)
    for reader in (model_file.read_model, model_file.load_model):
        try:
            reader(path)
        except model_file.ModelFileError as exc:
            assert str(exc).startswith(str(path)), exc


@FUZZ
@given(meta=st.one_of(
    st.text(max_size=60),
    st.recursive(st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=5),
                 lambda inner: st.lists(inner, max_size=3)
                 | st.dictionaries(st.sampled_from(["python_class", "params", "classes",
                                                    "svm_state", "values", "dtype", "C",
                                                    "solver", "iteration_numbers"]),
                                   inner, max_size=4),
                 max_leaves=12).map(json.dumps),
    st.sampled_from(["stochsvm.SVM", "stochsvm.linear.LinearSVMClassifier",
                     "stochsvm.linear.LinearSVMRegressor",
                     "stochsvm.kernel.KernelSVMClassifier"]).map(
        lambda c: '{"python_class": "%s", "params": {"C": "x"}}' % c)),
    seed=st.integers(0, len(SEEDS) - 1))
def test_fuzz_model_file_metadata(tmp_path, meta, seed):
    """Any metadata text on any model: a model, a dict, or ModelFileError."""
    d = model_file.decode(SEEDS[seed])
    d["metadata"] = meta.replace("\0", "")
    path = tmp_path / "meta.ssvm"
    model_file.save(d, path)
    try:
        model_file.load_model(path)
    except model_file.ModelFileError as exc:
        assert str(exc).startswith(str(path)), exc


# -- the command line's LIBSVM reader ------------------------------------------------------

_TOKENS = st.one_of(
    st.integers(-3, 3).map(str), st.sampled_from(["1.5", "-0", "+1", "nan", "inf", "1e400", "x",
                                                  "", "#", "qid:3", "1:", ":1", "0:1", "-1:2"]))


@st.composite
def libsvm_texts(draw):
    lines = []
    for _ in range(draw(st.integers(0, 8))):
        label = draw(_TOKENS)
        features = draw(st.lists(st.tuples(st.integers(-1, 40), _TOKENS), max_size=4))
        lines.append(" ".join([label] + [f"{j}:{v}" for j, v in features]))
    text = bytearray("\n".join(lines).encode())
    for _ in range(draw(st.integers(0, 2))):     # at most two byte edits: indices stay small
        if not text:
            break
        at = draw(st.integers(0, len(text) - 1))
        text[at] = draw(st.sampled_from(b" :\n\t#-.e01\x00\xff"))
    return bytes(text)


@settings(FUZZ, max_examples=_CAMPAIGN or 60)
@given(text=libsvm_texts(), loss=st.sampled_from(["hinge", "l2"]))
def test_fuzz_cli_libsvm_reader(tmp_path, capsys, text, loss):
    data, model = tmp_path / "d.svm", tmp_path / "m.ssvm"
    data.write_bytes(text)
    if model.exists():
        os.remove(model)
    status = main(["train", str(data), str(model), "--epochs", "1", "--loss", loss])
    out = capsys.readouterr()
    assert status in (0, 1, 2), status
    assert "Traceback" not in out.err
    if status != 0:
        assert out.err.count("\n") == 1 and "error: " in out.err, out.err
        return
    status = main(["predict", str(model), str(data)])
    out = capsys.readouterr()
    assert status == 0, out.err


def test_resealed_mutations_reach_past_the_checksums(tmp_path):
    """The resealing helper works: a resealed metadata edit is read as metadata."""
    blob = bytearray(SEEDS[0])
    at = bytes(blob).rindex(b"python_class")
    blob[at] = ord("P")
    path = tmp_path / "m.ssvm"
    path.write_bytes(bytes(blob))
    with pytest.raises(model_file.ModelFileError, match="checksum"):
        model_file.read_model(path)
    path.write_bytes(_resealed(bytes(blob)))
    assert "Python_class" in model_file.read_model(path)["metadata"]
