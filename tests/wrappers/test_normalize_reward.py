"""anywrap.NormalizeReward beyond the contract suite: Gymnasium's quirks."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
from gymnasium.vector import AutoresetMode

import anywrap


def make_vec(env_id: str, n: int, mode: AutoresetMode = AutoresetMode.NEXT_STEP):
    return gym.make_vec(
        env_id, num_envs=n, vectorization_mode="sync", vector_kwargs={"autoreset_mode": mode}
    )


def test_normalize_reward_never_resets_on_reset_quirk():
    """Gymnasium's single NormalizeReward keeps its accumulator across reset(): so do we."""
    ours = anywrap.NormalizeReward(gym.make("CartPole-v1"))
    theirs = gym.wrappers.NormalizeReward(gym.make("CartPole-v1"))
    for env in (ours, theirs):
        env.reset(seed=0)
        for _ in range(5):
            env.step(1)
        env.reset(seed=1)
    np.testing.assert_allclose(ours.discounted_reward, theirs.discounted_reward, rtol=1e-12)
    assert float(ours.discounted_reward[0]) > 1.0  # really not reset
