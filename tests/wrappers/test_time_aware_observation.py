"""anywrap.TimeAwareObservation beyond the contract suite: Dict / Tuple observations,
flattened or not, the normalised time, other backends, and a checkpoint."""

from __future__ import annotations

import gymnasium as gym
import pytest
from array_envs import BackendEnv
from array_helpers import actions_for, checkpoint_continues, drive_single, run_single_on

import anywrap

ENVS = {
    "CartPole-v1": lambda: gym.make("CartPole-v1", max_episode_steps=25),
    "Pendulum-v1": lambda: gym.make("Pendulum-v1", max_episode_steps=13),
    "Blackjack-v1": lambda: gym.make("Blackjack-v1", max_episode_steps=6),
}


@pytest.mark.parametrize("normalize", [False, True])
@pytest.mark.parametrize("flatten", [True, False])
@pytest.mark.parametrize("env_id", list(ENVS))
def test_the_observations_are_gymnasiums(env_id, flatten, normalize):
    ours = anywrap.TimeAwareObservation(ENVS[env_id](), flatten, normalize)
    theirs = gym.wrappers.TimeAwareObservation(ENVS[env_id](), flatten, normalize)
    assert ours.observation_space == theirs.observation_space
    assert drive_single(ours, theirs, actions_for(ours.action_space, 120, seed=7)) > 0


def test_on_every_backend(backend):
    ours = anywrap.TimeAwareObservation(
        BackendEnv(ENVS["Pendulum-v1"](), backend), normalize_time=True
    )
    ref = gym.wrappers.TimeAwareObservation(ENVS["Pendulum-v1"](), normalize_time=True)
    run_single_on(backend, ours, ref, steps=30)


def test_an_env_without_a_limit_is_refused():
    with pytest.raises(ValueError, match=r"anywrap\.TimeAwareObservation.*TimeLimit"):
        anywrap.TimeAwareObservation(gym.make("Blackjack-v1"))


def test_a_checkpoint_continues_bit_for_bit(tmp_path):
    checkpoint_continues(
        lambda: anywrap.TimeAwareObservation(gym.make("Pendulum-v1")), tmp_path / "s"
    )
