"""B7: the image pipeline (not available until the image wrappers land)."""

from __future__ import annotations

from typing import Any

from anywrap.bench.common import Context, unavailable

__all__ = ["bench_b7"]


def bench_b7(ctx: Context) -> dict[str, Any]:
    """B7: image pipeline; anywrap has no image wrappers yet."""
    return unavailable("B7", "Image pipeline", "not available (no image wrappers yet)")
