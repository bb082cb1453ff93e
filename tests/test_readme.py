"""The README's Python examples run as written."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

README = Path(__file__).resolve().parent.parent / "README.md"


def python_blocks() -> list[str]:
    return re.findall(r"```python\n(.*?)```", README.read_text(), flags=re.S)


def programs() -> list[str]:
    """The complete programs; the other blocks are fragments over the reader's
    own objects (an env, a mesh, an array type), whose calls the suite tests."""
    return [b for b in python_blocks() if b.lstrip().startswith(("import", "from"))]


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
