"""Sphinx configuration of the jacquetd documentation site.

Build it as the test command does (warnings are errors, every internal link and anchor
checked):

    python -m sphinx -W --keep-going -n -b html docs build/docs

Pages are Markdown (myst-parser); the protocol, command-line and configuration references
are generated at build time (``_ext/jacquetd_pages.py``), the Python API from docstrings
(autodoc).
"""

from __future__ import annotations

import sys
from importlib import metadata
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent / "_ext"))

project = "jacquetd"
author = "the jacquetd authors"
copyright = "the jacquetd authors, GPL-3.0-or-later"
release = metadata.version("jacquetd")
version = release

extensions = [
    "myst_parser",
    "sphinx.ext.autodoc",
    "jacquetd_pages",
]
source_suffix = {".md": "markdown"}
root_doc = "index"
exclude_patterns = ["_build"]
myst_heading_anchors = 6
myst_enable_extensions = ["colon_fence", "deflist"]
# A link to a page or an anchor that does not exist is a warning, so an error here.
myst_all_links_external = False
suppress_warnings: list[str] = []
nitpicky = True

autodoc_member_order = "bysource"
autodoc_typehints = "none"
autodoc_default_options = {"members": True, "undoc-members": False}

html_theme = "alabaster"
html_title = f"jacquetd {release}"
html_static_path: list[str] = []
