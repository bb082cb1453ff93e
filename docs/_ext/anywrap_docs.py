"""Sphinx extension for anywrap's site: pages built from the code.

- ``.. anywrap-api:: MODULE`` documents every public name of ``MODULE.__all__``
  (classes, functions, submodules) under the name users import, so the
  reference follows ``__all__`` and never the private module layout.
  ``:only: A B`` documents those names alone; without it, the directive
  documents the names of ``__all__`` that an earlier ``anywrap-api`` of the
  page has not, so a name added to ``__all__`` cannot go missing.
- ``.. anywrap-wrapper-table::`` is the table of every wrapper: single,
  vector and functional shells read from the three ``__all__``, a line each
  from the docstring, and the array libraries each runs on (``RUNS_ON``
  below; a wrapper missing from it fails the build).
- Math (``.. math::`` in docstrings) becomes MathML at build time
  (latex2mathml), so no page loads MathJax.
- The RecordHTML example page: ``docs/recipes/record_html.py`` writes a
  report at build time, copied into the site as ``examples/``.
"""

from __future__ import annotations

import contextlib
import importlib
import importlib.util
import inspect
import io
import re
import shutil
from pathlib import Path
from typing import Any

from docutils import nodes
from docutils.parsers.rst import directives
from docutils.statemachine import StringList
from sphinx.application import Sphinx
from sphinx.util import logging
from sphinx.util.docutils import SphinxDirective

logger = logging.getLogger(__name__)

HERE = Path(__file__).resolve().parent
DOCS = HERE.parent

ALL_LIBRARIES = "NumPy, JAX, PyTorch, Array API, TensorFlow"
NO_TF = "NumPy, JAX, PyTorch, Array API"

# Where each wrapper's stateful shells (``anywrap.X``, ``anywrap.vector.X``)
# are tested. Every cell is covered by a test; CUDA is written for but not yet run
# on a GPU. "Array API" is any library array-api-compat knows (tested with
# array-api-strict; CuPy goes this way, untested). ``anywrap.functional`` is
# JAX by definition. A wrapper added to ``__all__`` must get a row here.
RUNS_ON: dict[str, str] = {
    "RecordEpisodeStatistics": ALL_LIBRARIES,
    "ClipAction": ALL_LIBRARIES,
    "NormalizeObservation": ALL_LIBRARIES,
    "TransformObservation": ALL_LIBRARIES,
    "NormalizeReward": ALL_LIBRARIES,
    "TransformReward": ALL_LIBRARIES,
    "GrayscaleObservation": ALL_LIBRARIES,
    "ResizeObservation": ALL_LIBRARIES,
    "FrameStackObservation": NO_TF,
    "MaxAndSkipObservation": NO_TF,
    "ClipReward": NO_TF,
    "DelayObservation": NO_TF,
    "DtypeObservation": NO_TF,
    "FlattenObservation": NO_TF,
    "RescaleAction": NO_TF,
    "RescaleObservation": NO_TF,
    "ReshapeObservation": NO_TF,
    "StickyAction": NO_TF,
    "TimeAwareObservation": NO_TF,
    "TimeLimit": NO_TF,
    "RecordHTML": NO_TF,
    "AddWhiteNoise": ALL_LIBRARIES,
    "ObstructView": ALL_LIBRARIES,
    "RepeatAction": "NumPy, JAX, PyTorch, TensorFlow",
    "AddRenderObservation": "NumPy, JAX, PyTorch, TensorFlow",
    "AtariPreprocessing": "NumPy, JAX, PyTorch, TensorFlow",
    "RecordVideo": "NumPy, JAX, PyTorch, TensorFlow (frames)",
    "TransformAction": ALL_LIBRARIES,
    "FilterObservation": ALL_LIBRARIES,
    "DiscretizeAction": ALL_LIBRARIES,
    "DiscretizeObservation": ALL_LIBRARIES,
    "VectorizeTransformAction": ALL_LIBRARIES,
    "VectorizeTransformObservation": ALL_LIBRARIES,
    "VectorizeTransformReward": ALL_LIBRARIES,
    "DictInfoToList": ALL_LIBRARIES,
    # Gymnasium's own classes (no array math), with anywrap's options check.
    "OrderEnforcing": "NumPy, JAX, PyTorch",
    "PassiveEnvChecker": "NumPy, JAX, PyTorch (checks a host copy, first calls only)",
    "Autoreset": "NumPy, JAX, PyTorch (reads the flags on the host)",
    "RenderCollection": "NumPy, JAX, PyTorch",
    "HumanRendering": "NumPy, JAX, PyTorch (frames copied to the host)",
    "ArrayConversion": "NumPy, JAX, PyTorch, TensorFlow (from and to any of them)",
    "ToNumpy": "from JAX, PyTorch, TensorFlow",
    "ToJax": "from NumPy, PyTorch, TensorFlow",
    "ToTorch": "from NumPy, JAX, TensorFlow",
    "ToTensorFlow": "from NumPy, JAX, PyTorch",
    "JaxToNumpy": "JAX to NumPy (Gymnasium's signature)",
    "JaxToTorch": "JAX to PyTorch (Gymnasium's signature)",
    "NumpyToTorch": "NumPy to PyTorch (Gymnasium's signature)",
    # Functional only: jittable, inside jax.jit / vmap / lax.scan.
    "AutoReset": "JAX",
    "VmapWrapper": "JAX",
    "RecordTrajectory": "JAX",
}

# Notes on a shell, shown beside its link in the table.
SHELL_NOTES = {
    ("functional", "TimeLimit"): "below AutoReset",
    ("functional", "RecordTrajectory"): "with write_report",
}

NAMESPACES = (
    ("single", "anywrap"),
    ("vector", "anywrap.vector"),
    ("functional", "anywrap.functional"),
)


def first_line(obj: Any) -> str:
    """The first sentence line of ``obj``'s docstring (empty if it has none)."""
    doc = inspect.getdoc(obj) or ""
    lines: list[str] = []
    for line in doc.strip().splitlines():
        if not line.strip():
            break
        lines.append(line.strip())
    return " ".join(lines)


def public_names(module_name: str) -> list[str]:
    """``module.__all__``, in its order."""
    return list(importlib.import_module(module_name).__all__)


def wrapper_shells() -> dict[str, dict[str, Any]]:
    """``{name: {"single": cls, "vector": cls, "functional": cls}}`` for every public wrapper."""
    import gymnasium as gym

    found: dict[str, dict[str, Any]] = {}
    for shell, module_name in NAMESPACES:
        module = importlib.import_module(module_name)
        if shell == "functional":
            base: Any = module.Wrapper
            kinds: tuple[type, ...] = (module.Wrapper,)
        elif shell == "vector":
            base = None
            kinds = (gym.vector.VectorWrapper,)
        else:
            base = None
            kinds = (gym.Wrapper,)
        for name in module.__all__:
            obj = getattr(module, name)
            if isinstance(obj, type) and issubclass(obj, kinds) and obj is not base:
                found.setdefault(name, {})[shell] = obj
    return found


class WrapperTable(SphinxDirective):
    """``.. anywrap-wrapper-table::``: every wrapper, its shells and where it runs."""

    has_content = False

    def run(self) -> list[nodes.Node]:
        shells = wrapper_shells()
        missing = sorted(set(shells) - set(RUNS_ON))
        stale = sorted(set(RUNS_ON) - set(shells))
        if missing:
            logger.warning(
                "anywrap-wrapper-table: no RUNS_ON row in docs/_ext/anywrap_docs.py for %s",
                ", ".join(missing),
                location=self.get_location(),
            )
        if stale:
            logger.warning(
                "anywrap-wrapper-table: RUNS_ON names wrappers that are not public: %s",
                ", ".join(stale),
                location=self.get_location(),
            )
        lines = [
            ".. list-table::",
            "   :header-rows: 1",
            "   :widths: 22 44 18 16",
            "   :class: anywrap-wrapper-table",
            "",
            "   * - Wrapper",
            "     - What it does",
            "     - Shells",
            "     - Runs on (stateful shells)",
        ]
        for name in sorted(shells, key=_table_order):
            by_shell = shells[name]
            obj = by_shell.get("single") or by_shell.get("vector") or by_shell.get("functional")
            links = []
            for shell, module_name in NAMESPACES:
                if shell in by_shell:
                    note = SHELL_NOTES.get((shell, name))
                    label = f"{shell} ({note})" if note else shell
                    links.append(f":py:class:`{label} <{module_name}.{name}>`")
            runs_on = RUNS_ON.get(name, "?")
            if set(by_shell) == {"functional"}:
                runs_on = "JAX (functional only)"
            lines += [
                f"   * - ``{name}``",
                f"     - {first_line(obj) or '(no docstring)'}",
                f"     - {', '.join(links)}",
                f"     - {runs_on}",
            ]
        return self.parse_text_to_nodes("\n".join(lines))


# The table's order: CleanRL's stack first, then Gymnasium's other array
# wrappers, images, conversion, recording, functional-only.
ORDER = [
    "RecordEpisodeStatistics",
    "ClipAction",
    "NormalizeObservation",
    "TransformObservation",
    "NormalizeReward",
    "TransformReward",
    "TransformAction",
    "ClipReward",
    "RescaleAction",
    "RescaleObservation",
    "DtypeObservation",
    "FlattenObservation",
    "ReshapeObservation",
    "TimeLimit",
    "TimeAwareObservation",
    "DelayObservation",
    "StickyAction",
    "GrayscaleObservation",
    "ResizeObservation",
    "FrameStackObservation",
    "MaxAndSkipObservation",
    "AddRenderObservation",
    "AddWhiteNoise",
    "AtariPreprocessing",
    "Autoreset",
    "DictInfoToList",
    "DiscretizeAction",
    "DiscretizeObservation",
    "FilterObservation",
    "HumanRendering",
    "ObstructView",
    "OrderEnforcing",
    "PassiveEnvChecker",
    "RenderCollection",
    "RepeatAction",
    "VectorizeTransformAction",
    "VectorizeTransformObservation",
    "VectorizeTransformReward",
    "ArrayConversion",
    "ToNumpy",
    "ToJax",
    "ToTorch",
    "ToTensorFlow",
    "JaxToNumpy",
    "JaxToTorch",
    "NumpyToTorch",
    "RecordHTML",
    "RecordVideo",
    "RecordTrajectory",
    "AutoReset",
    "VmapWrapper",
]


def _table_order(name: str) -> tuple[int, str]:
    return (ORDER.index(name) if name in ORDER else len(ORDER), name)


class PublicAPI(SphinxDirective):
    """``.. anywrap-api:: MODULE``: an autodoc entry for each public name of ``MODULE``."""

    required_arguments = 1
    option_spec = {
        "only": directives.unchanged,
        "members": directives.unchanged,
        "same-as": directives.unchanged,
    }

    def run(self) -> list[nodes.Node]:
        module_name = self.arguments[0]
        module = importlib.import_module(module_name)
        public = list(module.__all__)
        done = self.env.temp_data.setdefault("anywrap-api-done", {}).setdefault(
            (self.env.docname, module_name), set()
        )
        if "only" in self.options:
            names = self.options["only"].split()
            unknown = [n for n in names if n not in public]
            if unknown:
                logger.warning(
                    "anywrap-api: not in %s.__all__: %s",
                    module_name,
                    ", ".join(unknown),
                    location=self.get_location(),
                )
            names = [n for n in names if n in public]
        else:
            names = [n for n in public if n not in done]
        members = set((self.options.get("members") or "").split())
        lines: list[str] = []
        for name in names:
            done.add(name)
            obj = getattr(module, name)
            full = f"{module_name}.{name}"
            same = self.options.get("same-as")
            if same and getattr(importlib.import_module(same), name, None) is obj:
                lines += [
                    f".. py:data:: {name}",
                    f"   :module: {module_name}",
                    "",
                    f"   The same object as :py:obj:`{same}.{name}`.",
                    "",
                ]
            elif inspect.ismodule(obj):
                page = DOCS / "api" / f"{obj.__name__.removeprefix('anywrap.')}.rst"
                if page.exists():
                    lines += [  # the module's own page holds its entry (``module-...``)
                        f".. py:data:: {name}",
                        f"   :module: {module_name}",
                        "   :no-index:",
                        "",
                        f"   The module :doc:`{obj.__name__} </api/{page.stem}>`:"
                        f" {first_line(obj)}",
                        "",
                    ]
                else:
                    lines += [f".. automodule:: {obj.__name__}", "   :members:", ""]
            elif isinstance(obj, type):
                lines += [f".. autoclass:: {full}"]
                if name in members:
                    lines += ["   :members:"]
                lines += [""]
            elif callable(obj):
                lines += [f".. autofunction:: {full}", ""]
            else:
                lines += [f".. autodata:: {full}", "   :no-value:", ""]
        if not lines:
            return []
        content = StringList(lines, source=f"<anywrap-api {module_name}>")
        node = nodes.container()
        self.state.nested_parse(content, self.content_offset, node)
        return node.children


# --- docstrings that docutils cannot read as written ---------------------------

# A docstring bug reported to src/'s owner, mended here until it is fixed
# there: name -> (pattern, replacement, what is wrong). When a fix finds
# nothing to mend, the build warns, so the entry goes with the bug.
DOCSTRING_FIXES: dict[str, tuple[str, str, str]] = {}


def mend_docstring(app: Sphinx, what: str, name: str, obj: Any, options: Any, lines: list) -> None:
    fix = DOCSTRING_FIXES.get(name)
    if fix is None:
        return
    pattern, replacement, _why = fix
    text = "\n".join(lines)
    mended = re.sub(pattern, replacement, text)
    if mended == text:
        logger.warning(
            "anywrap: %s's docstring needs no mending now: remove it from DOCSTRING_FIXES", name
        )
        return
    lines[:] = mended.split("\n")


# --- math as MathML -----------------------------------------------------------


def _mathml(latex: str, display: str) -> str:
    from latex2mathml.converter import convert

    return convert(latex.strip(), display=display)


def visit_math_html(self: Any, node: nodes.Element) -> None:
    self.body.append(f'<span class="math">{_mathml(node.astext(), "inline")}</span>')
    raise nodes.SkipNode


def visit_math_block_html(self: Any, node: nodes.Element) -> None:
    self.body.append(f'<div class="math">{_mathml(node.astext(), "block")}</div>')
    raise nodes.SkipNode


# --- the RecordHTML example ------------------------------------------------------


def write_record_html_example(app: Sphinx) -> None:
    """Run ``recipes/record_html.py`` into a folder copied into the site as ``examples/``."""
    if app.builder.format != "html":
        return
    recipe = DOCS / "recipes" / "record_html.py"
    extra = Path(app.doctreedir) / "anywrap-extra"
    target = extra / "examples"
    stamp = target / ".recipe-mtime"
    fresh = stamp.exists() and stamp.read_text() == str(recipe.stat().st_mtime_ns)
    if not fresh:
        shutil.rmtree(target, ignore_errors=True)
        target.mkdir(parents=True)
        spec = importlib.util.spec_from_file_location("anywrap_recipe_record_html", recipe)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        printed = io.StringIO()
        with contextlib.redirect_stdout(printed):
            paths = module.record(target)
        logger.info(
            "anywrap: RecordHTML example %s: %s",
            ", ".join(p.name for p in paths),
            printed.getvalue().strip(),
        )
        stamp.write_text(str(recipe.stat().st_mtime_ns))
    app.config.html_extra_path = [*app.config.html_extra_path, str(extra)]


def setup(app: Sphinx) -> dict[str, Any]:
    app.add_directive("anywrap-api", PublicAPI)
    app.add_directive("anywrap-wrapper-table", WrapperTable)
    app.add_html_math_renderer(
        "mathml",
        inline_renderers=(visit_math_html, None),
        block_renderers=(visit_math_block_html, None),
    )
    app.connect("builder-inited", write_record_html_example)
    app.connect("autodoc-process-docstring", mend_docstring)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
