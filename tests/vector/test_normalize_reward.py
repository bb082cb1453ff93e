"""anywrap.vector.NormalizeReward beyond the contract suite: masked resets."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
from gymnasium.vector import AutoresetMode

import anywrap


def make_vec(env_id: str, n: int, mode: AutoresetMode = AutoresetMode.NEXT_STEP):
    return gym.make_vec(
        env_id, num_envs=n, vectorization_mode="sync", vector_kwargs={"autoreset_mode": mode}
    )


def test_partial_reset_zeroes_only_the_reset_returns():
    envs = anywrap.vector.NormalizeReward(make_vec("CartPole-v1", 3, AutoresetMode.DISABLED))
    envs.reset(seed=0)
    for _ in range(3):
        envs.step(np.ones(3, dtype=np.int64))
    before = np.array(envs.accumulated_reward)
    mask = np.array([True, False, False])
    envs.reset(options={"reset_mask": mask})
    after = envs.accumulated_reward
    assert after[0] == 0
    np.testing.assert_array_equal(after[1:], before[1:])
    assert (before[1:] > 0).all()
