"""The read-only views of a wrapper's state (``wrappers.common.state_field``): each reads
the state's field as the wrapper holds it now, beside Gymnasium's own attribute where
Gymnasium has one, and a closed form where it does not."""

from __future__ import annotations

import gymnasium as gym
import numpy as np

import anywrap


def test_time_aware_timesteps_count_as_gymnasiums_on_the_host():
    ours = anywrap.TimeAwareObservation(gym.make("CartPole-v1"))
    theirs = gym.wrappers.TimeAwareObservation(gym.make("CartPole-v1"))
    ours.reset(seed=3), theirs.reset(seed=3)
    for _ in range(4):
        assert type(ours.timesteps) is int and ours.timesteps == theirs.timesteps
        ours.step(0), theirs.step(0)
    assert ours.timesteps == theirs.timesteps == 4
    assert isinstance(type(ours).__dict__["timesteps"], property)  # read-only
    assert type(ours).timesteps.__doc__


def test_vector_views_follow_the_state_each_step():
    envs = gym.make_vec("CartPole-v1", num_envs=3, vectorization_mode="sync")
    aware = anywrap.vector.TimeAwareObservation(envs)
    limited = anywrap.vector.TimeLimit(aware, max_episode_steps=50)
    limited.reset(seed=0)
    for k in range(1, 4):  # no CartPole episode ends in 3 steps
        limited.step(np.ones(3, dtype=np.int64))
        np.testing.assert_array_equal(limited.elapsed_steps, [k, k, k])
        np.testing.assert_array_equal(aware.timesteps, [k, k, k])


def test_vector_prev_dones_is_gymnasiums():
    ours = anywrap.vector.RecordEpisodeStatistics(
        gym.make_vec("CartPole-v1", num_envs=3, vectorization_mode="sync")
    )
    theirs = gym.wrappers.vector.RecordEpisodeStatistics(
        gym.make_vec("CartPole-v1", num_envs=3, vectorization_mode="sync")
    )
    ours.reset(seed=1), theirs.reset(seed=1)
    seen_done = False
    for _ in range(30):
        ours.step(np.ones(3, dtype=np.int64)), theirs.step(np.ones(3, dtype=np.int64))
        np.testing.assert_array_equal(ours.prev_dones, theirs.prev_dones)
        np.testing.assert_array_equal(ours.episode_returns, theirs.episode_returns)
        seen_done |= bool(np.any(theirs.prev_dones))
    assert seen_done  # the comparison went through an episode end
