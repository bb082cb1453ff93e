"""Gymnasium 1.4's numbers, kept for the runs on older Gymnasium releases.

:func:`record` steps CleanRL's wrapper stack, built from any module with
Gymnasium's wrapper names, over a single ``CartPole-v1`` and a ``SyncVectorEnv`` of
four ``Pendulum-v1``, with seeded random actions, resetting the single env at its
episode ends, and returns every output as arrays (the episode times, a wall
clock, are left out).

``tests/data/gymnasium_1_4_cleanrl.npz`` holds what Gymnasium 1.4's own wrappers
give (``python tests/gymnasium_reference.py`` writes it, and refuses to with
another Gymnasium). ``tests/packaging/test_gymnasium_versions.py`` checks that the file is
still Gymnasium 1.4's (where 1.4 is installed) and that anywrap gives its
numbers on every supported Gymnasium.
"""

from __future__ import annotations

import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import gymnasium as gym
import numpy as np

from anywrap.demo import cleanrl_stack

FILE = Path(__file__).parent / "data" / "gymnasium_1_4_cleanrl.npz"
STEPS = 500


def record(single: ModuleType, vector: ModuleType, steps: int = STEPS) -> dict[str, np.ndarray]:
    """The CleanRL stacks' outputs over ``steps`` steps, by output name (the stacks are
    composed by ``anywrap.demo.cleanrl_stack``, which only builds them)."""
    out: dict[str, list[Any]] = {}

    def keep(name: str, value: Any) -> None:
        out.setdefault(name, []).append(np.asarray(value, dtype=np.float64))

    env = cleanrl_stack(gym.make("CartPole-v1"), single, np.clip, clip_action=False)
    rng = np.random.default_rng(0)
    obs, _ = env.reset(seed=0)
    keep("single/reset_obs", obs)
    for _ in range(steps):
        obs, reward, terminated, truncated, info = env.step(int(rng.integers(2)))
        keep("single/obs", obs)
        keep("single/reward", reward)
        keep("single/done", bool(terminated or truncated))
        if "episode" in info:
            keep("single/episode_r", info["episode"]["r"])
            keep("single/episode_l", info["episode"]["l"])
        if terminated or truncated:
            obs, _ = env.reset()
            keep("single/reset_obs", obs)
    envs = cleanrl_stack(
        gym.make_vec("Pendulum-v1", num_envs=4, vectorization_mode="sync"), vector, np.clip
    )
    obs, _ = envs.reset(seed=0)
    keep("vector/reset_obs", obs)
    actions = np.random.default_rng(1).uniform(-3, 3, (steps, 4, 1)).astype(np.float32)
    for action in actions:
        obs, reward, terminated, truncated, info = envs.step(action)
        keep("vector/obs", obs)
        keep("vector/reward", reward)
        keep("vector/done", np.logical_or(terminated, truncated))
        if "episode" in info:
            mask = info["_episode"]
            keep("vector/episode_r", np.where(mask, info["episode"]["r"], 0.0))
            keep("vector/episode_l", np.where(mask, info["episode"]["l"], 0))
    stats = envs.env  # NormalizeReward, below TransformReward
    keep("vector/return_var", stats.return_rms.var)
    keep("vector/obs_mean", stats.env.env.obs_rms.mean)
    return {name: np.stack(values) for name, values in out.items()}


def main() -> int:
    if not gym.__version__.startswith("1.4."):
        print(f"{FILE.name} holds Gymnasium 1.4's numbers; this is {gym.__version__}")
        return 2
    FILE.parent.mkdir(exist_ok=True)
    np.savez_compressed(FILE, **record(gym.wrappers, gym.wrappers.vector))
    print(f"wrote {FILE} (Gymnasium {gym.__version__})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
