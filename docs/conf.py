"""Sphinx configuration of the stochsvm documentation.

Build with:  python -m sphinx -W -b html docs docs/_build/html
The Python reference (python_api.rst) is read from the installed package.
"""

import os
import sys

project = "stochsvm"
author = "the stochsvm authors"
copyright = "the stochsvm authors, BSD-3-Clause"

try:
    import stochsvm

    release = stochsvm.__version__   # from meson.build
except ImportError:  # pragma: no cover - the docs need the package installed
    sys.stderr.write("stochsvm is not importable: install it first (pip install -e .)\n")
    raise
version = ".".join(release.split(".")[:2])

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.napoleon",
    "sphinx.ext.mathjax",
]

root_doc = "index"
exclude_patterns = ["_build", "dev"]   # dev/: developer notes, not the site
templates_path = []
html_static_path = []
html_theme = "alabaster"
html_title = f"stochsvm {release}"

# C reference: the export macro is not part of the signatures shown.
c_id_attributes = ["SS_API"]
primary_domain = "py"
default_role = "literal"

autodoc_member_order = "bysource"
autodoc_typehints = "none"
napoleon_google_docstring = False
napoleon_numpy_docstring = True
napoleon_use_rtype = False

# The docs are built offline: no intersphinx, no remote images.
nitpicky = False
