"""B8: the roofline of a jitted ``normalize_observation`` on a 65536 x 256 float32
batch, against a jitted elementwise copy, in GB/s."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

from anywrap.bench.common import Context, result, row
from anywrap.bench.harness import Case, Timing

__all__ = ["bench_b8"]


def bench_b8(ctx: Context) -> dict[str, Any]:
    """B8: roofline of jitted NormalizeObservation against a jitted elementwise copy."""
    import jax
    import jax.numpy as jnp

    from anywrap.transforms.observations import init_observation_stats, normalize_observation

    title = "Roofline: jitted normalize_observation on 65536x256 float32 vs jitted copy"
    rows_, cols = 65536, 256
    calls = ctx.settings.pick(10, 4)
    with ctx.on_jax_device():
        x = jax.random.normal(jax.random.key(0), (rows_, cols), dtype=jnp.float32)
        stats = init_observation_stats((cols,), xp=jnp, dtype=jnp.float32)
        # x + 1, not x + 0: XLA may fold x + 0 into a no-op and time nothing.
        copy = jax.jit(lambda a: a + 1.0)
        norm_update = jax.jit(partial(normalize_observation, epsilon=1e-8, update=True))
        norm_only = jax.jit(partial(normalize_observation, epsilon=1e-8, update=False))

        def repeat(fn: Callable[[], Any]) -> Callable[[], Any]:
            def run() -> Any:
                out = None
                for _ in range(calls):
                    out = fn()
                return out

            return run

        cases = [
            Case("copy", repeat(lambda: copy(x)), steps=calls, sync=jax.block_until_ready),
            Case(
                "normalize_update",
                repeat(lambda: norm_update(stats, x)),
                steps=calls,
                sync=jax.block_until_ready,
            ),
            Case(
                "normalize_only",
                repeat(lambda: norm_only(stats, x)),
                steps=calls,
                sync=jax.block_until_ready,
            ),
        ]
        t = ctx.time("B8", cases)
    nbytes = rows_ * cols * 4
    labels = {
        "copy": "jitted copy (x + 1)",
        "normalize_update": "normalize_observation (update stats)",
        "normalize_only": "normalize_observation (update=False)",
    }
    copy_t = t["copy"]
    rows, summary = [], {}
    for c in cases:
        r = row(labels[c.name], t[c.name], num_envs=rows_, ref=copy_t, ref_label="copy")
        timing = t[c.name]
        if isinstance(timing, Timing):
            gbs = 2 * nbytes / timing.median / 1e9
            r["gb_per_s"] = gbs
            r["extra"] = f"{gbs:.1f} GB/s"
            summary[f"{c.name}_gb_per_s"] = gbs
        rows.append(r)
    frac = {
        k: summary.get(f"{k}_gb_per_s", 0.0) / summary["copy_gb_per_s"]
        for k in ("normalize_update", "normalize_only")
        if "copy_gb_per_s" in summary
    }
    summary.update({f"{k}_fraction_of_copy": v for k, v in frac.items()})
    verdicts = [f"{labels[k]} reaches {v:.0%} of copy bandwidth" for k, v in frac.items()]
    return result(
        "B8",
        title,
        params=ctx.params(
            ctx.jax_device, shape=[rows_, cols], dtype="float32", calls_per_block=calls
        ),
        rows=rows,
        summary=summary,
        verdicts=verdicts,
        notes=[
            "GB/s = 2 x 64 MiB (read the batch once, write it once) / time; "
            "us/step is per call on the whole batch; 'env steps/s' is rows/s"
        ],
    )
