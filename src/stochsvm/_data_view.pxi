# _data_view.pxi -- the input conversion both SVM objects share (included by
# _svm.pyx and _kernel_svm.pyx): X, dense or CSR, checked by the converters of
# _svm.pyx (dtype, layout, CSR structure) and by the C core (every value
# finite), as the C data descriptor SsData that the objects borrow.


cdef tuple _pin_buffers(object values):
    """Buffer exports that keep the memory under ``values`` in place.

    An array made over another object's buffer (``np.memmap`` over an
    ``mmap``, ``np.ndarray(buffer=bytearray)``) keeps a reference to that
    object but no export of its buffer, so the object can still be closed or
    resized (``memmap._mmap.close()``, ``bytearray.extend``), leaving the
    array, and an SVM reading it, pointing at freed memory. A memoryview of
    the first object under the chain of arrays is such an export: while the
    view is alive, closing or resizing that object raises BufferError."""
    base = values.base
    while isinstance(base, np.ndarray):
        base = base.base
    if base is None:
        return ()
    try:
        return (memoryview(base),)
    except (TypeError, ValueError, BufferError):   # no buffer protocol, or already closed
        return ()


cdef class _DataView:
    """A validated ``SsData`` and strong references to the arrays it points to."""
    cdef SsData data
    cdef object refs

    @staticmethod
    cdef _DataView build(object X, str name, bint allow_empty_rows):
        """Validate X (dtype, layout, finite values, CSR structure) and describe it."""
        cdef _DataView view = _DataView.__new__(_DataView)
        cdef cnp.ndarray values, indptr, indices
        cdef SsStatus status
        cdef SsDType dtype
        layout, values, indptr_obj, indices_obj, n, d, row_stride = _prepare_matrix(
            X, name, allow_empty_rows)
        dtype = SS_DTYPE_FLOAT32 if values.dtype == np.float32 else SS_DTYPE_FLOAT64
        view.data.num_data = n
        view.data.dimension = d
        if n == 0:
            view.refs = (values,)
            return view
        # ss_data_init_* check every value (NaN, infinity) and the CSR
        # structure in one pass, without a temporary; the GIL is not needed.
        cdef const void *v = cnp.PyArray_DATA(values)
        cdef const int64_t *p = NULL
        cdef const int32_t *j = NULL
        cdef int64_t c_n = n, c_d = d, c_stride = row_stride
        if layout == SS_LAYOUT_DENSE:
            view.refs = (values,) + _pin_buffers(values)
            with nogil:
                status = ss_data_init_dense(&view.data, dtype, v, c_n, c_d, c_stride)
        else:
            indptr = indptr_obj
            indices = indices_obj
            view.refs = (values, indptr, indices) + _pin_buffers(values)
            p = <const int64_t *>cnp.PyArray_DATA(indptr)
            j = <const int32_t *>cnp.PyArray_DATA(indices)
            with nogil:
                status = ss_data_init_csr(&view.data, dtype, v, p, j, c_n, c_d)
        if status == SS_ERR_BAD_DATA:
            if not _all_finite(values):
                raise ValueError(f"{name} contains NaN or infinity; remove or impute those "
                                 f"values first")
            raise ValueError(f"{name} is not a valid CSR matrix (malformed indptr, or a column "
                             f"index that is out of range, unsorted or duplicated)")
        if status != SS_OK:
            raise ValueError(f"{name} was rejected by the C core: "
                             f"{ss_status_string(status).decode('utf-8', 'replace')}")
        return view
