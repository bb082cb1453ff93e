"""The code blocks of the docs' Markdown pages, and how each is checked.

A page's ``python`` blocks run in order in one namespace, as a reader would
type them. A ``text`` block right after a ``python`` block (nothing but blank
lines between) is what that block prints, compared as doctest compares
(``...`` matches anything, runs of whitespace are equal); after a shell
block, it is what ``python docs/recipes/NAME.py`` prints. Shell blocks
(``bash``, ``console``, ``shell``) hold only commands the tests can check:
``pip install`` lines (their extras must exist), ``make`` targets (they must
exist), recipe scripts (run by ``test_recipes.py``) and ``anywrap``
subcommands (their ``--help`` must work).
"""

from __future__ import annotations

import dataclasses
import re
import shlex
import subprocess
import sys
from pathlib import Path

import tomllib

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
RUNNER = Path(__file__).resolve().with_name("run_blocks.py")  # runs one page's blocks

FENCE = re.compile(r"^(?P<indent> *)(?P<fence>`{3,}|~{3,})(?P<info>[^\n`]*)\n", re.M)
SHELL = {"bash", "console", "shell", "sh"}
# Languages that are shown, never run: data formats and the text of outputs.
SHOWN = {"text", "toml", "json", "yaml"}
# Blocks whose output a ``text`` block right after may give: python code, and
# the shell line that runs a recipe (checked by test_recipes.py).
RUN = {"python", *SHELL}


@dataclasses.dataclass
class Block:
    page: Path
    line: int
    lang: str
    code: str
    output: str | None = None  # what the ``text`` block right after says it prints
    argument: str = ""  # a directive's argument (``{literalinclude} ../x.py``)
    directive: bool = False  # a MyST directive (``{note}``), not a code block
    fragment: bool = False  # marked ``<!-- fragment ... -->``: not run (README only)

    @property
    def where(self) -> str:
        return f"{self.page.relative_to(ROOT)}:{self.line}"


def blocks(page: Path) -> list[Block]:
    """Every fenced block of ``page``, with each python block's expected output."""
    text = page.read_text()
    found: list[tuple[int, int, Block]] = []  # (start, end, block)
    pos = 0
    while True:
        m = FENCE.search(text, pos)
        if not m:
            break
        fence, indent = m.group("fence"), len(m.group("indent"))
        close = re.compile(rf"^ {{0,{indent}}}{fence[0]}{{{len(fence)},}}[ \t]*$", re.M)
        c = close.search(text, m.end())
        if not c:
            raise ValueError(
                f"{page}: unclosed fence at line {text.count(chr(10), 0, m.start()) + 1}"
            )
        body = text[m.end() : c.start()]
        lines = [
            line[indent:] if line[:indent].strip() == "" else line for line in body.splitlines()
        ]
        info = m.group("info").strip()
        lang = info.split()[0].strip("{}") if info else ""
        argument = info.split(None, 1)[1].strip() if len(info.split(None, 1)) > 1 else ""
        line = text.count("\n", 0, m.start()) + 1
        code = "\n".join(lines) + "\n"
        before = text[pos : m.start()].rstrip()
        fragment = before.endswith("-->") and "<!-- fragment" in before[before.rfind("<!--") :]
        block = Block(
            page,
            line,
            lang,
            code,
            argument=argument,
            directive=info.startswith("{"),
            fragment=fragment,
        )
        found.append((m.start(), c.end(), block))
        pos = c.end()
    result: list[Block] = []
    for i, (start, _, block) in enumerate(found):
        if block.lang == "text" and i > 0:
            _, previous_end, previous = found[i - 1]
            runs = previous.lang in RUN and result and result[-1] is previous
            if runs and text[previous_end:start].strip() == "":
                previous.output = block.code
                continue
        result.append(block)
    return result


def pages() -> list[Path]:
    """The Markdown pages of the site (build outputs excluded)."""
    return sorted(p for p in DOCS.rglob("*.md") if "_build" not in p.parts)


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
            # anywrap, or (until it is published) the checkout: ".", ".[extras]"
            m = re.fullmatch(r"(?:anywrap|\.)(?:\[([\w,-]+)\])?", spec)
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
