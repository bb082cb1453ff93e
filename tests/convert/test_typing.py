"""The conversion wrappers are classes that type checkers see: a user's file that
subclasses ``anywrap.ToTorch`` type-checks under mypy, and a wrong use does not."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[2] / "src"

USER_FILE = """
from typing import Any

import gymnasium as gym

import anywrap


class LoggedToTorch(anywrap.ToTorch):
    def step(self, action: Any) -> tuple[Any, Any, Any, Any, dict[str, Any]]:
        out = super().step(action)
        return out


env: anywrap.ToTorch = LoggedToTorch(gym.make("CartPole-v1"), device="cpu")
vector_env: anywrap.vector.ArrayConversion = anywrap.vector.ToJax(gym.make_vec("CartPole-v1", 2))
conversion: anywrap.ArrayConversion = env
"""


def test_a_user_subclass_type_checks_and_a_wrong_use_does_not(tmp_path: Path) -> None:
    """One mypy run over two user files: the subclass of ``anywrap.ToTorch`` is clean;
    a misspelt argument and a non-class use fail, so mypy really sees the signatures."""
    pytest.importorskip("mypy")
    (tmp_path / "good.py").write_text(textwrap.dedent(USER_FILE))
    bad = (
        "import gymnasium as gym\nimport anywrap\n"
        "anywrap.ToTorch(gym.make('CartPole-v1'), devise='cpu')\n"
        "x: int = anywrap.ToNumpy\n"
    )
    (tmp_path / "bad.py").write_text(bad)
    res = subprocess.run(
        [
            sys.executable,
            "-m",
            "mypy",
            "--no-incremental",
            "--ignore-missing-imports",
            "--follow-imports=silent",
            "--cache-dir",
            str(tmp_path / ".mypy"),
            "good.py",
            "bad.py",
        ],
        capture_output=True,
        text=True,
        env=dict(os.environ, MYPYPATH=str(SRC)),
        cwd=tmp_path,
        timeout=600,
        check=False,
    )
    errors = [line for line in res.stdout.splitlines() if ": error:" in line]
    assert res.returncode == 1 and errors, res.stdout + res.stderr
    assert all(line.startswith("bad.py:") for line in errors), res.stdout
    assert any('Unexpected keyword argument "devise"' in line for line in errors), res.stdout
    assert any("Incompatible types in assignment" in line for line in errors), res.stdout
