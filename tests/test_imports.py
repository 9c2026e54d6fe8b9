"""Test modules share code through tests/_helpers.py and tests/_strategies.py
only: no module imports ``conftest`` (fixtures are pytest's business) or
another test module (importing one runs its module-level code and couples
two files that should change independently)."""

import ast
import pathlib

TESTS = pathlib.Path(__file__).resolve().parent


def forbidden_imports(source, test_modules):
    """(line, module) of every import, at any depth, of conftest or of a
    module named in ``test_modules``."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names = [node.module]
        else:
            continue
        for name in names:
            top = name.split(".")[0]
            if top == "conftest" or top in test_modules:
                found.append((node.lineno, top))
    return found


def test_the_check_finds_every_kind_of_import():
    source = ("import conftest\nfrom test_a import x\n\ndef f():\n    import test_a.sub\n"
              "import _helpers\nfrom stochsvm import SVM\nimport test_other_lib\n")
    assert forbidden_imports(source, {"test_a"}) == [(1, "conftest"), (2, "test_a"), (5, "test_a")]


def test_no_test_module_imports_conftest_or_another_test_module():
    modules = {path.stem for path in TESTS.glob("test_*.py")}
    offenders = []
    for path in sorted(TESTS.glob("*.py")):
        for line, module in forbidden_imports(path.read_text(encoding="utf-8"), modules):
            offenders.append(f"tests/{path.name}:{line} imports {module}")
    assert not offenders, (
        "test modules must not import conftest or each other; move the shared code to "
        "tests/_helpers.py (or tests/_strategies.py for hypothesis strategies) and import it "
        "from there:\n  " + "\n  ".join(offenders))
