"""anywrap.NormalizeObservation beyond the contract suite: wider statistics."""

from __future__ import annotations

import warnings

import gymnasium as gym
import numpy as np
import pytest

import anywrap


@pytest.mark.parametrize("stats_dtype", ["float64"])
def test_stats_dtype_widens_observation_statistics(stats_dtype):
    env = anywrap.NormalizeObservation(gym.make("Pendulum-v1"), stats_dtype=stats_dtype)
    obs, _ = env.reset(seed=0)
    assert env.obs_rms.mean.dtype == np.dtype(stats_dtype)
    assert obs.dtype == np.float32  # the space still says float32
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        env.step(env.action_space.sample())
