"""Every recipe in docs/recipes/ runs, is shown on a page, and prints what the page says."""

from __future__ import annotations

import doctest
import os
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))  # blocks.py, site_build.py
from blocks import DOCS, ROOT, SHELL, blocks, pages

RECIPES = sorted((DOCS / "recipes").glob("*.py"))
FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE


def _runs(script: Path):
    """The shell blocks of the docs that run ``script``, with the output they show."""
    command = f"python {script.relative_to(ROOT)}"
    return [
        b
        for page in pages()
        for b in blocks(page)
        if b.lang in SHELL and command in [line.strip() for line in b.code.splitlines()]
    ]


def _shown(script: Path) -> bool:
    return any(
        b.lang == "literalinclude" and (b.page.parent / b.argument).resolve() == script
        for page in pages()
        for b in blocks(page)
    )


def test_every_literalinclude_names_a_file():
    for page in pages():
        for b in blocks(page):
            if b.lang == "literalinclude":
                assert (b.page.parent / b.argument).is_file(), f"{b.where}: {b.argument}"


@pytest.mark.parametrize("script", RECIPES, ids=lambda p: p.name)
def test_recipe_runs_and_prints_what_its_page_says(script, tmp_path):
    runs = _runs(script)
    assert runs, f"no page shows how to run {script.name}"
    assert _shown(script), f"no page shows {script.name} ({{literalinclude}})"
    env = {**os.environ, "JAX_PLATFORMS": "cpu"}
    done = subprocess.run(
        [sys.executable, str(script)],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-6000:]
    checker = doctest.OutputChecker()
    for block in runs:
        if block.output is not None:
            assert checker.check_output(block.output, done.stdout, FLAGS), (
                f"{script.name} prints\n{done.stdout}\nwhere {block.where} says\n{block.output}"
            )
