"""The ``anywrap`` command line, run as ``python -m anywrap.cli``."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

SRC = str(Path(__file__).resolve().parents[1] / "src")


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "anywrap.cli", *args],
        env={**os.environ, "PYTHONPATH": SRC},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_help() -> None:
    proc = _cli("--help")
    assert proc.returncode == 0, proc.stderr
    assert "usage: anywrap" in proc.stdout
    assert "bench" in proc.stdout and "demo" in proc.stdout


def test_bench_help() -> None:
    proc = _cli("bench", "--help")
    assert proc.returncode == 0, proc.stderr
    for option in ("--quick", "--device", "--only", "--json", "--plot", "--reps"):
        assert option in proc.stdout
    assert "B8" in proc.stdout


def test_no_command_prints_help() -> None:
    proc = _cli()
    assert proc.returncode == 0
    assert "usage: anywrap" in proc.stdout


def test_bad_only_is_a_clear_error() -> None:
    proc = _cli("bench", "--only", "B1,B42")
    assert proc.returncode == 2
    assert "unknown benchmark id(s) ['B42']" in proc.stderr


def test_bad_reps_is_rejected() -> None:
    proc = _cli("bench", "--reps", "0")
    assert proc.returncode == 2
    assert "--reps" in proc.stderr


def test_importing_the_cli_imports_neither_jax_nor_torch() -> None:
    code = (
        "import sys, anywrap.cli, anywrap.bench;"
        "print(sorted(m for m in ('jax', 'torch', 'torchrl', 'matplotlib') if m in sys.modules))"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code],
        env={**os.environ, "PYTHONPATH": SRC},
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    assert proc.stdout.strip() == "[]"


def test_demo_runs_both_backends_and_prints_the_table() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "anywrap.cli", "demo", "--num-envs", "8", "--steps", "210"],
        env={**os.environ, "PYTHONPATH": SRC},
        capture_output=True,
        text=True,
        timeout=600,  # JAX compiles phys2d's step on the first call
        check=False,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    lines = proc.stdout.splitlines()
    jax_row = next(line for line in lines if line.startswith("phys2d/Pendulum-v0 (JAX)"))
    torch_row = next(line for line in lines if line.startswith("Pendulum (PyTorch"))
    assert " jax " in jax_row and " torch " in torch_row
    # 210 steps of 200-step episodes: each of the 8 envs finished one.
    assert int(jax_row.split()[-4]) >= 8 and int(torch_row.split()[-4]) == 8
    assert "mean return" in proc.stdout and "steps/s" in proc.stdout
