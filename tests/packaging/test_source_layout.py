"""The house stays at its anchors' size: no source file over 500 lines, and the
``Shell`` base class that every wrapper reads through at most 200 (issue 32)."""

from __future__ import annotations

import ast
from pathlib import Path

SRC = Path(__file__).resolve().parents[2] / "src" / "anywrap"


def test_no_source_file_is_over_500_lines():
    long = {
        str(p.relative_to(SRC)): n
        for p in sorted(SRC.rglob("*.py"))
        if (n := len(p.read_text(encoding="utf-8").splitlines())) > 500
    }
    assert not long, long


def test_the_shell_base_class_is_at_most_200_lines():
    tree = ast.parse((SRC / "shell" / "base.py").read_text(encoding="utf-8"))
    (shell,) = [n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "Shell"]
    assert shell.end_lineno is not None
    assert shell.end_lineno - shell.lineno + 1 <= 200
