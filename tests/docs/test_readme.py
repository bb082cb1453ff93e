"""The README's Python examples run as written."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[2] / "README.md"


BLOCK = re.compile(r"^( *)(<!-- fragment[^>]*-->\n *)?```python\n(.*?)```", flags=re.S | re.M)


def python_blocks() -> list[tuple[bool, str]]:
    """``(is_fragment, code)`` of every Python block of the README."""
    return [(bool(m.group(2)), m.group(3)) for m in BLOCK.finditer(README.read_text())]


def programs() -> list[str]:
    """The blocks that run as written. The others are marked ``<!-- fragment ... -->``:
    they name the reader's own objects (an env, a mesh, an array type), and the
    suite tests their calls elsewhere."""
    return [code for fragment, code in python_blocks() if not fragment]


def test_every_block_is_a_program_or_marked_as_a_fragment():
    fragments = [code for fragment, code in python_blocks() if fragment]
    assert fragments, "the marker is searched for: at least one block carries it"
    for code in programs():  # an unmarked block must be a whole program
        assert code.lstrip().startswith(("import", "from")), code[:80]


def test_readme_has_the_examples():
    blocks = programs()
    assert len(blocks) >= 2
    assert any("anywrap.vector.NormalizeObservation" in b for b in blocks)
    assert any("jax.lax.scan" in b for b in blocks)


@pytest.mark.parametrize("index", range(len(programs())))
def test_readme_program_runs(index, tmp_path, monkeypatch):
    block = programs()[index]
    if "jax" in block or "gymnax" in block:
        pytest.importorskip("jax")
        pytest.importorskip("gymnax")
    monkeypatch.chdir(tmp_path)
    exec(compile(block, f"README block {index}", "exec"), {"__name__": "readme"})
