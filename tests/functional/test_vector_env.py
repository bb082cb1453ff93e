"""to_vector_env: a Gymnasium VectorEnv over a batched functional env, one compiled call a step."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

jax = pytest.importorskip("jax")
pytest.importorskip("gymnax")
from functional_envs import pendulum  # noqa: E402

from anywrap import functional as F  # noqa: E402

SAME_STEP = gym.vector.AutoresetMode.SAME_STEP


def test_to_vector_env_is_a_gymnasium_vector_env():
    base = pendulum(4)
    venv = F.to_vector_env(F.NormalizeObservation(base))
    assert isinstance(venv, gym.vector.VectorEnv)
    assert venv.metadata["autoreset_mode"] == SAME_STEP
    assert venv.observation_space.shape == (4, 3) and venv.single_action_space.shape == (1,)
    obs1, _ = venv.reset(seed=7)
    a = np.zeros((4, 1), np.float32)
    steps1 = [venv.step(a) for _ in range(3)]
    obs2, _ = venv.reset(seed=7)
    steps2 = [venv.step(a) for _ in range(3)]
    np.testing.assert_array_equal(np.asarray(obs1), np.asarray(obs2))
    for s1, s2 in zip(steps1, steps2):
        np.testing.assert_array_equal(np.asarray(s1[0]), np.asarray(s2[0]))
    obs, rew, _term, _trunc, info = steps1[-1]
    assert isinstance(obs, jax.Array) and rew.shape == (4,)
    assert info["_final_obs"].shape == (4,) and not bool(info["_final_obs"].any())


def test_to_vector_env_errors():
    single = pendulum(None)
    with pytest.raises(ValueError, match="VmapWrapper"):
        F.to_vector_env(single)
    venv = F.to_vector_env(F.VmapWrapper(single, 2))
    with pytest.raises(RuntimeError, match="reset"):
        venv.step(np.zeros((2, 1)))
    with pytest.raises(NotImplementedError, match="reset_mask"):
        venv.reset(options={"reset_mask": np.ones(2, bool)})
