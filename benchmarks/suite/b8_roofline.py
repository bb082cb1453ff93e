"""B8: the roofline of a compiled ``normalize_observation`` on a 65536 x 256
float32 batch, against an elementwise copy, in GB/s: jitted on JAX, and on
PyTorch compiled by anywrap's compiled path (TorchInductor) when PyTorch is
installed."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import partial
from typing import Any

from benchmarks.suite.common import Context, result, row
from benchmarks.suite.harness import Case, Timing

__all__ = ["TARGET_FRACTION", "bench_b8"]

TARGET_FRACTION = 0.7
"""Issue 11's target: the update reaches at least 70% of copy bandwidth."""

ROWS, COLS = 65536, 256

LABELS = {
    "copy": "copy (x + 1)",
    "normalize_update": "normalize_observation (update stats)",
    "normalize_only": "normalize_observation (update=False)",
}


def _repeat(fn: Callable[[], Any], calls: int) -> Callable[[], Any]:
    def run() -> Any:
        out = None
        for _ in range(calls):
            out = fn()
        return out

    return run


def _cases(
    prefix: str,
    fns: dict[str, Callable[[], Any]],
    calls: int,
    sync: Callable[[Any], Any],
) -> list[Case]:
    return [
        Case(f"{prefix}_{name}", _repeat(fn, calls), steps=calls, sync=sync)
        for name, fn in fns.items()
    ]


def _jax_cases(ctx: Context, calls: int) -> list[Case]:
    import jax
    import jax.numpy as jnp

    from anywrap.transforms.normalize_observation import (
        init_observation_stats,
        normalize_observation,
    )

    with ctx.on_jax_device():
        x = jax.random.normal(jax.random.key(0), (ROWS, COLS), dtype=jnp.float32)
        stats = init_observation_stats((COLS,), xp=jnp, dtype=jnp.float32)
        # x + 1, not x + 0: XLA may fold x + 0 into a no-op and time nothing.
        copy = jax.jit(lambda a: a + 1.0)
        update = jax.jit(partial(normalize_observation, epsilon=1e-8, update=True))
        only = jax.jit(partial(normalize_observation, epsilon=1e-8, update=False))
    fns = {
        "copy": lambda: copy(x),
        "normalize_update": lambda: update(stats, x),
        "normalize_only": lambda: only(stats, x),
    }
    return _cases("jax", fns, calls, jax.block_until_ready)


def _torch_cases(ctx: Context, calls: int) -> list[Case]:
    import torch

    from anywrap.transforms.normalize_observation import (
        init_observation_stats,
        normalize_observation,
    )
    from anywrap.xp import jit, namespace

    dev = torch.device(ctx.torch_device or "cpu")
    gen = torch.Generator().manual_seed(0)
    x = torch.randn(ROWS, COLS, generator=gen, dtype=torch.float32).to(dev)
    stats = init_observation_stats((COLS,), xp=namespace(x), dtype=torch.float32, device=dev)
    update = jit(x, partial(normalize_observation, epsilon=1e-8, update=True))
    only = jit(x, partial(normalize_observation, epsilon=1e-8, update=False))

    def sync(_: Any) -> None:
        if dev.type == "cuda":
            torch.cuda.synchronize()

    fns = {
        "copy": lambda: torch.add(x, 1.0),  # one elementwise kernel, as XLA's
        "normalize_update": lambda: update(stats, x),
        "normalize_only": lambda: only(stats, x),
    }
    return _cases("torch", fns, calls, sync)


@contextmanager
def _compile_at_once() -> Iterator[bool]:
    """PyTorch's compiled path on, compiling a signature on its first call."""
    from anywrap import xp

    enabled, after = xp.compile_enabled(), xp.switch.compile_after_calls()
    xp.set_compile(True, after_calls=1)
    try:
        yield enabled
    finally:
        xp.set_compile(enabled, after_calls=after)


def bench_b8(ctx: Context) -> dict[str, Any]:
    """B8: roofline of compiled NormalizeObservation against an elementwise copy."""
    title = "Roofline: compiled normalize_observation on 65536x256 float32 vs copy"
    calls = ctx.settings.pick(10, 4)
    notes = [
        "GB/s = 2 x 64 MiB (read the batch once, write it once) / time; "
        "us/step is per call on the whole batch; 'env steps/s' is rows/s",
        "JAX: jax.jit; PyTorch: anywrap's compiled path (torch.compile), "
        "compiled in the untimed warm-up; the PyTorch copy is one eager kernel",
    ]
    cases = _jax_cases(ctx, calls)
    try:
        cases += _torch_cases(ctx, calls)
    except ImportError as exc:
        notes.append(f"PyTorch not available: {exc!r}")
    with _compile_at_once():
        t = ctx.time("B8", cases)
    nbytes = ROWS * COLS * 4
    rows, summary, verdicts = [], {}, []
    for lib in ("jax", "torch"):
        copy_t = t.get(f"{lib}_copy")
        if copy_t is None:
            continue
        gbs: dict[str, float] = {}
        for name, label in LABELS.items():
            timing = t[f"{lib}_{name}"]
            r = row(f"{lib}: {label}", timing, num_envs=ROWS, ref=copy_t, ref_label="copy")
            if isinstance(timing, Timing):
                gbs[name] = 2 * nbytes / timing.median / 1e9
                r["gb_per_s"] = gbs[name]
                r["extra"] = f"{gbs[name]:.1f} GB/s"
                summary[f"{lib}_{name}_gb_per_s"] = gbs[name]
            rows.append(r)
        for name in ("normalize_update", "normalize_only"):
            if name in gbs and "copy" in gbs:
                frac = gbs[name] / gbs["copy"]
                summary[f"{lib}_{name}_fraction_of_copy"] = frac
                text = f"{lib}: {LABELS[name]} reaches {frac:.0%} of copy bandwidth"
                if name == "normalize_update":
                    met = "MET" if frac >= TARGET_FRACTION else "MISSED"
                    text += f" (target >= {TARGET_FRACTION:.0%}): {met}"
                verdicts.append(text)
    return result(
        "B8",
        title,
        params=ctx.params(
            ctx.jax_device,
            torch_device=str(ctx.torch_device),
            shape=[ROWS, COLS],
            dtype="float32",
            calls_per_block=calls,
        ),
        rows=rows,
        summary=summary,
        verdicts=verdicts,
        notes=notes,
    )
