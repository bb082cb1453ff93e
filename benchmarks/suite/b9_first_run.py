"""B9: what a PyTorch user waits for, compile included: whole scripts in fresh
processes, with a fresh TorchInductor cache, compiling (``ANYWRAP_TORCH_COMPILE=1``,
the CPU included) against not.

Three scripts, each run in a new Python process (imports included in its time),
once with ``ANYWRAP_TORCH_COMPILE=1`` and once with ``0``, in alternation
(``--reps`` pairs; quick: one pair of the first two), each with an empty
``TORCHINDUCTOR_CACHE_DIR``:

* ``short``: ``ToTorch`` over 8 Gymnasium ``Pendulum-v1`` in a ``SyncVectorEnv``
  and the CleanRL vector stack, a reset and 300 steps (a debugging run, an
  evaluation, a doctest);
* ``4096``: a pure-torch batched Pendulum of 4096 envs and the same stack, 1500
  steps (one short training iteration);
* ``third``: in one process, 1500 steps at 1024 and 2048 envs, then the timed
  first 1500 steps of a third stack at 512 envs (a new batch size in a running
  process); the figure is that last part's time.

The figure of a run is its wall time; a row's ratio is the median over the
pairs of (compile on) / (compile off).
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from typing import Any

from benchmarks.suite.common import Context, result, verdict

__all__ = ["SCRIPT", "bench_b9", "run_script"]

SCRIPT = r"""
import json, sys, time
start = time.perf_counter()
import warnings
warnings.simplefilter("ignore")
import gymnasium as gym
import torch
import anywrap
from anywrap.demo import cleanrl_stack, torch_pendulum_vector_env

case = sys.argv[1]


def run(envs, steps):
    envs = cleanrl_stack(envs, anywrap.vector, torch.clamp)
    envs.reset(seed=0)
    action = torch.zeros((envs.num_envs, 1))
    for _ in range(steps):
        envs.step(action)


if case == "short":
    run(anywrap.vector.ToTorch(gym.make_vec("Pendulum-v1", 8, vectorization_mode="sync")), 300)
    timed = time.perf_counter() - start
elif case == "4096":
    run(torch_pendulum_vector_env(4096), 1500)
    timed = time.perf_counter() - start
else:
    run(torch_pendulum_vector_env(1024), 1500)
    run(torch_pendulum_vector_env(2048), 1500)
    third = time.perf_counter()
    run(torch_pendulum_vector_env(512), 1500)
    timed = time.perf_counter() - third
log = anywrap.xp.compile_log()
print(json.dumps({
    "seconds": timed,
    "compiled": sum(r.compiled for r in log),
    "compile_seconds": sum(r.seconds for r in log),
    "sources": sorted({r.source for r in log if r.compiled}),
}))
"""
"""The script each process runs (its argument names the case)."""

CASES = {
    "short": "ToTorch(8 Gymnasium Pendulums) + CleanRL stack, reset + 300 steps",
    "4096": "torch Pendulum x4096 + CleanRL stack, 1500 steps",
    "third": "a third batch size (512) after 1024 and 2048: its first 1500 steps",
}
TARGETS = {"short": 1.2, "4096": 1.0, "third": 1.2}
"""Compile on / compile off at most (the compile issue's targets)."""


def run_script(case: str, compile_on: bool, timeout: float = 600.0) -> dict[str, Any]:
    """Run :data:`SCRIPT` for ``case`` in a fresh process with a fresh TorchInductor
    cache; its report (``seconds``: wall time of the whole script, or of the third
    stack), with ``wall``, the process's own wall time."""
    with tempfile.TemporaryDirectory(prefix="anywrap-b9-") as cache:
        env = {
            **os.environ,
            "ANYWRAP_TORCH_COMPILE": "1" if compile_on else "0",
            "TORCHINDUCTOR_CACHE_DIR": cache,
            "SDL_VIDEODRIVER": "dummy",
        }
        start = time.perf_counter()
        proc = subprocess.run(
            [sys.executable, "-c", SCRIPT, case],
            env=env,
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )
        wall = time.perf_counter() - start
    if proc.returncode != 0:
        raise RuntimeError(f"B9 {case}: the script failed: {proc.stderr.strip()[-400:]}")
    report: dict[str, Any] = json.loads(proc.stdout.strip().splitlines()[-1])
    report["wall"] = wall
    if case != "third":
        report["seconds"] = wall  # the user's wait: the whole process, imports included
    return report


def bench_b9(ctx: Context) -> dict[str, Any]:
    """B9: first runs in fresh processes, compile on against off (see the module)."""
    title = "PyTorch first runs, compile included: fresh processes, fresh TorchInductor cache"
    try:
        import torch  # noqa: F401
    except ImportError as e:
        return result("B9", title, status="not available", reason=f"PyTorch: {e}")
    cases = ["short", "4096"] if ctx.settings.quick else list(CASES)
    pairs = 1 if ctx.settings.quick else max(2, min(ctx.settings.reps, 3))
    runs: dict[tuple[str, bool], list[dict[str, Any]]] = {}
    with ctx.progress("B9", 2 * pairs * len(cases)) as tick:
        for _ in range(pairs):
            for case in cases:
                for compile_on in (True, False):  # alternated: a slow stretch hits both
                    runs.setdefault((case, compile_on), []).append(run_script(case, compile_on))
                    tick()
    rows, verdicts, summary = [], [], {}
    for case in cases:
        on, off = runs[(case, True)], runs[(case, False)]
        ratio = statistics.median(a["seconds"] / b["seconds"] for a, b in zip(on, off))
        summary[case] = ratio
        for label, reports, pair_ratio in (
            ("compile on (ANYWRAP_TORCH_COMPILE=1)", on, ratio),
            ("compile off", off, 1.0),
        ):
            seconds = statistics.median(r["seconds"] for r in reports)
            compiled = reports[0]["compiled"]
            rows.append(
                {
                    "label": f"{case}: {label}",
                    "case": f"{case}:{label}",
                    "seconds": seconds,
                    "ratio": pair_ratio,  # the verdict's statistic: median of pair ratios
                    "ratio_to": "compile off",
                    "extra": f"{compiled} program(s) compiled"
                    + (f", {reports[0]['compile_seconds']:.1f} s" if compiled else ""),
                }
            )
        verdicts.append(
            verdict(f"{case}: compile on / off", ratio, TARGETS[case], CASES[case] + ", first run")
        )
    return result(
        "B9",
        title,
        params={"pairs": pairs, "cases": cases},
        rows=rows,
        summary=summary,
        verdicts=verdicts,
        notes=[
            "times are whole scripts, in seconds (the process, imports included; for "
            "'third', the third stack's 1500 steps)",
            "each run in a new process with an empty TORCHINDUCTOR_CACHE_DIR; on and off "
            "alternated; ratio = median over pairs of on / off",
        ],
    )
