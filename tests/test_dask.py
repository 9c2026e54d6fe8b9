"""stochsvm.dask: CoCoA+ and parameter mixing on a real distributed.LocalCluster.

Two worker processes on the loopback interface, one thread each, dashboard
off. Every fit runs with a round timeout and every test that could block
runs in a daemon thread joined with a timeout, so a bug shows as a failure,
never as a hung suite. The module's cluster is closed at the end and the
closing is checked.
"""

import os
import pickle
import signal
import threading
import time
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils.validation import check_is_fitted

from _helpers import make_problem, objective

if os.environ.get("CI"):  # CI installs dask: a missing one is a failure there, not a skip
    import dask.array as da
    import distributed
else:
    da = pytest.importorskip("dask.array", reason="stochsvm.dask needs dask (pip install .[dask])")
    distributed = pytest.importorskip("distributed", reason="stochsvm.dask needs distributed")

import stochsvm  # noqa: E402
from stochsvm.dask import DaskLinearSVMClassifier, DaskLinearSVMRegressor  # noqa: E402

pytestmark = [
    # distributed warns about its own event loop and sockets on shutdown; those
    # warnings are not about stochsvm.
    pytest.mark.filterwarnings("ignore::ResourceWarning"),
    pytest.mark.filterwarnings("ignore::DeprecationWarning"),
    pytest.mark.filterwarnings("ignore:.*[Cc]onnection.*:RuntimeWarning"),
    pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning"),
]

TIMEOUT = 120.0  # seconds any fit may take before the test fails


def _new_cluster():
    return distributed.LocalCluster(n_workers=2, processes=True, threads_per_worker=1,
                                    host="127.0.0.1", dashboard_address=None,
                                    # no dashboard; the scheduler's small HTTP server
                                    # (always started) on a free port, not 8787
                                    scheduler_kwargs={"dashboard_address": "127.0.0.1:0",
                                                      "dashboard": False},
                                    silence_logs=50, death_timeout=60)


def _close(client, cluster):
    """Close client and cluster; check that no worker process outlives them."""
    import psutil

    try:
        pids = list(client.run(os.getpid, on_error="ignore").values())
    except Exception:  # a client that cannot reach its workers any more
        pids = []
    client.close(timeout=30)
    cluster.close(timeout=30)
    deadline = time.monotonic() + 30
    alive = [p for p in pids if psutil.pid_exists(p)]
    while alive and time.monotonic() < deadline:
        time.sleep(0.2)
        alive = [p for p in alive if psutil.pid_exists(p)
                 and psutil.Process(p).status() != psutil.STATUS_ZOMBIE]
    assert not alive, f"worker processes {alive} still running after the cluster closed"


@pytest.fixture(scope="module")
def cluster():
    cluster = _new_cluster()
    client = distributed.Client(cluster, timeout=60, set_as_default=True)
    try:
        yield cluster
    finally:
        _close(client, cluster)
    assert cluster.status.name == "closed"
    assert client.status == "closed"


@pytest.fixture
def client(cluster):
    client = distributed.get_client()
    with client.as_current():
        yield client


def in_thread(function, timeout=TIMEOUT, client=None):
    """Run function() in a daemon thread; fail (not hang) after timeout seconds.

    With ``client``, that client is the current one in the thread (otherwise
    the thread sees the process's default client, the module's cluster).
    """
    box = {}

    def target():
        try:
            if client is None:
                box["value"] = function()
            else:
                with client.as_current():
                    box["value"] = function()
        except BaseException as exc:  # re-raised in the test's thread
            box["error"] = exc

    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    thread.join(timeout)
    assert not thread.is_alive(), f"did not finish within {timeout} s"
    if "error" in box:
        raise box["error"]
    return box["value"]


def optimum(X, y, lam, loss="hinge", weights=None, B=1.0, gap=1e-6):
    """The exact single-machine optimum of the same problem (SDCA to a duality
    gap of `gap`, or at least 1e-6 within 1000 epochs)."""
    svm = stochsvm.SVM(X, y, lam, solver="sdca", loss=loss)
    svm.set_bias_multiplier(B)
    if weights is not None:
        svm.set_weights(weights)
    svm.set_epsilon(gap)
    svm.set_max_num_iterations(1000 * len(y))
    stats = svm.train()
    assert stats["status"] == "converged" or stats["duality_gap"] <= 1e-6
    return stats["objective"]


def single_sgd(X, y, lam, epochs, loss="hinge"):
    """The single-machine SGD fit with as many epochs as the distributed one ran."""
    svm = stochsvm.SVM(X, y, lam, loss=loss)
    svm.set_bias_multiplier(1.0)
    svm.set_epsilon(0.0)
    svm.set_max_num_iterations(epochs * len(y))
    return svm.train()["objective"]


LAM = 3e-3


@pytest.fixture(scope="module")
def dense_problem():
    return make_problem(n=6000, d=20, seed=3)


@pytest.mark.slow
def test_dense_chunks_objective_within_one_percent(client, dense_problem):
    X, y = dense_problem
    Xd = da.from_array(X, chunks=(1500, 20))
    yd = da.from_array(y, chunks=1500)
    clf = DaskLinearSVMClassifier(solver="sgd", lambda_=LAM, max_iter=15, tol=0,
                                  round_timeout=60)
    in_thread(lambda: clf.fit(Xd, yd))
    assert clf.n_iter_ == 15
    w, b = clf.coef_[0], clf.intercept_[0]
    # The reported (distributed) objective is the objective of the returned model.
    assert clf.objective_ == pytest.approx(objective(X, y, w, b, LAM), rel=1e-10)
    best = optimum(X, y, LAM)
    assert clf.objective_ <= 1.01 * best
    assert clf.objective_ <= 1.01 * single_sgd(X, y, LAM, clf.n_iter_)
    # Mixing really happened: the schedule counts every partition's iterations.
    assert clf.history_[-1]["iteration"] == 15 * len(y)
    assert [h["round"] for h in clf.history_] == list(range(1, 16))
    assert all(h["wall_time"] > 0 for h in clf.history_)


#: CoCoA+'s tests: a better conditioned problem (lambda N = 30) keeps the
#: rounds to a 1e-3 relative gap in the tens (hinge2: about 150)
LAM_C = 1e-2


def fit_cocoa(X, y, chunks, **params):
    params = {"lambda_": LAM_C, "round_timeout": 60, "max_iter": 400, **params}
    clf = DaskLinearSVMClassifier(**params)
    Xd = (da.from_array(X, chunks=(chunks, X.shape[1]), asarray=False) if sp.issparse(X)
          else da.from_array(X, chunks=(chunks, X.shape[1])))
    in_thread(lambda: clf.fit(Xd, da.from_array(y, chunks=(chunks,))))
    return clf


def check_certificate(clf, X, y, best, loss="hinge", B=1.0, weights=None):
    """The fit stopped on its gap, the gap is the returned model's, and it bounds
    the distance to the single-machine optimum `best` computed to 1e-9."""
    assert clf.converged_ and clf.relative_gap_ <= clf.tol
    last = clf.history_[-1]
    assert clf.objective_ == pytest.approx(
        objective(X, y, clf.coef_[0], clf.intercept_[0], clf.lambda_, B=B, loss=loss,
                  weights=weights), rel=1e-9)
    # weak duality (best is within 1e-6 of the optimum)
    assert last["dual_objective"] <= best + 1e-9 and best - 1e-6 <= clf.objective_
    assert clf.duality_gap_ == pytest.approx(clf.objective_ - last["dual_objective"])
    assert (clf.objective_ - best) / best <= clf.tol


@pytest.mark.parametrize("loss", ["hinge", "hinge2", "logistic"])
def test_cocoa_reaches_the_single_machine_optimum(client, dense_problem, loss):
    X, y = dense_problem
    clf = fit_cocoa(X, y, 2000, loss=loss, tol=1e-3, local_epochs=2)
    best = optimum(X, y, LAM_C, loss=loss, gap=1e-8)
    check_certificate(clf, X, y, best, loss=loss)
    assert clf.solver == "sdca" and 1 <= clf.n_iter_ < clf.max_iter
    assert [h["round"] for h in clf.history_] == list(range(1, clf.n_iter_ + 1))
    # each round sends w (d + 1 floats) to 3 partitions and gets back their
    # contributions and 2 gap terms each
    assert all(h["bytes_sent"] == 3 * 8 * (21 + 21 + 2) for h in clf.history_)
    assert clf.bytes_sent_ == sum(h["bytes_sent"] for h in clf.history_)
    assert all(h["wall_time"] > 0 and np.isfinite(h["relative_gap"]) for h in clf.history_)
    gaps = [h["duality_gap"] for h in clf.history_]
    assert gaps[-1] < gaps[0]


def test_cocoa_one_partition_is_sdca(client, dense_problem):
    """One partition: lambda' = lambda and no shift, so every round is one more
    SDCA epoch (with the shrinking state reset): the gap falls like SDCA's."""
    X, y = dense_problem
    clf = fit_cocoa(X, y, len(y), tol=1e-4)
    check_certificate(clf, X, y, optimum(X, y, LAM_C, gap=1e-8))
    svm = stochsvm.SVM(X, y, LAM_C, solver="sdca", seed=0)
    svm.set_bias_multiplier(1.0)
    svm.set_epsilon(0.0)
    svm.set_max_num_iterations(clf.n_iter_ * len(y))
    assert svm.train()["objective"] == pytest.approx(clf.objective_, rel=1e-4)


def test_cocoa_without_bias(client, dense_problem):
    X, y = dense_problem
    clf = fit_cocoa(X, y, 1500, bias_multiplier=0.0, tol=1e-3, local_epochs=2)
    assert clf.intercept_[0] == 0.0
    check_certificate(clf, X, y, optimum(X, y, LAM_C, B=0.0, gap=1e-8), B=0.0)


@pytest.mark.parametrize("skew", ["sizes", "labels"])
def test_cocoa_under_partition_skew(client, skew):
    """1:20 partition sizes, or every positive row in one partition: the same
    optimum (relative gap <= 1e-3 against the single-machine one)."""
    X, y = make_problem(n=4200, d=15, seed=8)
    if skew == "sizes":
        chunks = (200, 4000)
    else:
        order = np.argsort(-y, kind="stable")  # the positives first
        X, y = X[order], y[order]
        positives = int(np.sum(y > 0))
        chunks = (positives, len(y) - positives)
    clf = DaskLinearSVMClassifier(lambda_=LAM_C, tol=1e-3, local_epochs=2, max_iter=400,
                                  round_timeout=60)
    in_thread(lambda: clf.fit(da.from_array(X, chunks=(chunks, 15)),
                              da.from_array(y, chunks=(chunks,))))
    if skew == "labels":
        assert set(np.unique(y[:chunks[0]])) == {1.0}
    check_certificate(clf, X, y, optimum(X, y, LAM_C, gap=1e-8))


def test_cocoa_weights_sparse_float32(client):
    X, y = make_problem(n=3000, d=30, seed=4, sparsity=0.7)
    Xs = sp.csr_matrix(X.astype(np.float32))
    weights = np.where(y > 0, 2.0, 0.5)
    weights[:50] = 0.0
    clf = DaskLinearSVMClassifier(lambda_=LAM_C, loss="logistic", tol=1e-4, round_timeout=60)
    in_thread(lambda: clf.fit(da.from_array(Xs, chunks=(1000, 30), asarray=False),
                              da.from_array(y, chunks=1000),
                              sample_weight=da.from_array(weights, chunks=1000)))
    X64 = Xs.toarray().astype(np.float64)
    check_certificate(clf, X64, y, optimum(Xs, y, LAM_C, loss="logistic", weights=weights,
                                           gap=1e-8), loss="logistic", weights=weights)


def test_cocoa_verbose_reports_rounds(client, dense_problem, capsys):
    X, y = dense_problem
    clf = fit_cocoa(X, y, 3000, tol=1e-2, verbose=1)
    out = capsys.readouterr().out.splitlines()
    assert len(out) == clf.n_iter_
    assert "relative gap" in out[-1] and "bytes sent" in out[-1]


def test_one_partition_equals_one_machine(client, dense_problem):
    """With one partition, mixing is the identity: r rounds of one local epoch
    continue one SGD schedule, as r epochs of one SVM (same seed and t0)."""
    X, y = dense_problem
    clf = DaskLinearSVMClassifier(solver="sgd", lambda_=LAM, max_iter=4, tol=0,
                                  round_timeout=60)
    in_thread(lambda: clf.fit(da.from_array(X, chunks=(len(y), 20)), da.from_array(y)))
    svm = stochsvm.SVM(X, y, LAM, seed=0)
    svm.set_bias_multiplier(1.0)
    svm.set_epsilon(0.0)
    svm.set_max_num_iterations(4 * len(y))
    stats = svm.train()
    np.testing.assert_allclose(clf.coef_[0], svm.get_model(), rtol=1e-12, atol=1e-14)
    assert clf.intercept_[0] == pytest.approx(svm.get_bias(), rel=1e-12, abs=1e-14)
    assert clf.objective_ == pytest.approx(stats["objective"], rel=1e-12)


@pytest.mark.slow
def test_sparse_chunks_and_float32(client):
    X, y = make_problem(n=4000, d=40, seed=4, sparsity=0.7)
    Xs = sp.csr_matrix(X.astype(np.float32))
    Xd = da.from_array(Xs, chunks=(1000, 40), asarray=False)
    assert sp.issparse(Xd.blocks[0].compute())
    yd = da.from_array(y, chunks=1000)
    clf = DaskLinearSVMClassifier(lambda_=LAM, loss="logistic", max_iter=10, tol=0,
                                  round_timeout=60)
    in_thread(lambda: clf.fit(Xd, yd))
    X32 = Xs.toarray().astype(np.float64)
    assert clf.objective_ == pytest.approx(
        objective(X32, y, clf.coef_[0], clf.intercept_[0], LAM, loss="logistic"), rel=1e-9)
    assert clf.objective_ <= 1.01 * optimum(Xs, y, LAM, loss="logistic")
    # Distributed prediction on sparse chunks equals the local one.
    scores = clf.decision_function(Xd)
    assert isinstance(scores, da.Array)
    np.testing.assert_allclose(scores.compute(), X32 @ clf.coef_[0] + clf.intercept_[0],
                               rtol=1e-5, atol=1e-6)
    assert clf.score(Xd, yd) == pytest.approx(clf.score(Xs, y))


@pytest.mark.slow
def test_dataframe_input_and_labels(client, dense_problem):
    dd = pytest.importorskip("dask.dataframe")
    pd = pytest.importorskip("pandas")
    X, y = dense_problem
    labels = np.where(y > 0, 7, 3)
    df = dd.from_pandas(pd.DataFrame(X, columns=[f"f{j}" for j in range(X.shape[1])]),
                        npartitions=3)
    ys = dd.from_pandas(pd.Series(labels), npartitions=3)
    clf = DaskLinearSVMClassifier(lambda_=LAM, max_iter=10, tol=0, round_timeout=60)
    in_thread(lambda: clf.fit(df, ys))
    assert list(clf.classes_) == [3, 7]
    predicted = clf.predict(df).compute()
    expected = np.where(X @ clf.coef_[0] + clf.intercept_[0] >= 0, 7, 3)
    np.testing.assert_array_equal(predicted, expected)
    assert clf.objective_ <= 1.01 * optimum(X, y, LAM)
    assert clf.score(df, ys) > 0.75


def test_multiclass_one_vs_rest(client):
    rng = np.random.default_rng(5)
    centers = rng.normal(scale=1.0, size=(3, 10))
    labels = rng.integers(0, 3, size=3000)
    X = centers[labels] + rng.normal(size=(3000, 10))
    Xd = da.from_array(X, chunks=(1000, 10))
    yd = da.from_array(labels, chunks=1000)
    clf = DaskLinearSVMClassifier(lambda_=LAM, max_iter=15, local_epochs=2, tol=0,
                                  round_timeout=60)
    in_thread(lambda: clf.fit(Xd, yd))
    assert clf.coef_.shape == (3, 10)
    for k in range(3):
        yk = np.where(labels == k, 1.0, -1.0)
        assert clf.history_[-1]["objectives"][k] <= 1.01 * optimum(X, yk, LAM)
    s = X @ clf.coef_.T + clf.intercept_
    np.testing.assert_allclose(clf.decision_function(Xd).compute(), s)
    np.testing.assert_array_equal(clf.predict(Xd).compute(), np.argmax(s, axis=1))
    assert clf.score(Xd, yd) > 0.6


@pytest.mark.slow
def test_regressor(client):
    rng = np.random.default_rng(6)
    X = rng.normal(size=(4000, 15))
    y = X @ rng.normal(size=15) + 0.5 + 0.3 * rng.normal(size=4000)
    Xd = da.from_array(X, chunks=(1000, 15))
    yd = da.from_array(y, chunks=1000)
    reg = DaskLinearSVMRegressor(lambda_=LAM, max_iter=15, local_epochs=2, tol=0,
                                 round_timeout=60)
    in_thread(lambda: reg.fit(Xd, yd, validation_data=(Xd, yd)))
    assert reg.coef_.shape == (15,)
    residual = y - X @ reg.coef_ - reg.intercept_
    exact = LAM / 2 * (reg.coef_ @ reg.coef_ + reg.intercept_ ** 2) + np.mean(residual ** 2)
    assert reg.objective_ == pytest.approx(exact, rel=1e-10)
    assert reg.objective_ <= 1.01 * optimum(X, y, LAM, loss="l2")
    predicted = reg.predict(Xd)
    assert isinstance(predicted, da.Array)
    np.testing.assert_allclose(predicted.compute(), X @ reg.coef_ + reg.intercept_)
    from sklearn.metrics import r2_score

    r2 = r2_score(y, X @ reg.coef_ + reg.intercept_)
    assert reg.score(Xd, yd) == pytest.approx(r2)
    assert reg.history_[-1]["validation_score"] == pytest.approx(r2)


def test_weights_and_validation(client, dense_problem):
    X, y = dense_problem
    weights = np.where(y > 0, 2.0, 0.5)
    Xd = da.from_array(X, chunks=(1500, 20))
    yd = da.from_array(y, chunks=1500)
    wd = da.from_array(weights, chunks=1500)
    clf = DaskLinearSVMClassifier(lambda_=LAM, max_iter=15, tol=0, round_timeout=60)
    in_thread(lambda: clf.fit(Xd, yd, sample_weight=wd, validation_data=(Xd, yd)))
    assert clf.objective_ == pytest.approx(
        objective(X, y, clf.coef_[0], clf.intercept_[0], LAM, weights=weights), rel=1e-10)
    assert clf.objective_ <= 1.01 * optimum(X, y, LAM, weights=weights)
    assert clf.history_[-1]["validation_score"] == pytest.approx(clf.score(X, y))
    assert clf.score(Xd, yd, sample_weight=wd) == pytest.approx(
        clf.score(X, y, sample_weight=weights))


def test_callback_determinism_and_pickle(client, dense_problem):
    X, y = dense_problem
    Xd = da.from_array(X, chunks=(2000, 20))
    yd = da.from_array(y, chunks=2000)
    seen = []

    def fit():
        clf = DaskLinearSVMClassifier(lambda_=LAM, max_iter=10, tol=0, round_timeout=60)
        return clf.fit(Xd, yd, callback=lambda stats: seen.append(stats["round"])
                       or stats["round"] == 3)

    a, b = in_thread(fit), in_thread(fit)
    assert a.n_iter_ == 3 and seen == [1, 2, 3] * 2
    np.testing.assert_array_equal(a.coef_, b.coef_)  # same seed, same answer
    c = in_thread(lambda: DaskLinearSVMClassifier(lambda_=LAM, max_iter=3, tol=0, random_state=1,
                                                   round_timeout=60).fit(Xd, yd))
    assert not np.array_equal(a.coef_, c.coef_)  # the seed reaches the partitions
    restored = pickle.loads(pickle.dumps(a))
    np.testing.assert_array_equal(restored.predict(X), a.predict(X))


def _incoming_bytes(dask_worker):
    return sum(entry.get("total", 0) for entry in dask_worker.transfer_incoming_log)


def test_only_models_travel(client):
    """Rows are generated and persisted on the workers; while fitting, the workers
    receive from each other only a tiny fraction of the data (models, not rows)."""
    rng = da.random.default_rng(7)
    X = rng.standard_normal((40000, 20), chunks=(10000, 20))
    y = da.where(X[:, 0] + 0.5 * X[:, 1] > 0, 1.0, -1.0)
    X, y = client.persist([X, y])
    distributed.wait([X, y], timeout=60)
    before = sum(client.run(_incoming_bytes).values())
    clf = DaskLinearSVMClassifier(lambda_=LAM, max_iter=5, tol=0, round_timeout=60)
    in_thread(lambda: clf.fit(X, y))
    moved = sum(client.run(_incoming_bytes).values()) - before
    assert clf.n_iter_ == 5 and clf.score(X, y) > 0.95
    # One 10000 x 20 float64 chunk is 1.6 MB; 5 rounds of models are a few kB.
    assert moved < 0.01 * X.nbytes


def test_tol_stops_and_c_parameter(client, dense_problem):
    X, y = dense_problem
    Xd = da.from_array(X, chunks=(3000, 20))
    yd = da.from_array(y, chunks=3000)
    clf = DaskLinearSVMClassifier(solver="sgd", C=1.0 / (LAM * len(y)), max_iter=40,
                                  tol=1e-2, round_timeout=60)
    in_thread(lambda: clf.fit(Xd, yd))
    assert clf.lambda_effective_ == pytest.approx(LAM)
    assert clf.converged_ and clf.n_iter_ < 40
    last, before = clf.history_[-1]["objective"], clf.history_[-2]["objective"]
    assert abs(last - before) <= 1e-2 * before


def _import_dask_ml_wrappers():
    if os.environ.get("CI"):
        import dask_ml.wrappers as wrappers
        return wrappers
    return pytest.importorskip("dask_ml.wrappers", reason="needs dask-ml")


@pytest.mark.parametrize("sparse", [False, True])
def test_dask_ml_incremental_around_the_estimators(client, dense_problem, sparse):
    """dask_ml.wrappers.Incremental calls partial_fit block after block: the
    result equals the same partial_fit calls on one machine."""
    wrappers = _import_dask_ml_wrappers()
    from stochsvm.linear import LinearSVMClassifier

    X, y = dense_problem
    X = sp.csr_matrix(np.where(np.abs(X) > 0.5, X, 0.0)) if sparse else X
    Xd = (da.from_array(X, chunks=(1500, 20), asarray=False) if sparse
          else da.from_array(X, chunks=(1500, 20)))
    yd = da.from_array(y, chunks=1500)
    params = dict(solver="sgd", loss="hinge", lambda_=LAM, random_state=0)
    inc = wrappers.Incremental(LinearSVMClassifier(**params), shuffle_blocks=False,
                               scoring="accuracy")
    in_thread(lambda: inc.fit(Xd, yd, classes=[-1.0, 1.0]))
    reference = LinearSVMClassifier(**params)
    for start in range(0, len(y), 1500):
        reference.partial_fit(X[start:start + 1500], y[start:start + 1500], classes=[-1.0, 1.0])
    np.testing.assert_array_equal(inc.estimator_.coef_, reference.coef_)
    np.testing.assert_array_equal(inc.estimator_.intercept_, reference.intercept_)
    predicted = inc.predict(Xd)
    assert isinstance(predicted, da.Array)
    np.testing.assert_array_equal(predicted.compute(), reference.predict(X))
    assert inc.score(Xd, yd) == pytest.approx(reference.score(X, y))
    assert inc.score(Xd, yd) > 0.75


@pytest.mark.slow
def test_round_timeout_is_a_clear_error(client, dense_problem):
    X, y = dense_problem
    Xd = da.from_array(X, chunks=(1500, 20))
    yd = da.from_array(y, chunks=1500)
    slow = Xd.map_blocks(lambda block: (__import__("time").sleep(3), block)[1])
    clf = DaskLinearSVMClassifier(lambda_=LAM, max_iter=3, round_timeout=0.5)
    with pytest.raises(RuntimeError, match="round_timeout=0.5"):
        in_thread(lambda: clf.fit(slow, yd))
    assert not hasattr(clf, "coef_")


def test_unknown_chunk_sizes_are_computed_within_round_timeout(client):
    """Rows of unknown chunk sizes (a boolean mask, a dask DataFrame) fit, and
    on a cluster with no worker fit raises after round_timeout, not never."""
    dd = pytest.importorskip("dask.dataframe")
    pd = pytest.importorskip("pandas")
    X, y = make_problem(200, 3, seed=1)
    Xd, yd = da.from_array(X, chunks=(100, -1)), da.from_array(y, chunks=100)
    keep = Xd[:, 0] > -100  # every row, in chunks of unknown (nan) size
    clf = DaskLinearSVMClassifier(max_iter=2, tol=0, round_timeout=60)
    in_thread(lambda: clf.fit(Xd[keep], yd[keep]))
    assert clf.coef_.shape == (1, 3)
    frame = dd.from_pandas(pd.DataFrame(X), npartitions=2)
    labels = dd.from_pandas(pd.Series(y), npartitions=2)
    with distributed.LocalCluster(n_workers=0, processes=False, dashboard_address=None,
                                  silence_logs=50) as empty, distributed.Client(empty) as idle:
        for X_in, y_in in [(Xd[keep], yd[keep]), (Xd, yd[keep]), (frame, labels)]:
            clf = DaskLinearSVMClassifier(round_timeout=1)
            with pytest.raises(RuntimeError, match="chunk sizes .* round_timeout=1 s"):
                in_thread(lambda: clf.fit(X_in, y_in), client=idle)


def test_numpy_y_or_weights_of_another_length(client):
    """A NumPy y or sample_weight of another length than a dask X: a message
    giving both lengths (as for a dask y), in fit and in score."""
    X, y = make_problem(569, 3, seed=2)
    Xd = da.from_array(X, chunks=(200, -1))
    for Est in (DaskLinearSVMClassifier, DaskLinearSVMRegressor):
        with pytest.raises(ValueError, match="^y has 564 rows, X has 569$"):
            Est(round_timeout=60).fit(Xd, y[:-5])
        with pytest.raises(ValueError, match="^sample_weight has 568 rows, X has 569$"):
            Est(round_timeout=60).fit(Xd, y, sample_weight=np.ones(568))
        est = in_thread(lambda: Est(max_iter=1, tol=0, round_timeout=60).fit(Xd, y))
        with pytest.raises(ValueError, match="^y has 566 rows, X has 569$"):
            est.score(Xd, y[:-3])
        with pytest.raises(ValueError, match="^sample_weight has 566 rows, X has 569$"):
            est.score(Xd, y, sample_weight=np.ones(566))
        # a NumPy X (scored locally): NumPy's broadcasting error before
        match = ("^y has 566 rows, X has 569$" if Est is DaskLinearSVMClassifier
                 else "inconsistent numbers of samples")  # scikit-learn's r2_score
        with pytest.raises(ValueError, match=match):
            est.score(X, y[:-3])
        with pytest.raises(ValueError, match=match.replace("y", "sample_weight")):
            est.score(X, y, sample_weight=np.ones(566))
    # labels of another type than the classes (strings for 0/1): 0.0 before
    clf = in_thread(lambda: DaskLinearSVMClassifier(max_iter=1, tol=0, round_timeout=60)
                    .fit(Xd, (y > 0).astype(int)))
    assert clf.score(X, (y > 0).astype(int)) > 0.5
    with pytest.raises(ValueError, match="Mix of label input types"):
        clf.score(X, (y > 0).astype(int).astype(str))


def test_random_state_takes_what_the_in_memory_estimators_take(client):
    """random_state None is seed 0; a RandomState or Generator gives each fit
    a seed drawn from it (stochsvm._validation.seed_of), as in memory."""
    from stochsvm._validation import seed_of

    X, y = make_problem(300, 4, seed=4)
    Xd, yd = da.from_array(X, chunks=(150, -1)), da.from_array(y, chunks=150)

    def coef(random_state):
        est = DaskLinearSVMClassifier(random_state=random_state, max_iter=2, tol=0,
                                      round_timeout=60)
        return in_thread(lambda: est.fit(Xd, yd)).coef_

    np.testing.assert_array_equal(coef(None), coef(0))
    for make in (np.random.RandomState, np.random.default_rng):
        np.testing.assert_array_equal(coef(make(7)), coef(seed_of(make(7))))
        generator = make(7)
        assert not np.array_equal(coef(generator), coef(generator))  # a new seed per fit


def test_get_params_and_clone():
    from sklearn.base import clone

    clf = DaskLinearSVMClassifier(loss="logistic", lambda_=1e-4, local_epochs=3, max_iter=7)
    params = clone(clf).get_params()
    assert params["loss"] == "logistic" and params["local_epochs"] == 3
    assert params["max_iter"] == 7 and params["lambda_"] == 1e-4
    assert DaskLinearSVMRegressor().get_params()["loss"] == "l2"


def test_bad_input(client, dense_problem):
    X, y = dense_problem
    Xd = da.from_array(X, chunks=(3000, 20))
    yd = da.from_array(y, chunks=3000)
    with pytest.raises(ValueError, match="solver"):
        DaskLinearSVMClassifier(solver="pegasos").fit(Xd, yd)
    with pytest.raises(ValueError, match="loss"):
        DaskLinearSVMClassifier(loss="l2").fit(Xd, yd)
    with pytest.raises(ValueError, match="C or lambda_"):
        DaskLinearSVMClassifier(C=1.0, lambda_=1.0).fit(Xd, yd)
    with pytest.raises(ValueError, match="rows"):
        DaskLinearSVMClassifier(round_timeout=60).fit(Xd, yd[:100])
    with pytest.raises(ValueError, match="two classes"):
        in_thread(lambda: DaskLinearSVMClassifier(round_timeout=60).fit(
            Xd, da.ones(len(y), chunks=3000)))
    with pytest.raises(ValueError, match="2-D"):
        DaskLinearSVMClassifier().fit(Xd[:, 0], yd)
    with pytest.raises(TypeError, match="X must be"):
        DaskLinearSVMClassifier().fit("data", yd)
    Xnan = Xd.map_blocks(lambda b: np.where(b > 3.5, np.nan, b))
    with pytest.raises(ValueError, match="NaN"):
        in_thread(lambda: DaskLinearSVMClassifier(round_timeout=60).fit(Xnan, yd))
    clf = DaskLinearSVMClassifier(lambda_=LAM, max_iter=2, tol=0, round_timeout=60)
    with pytest.raises(Exception, match="not fitted"):
        clf.predict(Xd)
    in_thread(lambda: clf.fit(Xd, yd))
    with pytest.raises(ValueError, match="features"):
        clf.predict(Xd[:, :5])


def _in_memory_error(function):
    with pytest.raises(ValueError) as info:
        function()
    return str(info.value).splitlines()[0]


def test_bad_input_as_the_in_memory_estimators(client, dense_problem):
    """NaN/inf rows in fit and predict, zero and negative weights, one class,
    mismatched chunks: the in-memory estimator's error, word for word."""
    from stochsvm.linear import LinearSVMClassifier

    X, y = dense_problem
    Xd = da.from_array(X, chunks=(3000, 20))
    yd = da.from_array(y, chunks=3000)
    local = LinearSVMClassifier(lambda_=LAM).fit(X, y)
    clf = DaskLinearSVMClassifier(lambda_=LAM, max_iter=2, tol=0, round_timeout=60)
    in_thread(lambda: clf.fit(Xd, yd))
    for bad in (np.nan, np.inf):
        Xbad = X.copy()
        Xbad[4321, 3] = bad
        expected = _in_memory_error(lambda: local.predict(Xbad))
        with pytest.raises(ValueError, match=expected[:20]):
            clf.predict(Xbad)
        with pytest.raises(ValueError, match=expected[:20]):
            clf.decision_function(da.from_array(Xbad, chunks=(3000, 20))).compute()
        with pytest.raises(ValueError, match=expected[:20]) as info:
            in_thread(lambda: DaskLinearSVMClassifier(round_timeout=60).fit(
                da.from_array(Xbad, chunks=(3000, 20)), yd))
        assert "(partition 1)" in str(info.value), str(info.value)  # row 4321: the second chunk
    zero = np.zeros(len(y))
    expected = _in_memory_error(lambda: LinearSVMClassifier().fit(X, y, sample_weight=zero))
    with pytest.raises(ValueError, match=expected):
        in_thread(lambda: DaskLinearSVMClassifier(round_timeout=60).fit(
            Xd, yd, sample_weight=da.from_array(zero, chunks=3000)))
    # one partition's weights all zero is fine: the other's carry the problem
    half = np.where(np.arange(len(y)) < 3000, 0.0, 1.0)
    clf_half = DaskLinearSVMClassifier(lambda_=LAM_C, tol=1e-2, round_timeout=60)
    in_thread(lambda: clf_half.fit(Xd, yd, sample_weight=da.from_array(half, chunks=3000)))
    assert clf_half.converged_
    negative = -np.ones(len(y))
    expected = _in_memory_error(lambda: LinearSVMClassifier().fit(X, y, sample_weight=negative))
    with pytest.raises(ValueError, match=expected):
        in_thread(lambda: DaskLinearSVMClassifier(round_timeout=60).fit(
            Xd, yd, sample_weight=da.from_array(negative, chunks=3000)))
    with pytest.raises(ValueError, match="two classes"):
        in_thread(lambda: DaskLinearSVMClassifier(round_timeout=60).fit(
            Xd, da.full(len(y), 2.0, chunks=3000)))
    # y chunked differently from X is rechunked to X's rows; a different length is refused
    a = DaskLinearSVMClassifier(lambda_=LAM_C, tol=1e-2, round_timeout=60)
    in_thread(lambda: a.fit(Xd, da.from_array(y, chunks=1000)))
    b = DaskLinearSVMClassifier(lambda_=LAM_C, tol=1e-2, round_timeout=60)
    in_thread(lambda: b.fit(Xd, yd))
    np.testing.assert_array_equal(a.coef_, b.coef_)
    with pytest.raises(ValueError, match="rows"):
        DaskLinearSVMClassifier().fit(Xd, da.from_array(y[:-1], chunks=3000))


def _kill_worker(client, address):
    """SIGKILL the worker process at address (one this test started): its memory
    is gone at once (a graceful close would first hand its data over)."""
    pid = client.run(os.getpid, workers=[address])[address]
    os.kill(pid, signal.SIGKILL)
    return pid


def _kill_worker_holding_partitions(client):
    """Kill the worker that holds the most partitions; return how many it held."""
    held = {address: [k for k in keys if str(k).startswith("_make_partition")]
            for address, keys in client.has_what().items()}
    address = max(held, key=lambda a: len(held[a]))
    _kill_worker(client, address)
    return len(held[address])


@pytest.mark.slow
def test_worker_killed_mid_fit_recovers(dense_problem):
    """Parameter mixing, a worker killed after round 2: Dask recomputes its
    partitions from the graph (on the surviving worker or the restarted one),
    the fit finishes with a model as good as without the loss."""
    X, y = dense_problem
    cluster = _new_cluster()
    client = distributed.Client(cluster, timeout=60, set_as_default=False)
    try:
        with client.as_current():
            Xd = da.from_array(X, chunks=(1500, 20))
            yd = da.from_array(y, chunks=1500)
            killed = []

            def callback(stats):
                if stats["round"] == 2:
                    killed.append(_kill_worker_holding_partitions(client))

            clf = DaskLinearSVMClassifier(solver="sgd", lambda_=LAM, max_iter=10, tol=0,
                                          round_timeout=60)
            in_thread(lambda: clf.fit(Xd, yd, callback=callback), client=client)
            assert killed[0] >= 2  # the worker with the most of the four partitions
            assert clf.n_iter_ == 10
            assert clf.objective_ == pytest.approx(
                objective(X, y, clf.coef_[0], clf.intercept_[0], LAM), rel=1e-10)
            assert clf.objective_ <= 1.01 * optimum(X, y, LAM)
    finally:
        _close(client, cluster)
    assert cluster.status.name == "closed"


@pytest.mark.slow
def test_cocoa_worker_killed_mid_fit_still_reaches_the_gap(dense_problem):
    """CoCoA+: the worker process holding the most partitions is SIGKILLed
    after round 2, and both after round 6. Dask recomputes the lost
    partitions from the graph, their dual variables restart from zero (the
    round says which), w is rebuilt from the partitions' contributions, and
    the fit still reaches its certified gap."""
    X, y = dense_problem
    cluster = _new_cluster()
    client = distributed.Client(cluster, timeout=60, set_as_default=False)
    try:
        with client.as_current():
            killed = []

            def callback(stats):
                if stats["round"] == 2:
                    killed.append(_kill_worker_holding_partitions(client))
                if stats["round"] == 6:
                    for address in list(client.scheduler_info()["workers"]):
                        killed.append(_kill_worker(client, address))

            clf = DaskLinearSVMClassifier(lambda_=LAM_C, tol=1e-3, max_iter=400,
                                          round_timeout=60)
            Xd = da.from_array(X, chunks=(1500, 20))
            yd = da.from_array(y, chunks=1500)
            in_thread(lambda: clf.fit(Xd, yd, callback=callback), client=client)
            assert len(killed) >= 2 and killed[0] >= 2
            restarted = [h["round"] for h in clf.history_ if h["restarted_partitions"]]
            assert restarted and restarted[0] == 3  # noticed in the round after the loss
            assert all(np.isnan(h["relative_gap"]) for h in clf.history_
                       if h["restarted_partitions"])
            check_certificate(clf, X, y, optimum(X, y, LAM_C, gap=1e-8))
    finally:
        _close(client, cluster)
    assert cluster.status.name == "closed"


@pytest.mark.slow
def test_worker_killed_with_unrecoverable_data_raises(dense_problem):
    """Scattered data have no graph to recompute them from: losing the workers
    that hold them is a clear RuntimeError, within the timeout (the nannies
    restart the workers, empty)."""
    X, y = dense_problem
    cluster = _new_cluster()
    client = distributed.Client(cluster, timeout=60, set_as_default=False)
    try:
        with client.as_current():
            first = sorted(client.scheduler_info()["workers"])[0]
            chunks = [client.scatter(X[i:i + 1500], workers=[first]) for i in range(0, 6000, 1500)]
            Xd = da.concatenate([da.from_delayed(c, shape=(1500, 20), dtype=X.dtype)
                                 for c in chunks])
            yd = da.from_array(y, chunks=1500)

            def callback(stats):
                if stats["round"] == 2:
                    # Dask may have copied chunks to the other worker (then losing
                    # one worker is harmless): kill every worker holding the data.
                    scattered = {c.key for c in chunks}
                    for address, keys in client.has_what().items():
                        if any(k in scattered or str(k).startswith("_make_partition")
                               for k in keys):
                            _kill_worker(client, address)

            clf = DaskLinearSVMClassifier(lambda_=LAM, max_iter=10, tol=0, round_timeout=30)
            with pytest.raises(RuntimeError, match="lost|timeout|dying") as info:
                in_thread(lambda: clf.fit(Xd, yd, callback=callback), client=client)
            assert not hasattr(clf, "coef_")
            message = str(info.value)
            assert "timeout" in message or "dying" in message or (
                "partition" in message and "cannot recompute" in message), message
    finally:
        _close(client, cluster)
    assert cluster.status.name == "closed"


def test_no_client_is_a_clear_error(dense_problem, monkeypatch):
    def no_client():
        raise ValueError("No clients found")

    monkeypatch.setattr(distributed, "get_client", no_client)
    X, y = dense_problem
    with pytest.raises(RuntimeError, match="distributed Client"):
        DaskLinearSVMClassifier().fit(X, y)


def _libsvm_lines(n, d, seed, first_index=1):
    rng = np.random.default_rng(seed)
    lines = []
    for _ in range(n):
        idx = np.sort(rng.choice(d, size=rng.integers(0, 6), replace=False)) + first_index
        lines.append(f"{rng.choice([-1, 1])} "
                     + " ".join(f"{j}:{rng.normal():.6g}" for j in idx) + "\n")
    return lines


def test_read_libsvm_splits_plain_and_compressed_files(client, tmp_path):
    import gzip
    import lzma

    from stochsvm.dask import read_libsvm
    from stochsvm.datasets import load_libsvm

    lines = _libsvm_lines(900, 30, seed=1)
    lines[10] = "# a comment line\n"
    (tmp_path / "part-0.svm").write_text("".join(lines[:400]))
    with gzip.open(tmp_path / "part-1.svm.gz", "wt") as f:
        f.write("".join(lines[400:700]))
    with lzma.open(tmp_path / "part-2.svm.xz", "wt") as f:
        f.write("".join(lines[700:]))
    (tmp_path / "all.svm").write_text("".join(lines))
    expected_X, expected_y = load_libsvm(tmp_path / "all.svm")
    X, y = in_thread(lambda: read_libsvm(str(tmp_path / "part-*"), blocksize=1000))
    assert len(X.chunks[0]) > 3  # the plain file is split
    assert X.shape == expected_X.shape
    got = X.compute()
    assert sp.issparse(got) and (got != expected_X).nnz == 0
    np.testing.assert_array_equal(y.compute(), expected_y)
    X, y = in_thread(lambda: read_libsvm(tmp_path / "all.svm", blocksize=10**6))
    assert len(X.chunks[0]) == 1 and (X.compute() != expected_X).nnz == 0
    # and the result trains
    clf = DaskLinearSVMClassifier(lambda_=LAM_C, tol=1e-2, round_timeout=60)
    X, y = in_thread(lambda: read_libsvm(tmp_path / "all.svm", blocksize="8KiB"))
    in_thread(lambda: clf.fit(X, y))
    assert clf.converged_


def test_read_libsvm_blocks_read_every_line_once(tmp_path):
    """Byte ranges of any size, cutting lines anywhere (or nowhere): the blocks'
    lines, in order, are the file's lines."""
    from stochsvm._dask_libsvm import _blocks, _read_text

    text = "".join(_libsvm_lines(40, 8, seed=3)).encode()
    path = tmp_path / "f.svm"
    path.write_bytes(text)
    for blocksize in list(range(1, 60)) + [len(text) - 1, len(text), 10**6]:
        pieces = [_read_text(str(path), start, end)[0]
                  for _, start, end in _blocks(str(path), blocksize)]
        assert b"".join(pieces) == text, blocksize
        assert all(p == b"" or p.endswith(b"\n") for p in pieces)


def test_read_libsvm_zero_based_and_errors(client, tmp_path):
    from stochsvm.dask import read_libsvm

    lines = _libsvm_lines(300, 12, seed=2, first_index=0)
    path = tmp_path / "zero.svm"
    path.write_text("".join(lines))
    X, _ = in_thread(lambda: read_libsvm(path, blocksize=500))
    assert X.shape[1] == 1 + max(int(t.split(":")[0]) for line in lines
                                 for t in line.split()[1:])
    X1, _ = in_thread(lambda: read_libsvm(path, blocksize=500, n_features=40))
    assert X1.shape[1] == 40
    np.testing.assert_array_equal(X1.compute()[:, :X.shape[1]].toarray(), X.compute().toarray())
    with pytest.raises(ValueError, match="index 0 .*zero_based=False"):
        in_thread(lambda: read_libsvm(path, zero_based=False))
    with pytest.raises(ValueError, match="n_features=3"):
        in_thread(lambda: read_libsvm(path, n_features=3))
    lines[123] = "1 3:0.5 oops\n"
    bad = tmp_path / "bad.svm"
    bad.write_text("".join(lines))
    with pytest.raises(ValueError, match=r"bad\.svm, line 124: .*'oops'"):
        in_thread(lambda: read_libsvm(bad, blocksize=700))
    with pytest.raises(FileNotFoundError, match="nothing-here"):
        read_libsvm(str(tmp_path / "nothing-here*"))
    with pytest.raises(ValueError, match="blocksize"):
        read_libsvm(path, blocksize=0)


@pytest.mark.parametrize("text, line, index", [
    ("1 1:1 1:2\n-1 1:1\n", 1, 1),
    ("1 5:1 2:3 5:2\n-1 1:1\n", 1, 5),
    ("1 1:1 2:1\n-1 7:1 7:2\n", 2, 7),
    ("1 0:1 3:1 0:2\n-1 7:1\n", 1, 0),
])
@pytest.mark.parametrize("zero_based", ["auto", False])
def test_read_libsvm_names_the_repeated_index_of_the_file(tmp_path, text, line, index,
                                                          zero_based):
    """It named the index plus one ('feature index 2 appears twice' for a
    line '1 1:1 1:2'): the blocks are parsed with raw indices, and the message
    added the 1 of 1-based files. Now it names the index written, as
    datasets.load_libsvm does."""
    from stochsvm.datasets import load_libsvm
    from stochsvm.dask import read_libsvm

    path = tmp_path / "dup.svm"
    path.write_text(text)
    message = f"dup\\.svm, line {line}: feature index {index} appears twice"
    with pytest.raises(ValueError, match=message):
        read_libsvm(path, zero_based=zero_based)
    if index > 0:
        with pytest.raises(ValueError, match=f"line {line}: feature index {index} appears twice"):
            load_libsvm(path)


@pytest.mark.parametrize("solver", ["sdca", "sgd"])
def test_a_fit_that_ends_on_its_round_cap_warns(client, solver):
    """max_iter rounds with the test on tol unmet returned the model silently
    (converged_ False, no warning; on partitions holding one class each, 11%
    above the optimum at the default max_iter): it now warns, as the in-memory
    estimators do on their cap; tol = 0 (a fixed number of rounds) does not."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(400, 5))
    y = np.where(X[:, 0] + 0.5 * rng.normal(size=400) > 0, 1, -1)
    order = np.argsort(y, kind="stable")          # partitions of one class each
    Xd = da.from_array(X[order], chunks=(100, 5))
    yd = da.from_array(y[order], chunks=100)

    def fit(tol):
        clf = DaskLinearSVMClassifier(solver=solver, C=1.0, max_iter=3, tol=tol, round_timeout=60)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            clf.fit(Xd, yd)
        return clf, [w for w in caught if issubclass(w.category, ConvergenceWarning)]

    clf, caught = in_thread(lambda: fit(1e-6))
    assert not clf.converged_ and clf.n_iter_ == 3
    assert len(caught) == 1 and "round cap max_iter=3" in str(caught[0].message), caught
    clf, caught = in_thread(lambda: fit(0.0))
    assert clf.n_iter_ == 3 and caught == []


def test_an_interrupted_fit_leaves_the_estimator_unfitted(client, dense_problem):
    # Ctrl+C during a re-fit kept the old coef_ and classes_ beside the new
    # fit's n_features_in_ (stochsvm._stopped_fit: a cold fit stopped leaves
    # the estimator unfitted)
    from sklearn.exceptions import NotFittedError

    X, y = dense_problem
    Xd = da.from_array(X, chunks=(2000, 20))
    yd = da.from_array(y, chunks=2000)
    clf = DaskLinearSVMClassifier(lambda_=LAM, max_iter=2, tol=0, round_timeout=60)
    in_thread(lambda: clf.fit(Xd, yd))
    assert clf.n_iter_ == 2

    def interrupt(stats):
        if stats["round"] == 2:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        in_thread(lambda: clf.fit(Xd[:, :10], yd, callback=interrupt))
    assert [a for a in vars(clf) if a not in clf.get_params(deep=False)] == []
    with pytest.raises(NotFittedError):
        clf.predict(X[:3])
    # scikit-learn's check agrees (the parameter lambda_'s trailing
    # underscore made it pass on an unfitted Dask estimator)
    with pytest.raises(NotFittedError):
        check_is_fitted(clf)


@pytest.mark.parametrize("Estimator", [DaskLinearSVMClassifier, DaskLinearSVMRegressor])
def test_check_is_fitted_of_a_fresh_estimator(Estimator):
    from sklearn.exceptions import NotFittedError

    with pytest.raises(NotFittedError):
        check_is_fitted(Estimator())
    with pytest.raises(NotFittedError):
        check_is_fitted(Estimator(lambda_=1e-3))


def test_feature_names_as_the_in_memory_estimators(client):
    """The Dask estimators ignored a DataFrame's column names: no
    feature_names_in_, and renamed or reordered columns at predict gave
    other predictions in silence (58 of 569 on breast cancer), where the
    in-memory estimators raise. Now the same records, errors and warnings,
    for pandas and dask DataFrames (and validation_data)."""
    dd = pytest.importorskip("dask.dataframe")
    pd = pytest.importorskip("pandas")
    from stochsvm import LinearSVMClassifier

    X, y = make_problem(n=300, d=4, seed=5)
    names = ["a", "b", "c", "d"]
    frame = pd.DataFrame(X, columns=names)
    reordered, renamed = frame[names[::-1]], frame.set_axis(["a", "b", "c", "e"], axis=1)
    local = LinearSVMClassifier().fit(frame, y)
    for make in (DaskLinearSVMClassifier, DaskLinearSVMRegressor):
        for Xfit in (frame, dd.from_pandas(frame, npartitions=2)):
            est = make(max_iter=3, tol=0, round_timeout=60)
            with warnings.catch_warnings():
                warnings.simplefilter("error", UserWarning)  # none about names in fit or predict
                in_thread(lambda: est.fit(Xfit, y))
                predicted = np.asarray(est.predict(Xfit))
            assert est.feature_names_in_.dtype == object
            np.testing.assert_array_equal(est.feature_names_in_, names)
            for bad in (reordered, renamed, dd.from_pandas(reordered, npartitions=2)):
                expected = _in_memory_error(lambda: local.predict(bad if isinstance(
                    bad, pd.DataFrame) else bad.compute()))
                for method in ("predict", "score"):
                    args = (bad, y) if method == "score" else (bad,)
                    with pytest.raises(ValueError, match=expected):
                        getattr(est, method)(*args)
            with pytest.warns(UserWarning, match="X does not have valid feature names"):
                np.testing.assert_allclose(est.predict(X), predicted, rtol=0, atol=1e-12)
            with pytest.warns(UserWarning, match="X does not have valid feature names"):
                est.predict(da.from_array(X, chunks=(150, 4)))
            with pytest.raises(ValueError, match="validation_data X: The feature names should"):
                in_thread(lambda: est.fit(Xfit, y, validation_data=(reordered, y)))
        # fitted on an array: no names, and a DataFrame at predict warns, as in-memory
        in_thread(lambda: est.fit(X, y))
        assert not hasattr(est, "feature_names_in_")
        with pytest.warns(UserWarning, match="fitted without feature names"):
            est.predict(frame)


def test_scikit_learn_checks_of_tags_and_names(client):
    """check_estimator failed check_estimator_sparse_tag (the tags said no
    sparse input, which works and is documented) and
    check_n_features_in_after_fitting (a wrong feature count said "was
    fitted with 30", not scikit-learn's "is expecting 30 features as
    input"); check_dataframe_column_names_consistency failed too."""
    from sklearn.utils import estimator_checks as checks

    for make in (DaskLinearSVMClassifier, DaskLinearSVMRegressor):
        est = make(max_iter=3, tol=0, round_timeout=60)
        assert est.__sklearn_tags__().input_tags.sparse
        for check in (checks.check_estimator_sparse_tag,
                      checks.check_n_features_in_after_fitting,
                      checks.check_dataframe_column_names_consistency):
            in_thread(lambda: check(make.__name__, est))
