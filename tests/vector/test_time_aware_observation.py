"""anywrap.vector.TimeAwareObservation (Gymnasium has none): row by row Gymnasium's
single wrapper in each sub-env, in every autoreset mode and on every backend, without a
host sync on a device env."""

from __future__ import annotations

import functools

import gymnasium as gym
import numpy as np
import pytest
from array_envs import BackendVectorEnv
from array_helpers import (
    MODES,
    actions_for,
    assert_never_syncs,
    bad_reset_masks_change_nothing,
    drive_vector,
    foreign_state_changes_nothing,
    run_vector_on,
    stepped,
    sub_envs,
)
from gymnasium.envs.classic_control import CartPoleEnv

import anywrap


def cartpole() -> gym.Env:
    return gym.make("CartPole-v1", max_episode_steps=25)


def pendulum() -> gym.Env:
    return gym.make("Pendulum-v1", max_episode_steps=7)


@pytest.mark.parametrize("mode", MODES, ids=lambda m: m.name)
@pytest.mark.parametrize("normalize", [False, True])
def test_the_observations_are_those_of_sub_env_wrappers(mode, normalize):
    ours = anywrap.vector.TimeAwareObservation(
        sub_envs(cartpole, 3, mode), normalize_time=normalize
    )
    theirs = sub_envs(
        lambda: gym.wrappers.TimeAwareObservation(cartpole(), normalize_time=normalize), 3, mode
    )
    assert ours.single_observation_space == theirs.single_observation_space
    acts = actions_for(ours.single_action_space, 80, seed=8, batch=3)
    assert drive_vector(ours, theirs, acts, mode) > 0


def test_an_unflattened_tuple_gets_the_count_appended():
    """A Tuple observation (Blackjack): the count is appended, shaped as its space says."""
    envs = anywrap.vector.TimeAwareObservation(
        gym.make_vec("Blackjack-v1", 3, "sync", max_episode_steps=6), flatten=False
    )
    obs, _ = envs.reset(seed=0)
    assert envs.observation_space.contains(obs)
    obs, *_ = envs.step(np.zeros(3, dtype=np.int64))
    assert obs[-1].dtype == np.int32 and obs[-1].shape == (3, 1)
    np.testing.assert_array_equal(obs[-1], [[1], [1], [1]])


@pytest.mark.parametrize("mode", MODES, ids=lambda m: m.name)
def test_on_every_backend(backend, mode):
    inner = BackendVectorEnv(sub_envs(pendulum, 3, mode), backend)
    ours = anywrap.vector.TimeAwareObservation(inner, max_timesteps=7)
    ref = sub_envs(lambda: gym.wrappers.TimeAwareObservation(pendulum()), 3, mode)
    run_vector_on(backend, ours, ref, mode, steps=26)


@pytest.mark.parametrize("mode", MODES, ids=lambda m: m.name)
@pytest.mark.parametrize("flatten", [True, False])
@pytest.mark.parametrize("lib", ["jax", "torch"])
def test_never_syncs(lib, flatten, mode):
    wrap = functools.partial(
        anywrap.vector.TimeAwareObservation,
        flatten=flatten,
        normalize_time=not flatten,
        max_timesteps=9,
    )
    assert_never_syncs(wrap, lib, mode)


def test_the_limit_of_an_anywrap_time_limit_is_found():
    env = anywrap.vector.TimeAwareObservation(
        anywrap.vector.TimeLimit(gym.vector.SyncVectorEnv([CartPoleEnv]), 17)
    )
    assert env.max_timesteps == 17


def vec(n: int) -> gym.vector.VectorEnv:
    return gym.make_vec("Pendulum-v1", n, vectorization_mode="sync")


def test_bad_input_changes_nothing():
    with pytest.raises(ValueError, match=r"anywrap\.vector\.TimeAwareObservation.*TimeLimit"):
        anywrap.vector.TimeAwareObservation(gym.vector.SyncVectorEnv([CartPoleEnv]))
    env = stepped(anywrap.vector.TimeAwareObservation(vec(3)))
    bad_reset_masks_change_nothing(env)
    foreign_state_changes_nothing(env, stepped(anywrap.vector.TimeAwareObservation(vec(2))))
