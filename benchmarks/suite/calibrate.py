"""Re-derive the machine-specific constants of the JAX backend on this machine.

Two choices in :mod:`anywrap.backends.jax` depend on the machine, and this module
measures both, so that their values rest on a measurement anyone can repeat:

* ``SMALL_HOST_COPY``: below which size a host buffer is copied into JAX
  rather than shared through DLPack (a DLPack import has a fixed cost).
* The row grouping of sums over the rows of a narrow batch
  (:func:`anywrap.backends.jax.row_group`): how many rows XLA's CPU kernel should
  sum side by side.

Run ``python -m benchmarks.suite.calibrate`` (add ``--quick`` for a short run).

Example:
    >>> from benchmarks.suite.calibrate import host_copy_crossover
    >>> res = host_copy_crossover(sizes=(1024, 1 << 20), reps=3)
    >>> sorted(res["rows"][0])
    ['bytes', 'copy_s', 'dlpack_s']
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable, Sequence
from functools import partial
from typing import Any

import numpy as np

__all__ = ["host_copy_crossover", "main", "row_group_table"]

DEFAULT_SIZES = tuple(1 << k for k in range(10, 23, 2))
"""Buffer sizes in bytes, 1 KiB to 4 MiB."""

DEFAULT_SHAPES = ((4096, 3), (1024, 3), (64, 3), (4096, 17), (65536, 256))
"""(rows, width) of the batches the benchmarks sum: B3/B4 Pendulum, a
MuJoCo-sized observation, and B8's roofline batch."""


def _median_time(fn: Callable[[], Any], reps: int, inner: int) -> float:
    samples = []
    for _ in range(reps):
        start = time.perf_counter()
        for _ in range(inner):
            fn()
        samples.append((time.perf_counter() - start) / inner)
    return statistics.median(samples)


def _ready(fn: Callable[[Any], Any], x: Any) -> Any:
    import jax

    return jax.block_until_ready(fn(x))


def _aligned(nbytes: int) -> np.ndarray:
    raw = np.zeros(nbytes + 64, dtype=np.uint8)
    off = -raw.ctypes.data % 64  # JAX shares only 64-byte aligned host buffers
    return raw[off : off + nbytes].view(np.float32)


def host_copy_crossover(sizes: Sequence[int] = DEFAULT_SIZES, reps: int = 7) -> dict[str, Any]:
    """Time a copy into JAX against a DLPack import, per buffer size.

    Returns ``{"rows": [{"bytes", "copy_s", "dlpack_s"}], "crossover_bytes"}``:
    the smallest size from which DLPack is faster (``None`` if it never is).
    """
    import jax
    import jax.numpy as jnp

    rows = []
    for nbytes in sizes:
        a = _aligned(nbytes)
        jax.block_until_ready(jnp.asarray(a))
        copy_s = _median_time(partial(_ready, jnp.asarray, a), reps, 20)
        dlpack_s = _median_time(partial(jax.dlpack.from_dlpack, a), reps, 20)
        rows.append({"bytes": nbytes, "copy_s": copy_s, "dlpack_s": dlpack_s})
    crossover = next((r["bytes"] for r in rows if r["dlpack_s"] < r["copy_s"]), None)
    return {"rows": rows, "crossover_bytes": crossover}


def row_group_table(
    shapes: Sequence[tuple[int, int]] = DEFAULT_SHAPES,
    groups: Sequence[int] = (1, 2, 4, 8, 16, 32, 64),
    reps: int = 7,
) -> dict[str, Any]:
    """Time a jitted row sum of each ``(rows, width)`` batch with each row grouping.

    Returns ``{"rows": [{"shape", "seconds": {g: s}, "best", "chosen"}]}``, where
    ``chosen`` is what :func:`anywrap.backends.jax.row_group` picks.
    """
    import jax
    import jax.numpy as jnp

    from anywrap.backends.jax import row_group

    def grouped(g: int, n: int, width: int) -> Callable[[Any], Any]:
        def f(x: Any) -> Any:
            if g == 1:
                return jnp.sum(x, axis=0)
            partial = jnp.sum(jnp.reshape(x, (n // g, g * width)), axis=0)
            return jnp.sum(jnp.reshape(partial, (g, width)), axis=0)

        return jax.jit(f)

    out = []
    for n, width in shapes:
        x = jax.random.normal(jax.random.key(0), (n, width), dtype=jnp.float32)
        seconds = {}
        for g in groups:
            if n % g or n // g < 8:
                continue
            f = grouped(g, n, width)
            jax.block_until_ready(f(x))
            seconds[g] = _median_time(partial(_ready, f, x), reps, 20)
        best = min(seconds, key=seconds.__getitem__)
        out.append(
            {"shape": (n, width), "seconds": seconds, "best": best, "chosen": row_group(n, width)}
        )
    return {"rows": out}


def main(argv: Sequence[str] | None = None) -> int:
    """Print both measurements as tables."""
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.suite.calibrate", description=__doc__
    )
    parser.add_argument("--quick", action="store_true", help="fewer sizes and repetitions")
    args = parser.parse_args(argv)
    reps = 3 if args.quick else 7
    sizes = DEFAULT_SIZES[::2] if args.quick else DEFAULT_SIZES
    copy = host_copy_crossover(sizes, reps)
    print("host -> JAX: copy vs DLPack import (median per call)")
    print(f"{'bytes':>10} {'copy us':>9} {'dlpack us':>10}")
    for r in copy["rows"]:
        print(f"{r['bytes']:>10} {r['copy_s'] * 1e6:>9.1f} {r['dlpack_s'] * 1e6:>10.1f}")
    print(f"DLPack is faster from {copy['crossover_bytes']} bytes (SMALL_HOST_COPY is 65536)\n")
    table = row_group_table(DEFAULT_SHAPES[:3] if args.quick else DEFAULT_SHAPES, reps=reps)
    print("jitted row sum, seconds per call by rows summed side by side")
    for r in table["rows"]:
        cells = ", ".join(f"g={g}: {s * 1e6:.1f} us" for g, s in r["seconds"].items())
        print(f"{r['shape']}: best g={r['best']}, row_group chooses {r['chosen']}  ({cells})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
