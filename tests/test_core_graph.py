"""The file-level call graph of the C core (tools/core_graph.py).

The parser is checked on calls known to exist, so that an empty graph cannot
pass for a clean one. The core's folders are layers (docs/dev/architecture.md):
no file calls or includes a file of a folder above its own, and no two files
call each other, directly or round a loop (issue 18, deliverable 5).
"""

import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _tool():
    spec = importlib.util.spec_from_file_location("core_graph", ROOT / "tools" / "core_graph.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_graph_sees_known_calls():
    tool = _tool()
    calls, includes, names = tool.graph()
    assert "ss_run_epochs" in names["linear/sgd.c", "linear/epochs.c"]   # a solver calls the epoch driver
    assert "ss_svm_step_t0" in names["linear/sgd.c", "linear/svm_effective.c"]
    assert "ss_budget_merge" in names["budget/budget_maintain.c", "budget/budget_merge.c"]
    assert "ss_run_train" in names["budget/budget_train.c", "driver/run.c"]
    # a table or a function taken as a value is a call through a pointer
    assert "ss_sbp_ops" in names["kernel/kernel_svm.c", "kernel/sbp.c"]
    assert "ss_bsca_steps" in names["kernel/kernel_svm_budget.c", "budget/bsca.c"]
    assert "ss_kernel_svm_nu_warmup" in names["kernel/sbp_nu.c", "kernel/kernel_svm.c"]
    assert "linear/svm_internal.h" in includes["linear/svm.c"]
    assert "common/internal.h" in includes["linear/svm_internal.h"]
    assert "stochsvm/svm.h" in includes["common/internal.h"]
    assert "budget/budget_train.h" in includes["kernel/kernel_svm_budget.h"]
    assert not any(name.endswith("_t.h") for name in calls)       # templates fold into their users
    assert len(calls) > 30


def test_cycle_finder():
    tool = _tool()
    edges = {"a": {"b"}, "b": {"c"}, "c": {"a", "d"}, "d": set(), "e": {"d"}}
    assert tool.cycles(edges) == [["a", "b", "c"]]
    assert tool.shortest_loop(edges, ["a", "b", "c"]) == ["a", "b", "c", "a"]
    assert tool.cycles({"a": {"b"}, "b": set()}) == []


def test_the_core_has_no_call_cycle():
    tool = _tool()
    calls, _, _ = tool.graph()
    assert tool.cycles(calls) == [], tool.report(*tool.graph())


def test_no_file_reaches_above_its_layer():
    tool = _tool()
    calls, includes, _ = tool.graph()
    assert tool.layer_violations(calls, includes) == [], tool.report(*tool.graph())
    assert {path.parent.name for path in tool.core_files()} == set(tool.LAYERS)


def test_layer_check():
    tool = _tool()
    calls = {"linear/a.c": {"common/b.c", "kernel/c.c", "budget/d.c"}, "common/b.c": set(),
             "kernel/c.c": {"linear/a.c", "budget/d.c"}, "budget/d.c": set()}
    includes = {"common/b.h": {"driver/run.h", "stochsvm/svm.h"}, "extra/e.c": {"common/b.h"}}
    assert tool.layer_violations(calls, includes) == [
        ("call", "linear/a.c", "budget/d.c"),       # sideways: the same rank
        ("call", "linear/a.c", "kernel/c.c"),       # up
        ("include", "common/b.h", "driver/run.h"),  # up; public headers are open to all
        ("include", "extra/e.c", "common/b.h"),     # a folder without a layer
    ]
