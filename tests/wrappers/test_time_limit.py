"""anywrap.TimeLimit beyond the contract suite: limits of 1 to 60 steps, other backends,
its spec, errors, and a checkpoint."""

from __future__ import annotations

import gymnasium as gym
import pytest
from array_envs import BackendEnv
from array_helpers import actions_for, checkpoint_continues, drive_single, run_single_on
from gymnasium.envs.classic_control import CartPoleEnv, PendulumEnv

import anywrap


@pytest.mark.parametrize("limit", [1, 4, 60])
@pytest.mark.parametrize("env_cls", [CartPoleEnv, PendulumEnv])
def test_the_flags_are_gymnasiums(env_cls, limit):
    ours, theirs = anywrap.TimeLimit(env_cls(), limit), gym.wrappers.TimeLimit(env_cls(), limit)
    assert isinstance(ours, gym.wrappers.TimeLimit)
    assert drive_single(ours, theirs, actions_for(ours.action_space, 200, seed=4)) > 0


def test_on_every_backend(backend):
    ours = anywrap.TimeLimit(BackendEnv(CartPoleEnv(), backend), 9)
    run_single_on(backend, ours, gym.wrappers.TimeLimit(CartPoleEnv(), 9), steps=30)


def test_the_limit_goes_into_the_spec_as_gymnasiums_does():
    env = anywrap.TimeLimit(gym.make("Pendulum-v1"), max_episode_steps=17)
    assert env.spec.max_episode_steps == 17
    rebuilt = gym.make(env.spec)
    rebuilt.reset(seed=0)
    steps = 0
    while True:
        *_, terminated, truncated, _ = rebuilt.step(rebuilt.action_space.sample())
        steps += 1
        if terminated or truncated:
            break
    assert steps == 17


@pytest.mark.parametrize(
    ("limit", "exc", "pattern"), [(0, ValueError, "> 0"), (2.5, TypeError, "int")]
)
def test_a_bad_limit_names_the_wrapper(limit, exc, pattern):
    with pytest.raises(exc, match=r"anywrap\.TimeLimit.*" + pattern):
        anywrap.TimeLimit(gym.make("CartPole-v1"), limit)


def test_a_step_before_reset_is_refused():
    with pytest.raises(gym.error.ResetNeeded, match=r"anywrap\.TimeLimit"):
        anywrap.TimeLimit(CartPoleEnv(), 3).step(0)


def test_a_checkpoint_continues_bit_for_bit(tmp_path):
    checkpoint_continues(lambda: anywrap.TimeLimit(gym.make("Pendulum-v1"), 8), tmp_path / "s")
