"""The README stays true: its C example is the file the C tests compile and
run, and its quick start is the two commands CI relies on."""

import pathlib
import re

ROOT = pathlib.Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text()


def _blocks(language):
    return re.findall(r"```" + language + r"\n(.*?)```", README, flags=re.S)


def test_c_example_is_the_tested_file():
    example = (ROOT / "tests" / "c" / "readme_example.c").read_text()
    assert example in _blocks("c"), "README's C block differs from tests/c/readme_example.c"


def test_quick_start_is_two_commands():
    quick = README.split("## Quick start", 1)[1].split("##", 1)[0]
    commands = [line for block in re.findall(r"```sh\n(.*?)```", quick, flags=re.S)
                for line in block.strip().splitlines()]
    assert commands == ["pip install '.[test]' && stochsvm demo", "python -m pytest -n auto tests"]


def test_ci_ends_with_the_readme_test_command():
    """.ci/run's last command is the README's test command (with CI's quiet
    flags), and the [test] extra installs the plugin that -n needs."""
    last = (ROOT / ".ci" / "run").read_text().strip().splitlines()[-1]
    assert re.search(r"python3 -m pytest -q -n auto -p no:cacheprovider tests$", last), last
    assert '"pytest-xdist' in (ROOT / "pyproject.toml").read_text()


def test_python_example_runs():
    code = _blocks("python")[0]
    namespace = {}
    exec(compile(code, "README.md", "exec"), namespace)
    svm, y = namespace["svm"], namespace["y"]
    assert svm.get_iteration_number() == 10 * len(y)
    assert (svm.predict(namespace["X"]) == y).mean() > 0.95


def test_c_section_sets_the_pkg_config_path_of_its_prefix():
    """The C section installs to a prefix and libdir and points pkg-config at
    that prefix's libdir (.ci/run executes the block in a fresh copy)."""
    section = README.split("### Building the C library alone", 1)[1].split("##", 1)[0]
    commands = _blocks("sh")
    block = next(b for b in commands if b in section)
    setup = re.search(r'meson setup \S+ -Dpython=false --prefix "([^"]+)" --libdir (\S+)', block)
    assert setup, block
    prefix, libdir = setup.groups()
    assert block.splitlines()[0] == "python3 -m pip install meson ninja"
    assert f'export PKG_CONFIG_PATH="{prefix}/{libdir}/pkgconfig' in block
    assert "pkg-config --cflags --libs stochsvm" in block


def test_license_file_is_bsd3_and_named_in_the_metadata():
    text = (ROOT / "LICENSE").read_text()
    assert text.startswith("BSD 3-Clause License") and "stochsvm developers" in text
    pyproject = (ROOT / "pyproject.toml").read_text()
    assert 'license = "BSD-3-Clause"' in pyproject
    assert 'license-files = ["LICENSE"]' in pyproject
