"""B2: a NumPy ``SyncVectorEnv`` of 16 Pendulum-v1, the time each vector stack adds."""

from __future__ import annotations

from typing import Any

from benchmarks.suite.common import Context, numpy_added

__all__ = ["bench_b2"]


def bench_b2(ctx: Context) -> dict[str, Any]:
    """B2: NumPy SyncVectorEnv of 16 Pendulum-v1: time added per vector step."""
    steps = ctx.settings.pick(500, 150)
    title = "NumPy SyncVectorEnv x16 Pendulum-v1, CleanRL six-wrapper vector stack"
    return numpy_added(ctx, "B2", title, ("Pendulum-v1",), 16, steps, vector=True)
