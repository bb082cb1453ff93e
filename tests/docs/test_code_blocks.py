"""Every code block of the docs runs, and prints what the page says it prints."""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
import tomllib
from blocks import ROOT, SHELL, SHOWN, Block, blocks, pages

PAGES = pages()
RUNNER = Path(__file__).resolve().with_name("run_blocks.py")


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


def _extras() -> set[str]:
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text())
    return set(pyproject["project"]["optional-dependencies"])


def _make_targets() -> set[str]:
    text = (ROOT / "Makefile").read_text()
    return set(re.findall(r"^([A-Za-z][\w-]*):", text, flags=re.M))


def check_command(command: str, where: str) -> None:
    """A shell line of the docs is one the tests check (see ``blocks.py``)."""
    words = shlex.split(command)
    if words[:2] == ["pip", "install"]:
        for spec in words[2:]:
            m = re.fullmatch(r"anywrap(?:\[([\w,-]+)\])?", spec)
            assert m, f"{where}: pip installs {spec!r}, not anywrap or one of its extras"
            missing = set((m.group(1) or "").split(",")) - {""} - _extras()
            assert not missing, f"{where}: no extra {sorted(missing)} in pyproject.toml"
    elif words[0] == "make":
        missing = set(words[1:]) - _make_targets()
        assert not missing, f"{where}: no make target {sorted(missing)}"
    elif words[0] == "python" and words[1].startswith("docs/recipes/"):
        assert (ROOT / words[1]).is_file(), f"{where}: no recipe {words[1]}"
    elif words[0] == "anywrap":
        sub = [w for w in words[1:2] if not w.startswith("-")]
        script = Path(sys.executable).with_name("anywrap")  # the console script
        cli = [str(script), *sub, "--help"]
        done = subprocess.run(cli, capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, f"{where}: {' '.join(words[:2])} --help: {done.stderr}"
    else:
        raise AssertionError(f"{where}: a shell line the tests neither run nor check: {command}")


def shell_lines(block: Block) -> list[str]:
    lines = []
    for line in block.code.splitlines():
        line = line.split(" #", 1)[0].strip()
        if line.startswith("$ "):
            line = line[2:]
        if line and not line.startswith("#"):
            lines.append(line)
    return lines


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
