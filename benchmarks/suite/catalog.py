"""The benchmarks behind ``python -m benchmarks``: B1 to B9.

Each benchmark lives in its own module (``benchmarks.suite.bN_*``); its
``bench_bN(ctx)`` returns a result dict (see
:func:`benchmarks.suite.common.result`) and imports the libraries it needs
itself, so that a missing one only costs that benchmark. Cases are timed with
:func:`benchmarks.suite.harness.interleave`.

=====  =====================================================================
B1     NumPy, one Pendulum-v1: time the CleanRL stack adds per step,
       anywrap vs Gymnasium 1.4.
B2     NumPy ``SyncVectorEnv`` of 16 Pendulum-v1: the same comparison.
B3     JAX ``phys2d/Pendulum-v0`` vector env at several sizes: anywrap's
       vector stack vs Gymnasium's (on JAX arrays, and behind JaxToNumpy)
       vs the bare env.
B4     Jitted ``lax.scan`` rollout: anywrap.functional vs gymnax LogWrapper +
       Brax running statistics (``benchmarks.suite.functional_bench``).
B5     PyTorch batched Pendulum (pure torch): anywrap vs Gymnasium vector
       stacks, and TorchRL VecNorm + RewardSum.
B6     Array conversions vs Gymnasium's JaxToTorch / JaxToNumpy
       (``benchmarks.suite.convert_bench``).
B7     Image pipeline: grayscale, resize 84x84, stack 4 over 256 RGB envs, anywrap
       (JAX, PyTorch, NumPy) vs Gymnasium with OpenCV (``benchmarks.suite.images_bench``).
B8     Roofline: compiled NormalizeObservation (JAX, PyTorch) on a 65536 x 256 float32 batch
       vs a jitted elementwise copy, in GB/s.
B9     PyTorch first runs, compile included: whole scripts in fresh processes with a
       fresh TorchInductor cache, compile on against off.
=====  =====================================================================
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from benchmarks.suite.b1_numpy_single import bench_b1
from benchmarks.suite.b2_numpy_vector import bench_b2
from benchmarks.suite.b3_jax_vector import bench_b3
from benchmarks.suite.b4_functional import bench_b4
from benchmarks.suite.b5_torch import bench_b5
from benchmarks.suite.b6_conversion import bench_b6
from benchmarks.suite.b7_images import bench_b7
from benchmarks.suite.b8_roofline import bench_b8
from benchmarks.suite.b9_first_run import bench_b9
from benchmarks.suite.common import Context, DeviceUnavailable, Settings, result

__all__ = ["BENCHMARKS", "USES", "Context", "DeviceUnavailable", "Settings", "result"]

BENCHMARKS: dict[str, Callable[[Context], dict[str, Any]]] = {
    "B1": bench_b1,
    "B2": bench_b2,
    "B3": bench_b3,
    "B4": bench_b4,
    "B5": bench_b5,
    "B6": bench_b6,
    "B7": bench_b7,
    "B8": bench_b8,
    "B9": bench_b9,
}
"""Every benchmark, by id, in run order."""

USES: dict[str, tuple[str, ...]] = {
    "B3": ("jax",),
    "B4": ("jax",),
    "B5": ("torch",),
    "B6": ("jax",),
    "B7": ("jax",),
    "B8": ("jax", "torch"),
    "B9": ("torch",),
}
"""The libraries whose device each benchmark runs on, the one it cannot run without
first (B1 and B2 run on the host; B7 places its own arrays)."""
