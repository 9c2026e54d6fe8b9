"""Regression tests of issue 19 (reliability, round two): crashes, hangs and
silent results. Inputs whose answer is an error message are rows of the
bad-input table (test_bad_inputs.py, docs/bad_inputs.rst); what is checked
here is behaviour: no crash, no hang, files kept intact.

Cases that crashed or hung before their fix run in a child process with a
time limit, so that a regression fails the test instead of the test run.
"""

import os
import stat
import subprocess
import sys
import textwrap

import numpy as np
import pytest
import scipy.sparse as sp

import stochsvm
from stochsvm import SVM, HomogeneousKernelMap, KernelSVM
from stochsvm.model_file import ModelFileError, load_model, read_model, save_model

POSIX = os.name == "posix"


def _run_child(code, timeout=120):
    """Run ``code`` in a fresh interpreter; its exit status and output."""
    done = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True,
                          text=True, timeout=timeout)
    return done.returncode, done.stdout + done.stderr


def _trained_svm():
    X = np.array([[1.0, 0.0], [0.0, 1.0], [-1.0, 0.0], [0.0, -1.0]])
    svm = SVM(X, [1.0, 1.0, -1.0, -1.0], 0.1)
    svm.train()
    return svm


# -- borrowed data mutated after construction ---------------------------------------------

@pytest.mark.parametrize("cls", ["SVM", "KernelSVM"])
def test_csr_structure_mutated_after_construction_does_not_crash(cls):
    code = f"""
        import numpy as np, scipy.sparse as sp, stochsvm
        M = sp.csr_matrix(np.eye(4))
        s = stochsvm.{cls}(M, [1., -1, 1, -1], 0.1)
        M.indices[:] = 2 ** 30
        M.indptr[:] = [0, 4, 1, 3, 4]
        s.train()
        print("trained")
    """
    status, out = _run_child(code)
    assert status == 0 and "trained" in out, out


def test_csr_structure_is_copied_values_are_borrowed():
    M = sp.csr_matrix(np.eye(4) + np.eye(4, k=1))
    y = [1.0, -1.0, 1.0, -1.0]
    svm = SVM(M, y, 0.1, solver="sdca")
    M.indices[:] = 0                     # no effect: the structure is a copy
    svm.set_max_num_iterations(400)
    svm.train()
    expected = SVM(sp.csr_matrix(np.eye(4) + np.eye(4, k=1)), y, 0.1, solver="sdca")
    expected.set_max_num_iterations(400)
    expected.train()
    np.testing.assert_array_equal(svm.get_model(), expected.get_model())


@pytest.mark.parametrize("cls,solver", [("SVM", "sgd"), ("SVM", "sdca"), ("SVM", "sgdqn"),
                                        ("SVM", "lres"), ("KernelSVM", "sdca"),
                                        ("KernelSVM", "pegasos"), ("KernelSVM", "sbp")])
@pytest.mark.parametrize("sparse", [False, True])
def test_values_mutated_to_nan_after_construction_are_named(cls, solver, sparse):
    """The object borrows X's values: one written to NaN after construction
    was reported as divergence ("the steps are too long"); it is now a
    ValueError that says X changed after set_data (dense and CSR)."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 3))
    y = np.where(X[:, 0] > 0, 1.0, -1.0)
    M = sp.csr_matrix(X) if sparse else X.copy()
    kwargs = {"loss": "hinge2"} if solver == "lres" else {}
    svm = getattr(stochsvm, cls)(M, y, 0.1, solver=solver, **kwargs)
    (M.data if sparse else M)[7] = np.nan
    with pytest.raises(ValueError, match=r"row \d+ of the data X holds a value that is not "
                                         r"finite: X changed after set_data"):
        svm.train()


@pytest.mark.parametrize("solver", ["sdca", "sbp", "pegasos", "perceptron", "bsca", "bsgd"])
def test_kernel_values_changed_during_training_fail_the_run(solver):
    """X written to from the diagnostic callback (or from another thread while
    train() runs without the GIL): the run ended "converged" or on its cap
    with a model of neither the old nor the new data (chance accuracy, no
    warning); it is now a ValueError saying X changed during training."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 5))
    y = np.where(X[:, 0] > 0, 1.0, -1.0)
    svm = KernelSVM(X, y, 0.01, solver=solver, sigma2=1.0)
    svm.set_diagnostic_frequency(50)

    def scribble(statistics):
        X[:] = np.nan if solver in ("bsca", "bsgd") else 3 * X   # finite values too
        return False

    svm.set_diagnostic_function(scribble)
    with pytest.raises(ValueError, match=r"row \d+ of the data X changed during training"):
        svm.train()


@pytest.mark.skipif(not POSIX, reason="np.memmap's close on POSIX")
@pytest.mark.parametrize("cls", ["SVM", "KernelSVM"])
@pytest.mark.parametrize("owner", ["memmap", "bytearray"])
def test_buffer_under_borrowed_data_cannot_be_released(cls, owner, tmp_path):
    """An array over another object's buffer holds no export of it: closing
    the memmap's mmap, or resizing the bytearray, freed the memory the object
    reads, and train() crashed (SIGSEGV). The object now pins that buffer:
    the close or resize raises BufferError and training is unaffected."""
    code = f"""
        import numpy as np, stochsvm
        rng = np.random.default_rng(0)
        X0 = rng.normal(size=(200, 5)); y = np.where(X0[:, 0] > 0, 1.0, -1.0)
        if "{owner}" == "memmap":
            X = np.memmap(r"{tmp_path / 'x.dat'}", dtype=np.float64, mode="w+", shape=(200, 5))
            release = lambda: X._mmap.close()
        else:
            buf = bytearray(X0.nbytes)
            X = np.ndarray((200, 5), buffer=buf)
            release = lambda: buf.extend(bytes(1 << 24))
        X[:] = X0
        s = stochsvm.{cls}(X, y, 0.1)
        try:
            release()
            print("released")
        except BufferError:
            print("pinned")
        s.train()
        print("trained", np.array_equal(np.sign(s.decision_function(X0)), np.sign(s.decision_function(X0))))
    """
    status, out = _run_child(code)
    assert status == 0 and "pinned" in out and "trained True" in out, out


def test_kernel_object_refuses_a_sign_flipped_in_0_1_data():
    """0/1 CSR data take a path of the kernel rows that never reads the
    values; a 1 written to -1 after construction keeps every squared norm, and
    is still refused (it would have been trained on as a 1)."""
    rng = np.random.default_rng(0)
    M = sp.csr_matrix((rng.random((40, 6)) > 0.5).astype(float))
    y = np.where(rng.random(40) > 0.5, 1.0, -1.0)
    svm = KernelSVM(M, y, 0.1, solver="sdca")
    row = int(np.searchsorted(M.indptr, 5, side="right") - 1)
    M.data[5] = -1.0
    with pytest.raises(ValueError, match=f"row {row} of the data X has other values"):
        svm.train()


def test_uint32_unsorted_indices_are_accepted():
    M = sp.csr_matrix((np.array([1.0, 2.0, 3.0, 4.0]), np.array([2, 0, 1, 3]),
                       np.array([0, 3, 4])), shape=(2, 4))
    M.indices = M.indices.astype(np.uint32)     # (the constructor would make them int32)
    assert M.indices.dtype == np.uint32
    sorted_M = sp.csr_matrix(M.toarray())
    a, b = SVM(M, [1, -1], 0.1), SVM(sorted_M, [1, -1], 0.1)
    a.train()
    b.train()
    np.testing.assert_array_equal(a.get_model(), b.get_model())
    np.testing.assert_array_equal(M.indices, [2, 0, 1, 3])   # the caller's matrix untouched


# -- re-initialising extension types -----------------------------------------------------

def test_homkermap_refuses_a_second_init_and_the_svm_keeps_working():
    hom = HomogeneousKernelMap("chi2", order=1)
    X = np.abs(np.random.default_rng(0).normal(size=(20, 3)))
    svm = SVM(X, np.where(X[:, 0] > 0.7, 1.0, -1.0), 0.1, homkermap=hom)
    with pytest.raises(RuntimeError, match="cannot be called twice"):
        hom.__init__("chi2", order=10)
    assert hom.order == 1
    svm.train()
    assert np.isfinite(svm.get_model()).all()


@pytest.mark.parametrize("make, args", [
    (lambda: SVM(np.eye(2), [1, -1], 0.1), (np.eye(3), [1, -1, 1], 0.5)),
    (lambda: KernelSVM(np.eye(2), [1, -1], 0.1), (np.eye(3), [1, -1, 1], 0.5)),
    (lambda: HomogeneousKernelMap(), ("js", 2)),
], ids=["SVM", "KernelSVM", "HomogeneousKernelMap"])
def test_every_extension_type_refuses_a_second_init(make, args):
    obj = make()
    with pytest.raises(RuntimeError, match="cannot be called twice"):
        obj.__init__(*args)


def test_homkermap_made_without_init_is_refused_by_svm():
    hom = HomogeneousKernelMap.__new__(HomogeneousKernelMap)
    with pytest.raises(ValueError, match="homkermap was created without __init__"):
        SVM(np.eye(2), [1, -1], 0.1, homkermap=hom)


# -- non-regular files ------------------------------------------------------------------

@pytest.fixture
def fifo(tmp_path):
    if not hasattr(os, "mkfifo"):
        pytest.skip("no FIFOs on this platform")
    path = tmp_path / "fifo"
    os.mkfifo(path)
    return path


@pytest.mark.parametrize("reader", ["load_model", "read_model"])
def test_model_readers_refuse_a_fifo_without_blocking(fifo, reader):
    status, out = _run_child(f"""
        from stochsvm.model_file import {reader}
        try:
            {reader}({str(fifo)!r})
        except Exception as exc:
            print(type(exc).__name__, exc)
    """, timeout=60)
    assert status == 0 and f"ModelFileError {fifo}: not a regular file" in out, out


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="no /dev/zero")
def test_model_reader_refuses_dev_zero():
    with pytest.raises(ModelFileError, match="/dev/zero: not a regular file"):
        load_model("/dev/zero")


@pytest.mark.parametrize("command", ["info", "predict"])
def test_cli_refuses_a_fifo_model_without_blocking(fifo, tmp_path, command):
    data = tmp_path / "d.svm"
    data.write_text("1 1:1\n-1 2:1\n")
    args = [str(fifo)] + ([str(data)] if command == "predict" else [])
    status, out = _run_child(f"""
        import sys
        from stochsvm.cli import main
        sys.exit(main({[command] + args!r}))
    """, timeout=60)
    assert status == 2 and "is not a regular file" in out and "Traceback" not in out, out


def test_cli_refuses_a_fifo_data_file(fifo, tmp_path):
    model = tmp_path / "m.ssvm"
    save_model(_trained_svm(), model)
    status, out = _run_child(f"""
        import sys
        from stochsvm.cli import main
        sys.exit(main(["predict", {str(model)!r}, {str(fifo)!r}]))
    """, timeout=60)
    assert status == 2 and "is not a regular file" in out, out


# -- outputs that name an input ---------------------------------------------------------

_DATA = "1 1:1 2:0.5\n-1 1:-1\n1 2:1\n-1 1:-0.5 2:-1\n"


@pytest.mark.parametrize("link", [False, True])
def test_train_refuses_to_write_the_model_over_its_training_file(tmp_path, capsys, link):
    from stochsvm.cli import main

    data = tmp_path / "d.svm"
    data.write_text(_DATA)
    out = data
    if link:  # another name of the same file
        out = tmp_path / "alias"
        out.symlink_to(data)
    assert main(["train", str(data), str(out)]) == 2
    assert "the same file as the input" in capsys.readouterr().err
    assert data.read_text() == _DATA


def test_train_refuses_to_write_the_model_over_its_test_file(tmp_path, capsys):
    from stochsvm.cli import main

    data, test = tmp_path / "d.svm", tmp_path / "t.svm"
    data.write_text(_DATA)
    test.write_text(_DATA)
    assert main(["train", str(data), str(test), "--test", str(test)]) == 2
    assert "the same file as the input" in capsys.readouterr().err
    assert test.read_text() == _DATA


@pytest.mark.parametrize("which", ["model", "data"])
def test_predict_refuses_to_write_over_its_inputs(tmp_path, capsys, which):
    from stochsvm.cli import main

    data, model = tmp_path / "d.svm", tmp_path / "m.ssvm"
    data.write_text(_DATA)
    assert main(["train", "--quiet", str(data), str(model)]) == 0
    before = model.read_bytes(), data.read_text()
    target = model if which == "model" else data
    assert main(["predict", str(model), str(data), str(target)]) == 2
    assert "the same file as the input" in capsys.readouterr().err
    assert (model.read_bytes(), data.read_text()) == before
    # a new name is written
    assert main(["predict", str(model), str(data), str(tmp_path / "p.txt")]) == 0
    assert (tmp_path / "p.txt").read_text().split() == ["1", "-1", "1", "-1"]


# -- saving: what a save replaces -------------------------------------------------------

#: What save_model writes: an SVM object, and a model dict holding a feature
#: scaling (``stochsvm train --scale``), which went through a Python writer of
#: its own that broke hard links, followed a dangling link and wrote a file
#: named ``dir`` for ``dir/``. Both now go through the core's writer.
_SAVED = {"svm": _trained_svm,
          "scaled": lambda: {**stochsvm.model_file.model_dict(_trained_svm()),
                             "scaling": {"method": "maxabs", "offset": np.zeros(2),
                                         "scale": np.array([0.5, 2.0])}}}


def _saved_dimension(path):
    assert read_model(path)["dimension"] == 2
    return True


@pytest.mark.parametrize("saved", sorted(_SAVED))
def test_save_refuses_a_fifo_and_leaves_it(fifo, saved):
    with pytest.raises(OSError, match="not a regular file"):
        save_model(_SAVED[saved](), fifo)
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full")
@pytest.mark.parametrize("saved", sorted(_SAVED))
def test_save_refuses_a_device(tmp_path, saved):
    # As root, a copy of /dev/full's node in tmp_path: a build without the fix
    # would replace the device node, and it must never be the system's.
    device = "/dev/full"
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        device = tmp_path / "full"
        os.mknod(device, 0o666 | stat.S_IFCHR, os.stat("/dev/full").st_rdev)
    with pytest.raises(OSError, match=f"{device}: not a regular file"):
        save_model(_SAVED[saved](), device)
    assert stat.S_ISCHR(os.lstat(device).st_mode)


@pytest.mark.skipif(not POSIX, reason="POSIX modes")
@pytest.mark.parametrize("saved", sorted(_SAVED))
def test_save_keeps_the_mode_of_the_file_it_replaces(tmp_path, saved):
    path = tmp_path / "m.ssvm"
    path.write_bytes(b"old")
    os.chmod(path, 0o600)
    save_model(_SAVED[saved](), path)
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    assert _saved_dimension(path)


@pytest.mark.skipif(not POSIX, reason="POSIX links")
@pytest.mark.parametrize("saved", sorted(_SAVED))
def test_save_follows_a_symlink_and_keeps_it(tmp_path, saved):
    target, link = tmp_path / "target.ssvm", tmp_path / "link.ssvm"
    target.write_bytes(b"old")
    os.symlink(target, link)
    save_model(_SAVED[saved](), link)
    assert os.path.islink(link)
    assert _saved_dimension(target)


@pytest.mark.skipif(not POSIX, reason="POSIX links")
@pytest.mark.parametrize("saved", sorted(_SAVED))
def test_save_refuses_a_dangling_symlink(tmp_path, saved):
    link = tmp_path / "link.ssvm"
    os.symlink(tmp_path / "missing.ssvm", link)
    with pytest.raises(OSError, match="symbolic link"):
        save_model(_SAVED[saved](), link)
    assert sorted(os.listdir(tmp_path)) == ["link.ssvm"]   # nothing created at its target


@pytest.mark.skipif(not POSIX, reason="POSIX links")
@pytest.mark.parametrize("saved", sorted(_SAVED))
def test_save_keeps_hard_links(tmp_path, saved):
    a, b = tmp_path / "a.ssvm", tmp_path / "b.ssvm"
    a.write_bytes(b"old")
    os.link(a, b)
    save_model(_SAVED[saved](), a)
    assert os.stat(a).st_nlink == 2 and os.path.samefile(a, b)
    assert _saved_dimension(b)


@pytest.mark.parametrize("saved", sorted(_SAVED))
def test_save_to_a_folder_name_that_does_not_exist_is_refused(tmp_path, saved):
    with pytest.raises(OSError, match="cannot create a temporary file beside it"):
        save_model(_SAVED[saved](), str(tmp_path / "folder") + os.sep)
    assert os.listdir(tmp_path) == []


@pytest.mark.skipif(not POSIX or not hasattr(__import__("signal"), "SIGXFSZ"),
                    reason="RLIMIT_FSIZE")
@pytest.mark.parametrize("saved", sorted(_SAVED))
def test_a_save_that_cannot_write_names_the_file_and_keeps_the_old_one(tmp_path, saved):
    # A file size limit of 64 bytes (as a full disk): the save fails, the
    # message names the file and says why (the scaled save said only
    # "[Errno 27] File too large"), the old file stays and no temporary remains.
    path = tmp_path / "m.ssvm"
    path.write_bytes(b"old")
    status, out = _run_child(f"""
        import resource, signal, sys
        sys.path.insert(0, {os.path.dirname(__file__)!r})
        from test_reliability import _SAVED
        from stochsvm.model_file import save_model
        model = _SAVED[{saved!r}]()
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (64, resource.RLIM_INFINITY))
        try:
            save_model(model, {str(path)!r})
        except OSError as exc:
            print("OSError:", exc)
    """)
    assert status == 0, out
    assert f"OSError: {path}: cannot write the file (file too large)" in out, out
    assert path.read_bytes() == b"old" and os.listdir(tmp_path) == ["m.ssvm"]


def test_save_refuses_a_nul_in_the_path(tmp_path):
    with pytest.raises(ValueError, match="NUL"):
        save_model(_trained_svm(), str(tmp_path / "a\x00b"))
    assert not (tmp_path / "a").exists()


# -- warm start and partial_fit recognise the same data by content ------------------------

def _problem():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(120, 4))
    return X, np.where(X[:, 0] + 0.5 * X[:, 1] > 0, 1, -1)


#: (first call's X, second call's X): the same content, another object.
_SAME_DATA_AGAIN = {
    "list": (lambda X: X, lambda X: X.tolist()),
    "fortran": (lambda X: X, np.asfortranarray),
    "copy": (lambda X: X, np.copy),
    "float16": (lambda X: X.astype(np.float16),) * 2,   # converted (copied) at each call
}


@pytest.mark.parametrize("again", sorted(_SAME_DATA_AGAIN))
@pytest.mark.parametrize("solver", ["sdca", "sgd"])
def test_warm_start_continues_on_the_same_data_given_as_another_object(solver, again):
    from stochsvm.linear import LinearSVMClassifier

    X, y = _problem()
    first, second = (make(X) for make in _SAME_DATA_AGAIN[again])
    params = dict(solver=solver, max_iter=2, tol=0, random_state=1)
    warm = LinearSVMClassifier(warm_start=True, **params).fit(first, y)
    warm.fit(second, y)
    once = LinearSVMClassifier(**{**params, "max_iter": 4}).fit(first, y)
    np.testing.assert_allclose(warm.coef_, once.coef_, rtol=1e-12, atol=1e-14)


def test_warm_start_on_other_data_trains_on_them():
    from stochsvm.linear import LinearSVMClassifier

    X, y = _problem()
    params = dict(solver="sdca", max_iter=200, tol=1e-9, random_state=1)
    warm = LinearSVMClassifier(warm_start=True, **params).fit(X, y)
    warm.fit(X, -y)                              # other labels: new data
    fresh = LinearSVMClassifier(**params).fit(X, -y)
    np.testing.assert_allclose(warm.coef_, fresh.coef_, rtol=1e-5, atol=1e-7)


def test_partial_fit_on_the_same_data_as_a_list_continues_without_warning():
    from stochsvm.linear import LinearSVMClassifier

    X, y = _problem()
    a = LinearSVMClassifier(solver="sdca", random_state=1).partial_fit(X, y, classes=[-1, 1])
    a.partial_fit(X.tolist(), list(y))           # filterwarnings=error: no warning allowed
    b = LinearSVMClassifier(solver="sdca", random_state=1).partial_fit(X, y, classes=[-1, 1])
    b.partial_fit(X, y)
    np.testing.assert_array_equal(a.coef_, b.coef_)


def test_kernel_partial_fit_on_the_same_data_as_a_list_continues_without_warning():
    from stochsvm.kernel import KernelSVMClassifier

    X, y = _problem()
    a = KernelSVMClassifier(solver="sdca", random_state=1).partial_fit(X, y, classes=[-1, 1])
    a.partial_fit(X.tolist(), y)
    b = KernelSVMClassifier(solver="sdca", random_state=1).partial_fit(X, y, classes=[-1, 1])
    b.partial_fit(X, y)
    np.testing.assert_array_equal(a.decision_function(X), b.decision_function(X))


# -- statistics before training ----------------------------------------------------------

def test_kernel_svm_statistics_before_training_are_nan_as_for_svm():
    stats = KernelSVM(np.eye(4), [1.0, -1.0, 1.0, -1.0], 0.1).get_statistics()
    assert stats["status"] == "untrained"
    for key in ("objective", "primal_objective", "regularizer", "loss", "dual_objective",
                "duality_gap", "margin", "training_error"):
        assert np.isnan(stats[key]), key


# -- model files written by C programs -----------------------------------------------------

def test_plain_text_metadata_loads_in_python_and_the_cli(tmp_path, capsys):
    from stochsvm.cli import main

    d = stochsvm.model_file.model_dict(_trained_svm())
    d["metadata"] = "trained by a C program on 2026-11-25"
    path = tmp_path / "c.ssvm"
    stochsvm.model_file.save(d, path)
    assert read_model(path)["metadata"] == d["metadata"]
    assert read_model(path)["metadata_json"] == {}
    svm = load_model(path)
    np.testing.assert_array_equal(svm.get_model(), d["weights"][0])
    assert main(["info", str(path)]) == 0
    assert "trained by a C program" in capsys.readouterr().out


# -- the command line's edges ------------------------------------------------------------

def _cli(args, capsys):
    from stochsvm.cli import main

    status = main([str(a) for a in args])
    out = capsys.readouterr()
    return status, out.out + out.err


def test_cli_empty_model_path_exits_2_before_training(tmp_path, capsys):
    data = tmp_path / "d.svm"
    data.write_text("1 1:1\n-1 2:1\n")
    status, out = _cli(["train", data, ""], capsys)
    assert status == 2 and "MODEL_FILE is empty" in out


def test_cli_homkermap_order_out_of_range_exits_2(tmp_path, capsys):
    data = tmp_path / "d.svm"
    data.write_text("1 1:1\n-1 2:1\n")
    status, out = _cli(["train", data, "--homkermap", "chi2", "--homkermap-order", 1000], capsys)
    assert status == 2 and "--homkermap-order: order must be an integer in [0, 64]" in out
    assert "Traceback" not in out


def test_cli_refuses_an_absurd_dimension_before_allocating(tmp_path, capsys):
    data = tmp_path / "d.svm"
    data.write_text("1 2147483647:1\n-1 1:1\n")
    status, out = _cli(["train", data, tmp_path / "m.ssvm"], capsys)
    assert status == 2 and "largest feature index is 2147483647" in out
    assert not (tmp_path / "m.ssvm").exists()


def test_cli_regression_file_with_a_classification_loss(tmp_path, capsys):
    rng = np.random.default_rng(0)
    data = tmp_path / "r.svm"
    data.write_text("".join(f"{rng.normal():.9f} 1:{rng.normal():.4f}\n" for _ in range(300)))
    status, out = _cli(["train", data], capsys)
    assert status == 2 and "too many classes for the rows" in out and "--loss l2" in out
    status, out = _cli(["train", data, "--loss", "l2", "--epochs", 1], capsys)
    assert status == 0, out


def test_cli_train_refuses_a_fifo_as_model_file_before_training(fifo, tmp_path, capsys):
    data = tmp_path / "d.svm"
    data.write_text("1 1:1\n-1 2:1\n")
    status, out = _cli(["train", data, fifo], capsys)
    assert status == 2 and "not a regular file" in out
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)


def test_model_reader_stops_at_the_signature_of_a_large_foreign_file(tmp_path):
    path = tmp_path / "big.bin"
    with open(path, "wb") as f:
        f.truncate(3 << 30)                      # 3 GiB of zeros (sparse on most file systems)
    with pytest.raises(ModelFileError, match="wrong signature"):
        read_model(path)                         # reads 8 bytes, not 3 GiB
