"""Every code block of the docs runs, and prints what the page says it prints."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))  # blocks.py, site_build.py
from blocks import ROOT, RUNNER, SHELL, SHOWN, blocks, check_command, pages, shell_lines

PAGES = pages()


def _id(page: Path) -> str:
    return str(page.relative_to(ROOT / "docs"))


@pytest.mark.parametrize(
    "page", [p for p in PAGES if any(b.lang == "python" for b in blocks(p))], ids=_id
)
def test_python_blocks_run_and_print_what_the_page_says(page, tmp_path):
    """The page's blocks in order, in a process of its own, in an empty folder."""
    done = subprocess.run(
        [sys.executable, str(RUNNER), str(page)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-6000:]


# Directives that show code: the code must then be in a language the tests run.
CODE_DIRECTIVES = {"code-block", "code", "sourcecode", "code-cell"}


def test_every_block_is_run_or_checked():
    """No code block in a language the tests neither run nor check."""
    known = {"python", *SHELL, *SHOWN}
    strays = [
        f"{b.where} ({b.lang or 'no language'})"
        for p in PAGES
        for b in blocks(p)
        if (b.lang in CODE_DIRECTIVES or not b.directive) and b.lang not in known
    ]
    assert not strays, strays
    fragments = [b.where for p in PAGES for b in blocks(p) if b.fragment]
    assert not fragments, f"every block of the site runs: no fragments ({fragments})"


@pytest.mark.parametrize(
    "page", [p for p in PAGES if any(b.lang in SHELL for b in blocks(p))], ids=_id
)
def test_shell_blocks_hold_checked_commands(page):
    for block in blocks(page):
        if block.lang in SHELL:
            lines = shell_lines(block)
            for line in lines:
                check_command(line, block.where)
            if block.output is not None:  # test_recipes.py checks what a recipe prints
                assert len(lines) == 1 and lines[0].startswith("python docs/recipes/"), (
                    f"{block.where}: an output shown after a command no test runs"
                )
