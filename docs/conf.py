"""Sphinx configuration of anywrap's documentation site.

``make docs`` builds it into ``build/docs/html`` with warnings as errors. The
build is offline: no intersphinx, no remote fonts or scripts, math rendered
to MathML at build time (``_ext/anywrap_docs.py``).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE / "_ext"))
# JAX on the CPU, no accelerator probing; PyTorch's transforms eager (examples
# in docstrings and recipes are short).
os.environ.setdefault("JAX_PLATFORMS", "cpu")
os.environ.setdefault("ANYWRAP_TORCH_COMPILE", "0")
# The RecordHTML example renders offscreen (rgb_array): with no display to look
# for, SDL (pygame) does not print its harmless XDG_RUNTIME_DIR message.
os.environ.setdefault("SDL_VIDEODRIVER", "dummy")

import anywrap  # noqa: E402

project = "anywrap"
author = "the anywrap authors"
copyright = "the anywrap authors, MIT licence"
release = anywrap.__version__
version = release

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.napoleon",
    "myst_parser",
    "anywrap_docs",
]

source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
root_doc = "index"
exclude_patterns = ["_build", "**/__pycache__", "README.md"]
templates_path: list[str] = []

# MyST: heading anchors so pages can link to sections, and ``{note}``-style fences.
myst_enable_extensions = ["colon_fence", "deflist"]
myst_heading_anchors = 3

# autodoc: public names as users import them (``anywrap.vector.ClipAction``),
# never the module they happen to live in, so the internals can move freely.
autodoc_default_options = {"member-order": "bysource"}
autodoc_typehints = "description"
autodoc_typehints_format = "short"
autodoc_preserve_defaults = True
autodoc_class_signature = "mixed"
napoleon_google_docstring = True
napoleon_numpy_docstring = False
napoleon_use_rtype = False

# Math becomes MathML at build time (no MathJax from a CDN).
html_math_renderer = "mathml"

html_theme = "furo"
html_title = f"anywrap {release}"
html_static_path = ["_static"]
html_css_files = ["anywrap.css"]
html_show_sourcelink = False
html_copy_source = False
html_last_updated_fmt = None
html_theme_options = {
    "navigation_with_keys": True,
    # Furo's footer icons would link to GitHub; keep the page self-contained.
    "footer_icons": [],
}
pygments_style = "friendly"
pygments_dark_style = "monokai"

# No network at build time.
intersphinx_mapping: dict[str, tuple[str, str | None]] = {}
linkcheck_ignore = [r".*"]
