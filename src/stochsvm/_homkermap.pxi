# The homogeneous kernel map (include/stochsvm/homkermap.h); included by _svm.pyx.

_HOM_KERNELS = {
    "intersection": SS_HOMKERNEL_INTERSECTION,
    "chi2": SS_HOMKERNEL_CHI2,
    "js": SS_HOMKERNEL_JS,
    # VLFeat's names (vl_homkermap, vl_svmdataset)
    "kinters": SS_HOMKERNEL_INTERSECTION,
    "kl1": SS_HOMKERNEL_INTERSECTION,
    "kchi2": SS_HOMKERNEL_CHI2,
    "kjs": SS_HOMKERNEL_JS,
}
_HOM_KERNEL_NAMES = {int(SS_HOMKERNEL_INTERSECTION): "intersection",
                     int(SS_HOMKERNEL_CHI2): "chi2", int(SS_HOMKERNEL_JS): "js"}
_HOM_WINDOWS = {"uniform": SS_HOMWINDOW_UNIFORM, "rectangular": SS_HOMWINDOW_RECTANGULAR}
_HOM_WINDOW_NAMES = {int(SS_HOMWINDOW_UNIFORM): "uniform",
                     int(SS_HOMWINDOW_RECTANGULAR): "rectangular"}


cdef class HomogeneousKernelMap:
    """The homogeneous kernel map of an additive kernel (VLFeat's ``vl_homkermap``).

    Approximates an additive kernel on non-negative features (histograms),
    ``K(x, y) = sum_j k(x_j, y_j)``, by a linear one: each feature becomes
    ``2 * order + 1`` features ``Psi(x_j)`` with ``<Psi(x), Psi(y)> ~ k(x, y)``,
    so a linear SVM on ``Psi(X)`` is (nearly) an SVM with the kernel ``K``
    (Vedaldi and Zisserman, PAMI 2012). Pass a map to :class:`SVM` (or
    :func:`stochsvm.svmtrain`) to train on the mapped features without ever
    storing them, or call :meth:`transform` for the explicit expansion.

    The kernels (gamma-homogeneous: ``k(cx, cy) = c**gamma k(x, y)``; shown
    for ``gamma = 1``): ``"intersection"`` ``min(x, y)``, ``"chi2"``
    ``2xy / (x + y)``, ``"js"`` (Jensen-Shannon)
    ``x/2 log2((x+y)/x) + y/2 log2((x+y)/y)``. The map is computed exactly
    (no interpolation table, no range cut-off); ``Psi(0) = 0`` and
    ``Psi(-x) = -Psi(x)``. The formulas are in ``docs/homkermap.rst``.

    Parameters
    ----------
    kernel : {"chi2", "intersection", "js"}, default "chi2"
        The kernel; VLFeat's names "kchi2", "kinters", "kl1", "kjs" are
        accepted too (case-insensitive).
    order : int, default 1
        Approximation order, 0 to 64: each input feature becomes
        ``2 * order + 1`` features.
    gamma : float, default 1.0
        Homogeneity degree, finite and > 0.
    period : float or None, default None
        Period of the kernel signature (finite, > 0). None: VLFeat's
        automatic rule, a function of kernel, window and order (see
        :attr:`period` for the value chosen).
    window : {"rectangular", "uniform"}, default "rectangular"
        How the signature is made periodic: truncated to one period
        (rectangular, VLFeat's default) or sampled spectrum (uniform).

    Raises
    ------
    ValueError
        For an unknown kernel or window, or a number out of range.

    Examples
    --------
    >>> import numpy as np
    >>> from stochsvm import HomogeneousKernelMap
    >>> hom = HomogeneousKernelMap("chi2", order=3)
    >>> psi = hom([0.2, 0.5])
    >>> psi.shape
    (2, 7)
    >>> round(float(psi[0] @ psi[1]), 3), round(2 * 0.2 * 0.5 / 0.7, 3)
    (0.286, 0.286)
    """
    cdef SsHomKerMap map
    cdef bint _ready     # set once by __init__: SVMs read ``map`` while training

    def __init__(self, kernel="chi2", order=1, gamma=1.0, period=None, window="rectangular"):
        cdef SsHomKernel c_kernel
        cdef SsHomWindow c_window
        if self._ready:
            raise RuntimeError("HomogeneousKernelMap.__init__ cannot be called twice (an SVM "
                               "may be using the map); create a new HomogeneousKernelMap")
        if not isinstance(kernel, str) or kernel.lower() not in _HOM_KERNELS:
            raise ValueError(f"kernel must be one of {_valid(_HOM_KERNELS)}, got {kernel!r}")
        if not isinstance(window, str) or window.lower() not in _HOM_WINDOWS:
            raise ValueError(f"window must be one of {_valid(_HOM_WINDOWS)}, got {window!r}")
        c_kernel = _HOM_KERNELS[kernel.lower()]
        c_window = _HOM_WINDOWS[window.lower()]
        c_order = _as_int(order, "order")
        if c_order < 0 or c_order > SS_HOMKERMAP_MAX_ORDER:
            raise ValueError(f"order must be an integer in [0, {SS_HOMKERMAP_MAX_ORDER}], "
                             f"got {order!r}")
        c_gamma = _as_float(gamma, "gamma")
        if not (math.isfinite(c_gamma) and c_gamma > 0):
            raise ValueError(f"gamma must be a finite number > 0, got {gamma!r}")
        c_period = 0.0
        if period is not None:
            c_period = _as_float(period, "period")
            if not (math.isfinite(c_period) and c_period > 0):
                raise ValueError(f"period must be a finite number > 0 or None (automatic), "
                                 f"got {period!r}")
            if not math.isfinite(2 * math.pi / c_period * 745.2):
                raise ValueError(f"period must be > 2.6e-305 (the angle 2 pi / period * ln(x) "
                                 f"must stay finite), got {period!r}")
        status = ss_homkermap_init(&self.map, c_kernel, c_gamma, c_order, c_period, c_window)
        if status != SS_OK:
            raise ValueError("the C core rejected the kernel map: "
                             + ss_status_string(status).decode("utf-8", "replace"))
        self._ready = True

    @property
    def kernel(self):
        """The kernel's name: "intersection", "chi2" or "js"."""
        return _HOM_KERNEL_NAMES[int(self.map.kernel)]

    @property
    def window(self):
        """The window: "rectangular" or "uniform"."""
        return _HOM_WINDOW_NAMES[int(self.map.window)]

    @property
    def order(self):
        """The approximation order."""
        return self.map.order

    @property
    def gamma(self):
        """The homogeneity degree."""
        return self.map.gamma

    @property
    def period(self):
        """The period in use (the automatic one if none was given)."""
        return self.map.period

    @property
    def dimension(self):
        """``2 * order + 1``, the number of features each input feature becomes."""
        return ss_homkermap_dimension(&self.map)

    @property
    def frequencies(self):
        """The frequencies ``m`` of the cosine/sine pairs (0 first): the first
        ``order`` with a positive Fourier coefficient."""
        return tuple(self.map.frequency[k] for k in range(self.map.order + 1))

    @property
    def coefficients(self):
        """``sqrt(c_0)``, then ``sqrt(2 c_m)`` for each frequency (an ndarray)."""
        return np.array([self.map.coefficient[k] for k in range(self.map.order + 1)])

    def __call__(self, x):
        """``Psi`` of each value of ``x``.

        Parameters
        ----------
        x : array_like of real numbers (finite)

        Returns
        -------
        ndarray of shape ``np.shape(x) + (dimension,)``, float64

        Raises
        ------
        ValueError
            A value of ``x`` is not finite, or its map is not (as
            :meth:`transform`).
        """
        a = np.asarray(x, dtype=np.float64)
        if not _all_finite(a):
            raise ValueError("x contains NaN or infinity")
        flat = np.ascontiguousarray(a).ravel()
        cdef int64_t D = ss_homkermap_dimension(&self.map)
        cdef cnp.ndarray out = np.empty((flat.size, D), dtype=np.float64)
        cdef const double[::1] xs = flat
        cdef double *o = <double *>cnp.PyArray_DATA(out)
        cdef Py_ssize_t k
        with nogil:
            for k in range(xs.shape[0]):
                ss_homkermap_evaluate(&self.map, xs[k], o + k * D, 1)
        return self._finite(out).reshape(a.shape + (D,))

    def transform(self, X):
        """The explicit expansion ``Psi(X)``: each column j becomes columns
        ``j * D`` to ``(j + 1) * D - 1``, ``D`` = :attr:`dimension`.

        Parameters
        ----------
        X : ndarray of shape (n, d) or scipy.sparse matrix/array
            Finite values, converted as :class:`SVM` does.

        Returns
        -------
        ndarray of shape (n, d * D), or a CSR matrix/array (sparse input;
        each stored value becomes D stored values). float32 input gives
        float32 output; anything else float64.

        Raises
        ------
        ValueError
            Invalid X (as :class:`SVM`), sparse output whose column
            indices would not fit in int32, or a mapped value that is not
            finite (``|x|**(gamma/2)`` overflows for a large ``|x|`` and
            ``gamma > 2``; in float32 above 3.4e38).
        """
        cdef _DataView view = _DataView.build(X, "X", True)
        cdef int64_t n = view.data.num_data, d = view.data.dimension
        cdef int64_t D = ss_homkermap_dimension(&self.map)
        cdef cnp.ndarray values, indices, indptr
        cdef SsStatus status
        out_dtype = np.float32 if view.refs[0].dtype == np.float32 else np.float64
        if not _is_sparse(X):
            values = np.zeros((n, d * D), dtype=np.float64)
            if n > 0:
                with nogil:
                    status = ss_homkermap_expand(&self.map, &view.data,
                                                 <double *>cnp.PyArray_DATA(values), NULL, NULL)
                self._check_expansion(status)
            with np.errstate(over="ignore"):
                values = values.astype(out_dtype, copy=False)
            return self._finite(values)
        import scipy.sparse as sp
        if d * D > _INT32_MAX + 1:
            raise ValueError(f"the mapped matrix would have {d * D} columns, more than sparse "
                             f"int32 column indices can address; use the map on the fly "
                             f"(SVM(..., homkermap=...)) instead")
        nnz = int(view.refs[1][n]) if n > 0 else 0
        values = np.zeros(nnz * D, dtype=np.float64)
        indices = np.zeros(nnz * D, dtype=np.int32)
        indptr = np.zeros(n + 1, dtype=np.int64)
        if n > 0:
            with nogil:
                status = ss_homkermap_expand(&self.map, &view.data,
                                             <double *>cnp.PyArray_DATA(values),
                                             <int32_t *>cnp.PyArray_DATA(indices),
                                             <int64_t *>cnp.PyArray_DATA(indptr))
            self._check_expansion(status)
        make = sp.csr_array if isinstance(X, sp.sparray) else sp.csr_matrix
        with np.errstate(over="ignore"):
            values = values.astype(out_dtype, copy=False)
        return make((self._finite(values), indices, indptr), shape=(n, d * D))

    def _check_expansion(self, SsStatus status):
        if status == SS_ERR_NUMERIC:
            self._finite(None)
        _check_status(status, "X", None)

    def _finite(self, values):
        """``values`` if all finite, else the ValueError of an overflowing map."""
        if values is not None and _all_finite(values):
            return values
        dtype = "float64" if values is None else values.dtype.name
        raise ValueError(f"the map overflows in {dtype}: |x|**(gamma/2) is not finite "
                         f"for gamma {self.gamma!r} and the largest |x|; scale X down or "
                         f"lower gamma")

    def __reduce__(self):
        return (HomogeneousKernelMap,
                (self.kernel, self.order, self.gamma, self.period, self.window))

    def _params(self):
        return (self.kernel, self.order, self.gamma, self.period, self.window)

    def __eq__(self, other):
        if not isinstance(other, HomogeneousKernelMap):
            return NotImplemented
        return self._params() == other._params()

    def __hash__(self):
        return hash(self._params())

    def __repr__(self):
        return (f"HomogeneousKernelMap(kernel={self.kernel!r}, order={self.order}, "
                f"gamma={self.gamma!r}, period={self.period!r}, window={self.window!r})")


def _as_homkermap(value):
    """None, a HomogeneousKernelMap, or a dict of its parameters -> map or None."""
    if value is None:
        return value
    if isinstance(value, HomogeneousKernelMap):
        if not (<HomogeneousKernelMap>value)._ready:
            raise ValueError("homkermap was created without __init__; construct it with "
                             "HomogeneousKernelMap(...)")
        return value
    if isinstance(value, dict):
        unknown = sorted(set(value) - {"kernel", "order", "gamma", "period", "window"})
        if unknown:
            raise ValueError(f"homkermap: unknown parameter(s) {', '.join(unknown)}; valid are "
                             f"kernel, order, gamma, period, window")
        return HomogeneousKernelMap(**value)
    raise TypeError(f"homkermap must be None, a HomogeneousKernelMap or a dict of its "
                    f"parameters, got {type(value).__name__}")


def homkermap(X, kernel="chi2", order=1, gamma=1.0, period=None, window="rectangular"):
    """The explicit homogeneous kernel map of a data matrix (VLFeat's ``vl_homkermap``).

    Shorthand for ``HomogeneousKernelMap(kernel, order, gamma, period,
    window).transform(X)``; see :class:`HomogeneousKernelMap`. VLFeat's
    layout: column j of X becomes columns ``j * (2 order + 1)`` to
    ``(j + 1) * (2 order + 1) - 1``.

    Examples
    --------
    >>> import numpy as np
    >>> from stochsvm import homkermap
    >>> homkermap(np.array([[0.5, 0.0]]), order=1).shape
    (1, 6)
    """
    return HomogeneousKernelMap(kernel, order, gamma, period, window).transform(X)
