"""Live progress (stochsvm._progress): the iteration counter a running SVM
publishes and another thread reads without the object's lock, the poller
that draws it, and the estimators' verbose bar. No timing: the training is
held at a diagnostic while the test reads, or the display is driven from the
diagnostics themselves."""

import io
import queue
import threading

import numpy as np
import pytest

import stochsvm
from stochsvm import _progress
from stochsvm._progress import FitProgress


def _data(n=1000, d=5, classes=2, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = np.digitize(X[:, 0] + 0.3 * X[:, 1], np.linspace(-1, 1, classes + 1)[1:-1])
    return X, y


class Recorder:
    """A fake sink: every update, in order."""

    def __init__(self, title="test"):
        self.title, self.updates, self.closed = title, [], False

    def update(self, done, total, text):
        self.updates.append((done, total, text))

    def close(self):
        self.closed = True


def _linear(n):
    X, y = _data(n)
    svm = stochsvm.SVM(X, np.where(y == 1, 1.0, -1.0), 1e-3, solver="sgd")
    return svm


def _kernel(n):
    X, y = _data(n)
    return stochsvm.KernelSVM(X, np.where(y == 1, 1.0, -1.0), 1e-3, solver="pegasos", gamma=0.5)


@pytest.mark.parametrize("make", [_linear, _kernel], ids=["SVM", "KernelSVM"])
def test_poll_from_another_thread_while_held_inside_an_epoch(make):
    n = 1000
    svm = make(n)
    svm.set_max_num_iterations(n)   # one epoch
    svm.set_epsilon(0.0)
    svm.set_diagnostic_frequency(n // 4)
    reached, resume = queue.Queue(), queue.Queue()

    def diagnostic(stats):       # on the training thread: wait for the test
        if stats["status"] == "training":
            reached.put(stats["iteration"])
            resume.get(timeout=60)

    svm.set_diagnostic_function(diagnostic)
    errors = []
    trainer = threading.Thread(target=lambda: errors.append(svm.train()))
    trainer.start()
    seen = []
    try:
        for _ in range(3):
            t = reached.get(timeout=60)
            # train holds the lock: the ordinary getter is refused, the poll is not
            with pytest.raises(RuntimeError, match="while train"):
                svm.get_iteration_number()
            seen.append((t, svm.poll_iteration_number()))
            resume.put(None)
    finally:
        for _ in range(3):
            resume.put(None)
        trainer.join(60)
    assert seen == [(250, 250), (500, 500), (750, 750)]
    assert svm.poll_iteration_number() == svm.get_iteration_number() == n


def test_poll_after_training_and_before():
    svm = _linear(300)
    assert svm.poll_iteration_number() == 0
    svm.set_max_num_iterations(700)
    svm.train()
    assert svm.poll_iteration_number() == svm.get_iteration_number() == 700


def test_fit_progress_sees_increasing_counts_during_one_epoch():
    n = 1200
    svm = _linear(n)
    svm.set_max_num_iterations(n)
    svm.set_epsilon(0.0)
    svm.set_diagnostic_frequency(n // 4)
    sink = Recorder()
    progress = FitProgress([svm], [n], n, sink, interval=None)
    svm.set_diagnostic_function(lambda stats: progress.poll() and None)
    with progress:
        progress.track(lambda s: s.train())(svm)
    done = [u[0] for u in sink.updates]
    # at the start, at the three diagnostics inside the epoch, at the end
    assert done[:5] == [0, 300, 600, 900, 1200]
    assert all(u[1] == n for u in sink.updates)
    assert "epoch 0.50/1" in sink.updates[2][2]
    assert sink.closed


def test_fit_progress_without_a_sink_draws_nothing():
    svm = _linear(200)
    progress = FitProgress([svm], [200], 200, None)
    assert not progress.drawing
    with progress:
        progress.track(lambda s: s.train())(svm)
    assert progress.poll()[0] == 200


def test_early_stop_gives_back_its_iterations():
    X, y = _data(400)
    svm = stochsvm.SVM(X, np.where(y == 1, 1.0, -1.0), 1e-2, solver="sdca")
    svm.set_max_num_iterations(1000 * 400)
    svm.set_epsilon(1e-2)
    sink = Recorder()
    with FitProgress([svm], [1000 * 400], 400, sink, interval=None) as progress:
        progress.track(lambda s: s.train())(svm)
    done = svm.get_iteration_number()
    assert done < 1000 * 400           # SDCA stopped on its gap
    assert sink.updates[-1][:2] == (done, done)


@pytest.fixture
def recorders(monkeypatch):
    made = []

    def new_sink(title):
        made.append(Recorder(title))
        return made[-1]

    monkeypatch.setattr(_progress, "new_sink", new_sink)
    return made


def test_linear_classifier_one_vs_rest_progress(recorders):
    X, y = _data(600, classes=3)
    clf = stochsvm.LinearSVMClassifier(solver="sgd", max_iter=4, tol=0, verbose=1)
    clf.fit(X, y)
    (sink,) = recorders
    assert sink.title == "LinearSVMClassifier" and sink.closed
    done = [u[0] for u in sink.updates]
    assert done == sorted(done) and done[-1] == sink.updates[-1][1] == 3 * 4 * 600
    texts = [u[2] for u in sink.updates]
    assert any("1/3 classes done" in t for t in texts)
    assert "3/3 classes done" in texts[-1]


def test_kernel_classifier_progress(recorders):
    X, y = _data(300, classes=3)
    clf = stochsvm.KernelSVMClassifier(solver="pegasos", max_iter=2, tol=0)
    clf.verbose = 1   # (the parameter itself comes with the estimators' verbose flag)
    clf.fit(X, y)
    (sink,) = recorders
    assert sink.updates[-1][:2] == (3 * 2 * 300, 3 * 2 * 300)
    assert "3/3 classes done" in sink.updates[-1][2]


def test_quiet_fit_makes_no_display(recorders):
    X, y = _data(200)
    stochsvm.LinearSVMClassifier(max_iter=2, tol=0).fit(X, y)
    assert recorders == []


def test_without_tqdm_the_estimator_prints_lines(monkeypatch, capsys):
    monkeypatch.setitem(__import__("sys").modules, "tqdm", None)  # import tqdm fails
    assert _progress.new_sink("x") is None
    X, y = _data(300, classes=3)
    stochsvm.LinearSVMClassifier(solver="sgd", max_iter=2, tol=0, verbose=1).fit(X, y)
    out = capsys.readouterr()
    assert out.out.count("[LinearSVMClassifier] epoch 2") == 3
    assert out.err == ""


def test_tqdm_bar(monkeypatch):
    pytest.importorskip("tqdm")
    file = io.StringIO()
    monkeypatch.setattr(_progress, "new_sink", lambda title: _progress.TqdmSink(title, file))
    X, y = _data(300, classes=3)
    stochsvm.LinearSVMClassifier(solver="sgd", max_iter=2, tol=0, verbose=1).fit(X, y)
    last = file.getvalue().replace("\r", "\n").strip().splitlines()[-1]
    assert last.startswith("LinearSVMClassifier: 100%") and "3/3 classes done" in last


def _cancer():
    from sklearn.datasets import load_breast_cancer
    from sklearn.preprocessing import StandardScaler

    X, y = load_breast_cancer(return_X_y=True)
    return StandardScaler().fit_transform(X), np.where(y == 1, 1.0, -1.0)


@pytest.mark.parametrize("kind, loss", [("sdca", "squared_hinge"), ("sgd", "hinge"),
                                        ("sgd", "logistic"), ("pegasos", "hinge")])
def test_the_diagnostic_function_sees_how_the_run_ended(kind, loss):
    """A finish after the run's last diagnostic (Newton's; the kernel SDCA
    finish of Pegasos), or a status set after it, changed the statistics the
    function never saw: its last call said "max_iterations" and an older
    objective where train() returned "converged" (c_api.rst: it is called at
    the end of a run, after the statistics are updated)."""
    pytest.importorskip("sklearn")
    X, y = _cancer()
    n = len(y)
    if kind == "pegasos":
        svm = stochsvm.KernelSVM(X[:300], y[:300], 1.0 / 3000, solver="pegasos", gamma=1 / 30,
                                 seed=0)
    else:
        svm = stochsvm.SVM(X, y, 1.0 / n, solver=kind, loss=loss)
    seen = []
    svm.set_diagnostic_function(lambda stats: seen.append(dict(stats)))
    final = svm.train()
    assert final["status"] == "converged"
    last = seen[-1]
    for key in ("status", "iteration", "objective", "duality_gap"):
        assert last[key] == final[key] or (np.isnan(last[key]) and np.isnan(final[key])), key
    # before it: the run's diagnostics, and the cap's closing one where a finish follows
    assert {s["status"] for s in seen[:-1]} <= {"training", "max_iterations"}


@pytest.mark.parametrize("make", [_linear, _kernel], ids=["SVM", "KernelSVM"])
def test_an_interrupted_run_keeps_its_total_and_says_so(make):
    """A run stopped by Ctrl+C (here a KeyboardInterrupt of its second
    diagnostic) ended at 100 %, its total shrunk to the stop point, beside
    the last diagnostic's objective: the bar stays where it stopped, and
    says "interrupted" (the estimators' verbose bar too)."""
    svm = make(300)
    svm.set_max_num_iterations(10 * 300)
    seen = []

    def diagnostic(stats):
        seen.append(stats["iteration"])
        if len(seen) == 2:
            raise KeyboardInterrupt

    svm.set_diagnostic_function(diagnostic)
    sink = Recorder()
    with pytest.raises(KeyboardInterrupt):
        with FitProgress([svm], [10 * 300], 300, sink, interval=None) as progress:
            progress.note("objective 0.5")
            progress.track(lambda s: s.train())(svm)
    done, total, text = sink.updates[-1]
    assert sink.closed and done == seen[-1] and total == 10 * 300
    assert text == f"epoch {done / 300:.2f}/10, interrupted", text
