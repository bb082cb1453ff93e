"""B1: one NumPy env (Pendulum-v1), the time each CleanRL stack adds per step."""

from __future__ import annotations

from typing import Any

from benchmarks.suite.common import Context, numpy_added

__all__ = ["bench_b1"]


def bench_b1(ctx: Context) -> dict[str, Any]:
    """B1: NumPy single env, Pendulum-v1 and CartPole-v1: time added per step by each stack."""
    steps = ctx.settings.pick(2000, 500)
    title = "NumPy single env (Pendulum-v1, CartPole-v1), CleanRL stack, reset at episode ends"
    return numpy_added(ctx, "B1", title, ("Pendulum-v1", "CartPole-v1"), 1, steps, vector=False)
