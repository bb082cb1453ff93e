"""anywrap.vector.RecordEpisodeStatistics beyond the contract suite: masked resets."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
from gymnasium.vector import AutoresetMode

import anywrap


def make_vec(env_id: str, n: int, mode: AutoresetMode = AutoresetMode.NEXT_STEP):
    return gym.make_vec(
        env_id, num_envs=n, vectorization_mode="sync", vector_kwargs={"autoreset_mode": mode}
    )


def test_partial_reset_restarts_only_the_reset_episodes():
    envs = anywrap.vector.RecordEpisodeStatistics(
        make_vec("CartPole-v1", 3, AutoresetMode.DISABLED)
    )
    envs.reset(seed=0)
    for _ in range(3):
        envs.step(np.ones(3, dtype=np.int64))
    envs.reset(options={"reset_mask": np.array([False, True, False])})
    np.testing.assert_array_equal(envs.episode_lengths, [3, 0, 3])
    np.testing.assert_array_equal(envs.episode_returns, [3.0, 0.0, 3.0])
