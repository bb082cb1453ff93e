"""B1: one NumPy env (Pendulum-v1), the time each CleanRL stack adds per step."""

from __future__ import annotations

from typing import Any

from anywrap.bench.common import Context, numpy_added

__all__ = ["bench_b1"]


def bench_b1(ctx: Context) -> dict[str, Any]:
    """B1: NumPy single env, Pendulum-v1: time added per step by each stack."""
    import gymnasium as gym

    title, make = (
        "NumPy single env Pendulum-v1, CleanRL six-wrapper stack",
        lambda: gym.make("Pendulum-v1"),
    )
    return numpy_added(ctx, "B1", title, make, 1, ctx.settings.pick(2000, 500), vector=False)
