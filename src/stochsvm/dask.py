"""Linear SVMs on a Dask cluster: CoCoA+ (default) or iterative parameter mixing.

The problem is the one :class:`stochsvm.SVM` solves, over all ``N`` rows
split into the partitions ``p`` of a ``dask.array`` or ``dask.dataframe``
(``n_p`` rows each)::

    E(w, b) = lambda/2 (||w||^2 + (b/B)^2) + 1/N sum_i c_i loss(y_i, <w, x_i> + b)
            = sum_p (n_p / N) E_p(w, b)

where ``E_p`` is the same objective over the rows of partition ``p`` alone
(same lambda, normalised by ``n_p``).

CoCoA+ (``solver="sdca"``, the default; Ma et al. 2015, Smith et al. 2018;
the worker side and its algebra are in ``_dask_cocoa.py``). Every partition
keeps its rows' SDCA dual variables in its worker's memory between rounds.
A round sends the global model ``w~ = (w, b/B)`` to every partition; each
runs ``local_epochs`` epochs of the SDCA object on its rows, warm-started
from its dual variables and shifted to ``w~`` (``SVM.shift_sdca_model``),
with ``lambda' = lambda N / (K n_p)``: that is CoCoA+'s local subproblem with
added updates (gamma = 1) and ``sigma' = K``. It returns its new
contribution to ``w~`` and its terms of the duality gap; the driver adds the
contributions. The bias is a regularised coordinate (bias multiplier B), as
in single-machine SDCA, so the fit converges to the single-machine SDCA
optimum. It stops when every problem's relative duality gap
``(P - D) / max(|P|, |D|)`` is at most ``tol``: a certificate, the returned
model's primal is within that fraction of the optimum. When a worker dies,
Dask recomputes its partitions from the graph; their dual variables restart
from zero and the model is rebuilt from the partitions' contributions, so
the fit goes on (that round's gap is not reported).

Iterative parameter mixing (``solver="sgd"``; McDonald, Hall and Mann 2010; for SGD, Zinkevich,
Weimer, Smola and Li 2010). Round ``r`` starts from the global model
``(w_r, b_r)`` and the global iteration number ``t_r``:

1. every partition warm-starts an SGD ``SVM`` from ``(w_r, b_r, t_r)`` (so
   the learning rate ``1 / (lambda (t + t0))`` keeps decaying across rounds)
   and runs ``local_epochs`` epochs (``local_epochs * n_p`` iterations) on its
   own rows, giving ``(w_p, b_p, t_p)``;
2. the driver mixes by rows: ``w_{r+1} = sum_p (n_p / N) w_p``, likewise
   ``b_{r+1}``; the iteration number counts every partition's iterations,
   ``t_{r+1} = t_r + local_epochs * N``, as if one machine had run them all.
   (Continuing from the row-weighted mean ``t_r + local_epochs * n_p``
   instead keeps the steps larger and converged worse in our trials: the
   averaging of the partitions' models already removes part of the noise
   those smaller steps would remove.)
3. the partitions evaluate ``E_p(w_{r+1}, b_{r+1})`` and the driver sums
   ``E(w_{r+1}, b_{r+1}) = sum_p (n_p / N) E_p``.

Rounds stop when ``|E_{r+1} - E_r| <= tol * |E_r|`` or after ``max_iter``.

For both solvers, each partition is converted once and kept in its worker's
memory (a Dask future) for the whole fit; a round sends only the model
(``d + 1`` floats per class and partition) and gets back one model-sized
vector and a few numbers per partition: rows never travel. If a worker is lost, Dask recomputes its
partitions from the collection's graph when it can (a result that depends
only on the partition's rows and the global model, so the round's answer is
the same); when it cannot, or a round exceeds ``round_timeout``, ``fit``
raises ``RuntimeError`` saying so.

Multiclass problems are one-vs-rest: every partition trains one binary SVM
per class in each round.

Only solvers that accept a model to start from (``set_model``) can mix:
``"sgd"``. SDCA's model is a function of its dual variables, which belong
to the rows: it is the local solver of CoCoA+ instead.

Input goes through the in-memory estimators' checks, chunk by chunk (finite
values, float32 kept, non-negative weights, not all zero, two classes), and
scikit-learn's checks of the feature count and of a pandas or dask
DataFrame's column names (``feature_names_in_``) at predict.
:func:`read_libsvm` (``_dask_libsvm.py``) reads LIBSVM files on the workers.
"""

import time
import warnings

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin
from sklearn.utils.validation import validate_data

from stochsvm import _dask_cocoa, _solvers
from stochsvm._dask_libsvm import read_libsvm
from stochsvm._solvers import CLASSIFICATION_LOSSES, REGRESSION_LOSSES
from stochsvm._stopped_fit import forget_fit
from stochsvm._svm import SVM
from stochsvm._validation import (DEPRECATED, RenamedParams, check_C_or_lambda, deprecated_alias,
                                  integer, lambda_of, options, random_states, real,
                                  seed_of)

__all__ = ["DaskLinearSVMClassifier", "DaskLinearSVMRegressor", "read_libsvm"]

#: Solvers that can be warm-started from a mixed model.
MIXING_SOLVERS = tuple(name for name in _solvers.DASK if name != "sdca")
#: CoCoA+'s local solver (the default), then the solvers that can mix.
SOLVERS = ("sdca",) + MIXING_SOLVERS


def _import_dask():
    try:
        import dask
        import dask.array as da
        import distributed
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError("stochsvm.dask needs dask and distributed: "
                          "pip install 'stochsvm[dask]'") from exc
    return dask, da, distributed


# ---------------------------------------------------------------------------
#                 Worker side: one partition in a worker's memory
# ---------------------------------------------------------------------------

class _Partition:
    """The rows of one partition (X, raw targets, weights), kept on a worker.

    The SVM objects built over the rows are cached for the following rounds
    but never pickled: a copy made by Dask (moved to another worker, or
    recomputed after a loss) rebuilds them from the configuration every task
    receives, and every round sets the whole state it trains from.
    """

    def __init__(self, X, y, weights, index):
        self.X = X
        self.y = y
        self.weights = weights
        self.index = index
        self._svms = {}
        #: CoCoA+: fit id -> (dual variables per problem, the round that made them)
        self.duals = {}

    @property
    def n(self):
        return self.X.shape[0]

    def __getstate__(self):
        state = self.__dict__.copy()
        state["_svms"] = {}
        return state

    def labels(self, config, k):
        """Targets of problem k: +-1 for class k against the rest, or the raw values."""
        classes = config["classes"]
        if classes is None:
            return self.y
        positive = classes[1] if len(classes) == 2 else classes[k]
        return np.where(self.y == positive, 1.0, -1.0)

    def cached_svm(self, key):
        return self._svms.get(key)

    def cache_svm(self, key, svm):
        """Keep svm for the following rounds (only the present fit's objects)."""
        fit_id = key[-1]
        self._svms = {k: v for k, v in self._svms.items() if k[-1] == fit_id}
        self._svms[key] = svm
        self.duals = {k: v for k, v in self.duals.items() if k == fit_id}

    def svm(self, config, k, kind):
        """The cached SVM of problem k ("train": the mixing solver; "eval": solver "none")."""
        key = (kind, k, config["fit_id"])
        svm = self._svms.get(key)
        if svm is None:
            solver = config["solver"] if kind == "train" else "none"
            svm = SVM(self.X, self.labels(config, k), config["lambda"], solver=solver,
                      seed=config["seed"] + self.index, loss=config["loss"])
            svm.set_bias_multiplier(config["bias_multiplier"])
            if kind == "train" and config["bias_learning_rate"] is not None:
                svm.set_bias_learning_rate(config["bias_learning_rate"])
            if self.weights is not None:
                svm.set_weights(self.weights)
            self._svms = {key2: v for key2, v in self._svms.items() if key2[2] == config["fit_id"]}
            self._svms[key] = svm
        return svm


def _to_block(X):
    """A chunk as a NumPy array or a CSR matrix (pandas blocks become arrays)."""
    import scipy.sparse as sp

    if sp.issparse(X):
        return X.tocsr()
    if hasattr(X, "to_numpy"):
        return X.to_numpy()
    return np.asarray(X)


def _check_block(X, name="X"):
    """A chunk through the in-memory estimators' checks (scikit-learn's
    check_array as in ``validate_data``: 2-D, finite, float32 kept, else float64)."""
    from sklearn.utils import check_array

    return check_array(_to_block(X), accept_sparse="csr", dtype=(np.float64, np.float32),
                       ensure_min_samples=0, input_name=name)


def _make_partition(X, y, weights, index):
    X = _to_block(X)
    if X.ndim != 2:
        raise ValueError(f"X chunks must be 2-D, got a chunk of shape {X.shape}")
    try:
        X = _check_block(X)
    except ValueError as exc:  # e.g. "Input X contains NaN.": say which chunk
        raise ValueError(f"{exc} (partition {index})") from None
    y = np.asarray(_to_block(y)).ravel()
    if y.shape[0] != X.shape[0]:
        raise ValueError(f"X and y chunks have {X.shape[0]} and {y.shape[0]} rows: "
                         "give them the same row chunks")
    if y.dtype.kind in "fc" and not np.all(np.isfinite(y)):
        raise ValueError(f"y contains NaN or infinity (partition {index})")
    if weights is not None:
        weights = np.asarray(_to_block(weights)).ravel()
        if weights.shape[0] != X.shape[0]:
            raise ValueError(f"sample_weight chunk has {weights.shape[0]} values for "
                             f"{X.shape[0]} rows")
        if X.shape[0]:
            from sklearn.utils.validation import _check_sample_weight

            # the in-memory estimators' checks (linear._SampleWeights), except
            # "not all zero", which holds for the whole array (fit checks it)
            weights = _check_sample_weight(weights, X, dtype=np.float64,
                                           allow_all_zero_weights=True)
            if np.any(weights < 0):
                raise ValueError("sample_weight must be >= 0")
    return _Partition(X, y, weights, index)


def _partition_info(part, classify):
    """Rows, columns, distinct targets (classifier) and weight sum of a partition."""
    labels = np.unique(part.y) if classify and part.n else None
    weight_sum = float(part.n if part.weights is None else part.weights.sum())
    return {"n": part.n, "d": part.X.shape[1], "labels": labels,
            "dtype": str(part.X.dtype), "weight_sum": weight_sum}


def _partition_t0(part, config):
    """The default t0 of the solver over this partition's rows (per problem)."""
    return [part.svm(config, k, "train").get_t0() for k in range(config["num_problems"])]


def _partition_train(part, state, config):
    """One round on one partition: warm start from the global state, local epochs."""
    start = time.process_time()
    coef, intercept, iteration = state
    models, biases, iterations = [], [], []
    for k in range(config["num_problems"]):
        svm = part.svm(config, k, "train")
        svm.set_t0(config["t0"][k])
        svm.set_model(coef[k])
        svm.set_bias(intercept[k])
        svm.set_iteration_number(int(iteration[k]))
        svm.set_epsilon(0.0)
        svm.set_max_num_iterations(config["local_epochs"] * part.n)
        svm.set_diagnostic_frequency(config["local_epochs"] * part.n)
        svm.train()
        models.append(svm.get_model())
        biases.append(svm.get_bias())
        iterations.append(svm.get_iteration_number())
    return {"n": part.n, "coef": np.vstack(models), "intercept": np.array(biases),
            "iteration": np.array(iterations, dtype=np.float64),
            "cpu_time": time.process_time() - start}


def _partition_loss(part, state, config):
    """``n_p`` times the mean weighted loss of the global model, per problem."""
    coef, intercept, _ = state
    out = np.empty(config["num_problems"])
    for k in range(config["num_problems"]):
        svm = part.svm(config, k, "eval")
        svm.set_model(coef[k])
        svm.set_bias(intercept[k])
        out[k] = svm.train()["loss"] * part.n
    return out


def _scores(X, coef, intercept):
    """``X @ coef.T + intercept`` for a dense or sparse block, float64, (m, K)."""
    scores = X @ coef.T
    return np.asarray(scores, dtype=np.float64) + intercept


def _partition_validation(part, state, config):
    """Validation sums: (correct, rows) for a classifier; residual and target sums else."""
    coef, intercept, _ = state
    s = _scores(part.X, coef, intercept)
    if config["classes"] is None:
        y = part.y.astype(np.float64)
        r = y - s[:, 0]
        return np.array([r @ r, y.sum(), y @ y, part.n])
    predicted = _labels_from_scores(s, config["classes"])
    return np.array([np.sum(predicted == part.y), part.n], dtype=np.float64)


def _labels_from_scores(s, classes):
    if s.shape[1] == 1:
        return classes[(s[:, 0] >= 0).astype(np.intp)]
    return classes[np.argmax(s, axis=1)]


def _block_decision(X, coef, intercept, squeeze):
    s = _scores(_check_block(X), coef, intercept)
    return s[:, 0] if squeeze else s


def _block_predict(X, coef, intercept, classes):
    s = _scores(_check_block(X), coef, intercept)
    if classes is None:
        return s[:, 0]
    return _labels_from_scores(s, classes)


# ---------------------------------------------------------------------------
#                       Driver side: input and rounds
# ---------------------------------------------------------------------------

def _is_dask_collection(obj):
    try:
        import dask
    except ImportError:  # pragma: no cover
        return False
    return dask.is_dask_collection(obj)


def _rows(block):
    return block.shape[0]


def _same(block):
    return block


def _as_dask_array(X, name, ndim, row_chunks=None, rounds=None):
    """X as a dask array with one chunk across the columns and known row chunks.
    Unknown row chunk sizes are computed by ``rounds`` (a _Rounds: within its
    timeout), or without a time limit when it is None."""
    dask, da, _ = _import_dask()
    import scipy.sparse as sp

    if hasattr(X, "to_dask_array"):  # dask DataFrame or Series: row chunks unknown
        X = X.to_dask_array()
    elif not _is_dask_collection(X):
        if sp.issparse(X):
            X = sp.csr_matrix(X)
        elif isinstance(X, (np.ndarray, list, tuple)) or hasattr(X, "__array__"):
            X = np.asarray(X)
        else:
            raise TypeError(f"{name} must be a dask array, a dask DataFrame/Series, a NumPy "
                            f"array or a scipy.sparse matrix, got {type(X).__name__}")
        fits = row_chunks is not None and X.shape[:1] == (sum(row_chunks),)
        rows = row_chunks if fits else max(1, X.shape[0] // 4)  # another length: refused below
        X = da.from_array(X, chunks=(rows,) + ((-1,) if X.ndim == 2 else ()), asarray=False)
    if not isinstance(X, da.Array):
        raise TypeError(f"{name} must be a dask array or a dask DataFrame/Series, "
                        f"got {type(X).__name__}")
    if X.ndim == 2 and ndim == 1 and X.shape[1] == 1:
        X = X[:, 0]
    if X.ndim != ndim:
        raise ValueError(f"{name} must be {ndim}-D, got shape {X.shape}")
    if any(np.isnan(c) for c in X.chunks[0]) and rounds is None:
        X = X.compute_chunk_sizes()
    elif any(np.isnan(c) for c in X.chunks[0]):  # e.g. after a boolean mask
        blocks = X.to_delayed()[:, 0] if ndim == 2 else X.to_delayed()
        rows = rounds.compute([dask.delayed(_rows)(b) for b in blocks],
                              what=f"computing the row chunk sizes of {name}")
        X = X.map_blocks(_same, chunks=(tuple(rows),) + X.chunks[1:], dtype=X.dtype)
    if ndim == 2 and len(X.chunks[1]) > 1:
        X = X.rechunk({1: -1})
    if row_chunks is not None and X.chunks[0] != tuple(row_chunks):
        if X.shape[0] != sum(row_chunks):
            raise ValueError(f"{name} has {X.shape[0]} rows, X has {sum(row_chunks)}")
        X = X.rechunk({0: tuple(row_chunks)})
    return X


def _columns_view(X, converted):
    """What scikit-learn reads the feature names and count of: a pandas
    DataFrame as it is, a dask DataFrame as an empty pandas DataFrame with
    its columns (scikit-learn reads no names from a dask DataFrame), other
    input as ``converted`` (its array, whose names are none)."""
    if not hasattr(X, "columns"):
        return converted
    if _is_dask_collection(X):
        import pandas as pd

        return pd.DataFrame(columns=X.columns)
    return X


def _get_client():
    _, _, distributed = _import_dask()
    try:
        return distributed.get_client()
    except ValueError:
        raise RuntimeError("stochsvm.dask needs a distributed Client: create one first, e.g. "
                           "distributed.Client(distributed.LocalCluster()) or "
                           "Client('scheduler-address')") from None


class _Rounds:
    """Runs one task per persisted partition, with a timeout and clear errors.

    A task whose result is lost with its worker is submitted again (Dask
    recomputes the partition from the collection's graph when it has to);
    a partition that Dask cannot recompute (its data was scattered) is an
    error naming it.
    """

    def __init__(self, client, timeout):
        self.client = client
        self.timeout = timeout

    def _timed_out(self, what):
        return RuntimeError(
            f"{what} did not finish within round_timeout={self.timeout} s (workers "
            f"lost, or too few of them for the data); no model was returned")

    def _remaining(self, deadline, what):
        if deadline is None:
            return None
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise self._timed_out(what)
        return remaining

    def _lost_partition(self, part, i, what):
        if part.status in ("error", "cancelled", "lost"):
            return RuntimeError(
                f"{what} failed: partition {i} (of {self.num_parts}) was lost with its worker "
                f"and Dask cannot recompute it (its data was scattered, not built from a "
                f"graph); no model was returned")
        return None

    def compute(self, tasks, what):
        """The values of a list of dask objects, computed on the cluster."""
        _, _, distributed = _import_dask()
        futures = self.client.compute(tasks)
        try:
            try:
                distributed.wait(futures, timeout=self.timeout)
            except TimeoutError:
                raise self._timed_out(what) from None
            return self.client.gather(futures)
        finally:
            self.client.cancel(futures)

    def run(self, function, parts, *args, what, workers=None):
        """function(part, *args) for every part; its results, in order. workers:
        per part, the worker to prefer (None: any), e.g. where its state is."""
        _, _, distributed = _import_dask()
        deadline = None if self.timeout is None else time.monotonic() + self.timeout
        self.num_parts = len(parts)
        workers = workers or [None] * len(parts)

        def submit(i):
            if workers[i] is None:
                return self.client.submit(function, parts[i], *args, pure=False)
            return self.client.submit(function, parts[i], *args, pure=False,
                                      workers=[workers[i]], allow_other_workers=True)

        futures = [submit(i) for i in range(len(parts))]
        results = [None] * len(parts)
        pending = list(range(len(parts)))
        try:
            while pending:
                try:
                    distributed.wait([futures[i] for i in pending],
                                     timeout=self._remaining(deadline, what))
                except TimeoutError:
                    raise self._timed_out(what) from None
                except Exception as exc:  # some futures were cancelled: looked at below
                    if "Cancelled" not in type(exc).__name__:
                        raise
                retry = []
                for i in pending:
                    future = futures[i]
                    if future.status == "error":
                        exc = future.exception()
                        if type(exc).__name__ == "KilledWorker":
                            raise RuntimeError(
                                f"{what} failed: the workers running it kept dying ({exc}); "
                                f"no model was returned") from exc
                        raise exc
                    try:
                        if future.status != "finished":
                            raise LookupError(future.status)
                        results[i] = future.result(timeout=self._remaining(deadline, what))
                    except Exception as exc:
                        if future.status == "error":
                            raise
                        lost = self._lost_partition(parts[i], i, what)
                        if lost is not None:
                            raise lost from exc
                        retry.append(i)
                for i in retry:
                    self.client.cancel(futures[i])
                    futures[i] = submit(i)
                if retry:
                    time.sleep(0.05)
                pending = retry
            return results
        finally:
            self.client.cancel(futures)


class _DaskLinearSVMBase(RenamedParams, BaseEstimator):
    """Parameters, input handling and the mixing loop shared by both estimators."""

    _losses = ()
    _renamed = {"random_state": "seed", "max_iter": "max_rounds"}
    _parameter_constraints = {
        "solver": [options(*SOLVERS)],
        "C": [real(0), None],
        "lambda_": [real(0), None],
        "bias_multiplier": [real(0, closed="left")],
        "bias_learning_rate": [real(0), None],
        "t0": [real(1), None],
        "local_epochs": [integer(1)],
        "max_iter": [integer(1)],
        "max_rounds": [integer(1), deprecated_alias()],
        "tol": [real(0, closed="left")],
        "random_state": random_states(),
        "seed": [integer(0), None, deprecated_alias()],
        "round_timeout": [real(0), None],
        "verbose": ["verbose"],
    }

    def __init__(self, *, loss, solver="sdca", C=None, lambda_=None, bias_multiplier=1.0,
                 bias_learning_rate=None, t0=None, local_epochs=1, max_iter=100, tol=1e-3,
                 random_state=0, round_timeout=3600.0, verbose=0, seed=DEPRECATED,
                 max_rounds=DEPRECATED):
        self.loss = loss
        self.solver = solver
        self.C = C
        self.lambda_ = lambda_
        self.bias_multiplier = bias_multiplier
        self.bias_learning_rate = bias_learning_rate
        self.t0 = t0
        self.local_epochs = local_epochs
        self.max_iter = max_iter
        self.tol = tol
        self.random_state = random_state
        self.round_timeout = round_timeout
        self.verbose = verbose
        self.seed = seed
        self.max_rounds = max_rounds

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True   # scipy.sparse chunks (or matrices)
        return tags

    def _check_params(self):
        """scikit-learn's parameter validation, then the rules across parameters."""
        self._validate_params()
        check_C_or_lambda(self.C, self.lambda_)
        self._check_renamed()

    def _lambda_for(self, n):
        return lambda_of(self.lambda_, self.C, n)

    # -- input -----------------------------------------------------------------

    def _inputs(self, X, y, sample_weight, rounds):
        X = _as_dask_array(X, "X", 2, rounds=rounds)
        y = _as_dask_array(y, "y", 1, row_chunks=X.chunks[0], rounds=rounds)
        if sample_weight is not None:
            sample_weight = _as_dask_array(sample_weight, "sample_weight", 1,
                                           row_chunks=X.chunks[0], rounds=rounds)
        return X, y, sample_weight

    def _persist(self, client, X, y, sample_weight):
        """One future per row chunk, holding a _Partition in a worker's memory."""
        dask, _, _ = _import_dask()
        xs = X.to_delayed().ravel()
        ys = y.to_delayed().ravel()
        ws = sample_weight.to_delayed().ravel() if sample_weight is not None else [None] * len(xs)
        make = dask.delayed(_make_partition, pure=True)
        tasks = [make(xb, yb, wb, i) for i, (xb, yb, wb) in enumerate(zip(xs, ys, ws))]
        return client.compute(tasks)

    # -- the mixing loop -----------------------------------------------------------

    def fit(self, X, y, sample_weight=None, validation_data=None, callback=None):
        """Fit by CoCoA+ (or parameter mixing) on the current Dask client's workers.

        Parameters
        ----------
        X : dask array of shape (N, d) or dask DataFrame
            Training rows; chunks may be NumPy arrays (float32 stays float32)
            or scipy.sparse matrices. Chunked along the rows (column chunks
            are merged). A NumPy array or scipy.sparse matrix is split into
            four row chunks and embedded in the graph (for small data only).
        y : dask array of shape (N,) or dask Series
            Targets, rechunked to X's row chunks if needed.
        sample_weight : dask array of shape (N,), optional
            Per-row weights c_i >= 0.
        validation_data : tuple (X_val, y_val), optional
            Scored after every round (accuracy for the classifier, R^2 for
            the regressor), into ``history_``.
        callback : callable, optional
            Called as ``callback(round_statistics)`` after every round (the
            dict appended to ``history_``); a truthy return stops fitting.

        Returns
        -------
        self

        Raises
        ------
        RuntimeError
            No distributed Client; a round (or the loading of the input)
            exceeded ``round_timeout``; a
            partition was lost and could not be recomputed; workers kept
            dying.
        ValueError, TypeError
            Bad parameters or input.
        """
        self._check_params()
        client = _get_client()
        rounds = _Rounds(client, self.round_timeout)
        given = X
        X, y, sample_weight = self._inputs(X, y, sample_weight, rounds)
        start = time.perf_counter()
        parts, val_parts = [], []
        try:
            # feature_names_in_ (a pandas or dask DataFrame's columns) and
            # n_features_in_, as the in-memory estimators record them
            validate_data(self, _columns_view(given, X), reset=True, skip_check_array=True)
            parts = self._persist(client, X, y, sample_weight)
            infos = rounds.run(_partition_info, parts, self._is_classifier(),
                               what="loading the partitions")
            keep = [i for i, info in enumerate(infos) if info["n"] > 0]
            parts = [parts[i] for i in keep]
            infos = [infos[i] for i in keep]
            if not parts:
                raise ValueError("X has no rows")
            if sample_weight is not None and not any(info["weight_sum"] > 0 for info in infos):
                # the in-memory estimators' (scikit-learn's) message
                raise ValueError("Sample weights must contain at least one non-zero number.")
            n_rows = np.array([info["n"] for info in infos], dtype=np.float64)
            N = float(n_rows.sum())
            d = infos[0]["d"]
            self.n_features_in_ = d
            classes = self._classes_from(infos)
            num_problems = 1 if classes is None or len(classes) == 2 else len(classes)
            config = {
                "fit_id": id(self) ^ int(time.time_ns()), "solver": self.solver,
                "loss": self.loss, "lambda": self._lambda_for(N),
                "seed": seed_of(self._param("random_state")) or 0,  # None: seed 0
                "bias_multiplier": float(self.bias_multiplier),
                "bias_learning_rate": (None if self.bias_learning_rate is None
                                       else float(self.bias_learning_rate)),
                "classes": classes, "num_problems": num_problems,
                "local_epochs": int(self.local_epochs), "N": N, "K": len(parts),
            }
            if validation_data is not None:
                val_parts = self._validation_parts(rounds, validation_data, d)
            loop = self._cocoa_rounds if self.solver == "sdca" else self._mixing_rounds
            coef, intercept, history, converged = loop(
                rounds, parts, val_parts, config, n_rows / N, d, callback, start)
        except BaseException:
            forget_fit(self)   # Ctrl+C, a round's error: unfitted (stochsvm._stopped_fit)
            raise
        finally:
            client.cancel(list(parts) + list(val_parts))
        self.classes_ = classes
        self._set_coef(coef, intercept)
        self.lambda_effective_ = config["lambda"]
        self.n_iter_ = len(history)
        self.history_ = history
        self.objective_ = history[-1]["objective"]
        self.converged_ = bool(converged)
        if self.solver == "sdca":
            self.duality_gap_ = history[-1]["duality_gap"]
            self.relative_gap_ = history[-1]["relative_gap"]
            self.bytes_sent_ = int(sum(h["bytes_sent"] for h in history))
        self._warn_on_the_cap()
        return self

    def _warn_on_the_cap(self):
        """A ConvergenceWarning when the rounds ended on max_iter before the
        test on tol passed (tol = 0 asks for max_iter rounds: no warning), as
        the in-memory estimators warn on their cap."""
        cap = self._param("max_iter")
        if self.converged_ or self.tol <= 0 or self.n_iter_ < cap:
            return
        from sklearn.exceptions import ConvergenceWarning

        if self.solver == "sdca":
            unmet = f"the relative duality gap is {self.relative_gap_:.3g} > tol={self.tol:g}"
        else:
            unmet = f"the objective still changed by more than tol={self.tol:g} (relatively)"
        warnings.warn(f"{type(self).__name__} stopped on its round cap max_iter={cap}: {unmet}; "
                      f"the model is not the optimum; raise max_iter (or local_epochs)",
                      ConvergenceWarning, stacklevel=3)

    def _round_end(self, stats, history, callback):
        """Record a round's statistics, print them, run the callback (True: stop)."""
        history.append(stats)
        if self.verbose:
            extra = ("" if stats.get("validation_score") is None
                     else f", validation {stats['validation_score']:.4f}")
            if "relative_gap" in stats:
                extra = (f", relative gap {stats['relative_gap']:.3g}, "
                         f"{stats['bytes_sent']} bytes sent" + extra)
            print(f"[{type(self).__name__}] round {stats['round']}: objective "
                  f"{stats['objective']:.6g}{extra}, {stats['wall_time']:.2f} s")
        return bool(callback(stats)) if callback is not None else False

    def _validate(self, rounds, val_parts, coef, intercept, config, what):
        if not val_parts:
            return None
        sums = rounds.run(_partition_validation, val_parts, (coef, intercept, None), config,
                          what=what)
        return self._validation_score(sums)

    def _cocoa_rounds(self, rounds, parts, val_parts, config, fractions, d, callback, start):
        """CoCoA+ (module documentation). Round r's task trains from w_r and
        evaluates w_r's duality gap terms; so the gap of round r's result
        w_{r+1} arrives with round r + 1's task (after max_iter rounds, a task that
        only evaluates). Stops when every problem's relative gap is <= tol."""
        P, K = config["num_problems"], config["K"]
        lam, B, N = config["lambda"], config["bias_multiplier"], config["N"]
        contributions = np.zeros((K, P, d))
        bias_contributions = np.zeros((K, P))
        coef, intercept = np.zeros((P, d)), np.zeros(P)
        history, converged, pending = [], False, None
        # A partition's dual variables are where its last round ran: run the
        # next one there (a copy of the partition elsewhere has older ones).
        workers = None
        max_rounds = self._param("max_iter")
        for r in range(1, max_rounds + 2):
            task_start = time.perf_counter()
            train = r <= max_rounds
            results = rounds.run(_dask_cocoa.cocoa_round, parts, coef, intercept, r, config,
                                 train, what=f"round {r}" if train else "evaluating the model",
                                 workers=workers)
            workers = [res["worker"] for res in results]
            wall_time = time.perf_counter() - task_start
            sent = K * (coef.nbytes + intercept.nbytes)
            received = sum(res["loss"].nbytes + res["conjugate"].nbytes for res in results)
            if pending is not None:  # the gap of round r - 1's model, w_r
                primal, dual = _dask_cocoa.duality_gap(results, coef, intercept, lam, B, N)
                restarted = [i for i, res in enumerate(results) if res["restarted"]]
                gap = primal - dual
                relative = gap / np.maximum(np.abs(primal), np.abs(dual))
                if restarted:  # w_r was not built from these dual variables
                    gap = relative = np.full(P, np.nan)
                converged = not restarted and bool(np.all(relative <= self.tol))
                pending.update(
                    objective=float(np.sum(primal)), objectives=primal.tolist(),
                    dual_objective=float(np.sum(dual)), duality_gap=float(np.sum(gap)),
                    relative_gap=float(np.max(relative)), restarted_partitions=restarted,
                    validation_score=self._validate(rounds, val_parts, coef, intercept, config,
                                                    f"validating round {r - 1}"))
                if self._round_end(pending, history, callback) or converged or not train:
                    break
            for i, res in enumerate(results):
                contributions[i] = res["coef"]
                bias_contributions[i] = res["intercept"]
                received += res["coef"].nbytes + res["intercept"].nbytes
            coef = contributions.sum(axis=0)
            intercept = bias_contributions.sum(axis=0)
            pending = {"round": r, "bytes_sent": int(sent + received), "wall_time": wall_time,
                       "worker_cpu_time": float(sum(res["cpu_time"] for res in results)),
                       "elapsed_time": time.perf_counter() - start}
        return coef, intercept, history, converged

    def _mixing_rounds(self, rounds, parts, val_parts, config, fractions, d, callback, start):
        """Iterative parameter mixing of SGD (module documentation): rounds until
        the objective changes by at most tol, relatively, or max_iter rounds."""
        num_problems = config["num_problems"]
        if self.t0 is None:
            # The C default depends on the largest row norm: take the
            # largest over the partitions, so every partition uses one schedule.
            t0s = rounds.run(_partition_t0, parts, config, what="computing t0")
            config["t0"] = [max(t[k] for t in t0s) for k in range(num_problems)]
        else:
            config["t0"] = [float(self.t0)] * num_problems
        lam, B, N = config["lambda"], config["bias_multiplier"], config["N"]
        state = (np.zeros((num_problems, d)), np.zeros(num_problems), np.zeros(num_problems))
        history, previous, converged = [], None, False
        for r in range(1, self._param("max_iter") + 1):
            round_start = time.perf_counter()
            results = rounds.run(_partition_train, parts, state, config, what=f"round {r}")
            coef = sum(f * res["coef"] for f, res in zip(fractions, results))
            intercept = sum(f * res["intercept"] for f, res in zip(fractions, results))
            # The schedule continues as if one machine had run every
            # partition's iterations: t_{r+1} = t_r + sum_p (t_p - t_r).
            iteration = state[2] + sum(res["iteration"] - state[2] for res in results)
            state = (coef, intercept, iteration)
            losses = rounds.run(_partition_loss, parts, state, config,
                                what=f"evaluating round {r}")
            squared_norm = np.sum(coef * coef, axis=1)
            if B > 0:
                squared_norm = squared_norm + (intercept / B) ** 2
            objectives = 0.5 * lam * squared_norm + np.sum(losses, axis=0) / N
            stats = {
                "round": r, "objective": float(np.sum(objectives)),
                "objectives": objectives.tolist(), "iteration": int(iteration.max()),
                "validation_score": self._validate(rounds, val_parts, coef, intercept, config,
                                                   f"validating round {r}"),
                "wall_time": time.perf_counter() - round_start,
                "worker_cpu_time": float(sum(res["cpu_time"] for res in results)),
                "elapsed_time": time.perf_counter() - start,
            }
            converged = previous is not None and bool(np.all(
                np.abs(objectives - previous) <= self.tol * np.abs(previous)))
            previous = objectives
            if self._round_end(stats, history, callback) or converged:
                break
        return state[0], state[1], history, converged

    def _validation_parts(self, rounds, validation_data, d):
        try:
            given, y_val = validation_data
        except (TypeError, ValueError):
            raise ValueError("validation_data must be a tuple (X_val, y_val)") from None
        X_val = _as_dask_array(given, "validation_data X", 2, rounds=rounds)
        if X_val.shape[1] != d:
            raise ValueError(f"validation_data X has {X_val.shape[1]} features, X has {d}")
        try:  # the feature names of X's, as at predict
            validate_data(self, _columns_view(given, X_val), reset=False, skip_check_array=True)
        except ValueError as exc:
            raise ValueError(f"validation_data X: {exc}") from None
        y_val = _as_dask_array(y_val, "validation_data y", 1, row_chunks=X_val.chunks[0],
                               rounds=rounds)
        return self._persist(rounds.client, X_val, y_val, None)

    # -- prediction --------------------------------------------------------------

    def __sklearn_is_fitted__(self):
        # lambda_ is a parameter, not a fitted attribute: decide on coef_
        # (check_is_fitted read the trailing underscore as fitted).
        return hasattr(self, "coef_")

    def _check_fitted(self):
        if not self.__sklearn_is_fitted__():
            from sklearn.exceptions import NotFittedError

            raise NotFittedError(f"this {type(self).__name__} is not fitted yet; call fit first")

    def _prediction_input(self, X):
        """(X as a dask array or None, X as NumPy/SciPy or None), checked
        as by the in-memory estimators: finite values, the number of
        features and the feature names (scikit-learn's messages)."""
        import scipy.sparse as sp

        given = X
        if _is_dask_collection(X):
            X = _as_dask_array(X, "X", 2)
            validate_data(self, _columns_view(given, X), reset=False, skip_check_array=True)
            return X, None
        local = X.tocsr() if sp.issparse(X) else np.asarray(X)
        if local.ndim != 2:
            raise ValueError(f"X must be 2-D, got shape {local.shape}")
        # names and width first, as in-memory (a missing column is not a NaN)
        validate_data(self, _columns_view(given, local), reset=False, skip_check_array=True)
        return None, _check_block(local)  # finite values, as the in-memory estimators

    def _coef_matrix(self):
        return np.atleast_2d(self.coef_), np.atleast_1d(self.intercept_)


class DaskLinearSVMClassifier(ClassifierMixin, _DaskLinearSVMBase):
    """Linear SVM classifier trained on a Dask cluster by CoCoA+ or parameter mixing.

    See the module documentation (:mod:`stochsvm.dask`) for the algorithms.
    ``fit`` runs on the workers of the current ``distributed.Client``;
    ``predict``, ``decision_function`` and ``score`` on dask input are
    lazy/distributed (``map_blocks``) and on NumPy/SciPy input local.

    Parameters
    ----------
    loss : {"hinge", "hinge2", "logistic"}, default "hinge"
    solver : {"sdca", "sgd"}, default "sdca"
        ``"sdca"``: CoCoA+ with SDCA on every partition, to the single-machine
        SDCA optimum with a duality-gap certificate. ``"sgd"``: iterative
        parameter mixing of SGD (no certificate; stops above the optimum).
    C : float, optional
        ``lambda = 1 / (C N)`` for N training rows (scikit-learn's C).
    lambda_ : float, optional
        The regularization strength directly; give ``C`` or ``lambda_``, not both;
        neither means C = 1.
    bias_multiplier : float, default 1
        B, the constant feature carrying the bias (0: no bias). The bias is
        regularised, ``lambda/2 (b/B)^2``, as in :class:`stochsvm.SVM`.
    bias_learning_rate : float, optional
        SGD's bias step relative to the model step (default: the SVM's, 1).
    t0 : float, optional
        SGD's schedule offset; default: the SVM default over all rows (the
        largest of the partitions' defaults).
    local_epochs : int, default 1
        Epochs each partition runs per round (SDCA or SGD).
    max_iter : int, default 100
        Rounds at most.
    tol : float, default 1e-3
        ``"sdca"``: stop when the relative duality gap
        ``(P - D) / max(|P|, |D|)`` of every problem is at most ``tol``.
        ``"sgd"``: stop when the objective changes by at most ``tol`` times
        its value between two rounds (every class, for one-vs-rest).
        0 runs all rounds.
    random_state : int >= 0, None, numpy RandomState or Generator, default 0
        Partition p's SVM has seed ``s + p``: ``s`` is ``random_state``, 0
        for None, or a seed drawn from a ``RandomState`` or ``Generator`` at
        each ``fit`` (as the in-memory estimators).
    round_timeout : float or None, default 3600
        Seconds a round (or the loading of the partitions, or the computing
        of unknown row chunk sizes of the input) may take before ``fit``
        raises RuntimeError; None waits forever.
    verbose : int, default 0
        Print one line per round (objective; for CoCoA+ also the relative
        gap and the bytes sent).
    seed, max_rounds : deprecated
        The former names of ``random_state`` and ``max_iter`` (until 0.2.0;
        a FutureWarning, and a ValueError next to the new name).

    Attributes
    ----------
    coef_ : ndarray of shape (1, d) or (n_classes, d)
    intercept_ : ndarray of shape (1,) or (n_classes,)
    classes_ : ndarray
    n_features_in_ : int
    feature_names_in_ : ndarray of shape (n_features,)
        The column names of a pandas or dask DataFrame ``X`` (all strings);
        absent otherwise. ``predict``, ``decision_function``, ``score`` and
        ``validation_data`` check them as the in-memory estimators do.
    n_iter_ : int
        Rounds run.
    history_ : list of dict
        Per round: ``round``, ``objective`` (the primal objective of the
        round's model over all rows, summed over the one-vs-rest problems),
        ``objectives`` (per problem), ``validation_score`` (accuracy on
        ``validation_data`` or None), ``wall_time`` (of the round, seconds),
        ``worker_cpu_time`` (summed over the partitions' tasks) and
        ``elapsed_time`` (since fit started). CoCoA+ adds
        ``dual_objective``, ``duality_gap`` (summed over the problems),
        ``relative_gap`` (the largest), ``bytes_sent`` (models and terms to
        and from the partitions) and ``restarted_partitions`` (those whose
        dual variables restarted, a lost worker's: that round's gap is NaN);
        mixing adds ``iteration`` (the global iteration number).
    objective_ : float
        The last round's objective.
    converged_ : bool
        Whether the tol rule stopped fitting.
    duality_gap_, relative_gap_ : float
        CoCoA+: the returned model's duality gap (the certificate).
    bytes_sent_ : int
        CoCoA+: bytes of models and gap terms sent over the whole fit.
    lambda_effective_ : float
        The lambda used.
    """

    _losses = CLASSIFICATION_LOSSES

    _parameter_constraints = {**_DaskLinearSVMBase._parameter_constraints,
                              "loss": [options(*_losses)]}

    def __init__(self, *, loss="hinge", solver="sdca", C=None, lambda_=None, bias_multiplier=1.0,
                 bias_learning_rate=None, t0=None, local_epochs=1, max_iter=100, tol=1e-3,
                 random_state=0, round_timeout=3600.0, verbose=0, seed=DEPRECATED,
                 max_rounds=DEPRECATED):
        super().__init__(loss=loss, solver=solver, C=C, lambda_=lambda_,
                         bias_multiplier=bias_multiplier, bias_learning_rate=bias_learning_rate,
                         t0=t0, local_epochs=local_epochs, max_iter=max_iter, tol=tol,
                         random_state=random_state, round_timeout=round_timeout,
                         verbose=verbose, seed=seed, max_rounds=max_rounds)

    @staticmethod
    def _is_classifier():
        return True

    def _classes_from(self, infos):
        classes = np.unique(np.concatenate([info["labels"] for info in infos]))
        if len(classes) < 2:
            raise ValueError(f"y must contain at least two classes, got {classes.tolist()}")
        return classes

    @staticmethod
    def _validation_score(sums):
        sums = np.sum(sums, axis=0)
        return float(sums[0] / sums[1])

    def _set_coef(self, coef, intercept):
        self.coef_ = coef
        self.intercept_ = intercept

    def decision_function(self, X):
        """Scores ``X @ coef_.T + intercept_``.

        Parameters
        ----------
        X : dask array/DataFrame, ndarray or scipy.sparse matrix

        Returns
        -------
        dask array or ndarray of shape (m,) (two classes) or (m, n_classes)
            Lazy (one task per row chunk) for dask input.
        """
        self._check_fitted()
        X, local = self._prediction_input(X)
        coef, intercept = self._coef_matrix()
        squeeze = coef.shape[0] == 1
        if local is not None:
            return _block_decision(local, coef, intercept, squeeze)
        if squeeze:
            return X.map_blocks(_block_decision, coef, intercept, True, drop_axis=1,
                                dtype=np.float64, meta=np.empty((0,), np.float64))
        return X.map_blocks(_block_decision, coef, intercept, False,
                            chunks=(X.chunks[0], (coef.shape[0],)), dtype=np.float64,
                            meta=np.empty((0, 0), np.float64))

    def predict(self, X):
        """Class labels (sign of the score for two classes, else the largest score).

        Returns
        -------
        dask array or ndarray of shape (m,)
        """
        self._check_fitted()
        X, local = self._prediction_input(X)
        coef, intercept = self._coef_matrix()
        if local is not None:
            return _block_predict(local, coef, intercept, self.classes_)
        return X.map_blocks(_block_predict, coef, intercept, self.classes_, drop_axis=1,
                            dtype=self.classes_.dtype,
                            meta=np.empty((0,), self.classes_.dtype))

    def score(self, X, y, sample_weight=None):
        """Mean accuracy (weighted by ``sample_weight``), computed on the cluster for dask input.

        Returns
        -------
        float
        """
        predicted = self.predict(X)
        if isinstance(predicted, np.ndarray) and not _is_dask_collection(y):
            y = np.asarray(y).ravel()
            w = None if sample_weight is None else np.asarray(sample_weight, np.float64).ravel()
            for name, values in (("y", y), ("sample_weight", w)):
                if values is not None and values.shape[0] != predicted.shape[0]:
                    raise ValueError(f"{name} has {values.shape[0]} rows, X has "
                                     f"{predicted.shape[0]}")
            from sklearn.metrics import accuracy_score

            # (scikit-learn's checks: labels of another type than the
            # classes are an error, not an accuracy of 0)
            return float(accuracy_score(y, predicted, sample_weight=w))
        _, da, _ = _import_dask()
        y = _as_dask_array(y, "y", 1, row_chunks=predicted.chunks[0]
                           if hasattr(predicted, "chunks") else None)
        correct = (predicted == y).astype(np.float64)
        if sample_weight is None:
            return float(correct.mean().compute())
        w = _as_dask_array(sample_weight, "sample_weight", 1, row_chunks=correct.chunks[0])
        num, den = da.compute((correct * w).sum(), w.sum())
        return float(num / den)


class DaskLinearSVMRegressor(RegressorMixin, _DaskLinearSVMBase):
    """Linear SVM regressor (l1 or l2 loss) trained on a Dask cluster by CoCoA+ or mixing.

    Same parameters, attributes and algorithm as
    :class:`DaskLinearSVMClassifier`, except ``loss`` in ``{"l2", "l1"}``
    (default ``"l2"``), ``coef_`` of shape (d,), ``intercept_`` a float and
    ``validation_score`` the R^2 on ``validation_data``.
    """

    _losses = REGRESSION_LOSSES

    _parameter_constraints = {**_DaskLinearSVMBase._parameter_constraints,
                              "loss": [options(*_losses)]}

    def __init__(self, *, loss="l2", solver="sdca", C=None, lambda_=None, bias_multiplier=1.0,
                 bias_learning_rate=None, t0=None, local_epochs=1, max_iter=100, tol=1e-3,
                 random_state=0, round_timeout=3600.0, verbose=0, seed=DEPRECATED,
                 max_rounds=DEPRECATED):
        super().__init__(loss=loss, solver=solver, C=C, lambda_=lambda_,
                         bias_multiplier=bias_multiplier, bias_learning_rate=bias_learning_rate,
                         t0=t0, local_epochs=local_epochs, max_iter=max_iter, tol=tol,
                         random_state=random_state, round_timeout=round_timeout,
                         verbose=verbose, seed=seed, max_rounds=max_rounds)

    @staticmethod
    def _is_classifier():
        return False

    def _classes_from(self, infos):
        return None

    @staticmethod
    def _validation_score(sums):
        ss_res, y_sum, y_sq, n = np.sum(sums, axis=0)
        ss_tot = y_sq - y_sum * y_sum / n
        return float(1.0 - ss_res / ss_tot) if ss_tot > 0 else float("nan")

    def _set_coef(self, coef, intercept):
        self.coef_ = coef[0]
        self.intercept_ = float(intercept[0])

    def predict(self, X):
        """Predictions ``X @ coef_ + intercept_``.

        Returns
        -------
        dask array (lazy, one task per row chunk) or ndarray of shape (m,)
        """
        self._check_fitted()
        X, local = self._prediction_input(X)
        coef, intercept = self._coef_matrix()
        if local is not None:
            return _block_predict(local, coef, intercept, None)
        return X.map_blocks(_block_predict, coef, intercept, None, drop_axis=1,
                            dtype=np.float64, meta=np.empty((0,), np.float64))

    def score(self, X, y, sample_weight=None):
        """R^2 of the predictions (weighted by ``sample_weight``), on the cluster for dask input.

        Returns
        -------
        float
        """
        predicted = self.predict(X)
        if isinstance(predicted, np.ndarray) and not _is_dask_collection(y):
            from sklearn.metrics import r2_score

            return float(r2_score(np.asarray(y, np.float64).ravel(), predicted,
                                  sample_weight=sample_weight))
        _, da, _ = _import_dask()
        y = _as_dask_array(y, "y", 1, row_chunks=predicted.chunks[0]).astype(np.float64)
        w = (da.ones_like(y) if sample_weight is None else
             _as_dask_array(sample_weight, "sample_weight", 1, row_chunks=y.chunks[0]))
        sw, swy, swyy, res = da.compute(w.sum(), (w * y).sum(), (w * y * y).sum(),
                                        (w * (y - predicted) ** 2).sum())
        ss_tot = swyy - swy * swy / sw
        return float(1.0 - res / ss_tot) if ss_tot > 0 else float("nan")
