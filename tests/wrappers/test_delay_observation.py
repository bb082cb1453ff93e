"""anywrap.DelayObservation beyond the contract suite: delays of 0 to 3 steps, a Tuple
of Discrete observations, other backends, its errors and a checkpoint."""

from __future__ import annotations

import gymnasium as gym
import pytest
from array_envs import BackendEnv
from array_helpers import actions_for, checkpoint_continues, drive_single, run_single_on

import anywrap


@pytest.mark.parametrize("delay", [0, 1, 3])
@pytest.mark.parametrize("env_id", ["CartPole-v1", "Blackjack-v1"])
def test_the_observations_are_gymnasiums(env_id, delay):
    ours = anywrap.DelayObservation(gym.make(env_id), delay)
    theirs = gym.wrappers.DelayObservation(gym.make(env_id), delay)
    acts = actions_for(ours.action_space, 150, seed=9)
    assert drive_single(ours, theirs, acts, numpy_scalars=env_id == "Blackjack-v1") > 0


def test_on_every_backend(backend):
    make = lambda: gym.make("Pendulum-v1", max_episode_steps=7)  # noqa: E731
    ours = anywrap.DelayObservation(BackendEnv(make(), backend), 3)
    run_single_on(backend, ours, gym.wrappers.DelayObservation(make(), 3), steps=30)


@pytest.mark.parametrize(
    ("delay", "exc", "pattern"), [(-1, ValueError, ">= 0"), (1.5, TypeError, "int")]
)
def test_a_bad_delay_names_the_wrapper(delay, exc, pattern):
    with pytest.raises(exc, match=r"anywrap\.DelayObservation.*" + pattern):
        anywrap.DelayObservation(gym.make("CartPole-v1"), delay)


def test_a_checkpoint_continues_bit_for_bit(tmp_path):
    checkpoint_continues(
        lambda: anywrap.DelayObservation(gym.make("Pendulum-v1"), 3), tmp_path / "s"
    )
