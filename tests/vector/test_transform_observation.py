"""anywrap.vector.TransformObservation beyond the contract suite: SAME_STEP envs."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.vector import AutoresetMode
from gymnasium.wrappers import vector as gym_vector

import anywrap


def make_vec(env_id: str, n: int, mode: AutoresetMode = AutoresetMode.NEXT_STEP):
    return gym.make_vec(
        env_id, num_envs=n, vectorization_mode="sync", vector_kwargs={"autoreset_mode": mode}
    )


def test_vector_transform_observation_accepts_same_step_and_transforms_final_obs():
    """Gymnasium's refuses SAME_STEP envs; anywrap's applies func to final_obs too."""
    with pytest.raises(ValueError):
        gym_vector.TransformObservation(
            make_vec("CartPole-v1", 3, AutoresetMode.SAME_STEP), np.negative
        )
    envs = anywrap.vector.TransformObservation(
        make_vec("CartPole-v1", 3, AutoresetMode.SAME_STEP), lambda o: o * 0 + 5
    )
    envs.reset(seed=0)
    for _ in range(100):
        obs, _, _, _, info = envs.step(np.ones(3, dtype=np.int64))
        np.testing.assert_array_equal(obs, np.full((3, 4), 5, np.float32))
        if "final_obs" in info:
            break
    else:
        pytest.fail("no episode ended")
    finals = [f for f, m in zip(info["final_obs"], info["_final_obs"]) if m]
    assert finals and all((f == 5).all() and f.shape == (4,) for f in finals)
    assert all(f is None for f, m in zip(info["final_obs"], info["_final_obs"]) if not m)
