"""`stochsvm train --dask ADDRESS`: CoCoA+ on a Dask cluster from the command
line (a LocalCluster with local:N, or a scheduler address), the model file
it writes against in-memory training, and its usage errors."""

import numpy as np
import pytest
from _helpers import write_libsvm as _write_libsvm

pytest.importorskip("dask.array", reason="--dask needs dask (pip install .[dask])")
distributed = pytest.importorskip("distributed", reason="--dask needs distributed")

from stochsvm import _cli_dask  # noqa: E402
from stochsvm.cli import main  # noqa: E402
from stochsvm.datasets import load_libsvm, make_classification  # noqa: E402
from stochsvm.model_file import read_model  # noqa: E402

pytestmark = [
    # distributed warns about its own event loop and sockets on shutdown
    pytest.mark.filterwarnings("ignore::ResourceWarning"),
    pytest.mark.filterwarnings("ignore::DeprecationWarning"),
    pytest.mark.filterwarnings("ignore:.*[Cc]onnection.*:RuntimeWarning"),
    pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning"),
]


@pytest.fixture
def files(tmp_path):
    X, y = make_classification(1500, 10, seed=5, noise=0.05)
    labels = np.where(y > 0, 2, 1)
    return (_write_libsvm(tmp_path / "train.svm", X[:1000], labels[:1000]),
            _write_libsvm(tmp_path / "test.svm", X[1000:], labels[1000:]), tmp_path)


def _objective(model, path):
    """The primal objective of a binary hinge model file on a LIBSVM file."""
    X, y = load_libsvm(path)
    yb = np.where(y == model["labels"][1], 1.0, -1.0)
    w, b, B = model["weights"][0], model["biases"][0], model["bias_multiplier"]
    margins = yb * (X @ w + b)
    lam = model["lambda"]
    return lam / 2 * (w @ w + (b / B) ** 2) + np.mean(np.maximum(0.0, 1.0 - margins))


def _accuracy(model_path, path, capsys):
    capsys.readouterr()
    assert main(["predict", model_path, path, str(model_path) + ".out"]) == 0
    out = capsys.readouterr().out
    return float(out.split("accuracy ")[1].split()[0])


def _train_both(files, capsys, address):
    train, test, folder = files
    common = ["--lambda", "0.01", "--epochs", "300", "-q"]
    mem, dsk = str(folder / "mem.model"), str(folder / "dask.model")
    assert main(["train", train, mem, "--tol", "1e-6"] + common) == 0
    capsys.readouterr()
    # a block size that splits the file into 2 partitions
    blocksize = str(len(open(train, "rb").read()) // 2 + 1)
    assert main(["train", train, dsk, "--dask", address, "--blocksize", blocksize,
                 "--tol", "1e-4"] + common) == 0
    out = capsys.readouterr().out
    assert "2 partitions" in out
    line = next(t for t in out.splitlines() if "rounds, final relative duality gap" in t)
    assert line.startswith("converged after ")
    assert float(line.split("duality gap ")[1].split(",")[0]) <= 1e-4
    m, d = read_model(mem), read_model(dsk)
    assert d["kind"] == "linear" and d["task"] == "binary"
    np.testing.assert_array_equal(d["labels"], m["labels"])
    assert d["lambda"] == pytest.approx(m["lambda"])
    pm, pd = _objective(m, train), _objective(d, train)
    assert abs(pd - pm) <= 1e-3 * pm
    assert abs(_accuracy(dsk, test, capsys) - _accuracy(mem, test, capsys)) <= 0.01


@pytest.mark.slow
def test_local_cluster_matches_in_memory_training(files, capsys):
    _train_both(files, capsys, "local:2")


@pytest.mark.slow
def test_scheduler_address(files, capsys):
    with distributed.LocalCluster(n_workers=1, processes=True, threads_per_worker=1,
                                  host="127.0.0.1", dashboard_address=None, silence_logs=50,
                                  scheduler_kwargs={"dashboard_address": "127.0.0.1:0",
                                                    "dashboard": False}) as cluster:
        _train_both(files, capsys, cluster.scheduler_address)


def test_multiclass_objective_is_the_mean_as_in_memory(tmp_path, capsys):
    """A 3-class file: the objective --dask prints (per round and last) is the
    mean over the one-vs-rest SVMs, as in-memory train prints it."""
    from sklearn.datasets import load_iris

    X, y = load_iris(return_X_y=True)
    order = np.random.default_rng(0).permutation(len(y))
    X = (X - X.mean(axis=0)) / X.std(axis=0)
    train = _write_libsvm(tmp_path / "iris.svm", X[order], y[order] + 1)
    model = str(tmp_path / "m.ssvm")

    def objectives(*options):
        assert main(["train", train, model, "--epochs", "3000"] + list(options)) == 0
        out = capsys.readouterr().out
        return [float(t.split("objective ")[1].split(",")[0]) for t in out.splitlines()
                if "objective " in t]

    in_memory = objectives("--tol", "1e-6", "-q")[-1]
    rounds = objectives("--dask", "local:1", "--tol", "1e-4")
    assert rounds[-1] == rounds[-2]  # the last round's line and the final line
    assert rounds[-1] == pytest.approx(in_memory, rel=1e-3)


def test_tol_default_is_documented(capsys):
    """docs/cli.rst and train --help give the --tol default that --dask uses:
    the Dask estimators' tol."""
    import inspect
    import re
    from pathlib import Path

    from stochsvm import dask as sdask

    tol = {inspect.signature(Est).parameters["tol"].default
           for Est in (sdask.DaskLinearSVMClassifier, sdask.DaskLinearSVMRegressor)}
    doc = Path(__file__).resolve().parents[1].joinpath("docs", "cli.rst").read_text()
    assert main(["train", "--help"]) == 0
    usage = " ".join(capsys.readouterr().out.split())
    for text in (" ".join(doc.split()), usage):
        found = re.search(r"--tol`* is the relative duality gap (?:that stops CoCoA\+ )?"
                          r"\(default ([^,;)]+)", text)
        assert found and {float(found.group(1))} == tol


@pytest.mark.parametrize("extra, message", [
    (["--kernel", "rbf"], "--dask does not take --kernel"),
    (["--homkermap", "chi2"], "--dask does not take --homkermap"),
    (["--scale", "minmax"], "--dask does not take --scale"),
    (["-v", "3"], "--dask does not take -v/--cv"),
    (["--validation", "0.2"], "--dask does not take --validation"),
    (["--probability"], "--dask does not take --probability"),
    (["--solver", "pegasos"], "--solver sdca or sgd"),
    (["--lambda", "0.1", "-C", "2"], "give either -C or --lambda"),
    (["--blocksize", "lots"], "--blocksize"),
    (["--blocksize", "0"], "--blocksize"),
])
def test_usage_errors(files, capsys, extra, message):
    assert main(["train", files[0], "--dask", "local:2"] + extra) == 2
    err = capsys.readouterr().err
    assert message in err
    assert err.count("\n") == 1 and "Traceback" not in err


@pytest.mark.parametrize("address, message", [
    ("local:0", "N must be a positive number"),
    ("local:two", "N must be a positive number"),
    ("nonsense", "expected a scheduler address"),
])
def test_bad_address(files, capsys, address, message):
    assert main(["train", files[0], "--dask", address]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


def test_missing_file(tmp_path, capsys):
    assert main(["train", str(tmp_path / "none.svm"), "--dask", "local:1"]) == 2
    err = capsys.readouterr().err
    assert "none.svm" in err and err.count("\n") == 1


def test_missing_distributed(files, capsys, monkeypatch):
    monkeypatch.setattr(_cli_dask, "_has_distributed", lambda: False)
    assert main(["train", files[0], "--dask", "local:1"]) == 2
    err = capsys.readouterr().err
    assert "--dask needs dask and distributed" in err and err.count("\n") == 1


def test_grid_does_not_take_dask(files, capsys):
    assert main(["grid", files[0], "--dask", "local:1"]) == 2
    assert "unrecognized arguments: --dask" in capsys.readouterr().err
