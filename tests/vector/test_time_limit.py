"""anywrap.vector.TimeLimit (Gymnasium has none): row by row Gymnasium's TimeLimit in
each sub-env, in every autoreset mode and on every backend; the resets it asks of a
device env, without a host sync; bad input changes nothing."""

from __future__ import annotations

import functools

import gymnasium as gym
import numpy as np
import pytest
from array_envs import BackendVectorEnv, CounterVectorEnv
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
from gymnasium.vector import AutoresetMode
from helpers import make_backend

import anywrap


def cartpole(limit: int | None) -> gym.Env:
    """CartPole whose episodes also end by a Gymnasium TimeLimit (``None``: no limit)."""
    return CartPoleEnv() if limit is None else gym.wrappers.TimeLimit(CartPoleEnv(), limit)


@pytest.mark.parametrize("mode", MODES, ids=lambda m: m.name)
def test_the_flags_are_those_of_sub_env_time_limits(mode):
    """Over limit-free sub-envs: Gymnasium's TimeLimit in each, its resets included."""
    ours = anywrap.vector.TimeLimit(sub_envs(functools.partial(cartpole, None), 4, mode), 9)
    theirs = sub_envs(functools.partial(cartpole, 9), 4, mode)
    acts = actions_for(ours.single_action_space, 70, seed=6, batch=4)
    assert drive_vector(ours, theirs, acts, mode) >= 10


@pytest.mark.parametrize("mode", MODES, ids=lambda m: m.name)
def test_on_every_backend(backend, mode):
    inner = sub_envs(functools.partial(cartpole, None), 3, mode)
    ours = anywrap.vector.TimeLimit(BackendVectorEnv(inner, backend), 8)
    run_vector_on(backend, ours, sub_envs(functools.partial(cartpole, 8), 3, mode), mode, 26)
    state = ours.state_dict()
    assert state and all(isinstance(v, backend.array_type) for v in state.values())


@pytest.mark.parametrize("mode", MODES, ids=lambda m: m.name)
@pytest.mark.parametrize("lib", ["jax", "torch"])
def test_never_syncs(lib, mode):
    env = assert_never_syncs(lambda e: anywrap.vector.TimeLimit(e, 5), lib, mode)
    if mode is not AutoresetMode.DISABLED:
        assert [m for m in env.env.resets if m is not None], "the limit never reset a sub-env"


def test_the_resets_of_a_device_env_in_closed_form():
    """SAME_STEP on a JAX counter: sub-env i ends by itself at step ends[i]; the limit
    (5) ends those with ends[i] > 5, which restart at once."""
    xp = make_backend("jax").xp
    ends = (3, 4, 6, 9)
    env = anywrap.vector.TimeLimit(CounterVectorEnv(xp, ends=ends, mode=AutoresetMode.SAME_STEP), 5)
    env.reset(seed=0)
    action = xp.zeros((4, 1), dtype=xp.float32)
    for t in range(1, 31):
        obs, _, term, trunc, info = env.step(action)
        for i, end in enumerate(ends):
            length = min(end, 5)
            k = (t - 1) % length + 1  # the step of sub-env i's current episode
            assert bool(term[i]) == (k == end), (t, i)
            assert bool(trunc[i]) == (k == 5), (t, i)
            assert float(obs[i, 0]) == (0 if k == length else k), (t, i)
            if k == length:
                assert bool(info["_final_obs"][i]) and float(info["final_obs"][i, 0]) == k


def test_in_disabled_mode_the_caller_resets():
    counter = CounterVectorEnv(np, ends=(100, 100), mode=AutoresetMode.DISABLED)
    env = anywrap.vector.TimeLimit(counter, 3)
    env.reset(seed=0)
    for _ in range(5):
        _, _, _, trunc, _ = env.step(np.zeros((2, 1), np.float32))
    assert trunc.all() and counter.resets == [None]


def vec(n: int) -> gym.vector.VectorEnv:
    return gym.make_vec("Pendulum-v1", n, vectorization_mode="sync")


def test_bad_input_changes_nothing():
    with pytest.raises(ValueError, match=r"anywrap\.vector\.TimeLimit"):
        anywrap.vector.TimeLimit(vec(2), -3)
    env = stepped(anywrap.vector.TimeLimit(vec(3), 5))
    bad_reset_masks_change_nothing(env)
    foreign_state_changes_nothing(env, stepped(anywrap.vector.TimeLimit(vec(2), 5)))


@pytest.mark.parametrize("mode", [AutoresetMode.NEXT_STEP, AutoresetMode.SAME_STEP], ids=str)
@pytest.mark.parametrize("shape", [(2, 4), (3,)])
def test_a_masked_reset_of_another_shape_is_refused_by_name(mode, shape):
    """One env's observation (3,) from the masked reset was copied into every sub-env, the
    ones not reset too; (2, 4) failed in NumPy's broadcast, naming no wrapper."""
    from gymnasium.vector.utils import batch_space

    class Env(gym.vector.VectorEnv):
        num_envs = 2
        single_observation_space = gym.spaces.Box(-1.0, 1.0, (3,), np.float32)
        observation_space = batch_space(single_observation_space, 2)
        single_action_space = gym.spaces.Box(-1.0, 1.0, (1,), np.float32)
        action_space = batch_space(single_action_space, 2)
        metadata = {"autoreset_mode": mode}

        def reset(self, *, seed=None, options=None):
            masked = options and "reset_mask" in options
            return (np.full(shape, 7.0, np.float32) if masked else np.zeros((2, 3), np.float32)), {}

        def step(self, actions):
            return (
                np.zeros((2, 3), np.float32),
                np.zeros(2),
                np.zeros(2, bool),
                np.zeros(2, bool),
                {},
            )

    env = anywrap.vector.TimeLimit(Env(), 1)
    env.reset(seed=0)
    with pytest.raises(
        ValueError, match=r"anywrap\.vector\.TimeLimit: expected the masked reset's"
    ):
        for _ in range(2):  # the limit ends both sub-envs; the reset comes at once or next step
            env.step(np.zeros((2, 1), np.float32))
