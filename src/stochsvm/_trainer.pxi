# _trainer.pxi -- the part of the Cython wrapper that the linear SVM
# (_svm.pyx) and the kernel SVM (_kernel_svm.pyx) share, written once and
# included by both: one training run at a time per object (the lock), train()
# with the GIL released, the diagnostic and interrupt callbacks, and the
# mapping from a C status and the object's last-error message to a Python
# exception.
#
# A subclass supplies the C calls of its object through the `_c_*` methods and
# its Python name through `_kind`.
#
# Locking. `_lock` is held for the whole of a training run (train(), SVM's
# calibrate_t0) and nowhere else; `_enter_training` and `_leave_training` are
# the only code that takes and releases it. While it is held, `_training` is
# true and `_train_thread` names the training thread: setters refuse to run
# (`_writer_check`) and getters from other threads refuse to read
# (`_reader_check`), because the C object is being written without the GIL.
# A reader that needs no consistency with the run (a progress counter) may
# skip `_reader_check`.
#
# Readers in C. A reader that releases the GIL for a long C call on the
# object (decision_function, KernelSVM's nu_from_model and estimate_nu) is
# counted in `_readers` from its start to its end (`_enter_reading`,
# `_leave_reading`); any number of threads may read at once. While the count
# is not zero every writer (setters, set_data, set_model, set_num_threads,
# train, calibrate_t0) raises RuntimeError instead of changing the object
# under them: nothing waits, so nothing can deadlock. The count changes with
# the GIL held, and a writer checks it with the GIL held: a writer that runs
# Python code (converting its arguments, which may release the GIL) between
# its first check and its C call checks again just before the call
# (`_writer_check`), so that no reader can have entered C in between.
from stochsvm._cancel import Cancelled as _Cancelled, current as _current_cancel_event

# The modes of a certified finish (the linear Newton finish, the kernel SDCA
# finish): True, False or "auto" in Python, ON = 1, OFF = 0, AUTO = 2 in C.
def _finish_mode(enabled):
    if isinstance(enabled, str) and enabled == "auto":
        return 2
    if isinstance(enabled, (bool, np.bool_)):
        return 1 if enabled else 0
    raise TypeError(f"enabled must be a bool or 'auto', got {enabled!r}")


def _finish_mode_name(int mode):
    return "auto" if mode == 2 else bool(mode)


# The exception type of each failed C status (documented in the classes' train()).
_STATUS_EXCEPTIONS = {
    int(SS_ERR_ALLOC): MemoryError,
    int(SS_ERR_BAD_ARG): ValueError,
    int(SS_ERR_BAD_DATA): ValueError,
    int(SS_ERR_BAD_STATE): RuntimeError,
    int(SS_ERR_NUMERIC): FloatingPointError,
    int(SS_ERR_DIVERGED): FloatingPointError,
}


cdef str _c_text(const char *message):
    return message.decode("utf-8", "replace") if message != NULL else ""


cdef int _raise_status(SsStatus status, str message, str advice="", object kind=None) except -1:
    """Raise the exception of a failed C call: its type from the status (or
    ``kind``), its text the C object's last-error message, then ``advice``."""
    if not message:
        message = _c_text(ss_status_string(status))
    if kind is None:
        kind = _STATUS_EXCEPTIONS.get(int(status), RuntimeError)
    raise kind(message + advice)


cdef int _trainer_interrupt_trampoline(void *user) noexcept nogil:
    with gil:
        return (<_Trainer>user)._on_interrupt_poll()


cdef class _Trainer:
    """Base of SVM and KernelSVM: the training lock, train(), the callbacks."""

    cdef object _lock
    cdef bint _training
    cdef unsigned long _train_thread
    cdef int _readers               # readers inside a C call on the object (all threads)
    cdef object _callback           # the Python diagnostic function, or None
    cdef object _pending_exception  # raised by a callback, re-raised after the run
    cdef object _saved_statistics   # statistics restored by unpickling, until the next run
    cdef object _cancel_event       # the run's thread's event (stochsvm._cancel), or None
    cdef str _kind                  # "SVM" or "KernelSVM", for messages

    def __cinit__(self, *args, **kwargs):
        self._lock = threading.Lock()
        self._training = False
        self._train_thread = 0
        self._readers = 0

    # -- what the subclass supplies ------------------------------------------

    cdef SsStatus _c_train(self) noexcept nogil:
        return SS_ERR_BAD_STATE

    cdef str _last_error(self):
        return ""

    cdef void _c_set_interrupt(self, bint enabled):
        pass

    cdef int64_t _c_num_data(self):
        return 0

    cdef dict _c_statistics(self):
        return {}

    # -- the training lock ---------------------------------------------------

    cdef int _enter_training(self, str busy_message, str what="train") except -1:
        if not self._lock.acquire(False):
            raise RuntimeError(busy_message)
        if self._readers:
            self._lock.release()
            raise RuntimeError(self._readers_message(what))
        self._training = True
        self._train_thread = PyThread_get_thread_ident()
        return 0

    cdef void _leave_training(self):
        self._training = False
        self._train_thread = 0
        self._lock.release()

    cdef int _reader_check(self) except -1:
        """Refuse to read the C object from another thread during a run."""
        if self._training and PyThread_get_thread_ident() != self._train_thread:
            raise RuntimeError(
                f"cannot read this {self._kind} while train() is running in another thread; use "
                f"a diagnostic function (set_diagnostic_function) to watch training")
        return 0

    cdef int _enter_reading(self) except -1:
        """Start a read that releases the GIL in C (decision_function ...):
        refused during another thread's run; counted until _leave_reading."""
        self._reader_check()
        self._readers += 1
        return 0

    cdef void _leave_reading(self):
        self._readers -= 1

    cdef str _readers_message(self, str what):
        return (f"cannot call {what}() while another thread is scoring with this {self._kind} "
                f"(decision_function, predict, estimate_nu or nu_from_model is running): "
                f"call it after they return")

    cdef int _pickle_check(self) except -1:
        """Refuse to pickle (or copy) a run's object from its own callbacks:
        the state is mid-run, and the copy said "training" for ever."""
        if self._training:
            raise RuntimeError(f"cannot pickle or copy this {self._kind} while train() is running "
                               f"on it; do it after train() returns")
        return 0

    cdef int _writer_check(self, str what) except -1:
        """Refuse to change the C object during a run (its callbacks included)
        or while a reader is inside a C call on it (_enter_reading)."""
        if self._training:
            raise RuntimeError(f"cannot call {what}() while train() is running on this {self._kind}")
        if self._readers:
            raise RuntimeError(self._readers_message(what))
        return 0

    # -- training --------------------------------------------------------------

    cdef tuple _run_training(self):
        """One ss_*_train call with the GIL released, Ctrl+C polled on the main
        thread. Returns (status, last-error message); re-raises an exception a
        callback raised."""
        cdef SsStatus status
        cdef bint on_main = threading.current_thread() is threading.main_thread()
        self._enter_training(f"train() is already running on this {self._kind}")
        try:
            if self._c_num_data() == 0:
                raise RuntimeError(f"this {self._kind} has no data (it was unpickled or created "
                                   f"without data); call set_data(X, y) first")
            self._pending_exception = None
            # Off the main thread PyErr_CheckSignals() is a no-op: the poll
            # there is for the event of a cancellable job (stochsvm._cancel).
            self._cancel_event = _current_cancel_event()
            self._c_set_interrupt(on_main or self._cancel_event is not None)
            with nogil:
                status = self._c_train()
            message = self._last_error()  # before the next call on the object clears it
            self._c_set_interrupt(False)
            self._saved_statistics = None
        finally:
            self._cancel_event = None
            self._leave_training()
        exc = self._pending_exception
        if exc is not None:
            self._pending_exception = None
            raise exc
        return status, message

    cdef str _detail(self):
        """The C object's message, as a parenthesis to append to a Python one."""
        message = self._last_error()
        return f" ({message})" if message else ""

    cdef int _check(self, SsStatus status, str name, value) except -1:
        """Raise for a setter's failed status, with the C object's message."""
        if status == SS_OK:
            return 0
        if status == SS_ERR_BAD_ARG and name in _RANGES:
            # The Python name and range say it all; the C message would repeat them.
            raise ValueError(f"{name} must be {_RANGES[name]}, got {value!r}")
        return _raise_status(status, self._last_error() or f"invalid {name}: {value!r}")

    cdef int _check_knob(self, SsStatus status, str name, value) except -1:
        """As _check, for a knob of one solver family: set on an object of
        another solver it is a ValueError naming the argument and both solvers."""
        if status == SS_ERR_BAD_STATE:
            raise ValueError(f"{name}: {self._last_error()}")
        return self._check(status, name, value)

    # -- callbacks (called by the C object, with the GIL taken back) ---------

    cdef int _on_diagnostic(self) noexcept:
        try:
            callback = self._callback
            if callback is None:
                return 0
            return 1 if callback(self._c_statistics()) else 0
        except BaseException as e:
            self._pending_exception = e
            return 1

    cdef int _on_interrupt_poll(self) noexcept:
        try:
            if self._cancel_event is not None and self._cancel_event.is_set():
                raise _Cancelled(f"this {self._kind}'s training stopped: another job of the "
                                 f"same call stopped first")
            PyErr_CheckSignals()
        except BaseException as e:
            self._pending_exception = e
            return 1
        return 0
