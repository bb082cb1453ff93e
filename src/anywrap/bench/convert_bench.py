"""Conversion benchmark: anywrap's ToTorch / ToNumpy against Gymnasium 1.4's
JaxToTorch / JaxToNumpy on a JAX env whose step costs nothing.

Each step returns the same pre-built JAX observation, so the time measured is
the wrappers' own: converting the observation, reward, flags and info, and the
action back to JAX. Runs are interleaved A/B (ours, theirs, ours, ...) and the
median of ``reps`` timed runs is kept after a warm-up.

Example:
    >>> from benchmarks.convert_bench import run  # doctest: +SKIP
    >>> res = run(sizes={"4KB": 4096}, reps=5)  # doctest: +SKIP
    >>> sorted(res["4KB"]["JaxToTorch"])  # doctest: +SKIP
    ['anywrap_us', 'gymnasium_us', 'speedup']
"""

from __future__ import annotations

import statistics
import time
from typing import Any

import gymnasium as gym
import numpy as np

DEFAULT_SIZES = {"4KB": 4 * 1024, "64MB": 64 * 1024 * 1024}


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
    """Time one step through each converter; returns microseconds and speedups.

    Args:
        sizes: Observation sizes in bytes, by label (default 4 KB and 64 MB).
        reps: Timed repetitions per pair (median kept; at least 5).
        steps: Steps per repetition.

    Returns:
        ``{label: {pair: {"anywrap_us", "gymnasium_us", "speedup"}}}`` where
        ``speedup`` is Gymnasium's time over anywrap's (above 1: anywrap faster).
    """
    import torch
    from gymnasium.wrappers import JaxToNumpy as GymJaxToNumpy
    from gymnasium.wrappers import JaxToTorch as GymJaxToTorch

    from anywrap.convert import ToNumpy, ToTorch

    reps = max(reps, 5)
    pairs = {
        "JaxToTorch": (lambda e: ToTorch(e), GymJaxToTorch, torch.tensor(1)),
        "JaxToNumpy": (lambda e: ToNumpy(e), GymJaxToNumpy, np.int64(1)),
    }
    results: dict[str, Any] = {}
    for label, nbytes in (sizes or DEFAULT_SIZES).items():
        base = _ConstantJaxEnv(nbytes)
        results[label] = {}
        for pair, (ours_cls, theirs_cls, action) in pairs.items():
            ours, theirs = ours_cls(base), theirs_cls(base)
            for env in (ours, theirs):
                env.reset(seed=0)
                _time_steps(env, action, max(steps // 10, 5))  # warm-up
            a_times, b_times = [], []
            for _ in range(reps):
                a_times.append(_time_steps(ours, action, steps))
                b_times.append(_time_steps(theirs, action, steps))
            a, b = statistics.median(a_times), statistics.median(b_times)
            results[label][pair] = {
                "anywrap_us": a * 1e6,
                "gymnasium_us": b * 1e6,
                "speedup": b / a,
            }
    return results


if __name__ == "__main__":
    import json

    print(json.dumps(run(), indent=2))
