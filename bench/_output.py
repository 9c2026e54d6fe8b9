"""Where the benchmark scripts write: never into bench/results/ unless told.

Every script writes its tables, figures and side files under
``$STOCHSVM_BENCH_OUT`` (default ``<temp dir>/stochsvm-bench``) unless its
``--output``/``--out``/``--output-dir`` option names another place. The
committed results are refreshed by naming them, e.g. ``python
bench/linear_sgd.py --output bench/results/linear_sgd.md``, so a partial
run (a subset of the data sets or solvers, ``--quick``, ``--no-real``) or a
``--help`` never overwrites a committed full result.
"""

import os
import tempfile

#: The folder of the committed results (read by the scripts that reuse them).
RESULTS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "results")


def out_dir():
    """The default output folder, created if need be."""
    path = os.environ.get("STOCHSVM_BENCH_OUT") or os.path.join(tempfile.gettempdir(),
                                                                 "stochsvm-bench")
    os.makedirs(path, exist_ok=True)
    return path


def out_path(*names):
    """``names`` joined under the default output folder."""
    return os.path.join(out_dir(), *names)
