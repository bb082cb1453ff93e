"""TorchRL's ``GymWrapper`` over an anywrap vector stack (issue 34). It reads
``env.autoreset_mode``, which Gymnasium's ``VectorWrapper`` does not pass through
(an AttributeError over any wrapped vector env), and takes SAME_STEP and DISABLED."""

from __future__ import annotations

import logging
import warnings

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.vector import AutoresetMode

import anywrap

torch = pytest.importorskip("torch")
torchrl_envs = pytest.importorskip("torchrl.envs")

MODES = [AutoresetMode.SAME_STEP, AutoresetMode.DISABLED]


def _envs(mode: AutoresetMode):
    return gym.make_vec(
        "CartPole-v1", 3, vectorization_mode="sync", vector_kwargs={"autoreset_mode": mode}
    )


@pytest.mark.parametrize("mode", list(AutoresetMode), ids=lambda m: m.name)
def test_every_vector_wrapper_reports_its_envs_autoreset_mode(mode):
    stack = anywrap.vector.RecordEpisodeStatistics(
        anywrap.vector.TransformReward(
            anywrap.vector.NormalizeObservation(anywrap.vector.ToTorch(_envs(mode))), lambda r: r
        )
    )
    env = stack
    while isinstance(env, gym.vector.VectorWrapper):
        assert env.autoreset_mode is mode, type(env)
        env = env.env
    with pytest.raises(AttributeError, match="autoreset_mode"):
        _ = anywrap.NormalizeObservation(gym.make("CartPole-v1")).autoreset_mode


def _rollout(stack, steps=40):
    logging.disable(logging.INFO)  # TorchRL's notes on specs it infers
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            env = torchrl_envs.GymWrapper(stack)
            return env, env.rollout(steps, break_when_any_done=False)
    finally:
        logging.disable(logging.NOTSET)


@pytest.mark.parametrize("mode", MODES, ids=lambda m: m.name)
def test_torchrl_takes_a_numpy_stack(mode):
    stack = anywrap.vector.RecordEpisodeStatistics(
        anywrap.vector.NormalizeReward(anywrap.vector.NormalizeObservation(_envs(mode)))
    )
    _, td = _rollout(stack)
    assert td["next", "reward"].shape[:2] == (3, 40)
    assert td["next", "done"].any()  # CartPole's episodes ended within the rollout


@pytest.mark.parametrize("mode", MODES, ids=lambda m: m.name)
def test_torchrl_takes_a_stack_through_to_torch_with_the_reward_as_its_spec_says(mode):
    """TorchRL's reward spec is float32 and it does not cast tensors; the recipe casts."""
    stack = anywrap.vector.NormalizeObservation(anywrap.vector.ToTorch(_envs(mode)))
    stack = anywrap.vector.TransformReward(stack, lambda r: r.to(torch.float32))
    env, td = _rollout(stack)
    assert env.reward_spec.dtype == td["next", "reward"].dtype == torch.float32
    assert td["next", "done"].any()
    obs = td["next", "observation"]
    assert obs.dtype == torch.float32 and np.isfinite(obs.numpy()).all()
