"""The ``anywrap`` command line, run as ``python -m anywrap.cli``."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from anywrap.cli import main

SRC = str(Path(__file__).resolve().parents[1] / "src")


def _cli(*args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "anywrap.cli", *args],
        env={**os.environ, "PYTHONPATH": SRC},
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def test_help() -> None:
    proc = _cli("--help")
    assert proc.returncode == 0, proc.stderr
    assert "usage: anywrap" in proc.stdout and "{demo}" in proc.stdout
    assert "make bench" in proc.stdout  # where the benchmarks went


def test_no_command_prints_help() -> None:
    proc = _cli()
    assert proc.returncode == 0
    assert "usage: anywrap" in proc.stdout


def test_bench_is_not_a_command_of_the_installed_package() -> None:
    proc = _cli("bench", "--quick")
    assert proc.returncode == 2
    assert "invalid choice: 'bench'" in proc.stderr


def test_importing_the_cli_imports_neither_jax_nor_torch() -> None:
    code = (
        "import sys, anywrap.cli;"
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


def test_demo_runs_both_backends_and_prints_the_table(tmp_path: Path) -> None:
    # JAX compiles phys2d's step on the first call
    args = ("demo", "--num-envs", "8", "--steps", "210", "--report-dir", str(tmp_path))
    proc = _cli(*args, timeout=600)
    assert proc.returncode == 0, proc.stderr[-2000:]
    lines = proc.stdout.splitlines()
    jax_row = next(line for line in lines if line.startswith("phys2d/Pendulum-v0 (JAX)"))
    torch_row = next(line for line in lines if line.startswith("Pendulum (PyTorch"))
    assert " jax " in jax_row and " torch " in torch_row
    # 210 steps of 200-step episodes: each of the 8 envs finished one.
    assert int(jax_row.split()[-4]) >= 8 and int(torch_row.split()[-4]) == 8
    assert "mean return" in proc.stdout and "env steps/s" in proc.stdout
    assert str(tmp_path / "pendulum-episode-0.html") in proc.stdout


def test_demo_writes_html_reports_and_prints_their_paths(tmp_path: Path) -> None:
    """Pendulum-v1 with frames, swung up and held; Breakout where ale-py is installed."""
    import json
    import re

    proc = _cli("demo", "--report-only", "--report-dir", str(tmp_path), timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    printed = re.findall(r"^  (\S+\.html)  \((\d+\.\d+) MB\)$", proc.stdout, re.M)
    names = [Path(p).name for p, _ in printed]
    assert names[0] == "pendulum-episode-0.html"
    for p, mb in printed:
        assert Path(p).is_file() and abs(Path(p).stat().st_size / 1e6 - float(mb)) < 0.01
    text = Path(printed[0][0]).read_text(encoding="utf-8")
    data = json.loads(re.search(r'id="report-data">(.*?)</script>', text, re.S).group(1))
    e = data["envs"][0]
    assert data["env_id"] == "Pendulum-v1" and len(e["frames"]) == 201 and all(e["frames"])
    # The controller swings the pendulum up: it ends near the top (cos theta ~ 1).
    assert min(e["obs"][0][-20:]) > 0.99
    try:
        import ale_py  # noqa: F401
    except ImportError:
        return
    assert names[1] == "breakout-episode-0.html"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--num-envs", "0"], r"--num-envs must be at least 1, got 0"),
        (["--steps", "-3"], r"--steps must be at least 1, got -3"),
        (["--torch-device", "cuda:7"], r"--torch-device cuda:7: device 'cuda:7': .* CUDA GPU"),
        (["--torch-device", "nonsense"], r"--torch-device nonsense: 'nonsense' is not a PyTorch"),
    ],
)
def test_demo_checks_its_arguments_before_any_work(tmp_path, capsys, args, message):
    pytest.importorskip("torch")
    reports = tmp_path / "reports"
    assert main(["demo", *args, "--report-dir", str(reports)]) == 2
    err = capsys.readouterr().err
    assert re.search(rf"anywrap demo: {message}", err), err
    assert not reports.exists()  # nothing was run


def test_demo_help_describes_every_option(capsys):
    with pytest.raises(SystemExit):
        main(["demo", "--help"])
    out = capsys.readouterr().out
    for option in ("--num-envs", "--steps", "--torch-device", "--report-dir", "--no-report"):
        line = next(line for line in out.splitlines() if line.strip().startswith(option))
        assert len(line.split()) > 2 or option in ("--torch-device",), line
    assert "sub-envs in each vector env" in out and "vector steps" in out


def test_a_second_demo_replaces_its_own_reports_without_a_warning(tmp_path: Path) -> None:
    """Issue 34: a second `make demo` warned that it was overwriting the reports the
    first one wrote. Another program's reports in the folder are left as they were."""
    import warnings

    from anywrap.demo import write_reports

    other = tmp_path / "mine-episode-0.html"
    other.write_text("a user's report")
    first = write_reports(str(tmp_path), atari=False)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        second = write_reports(str(tmp_path), atari=False)
    assert first == second and all(Path(p).is_file() for p in second)
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        [other.name, *(Path(p).name for p in second)]
    )
    assert other.read_text() == "a user's report"
