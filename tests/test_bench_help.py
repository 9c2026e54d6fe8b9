"""The benchmark scripts: ``--help`` prints the usage and runs nothing, and
no script writes into bench/results/ unless told (bench/_output.py).

`bench/progress_overhead.py --help` ran the benchmark and overwrote the
committed bench/results/progress_overhead.md; `sgdqn_t0_sweep.py --help` and
`budget_libsvm_dual.py --help` started their full runs."""

import hashlib
import os
import subprocess
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[1] / "bench"
SCRIPTS = sorted(p.name for p in BENCH.glob("*.py") if not p.name.startswith("_"))


def _snapshot(folder):
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.iterdir()) if p.is_file()}


@pytest.mark.slow
@pytest.mark.parametrize("script", SCRIPTS)
def test_help_prints_the_usage_and_writes_nothing(script, tmp_path):
    results = _snapshot(BENCH / "results")
    out = tmp_path / "out"
    env = dict(os.environ, STOCHSVM_BENCH_OUT=str(out))
    run = subprocess.run([sys.executable, str(BENCH / script), "--help"], cwd=tmp_path, env=env,
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr[-2000:]
    assert run.stdout.startswith("usage:"), run.stdout[:500]
    assert _snapshot(BENCH / "results") == results
    written = [p for p in tmp_path.rglob("*") if p.is_file()]
    assert not written, written


def test_no_script_defaults_to_the_committed_results():
    # the partial runs the README documents (kernel_defaults.py --sets ...,
    # res_paper.py --no-real) overwrote the committed full results: the
    # defaults now go to $STOCHSVM_BENCH_OUT
    for script in SCRIPTS:
        text = (BENCH / script).read_text()
        assert '"results"' not in text and "'results'" not in text, script
