#!/usr/bin/env python3
"""The file-level include and call graph of the C core, and its cycles.

    python tools/core_graph.py              # summary: edges per file, then the cycles
    python tools/core_graph.py --dot        # Graphviz of the call graph (dot -Tsvg)

A file A *calls* a file B when a function body (or an initializer) in A
names a function or a variable that B defines with external linkage (or a
function B defines as ``static inline`` in a header), A != B: a call, or a
function or ops table taken as a value, which is a call through a pointer.
A *includes* B when A has ``#include "B"``, resolved in A's folder, the
other folders of src/core/ and then include/stochsvm/. Files are named by
their layer (linear/svm.c). Cycles are the strongly connected components of
more than one file in the call graph (Tarjan's algorithm), each reported with one
shortest loop through it so that the reader sees which calls close it.

The parser is a sketch, not a C front end: comments and string literals are
removed, brace depth tells definitions (depth 0, followed by a body) from
calls (inside a body). Names made by token pasting in the ``*_t.h``
templates are invisible to it; they are private to the file that includes
the template, so they add no edge between files. The exit status is 0: this
is a report (tests/test_core_graph.py turns it into a check).
"""

from __future__ import annotations

import argparse
import re
import sys
from collections import deque
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CORE = ROOT / "src" / "core"
PUBLIC = ROOT / "include" / "stochsvm"

# The layers of src/core/, bottom first (docs/dev/architecture.md). A file
# may call or include a file of its own folder or of a folder of a lower
# rank, never one of a higher rank, nor one of another folder of its rank.
LAYERS = {"common": 0, "driver": 1, "model": 1, "linear": 2, "budget": 2, "kernel": 3}

_KEYWORDS = {"if", "for", "while", "switch", "return", "sizeof", "defined", "_Alignof", "_Static_assert",
             "_Generic", "else", "do", "case"}


def _strip(text):
    """The code without comments, string/char literals and preprocessor lines
    (line structure kept for the include scan, which runs on the raw text)."""
    text = re.sub(r"/\*.*?\*/", lambda m: "\n" * m.group(0).count("\n"), text, flags=re.S)
    text = re.sub(r"//[^\n]*", "", text)
    text = re.sub(r'"(?:\\.|[^"\\\n])*"', '""', text)
    text = re.sub(r"'(?:\\.|[^'\\\n])*'", "''", text)
    lines = []
    continued = False
    for line in text.splitlines():
        directive = continued or line.lstrip().startswith("#")
        continued = directive and line.rstrip().endswith("\\")
        lines.append("" if directive else line)
    return "\n".join(lines)


def _definitions_and_calls(code):
    """(defined names with external linkage or static inline, used names).

    A definition is a function with a body, or a variable with an
    initializer (an ops table), at brace depth 0. A *use* is any name inside
    a body or an initializer: a call, or a function or table taken as a
    value (``return &ss_sbp_ops;``, ``.start = ss_budget_solver_start``), so
    that a call through a pointer still shows who can reach whom."""
    defined, static, called = set(), set(), set()
    depth = 0
    for m in re.finditer(r"[{}]|\b([A-Za-z_]\w*)\b(\s*\()?", code):
        token = m.group(0)
        if token == "{":
            depth += 1
            continue
        if token == "}":
            depth -= 1
            continue
        name = m.group(1)
        if name in _KEYWORDS:
            continue
        if depth > 0:
            called.add(name)
            continue
        head = code[max(code.rfind(";", 0, m.start()), code.rfind("}", 0, m.start())) + 1:m.start()]
        is_static = re.search(r"\bstatic\b", head) and not re.search(r"\binline\b", head)
        if not m.group(2):
            # depth 0, not followed by "(": a variable defined with an initializer
            if re.match(r"\s*(?:\[[^\]]*\]\s*)*=", code[m.end():m.end() + 80]) and head.strip() \
                    and not re.search(r"\b(typedef|extern)\b", head):
                (static if is_static else defined).add(name)
            continue
        # depth 0: a function definition if the parenthesised list is followed by a body
        close = _matching_paren(code, code.index("(", m.start()))
        after = code[close + 1:close + 200].lstrip() if close > 0 else ""
        if after.startswith("{"):
            (static if is_static else defined).add(name)
    return defined, called - static


def _matching_paren(code, open_index):
    depth = 0
    for k in range(open_index, len(code)):
        if code[k] == "(":
            depth += 1
        elif code[k] == ")":
            depth -= 1
            if depth == 0:
                return k
    return -1


def core_files():
    return sorted(CORE.rglob("*.c")) + sorted(CORE.rglob("*.h"))


def _label(path):
    """A core file as LAYER/NAME (e.g. linear/svm.c), a public header as stochsvm/NAME.h."""
    if CORE in path.parents:
        return path.relative_to(CORE).as_posix()
    return f"stochsvm/{path.name}"


def graph():
    """(call edges, include edges, names): edges as {file: set of files},
    files named as in src/core/ (public headers as stochsvm/NAME.h); names
    maps a call edge (a, b) to the functions of b that a calls."""
    files = core_files()
    owner, calls_of, includes = {}, {}, {}
    for path in files:
        raw = path.read_text(encoding="utf-8")
        defined, called = _definitions_and_calls(_strip(raw))
        if path.suffix == ".h" and "static inline" not in raw:
            defined = set()   # prototypes only
        for name in defined:
            owner.setdefault(name, _label(path))
        calls_of[_label(path)] = called
        targets = set()
        # #include "x.h", and a template named by a macro (#define SS_STEPS "x_t.h")
        for inc in re.findall(r'^\s*#\s*(?:include|define\s+\w+)\s+"([^"]+\.h)"', raw, flags=re.M):
            layers = [path.parent] + sorted(d for d in CORE.iterdir() if d.is_dir())
            for base in [(d / inc).resolve() for d in layers] + [ROOT / "include" / inc, PUBLIC / inc]:
                if base.is_file():
                    targets.add(_label(base))
                    break
        includes[_label(path)] = targets - {_label(path)}
    # A header that defines no function of its own (a *_t.h template, or
    # prototypes) is part of each file that includes it: its calls are theirs.
    folded = {n for n in calls_of if n.endswith(".h") and n not in set(owner.values())}
    for name in [n for n in calls_of if n not in folded]:
        seen, todo = set(), [t for t in includes[name] if t in folded]
        while todo:
            header = todo.pop()
            if header not in seen:
                seen.add(header)
                todo += [t for t in includes.get(header, ()) if t in folded]
        for header in seen:
            calls_of[name] = calls_of[name] | calls_of[header]
    for name in folded:
        del calls_of[name]
    calls, names = {}, {}
    for name, called in calls_of.items():
        calls[name] = {owner[c] for c in called if c in owner and owner[c] != name}
        for c in called:
            if c in owner and owner[c] != name:
                names.setdefault((name, owner[c]), set()).add(c)
    return calls, includes, names


def cycles(edges):
    """Strongly connected components of more than one node, each sorted,
    in order of their first file."""
    index, low, on_stack, stack, out = {}, {}, set(), [], []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        for w in sorted(edges.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                out.append(sorted(component))

    sys.setrecursionlimit(max(1000, 10 * len(edges)))
    for v in sorted(edges):
        if v not in index:
            visit(v)
    return sorted(out)


def shortest_loop(edges, component):
    """A shortest closed walk through the first file of a component."""
    start = component[0]
    inside = set(component)
    previous = {start: None}
    queue = deque([start])
    while queue:
        v = queue.popleft()
        for w in sorted(edges.get(v, ())):
            if w not in inside:
                continue
            if w == start:
                path = [v]
                while previous[path[-1]] is not None:
                    path.append(previous[path[-1]])
                return [start] + path[::-1][1:] + [start] if path[-1] == start else path[::-1] + [start]
            if w not in previous:
                previous[w] = v
                queue.append(w)
    return component


def layer_order():
    """The layers as text, bottom first: common < {driver, model} < ..."""
    ranks = sorted(set(LAYERS.values()))
    groups = [sorted(f for f in LAYERS if LAYERS[f] == r) for r in ranks]
    return " < ".join(g[0] if len(g) == 1 else "{" + ", ".join(g) + "}" for g in groups)


def layer_violations(calls, includes):
    """Calls and includes that go to a folder above the file's own, or
    sideways to another folder of the same rank, as sorted (kind, a, b);
    public headers (stochsvm/) are open to every layer. A folder missing
    from LAYERS is itself a violation (it must be given a place)."""
    out = []
    for kind, edges in (("call", calls), ("include", includes)):
        for a in sorted(edges):
            for b in sorted(edges[a]):
                fa, fb = a.split("/")[0], b.split("/")[0]
                if fb == "stochsvm" or fa == fb:
                    continue
                if fa not in LAYERS or fb not in LAYERS or LAYERS[fb] >= LAYERS[fa]:
                    out.append((kind, a, b))
    return out


def report(calls, includes, names):
    lines = ["# Call graph of src/core (file -> files whose functions it calls)", ""]
    for name in sorted(calls):
        if calls[name]:
            lines.append(f"{name} -> {', '.join(sorted(calls[name]))}")
    lines += ["", "# Include cycles", ""]
    lines += [" <-> ".join(c) for c in cycles(includes)] or ["none"]
    lines += ["", "# Call cycles (strongly connected components), with one shortest loop each", ""]
    found = cycles(calls)
    for c in found:
        lines.append(f"{len(c)} files: {', '.join(c)}")
        lines.append("    loop: " + " -> ".join(shortest_loop(calls, c)))
        for a in c:
            for b in sorted(calls[a] & set(c)):
                lines.append(f"    {a} -> {b}: {', '.join(sorted(names[a, b]))}")
    if not found:
        lines.append("none")
    lines += ["", "# Calls and includes against the layer order " + layer_order(), ""]
    bad = layer_violations(calls, includes)
    lines += [f"{a} {kind}s {b}" + (f": {', '.join(sorted(names[a, b]))}" if kind == "call" else "")
              for kind, a, b in bad] or ["none"]
    return "\n".join(lines)


def dot(calls):
    out = ["digraph core {", "  rankdir=LR; node [shape=box, fontsize=10];"]
    in_cycle = {f for c in cycles(calls) for f in c}
    for name in sorted(calls):
        style = ' [color=red]' if name in in_cycle else ""
        out.append(f'  "{name}"{style};')
        for target in sorted(calls[name]):
            out.append(f'  "{name}" -> "{target}";')
    out.append("}")
    return "\n".join(out)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dot", action="store_true", help="print the call graph for Graphviz")
    args = parser.parse_args(argv)
    calls, includes, names = graph()
    print(dot(calls) if args.dot else report(calls, includes, names))
    return 0


if __name__ == "__main__":
    sys.exit(main())
