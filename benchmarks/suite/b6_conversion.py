"""B6: array conversions against Gymnasium's JaxToTorch / JaxToNumpy (timed by
:mod:`benchmarks.suite.convert_bench`)."""

from __future__ import annotations

import inspect
from typing import Any

from benchmarks.suite.common import Context, quiet, result, with_runner

__all__ = ["bench_b6"]


@with_runner(
    "B6", "Conversions vs Gymnasium JaxToTorch / JaxToNumpy", "benchmarks.suite.convert_bench"
)
def bench_b6(ctx: Context, mod: Any, title: str) -> dict[str, Any]:
    """B6: array conversions vs Gymnasium's JaxToTorch / JaxToNumpy (convert_bench)."""
    params = inspect.signature(mod.run).parameters
    wanted = {
        "reps": ctx.settings.reps,
        "steps": ctx.settings.pick(200, 50),
        "quick": ctx.settings.quick,
        "device": ctx.settings.device,
    }
    kwargs = {k: v for k, v in wanted.items() if k in params}
    with ctx.on_jax_device(), quiet(), ctx.progress("B6", 1) as tick:
        res = mod.run(**kwargs)
        tick()
    return result(
        "B6",
        title,
        params=kwargs,
        rows=_conversion_rows(res),
        summary={"raw": res},
        notes=[
            "x ref = anywrap time / Gymnasium time (below 1: anywrap faster); "
            "figures as returned by convert_bench.run"
        ],
    )


def _short(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:.3g}"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}: {_short(v)}" for k, v in value.items()) + "}"
    return str(value)


def _conversion_rows(res: Any) -> list[dict[str, Any]]:
    """Table rows from ``{size: {pair: {"anywrap_us", "gymnasium_us", "speedup"}}}``.

    Anything shaped otherwise is shown as ``key: value`` lines.
    """
    rows: list[dict[str, Any]] = []
    for size, pairs in res.items() if isinstance(res, dict) else []:
        if not isinstance(pairs, dict):
            rows.append({"label": str(size), "extra": _short(pairs)})
            continue
        other = {}
        for pair, fig in pairs.items():
            if isinstance(fig, dict) and {"anywrap_us", "gymnasium_us"} <= fig.keys():
                ours, theirs = fig["anywrap_us"], fig["gymnasium_us"]
                rows.append(
                    {
                        "label": f"{pair} anywrap, {size}",
                        "case": f"{pair}:{size}",
                        "seconds_per_step": ours * 1e-6,
                        "env_steps_per_s": 1e6 / ours,
                        "ratio": ours / theirs,
                        "ratio_to": "gymnasium",
                        "extra": f"Gymnasium {theirs:.1f} us/step, speedup {theirs / ours:.2f}x",
                    }
                )
            else:
                other[pair] = fig
        if other:
            text = ", ".join(f"{k}={_short(v)}" for k, v in other.items())
            rows.append({"label": str(size), "extra": text})
    return rows
