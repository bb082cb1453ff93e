"""anywrap.TimeAwareObservation beyond the contract suite: Dict / Tuple observations,
flattened or not, the normalised time, other backends, and a checkpoint."""

from __future__ import annotations

from functools import partial

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


@pytest.mark.parametrize("kind", ["single", "vector", "functional"])
@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"flatten": "no"}, TypeError, "expected `flatten` to be a bool, got str 'no'"),
        ({"normalize_time": 1}, TypeError, "expected `normalize_time` to be a bool, got int 1"),
        ({"dict_time_key": 3}, TypeError, "expected `dict_time_key` to be a non-empty str"),
        ({"dict_time_key": ""}, TypeError, "expected `dict_time_key` to be a non-empty str"),
    ],
)
def test_arguments_of_another_type_are_refused_by_name(kind, kwargs, error, message):
    """ "no" counted as True (the observation was flattened and normalised anyway); an int
    key became a Dict key."""
    if kind == "functional":
        pytest.importorskip("jax")
        pytest.importorskip("gymnax")
        from functional_envs import pendulum

        from anywrap import functional as F

        make, env = partial(F.TimeAwareObservation, max_timesteps=10), pendulum(2)
    else:
        make = (anywrap.vector if kind == "vector" else anywrap).TimeAwareObservation
        env = gym.make_vec("CartPole-v1", 2) if kind == "vector" else gym.make("CartPole-v1")
    with pytest.raises(error, match=rf"TimeAwareObservation: {message}"):
        make(env, **kwargs)
