"""The README: short, with install lines, examples that print what it says, live links.

(``tests/docs/test_readme.py`` runs its examples too; this checks what they print.)
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # blocks.py, site_build.py
from blocks import ROOT, RUNNER, SHELL, blocks, check_command, shell_lines

README = ROOT / "README.md"


def test_is_short_and_says_how_to_install():
    lines = README.read_text().splitlines()
    assert len(lines) <= 250, len(lines)
    # anywrap is not published yet: from a checkout (issue 34: `pip install anywrap`
    # found nothing)
    assert "pip install anywrap" not in README.read_text()
    assert any(line.startswith('pip install ".[torch]"') for line in lines)
    assert any(line.startswith("pip install .") for line in lines)


def test_quick_start_is_the_two_commands():
    text = README.read_text()
    section = text[text.index("## Quick start") :]
    section = section[: section.index("\n## ", 1)]
    (block,) = [b for b in blocks(README) if b.lang in SHELL and f"\n{b.code}" in f"\n{section}"]
    assert shell_lines(block) == ["make demo", "make test"]


def test_nothing_dated():
    text = README.read_text()
    assert not re.search(r"\b20\d\d-\d\d-\d\d\b", text), "a date: it belongs in docs/performance.md"
    assert "µs" not in text, "a measured time: it belongs in docs/performance.md"


def test_examples_print_what_the_readme_says(tmp_path):
    runs = [b for b in blocks(README) if b.lang == "python" and not b.fragment]
    assert len(runs) >= 1 and all(b.output is not None for b in runs), (
        "each example shows its output"
    )
    done = subprocess.run(
        [sys.executable, str(RUNNER), str(README)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-6000:]


def test_shell_lines_are_checked_commands():
    for block in blocks(README):
        if block.lang in SHELL:
            for line in shell_lines(block):
                check_command(line, block.where)


def test_links_lead_to_files():
    for target in re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", README.read_text()):
        if "://" not in target:
            assert (ROOT / target).exists(), target


def test_wrapper_table_names_public_wrappers():
    import anywrap

    text = README.read_text()
    table = text[text.index("## Wrappers by backend") :]
    names = set()
    for row in re.findall(r"^\| ([A-Z][^|]*?) \|", table, flags=re.M):
        names |= {n.strip() for n in row.split("/")}
    assert names, "the table is there"
    assert names <= set(anywrap.__all__), sorted(names - set(anywrap.__all__))
    public = {n for n in anywrap.__all__ if n[0].isupper()}
    gymnasium_names = {"JaxToNumpy", "JaxToTorch", "NumpyToTorch"}  # Gymnasium's aliases
    assert public - gymnasium_names <= names, sorted(public - gymnasium_names - names)


def test_every_page_it_links_is_in_the_site():
    for target in re.findall(r"\]\((docs/[^)#]+\.md)", README.read_text()):
        assert Path(ROOT / target).is_file(), target
