"""Conversion benchmark: anywrap's JaxToTorch / JaxToNumpy against Gymnasium
1.4's wrappers of the same names, on a JAX env whose step costs nothing.

Each step returns the same pre-built JAX observation, so the time measured is
the wrappers' own: converting the observation, reward, flags and info, and the
action back to JAX (``torch.tensor(1)`` and ``np.int64(1)``, as a discrete
policy would give). Runs are interleaved A/B (the order alternates from one
repetition to the next) and the median of ``reps`` timed runs is kept after a
warm-up, so that load from other processes hits both sides alike.

Conversion is zero-copy, so a step should cost the same for a 4 KB and a
64 MB observation: ``size_independent`` checks that anywrap's times for the
smallest and the largest size are within 3x of each other.

Example (tiny sizes and few steps, to show the result's layout):
    >>> from benchmarks.suite.convert_bench import run
    >>> res = run(sizes={"4KB": 4096, "1MB": 1 << 20}, reps=1, steps=3)
    >>> sorted(res["4KB"]["JaxToTorch"])
    ['anywrap_us', 'gymnasium_us', 'ratio', 'speedup']
    >>> sorted(res["size_independent"])
    ['ok', 'ratios', 'sizes', 'tolerance']
"""

from __future__ import annotations

import statistics
import time
from typing import Any

import gymnasium as gym
import numpy as np

DEFAULT_SIZES = {"4KB": 4 * 1024, "64MB": 64 * 1024 * 1024}
SIZE_TOLERANCE = 3.0
"""Largest allowed ratio between the per-step times of two observation sizes."""


class _ConstantJaxEnv(gym.Env):  # type: ignore[type-arg]
    """Returns one fixed float32 JAX observation of ``nbytes`` bytes."""

    action_space = gym.spaces.Discrete(2)

    def __init__(self, nbytes: int) -> None:
        import jax.numpy as jnp

        n = nbytes // 4
        self.observation_space = gym.spaces.Box(-np.inf, np.inf, (n,), np.float32)
        self.obs = jnp.ones((n,), dtype=jnp.float32)
        self.obs.block_until_ready()
        self.reward = jnp.float32(1.0)
        self.flag = jnp.bool_(False)

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):  # type: ignore[no-untyped-def]
        return self.obs, {}

    def step(self, action: Any):  # type: ignore[no-untyped-def]
        return self.obs, self.reward, self.flag, self.flag, {}


def _time_steps(env: gym.Env, action: Any, steps: int) -> float:  # type: ignore[type-arg]
    t0 = time.perf_counter()
    for _ in range(steps):
        env.step(action)
    return (time.perf_counter() - t0) / steps


def run(sizes: dict[str, int] | None = None, reps: int = 7, steps: int = 200) -> dict[str, Any]:
    """Time one step through each converter; returns microseconds and ratios.

    Args:
        sizes: Observation sizes in bytes, by label (default 4 KB and 64 MB).
        reps: Timed repetitions per pair (median kept; at least 5).
        steps: Steps per repetition.

    Returns:
        ``{label: {pair: {"anywrap_us", "gymnasium_us", "ratio", "speedup"}},
        "size_independent": {"ok", "tolerance", "ratios"}}``. ``ratio`` is
        anywrap's time over Gymnasium's (below 1: anywrap faster) and
        ``speedup`` its inverse. ``size_independent["ratios"]`` gives, per pair,
        anywrap's time at the largest size over its time at the smallest;
        ``ok`` is true when every one lies within ``tolerance`` (3x) either way.
    """
    import torch
    from gymnasium.wrappers import JaxToNumpy as GymJaxToNumpy
    from gymnasium.wrappers import JaxToTorch as GymJaxToTorch

    from anywrap.convert import JaxToNumpy, JaxToTorch

    reps = max(reps, 5)
    pairs = {
        "JaxToTorch": (JaxToTorch, GymJaxToTorch, torch.tensor(1)),
        "JaxToNumpy": (JaxToNumpy, GymJaxToNumpy, np.int64(1)),
    }
    sizes = sizes or DEFAULT_SIZES
    results: dict[str, Any] = {}
    for label, nbytes in sizes.items():
        base = _ConstantJaxEnv(nbytes)
        results[label] = {}
        for pair, (ours_cls, theirs_cls, action) in pairs.items():
            ours, theirs = ours_cls(base), theirs_cls(base)
            for env in (ours, theirs):
                env.reset(seed=0)
                _time_steps(env, action, max(steps // 10, 5))  # warm-up
            a_times: list[float] = []
            b_times: list[float] = []
            for rep in range(reps):
                order = ((ours, a_times), (theirs, b_times))
                for env, times in order if rep % 2 == 0 else order[::-1]:
                    times.append(_time_steps(env, action, steps))
            a, b = statistics.median(a_times), statistics.median(b_times)
            results[label][pair] = {
                "anywrap_us": a * 1e6,
                "gymnasium_us": b * 1e6,
                "ratio": a / b,
                "speedup": b / a,
            }
    by_size = sorted(sizes, key=sizes.__getitem__)
    small, large = by_size[0], by_size[-1]
    size_ratios = {
        pair: results[large][pair]["anywrap_us"] / results[small][pair]["anywrap_us"]
        for pair in pairs
    }
    results["size_independent"] = {
        "ok": all(1 / SIZE_TOLERANCE <= r <= SIZE_TOLERANCE for r in size_ratios.values()),
        "tolerance": SIZE_TOLERANCE,
        "sizes": (small, large),
        "ratios": size_ratios,
    }
    return results


if __name__ == "__main__":
    import json

    print(json.dumps(run(), indent=2))
