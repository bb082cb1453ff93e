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


def _mypy(tmp_path: Path, code: str) -> subprocess.CompletedProcess[str]:
    pytest.importorskip("mypy")
    path = tmp_path / "user.py"
    path.write_text(textwrap.dedent(code))
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "mypy",
            "--no-incremental",
            "--ignore-missing-imports",
            "--follow-imports=silent",
            "--cache-dir",
            str(tmp_path / ".mypy"),
            str(path),
        ],
        capture_output=True,
        text=True,
        env=dict(os.environ, MYPYPATH=str(SRC)),
        cwd=tmp_path,
        timeout=600,
        check=False,
    )


def test_a_user_subclass_of_to_torch_type_checks(tmp_path: Path) -> None:
    res = _mypy(tmp_path, USER_FILE)
    assert res.returncode == 0, res.stdout + res.stderr


def test_mypy_sees_the_classes_and_their_arguments(tmp_path: Path) -> None:
    """A misspelt argument and a non-class use fail: mypy really sees the signatures."""
    res = _mypy(
        tmp_path,
        USER_FILE
        + "\nanywrap.ToTorch(gym.make('CartPole-v1'), devise='cpu')\n"
        + "x: int = anywrap.ToNumpy\n",
    )
    assert res.returncode == 1
    assert 'Unexpected keyword argument "devise"' in res.stdout, res.stdout
    assert "Incompatible types in assignment" in res.stdout, res.stdout
