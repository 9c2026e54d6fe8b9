"""The version is written in project(version:) of meson.build; everything
else that states it agrees: the Python package, its metadata, the compiled
core and the macros of the public C header (which meson.build also checks
when it configures)."""

import importlib.metadata
import re
from pathlib import Path

import pytest

import stochsvm
from stochsvm import _svm

ROOT = Path(__file__).resolve().parents[1]


def meson_version():
    m = re.search(r"project\(\s*'stochsvm'.*?version:\s*'([^']+)'", (ROOT / "meson.build").read_text(), flags=re.S)
    assert m, "meson.build: no project('stochsvm', ..., version: '...')"
    return m.group(1)


def header_macros():
    text = (ROOT / "include" / "stochsvm" / "stochsvm.h").read_text()
    return dict(re.findall(r"^#define (SS_VERSION_\w+) (\S+)$", text, flags=re.M))


def test_python_package_has_the_meson_version():
    version = meson_version()
    assert stochsvm.__version__ == version
    assert importlib.metadata.version("stochsvm") == version
    assert _svm.core_version() == version


def test_c_header_has_the_meson_version():
    major, minor, patch = meson_version().split(".")
    assert header_macros() == {"SS_VERSION_MAJOR": major, "SS_VERSION_MINOR": minor,
                               "SS_VERSION_PATCH": patch, "SS_VERSION_STRING": f'"{meson_version()}"'}


def test_pyproject_takes_the_version_from_meson():
    tomllib = pytest.importorskip("tomllib")   # Python 3.11+
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert "version" not in project and "version" in project["dynamic"]
