"""Contract 2: the same numbers as Gymnasium 1.4, proven by running it side by side.

Each test builds the same wrapper stack twice, once from ``anywrap`` and once
from ``gymnasium.wrappers``, drives both with the same seeds and actions, and
compares every output step by step. No formula of Gymnasium's is copied here.
"""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.vector import AutoresetMode
from gymnasium.wrappers import vector as gym_vector
from helpers import GYM_VECTOR, KeepResetMask

import anywrap

CONTINUOUS = ["Pendulum-v1", "MountainCarContinuous-v0"]
ALL_ENVS = [*CONTINUOUS, "CartPole-v1"]


def clip_obs(o):
    return np.clip(o, -10, 10)


def clip_rew(r):
    return np.clip(r, -10, 10)


def single_stack(env: gym.Env, lib) -> gym.Env:
    """CleanRL's ppo_continuous_action stack (ClipAction only for Box actions)."""
    env = lib.RecordEpisodeStatistics(env)
    if isinstance(env.action_space, gym.spaces.Box):
        env = lib.ClipAction(env)
    env = lib.NormalizeObservation(env)
    env = lib.TransformObservation(env, clip_obs, env.observation_space)
    env = lib.NormalizeReward(env, gamma=0.99)
    return lib.TransformReward(env, clip_rew)


def vector_stack(envs, lib, with_obs_norm: bool = True):
    envs = lib.RecordEpisodeStatistics(envs)
    if isinstance(envs.single_action_space, gym.spaces.Box):
        envs = lib.ClipAction(envs)
    if with_obs_norm:
        envs = lib.NormalizeObservation(envs)
        envs = lib.TransformObservation(envs, clip_obs)
    envs = lib.NormalizeReward(envs, gamma=0.99)
    return lib.TransformReward(envs, clip_rew)


def actions_for(space: gym.Space, n: int, seed: int = 0) -> list:
    """Deliberately out-of-bounds actions for Box spaces, so that clipping matters."""
    rng = np.random.default_rng(seed)
    if isinstance(space, gym.spaces.Box):
        scale = 2.0 * np.maximum(np.abs(space.low), np.abs(space.high))
        return [rng.uniform(-scale, scale).astype(np.float64) for _ in range(n)]
    space.seed(seed)
    return [space.sample() for _ in range(n)]


@pytest.mark.parametrize("env_id", ALL_ENVS)
def test_single_env_stack_matches_gymnasium(env_id):
    ours = single_stack(gym.make(env_id), anywrap)
    theirs = single_stack(gym.make(env_id), gym.wrappers)
    o1, _ = ours.reset(seed=3)
    o2, _ = theirs.reset(seed=3)
    np.testing.assert_array_equal(o1, o2)
    episodes = 0
    for action in actions_for(ours.unwrapped.action_space, 1200):
        a = ours.step(action)
        b = theirs.step(action)
        # Single envs agree with Gymnasium to the bit (the README says so).
        np.testing.assert_array_equal(a[0], b[0])
        assert a[0].dtype == b[0].dtype
        assert a[1] == b[1]
        assert (a[2], a[3]) == (b[2], b[3])
        assert ("episode" in a[4]) == ("episode" in b[4])
        if "episode" in b[4]:
            episodes += 1
            np.testing.assert_array_equal(a[4]["episode"]["r"], b[4]["episode"]["r"])
            assert a[4]["episode"]["l"] == b[4]["episode"]["l"]
            ours.reset()
            theirs.reset()
    assert episodes >= 1, "the trajectory must cover at least one episode end"
    # The exposed statistics agree too.
    inner_o = ours.get_wrapper_attr("obs_rms")
    inner_t = theirs.get_wrapper_attr("obs_rms")
    np.testing.assert_array_equal(inner_o.mean, inner_t.mean)
    np.testing.assert_array_equal(inner_o.var, inner_t.var)
    assert float(inner_o.count) == inner_t.count
    ret_o, ret_t = ours.get_wrapper_attr("return_rms"), theirs.get_wrapper_attr("return_rms")
    np.testing.assert_array_equal(ret_o.var, ret_t.var)
    assert len(ours.get_wrapper_attr("return_queue")) == len(
        theirs.get_wrapper_attr("return_queue")
    )
    np.testing.assert_array_equal(
        list(ours.get_wrapper_attr("return_queue")),
        list(theirs.get_wrapper_attr("return_queue")),
    )


def make_vec(env_id: str, n: int, mode: AutoresetMode = AutoresetMode.NEXT_STEP):
    return gym.make_vec(
        env_id, num_envs=n, vectorization_mode="sync", vector_kwargs={"autoreset_mode": mode}
    )


def layer(env, attr: str):
    """The value of ``attr`` on the first wrapper of the stack that has it."""
    while not hasattr(env, attr):
        env = env.env
    return getattr(env, attr)


# On the host anywrap drops the rows it leaves out of a batch, as Gymnasium does
# (its vector NormalizeReward removes the reset-step rows): every step agrees to
# the bit, the statistics included.


def assert_same_vector_step(a, b, *, obs: bool = True) -> int:
    """Two vector steps' results agree to the bit; returns how many episodes ended."""
    for i in range(0 if obs else 1, 4):
        np.testing.assert_array_equal(a[i], b[i])
    assert ("episode" in a[4]) == ("episode" in b[4])
    if "episode" not in b[4]:
        return 0
    np.testing.assert_array_equal(a[4]["_episode"], b[4]["_episode"])
    np.testing.assert_array_equal(a[4]["episode"]["r"], b[4]["episode"]["r"])
    np.testing.assert_array_equal(a[4]["episode"]["l"], b[4]["episode"]["l"])
    return int(b[4]["_episode"].sum())


def compare_vector(ours, theirs, steps: int, seed: int = 5) -> int:
    ours.reset(seed=seed)
    theirs.reset(seed=seed)
    ended = 0
    for actions in actions_for(ours.unwrapped.action_space, steps, seed):
        ended += assert_same_vector_step(ours.step(actions), theirs.step(actions))
    return ended


@pytest.mark.parametrize("env_id", ALL_ENVS)
def test_vector_stack_matches_gymnasium(env_id):
    ours = vector_stack(make_vec(env_id, 8), anywrap.vector)
    theirs = vector_stack(make_vec(env_id, 8), gym_vector)
    ended = compare_vector(ours, theirs, 1100)
    assert ended >= 1
    np.testing.assert_array_equal(layer(ours, "return_rms").var, layer(theirs, "return_rms").var)
    np.testing.assert_array_equal(layer(ours, "obs_rms").mean, layer(theirs, "obs_rms").mean)
    assert layer(ours, "episode_count") == layer(theirs, "episode_count")
    np.testing.assert_array_equal(
        list(layer(ours, "return_queue")), list(layer(theirs, "return_queue"))
    )
    np.testing.assert_array_equal(
        list(layer(ours, "length_queue")), list(layer(theirs, "length_queue"))
    )


@pytest.mark.parametrize("mode", [AutoresetMode.SAME_STEP, AutoresetMode.DISABLED])
def test_vector_reward_and_episode_stats_match_gymnasium_in_other_modes(mode):
    """Gymnasium supports these modes for the reward and episode wrappers: compare
    every step, to the end.

    After a partial reset Gymnasium zeroes *every* sub-env's return (its
    NormalizeReward ignores the mask) and episode statistics (its
    RecordEpisodeStatistics looks for the mask after the env has consumed it);
    anywrap resets only the masked ones, as its README says. The reference is
    Gymnasium's wrappers taught that deviation (``GYM_VECTOR`` over
    ``KeepResetMask``), so the comparison goes on past every partial reset.
    """
    ours = vector_stack(make_vec("CartPole-v1", 6, mode), anywrap.vector, with_obs_norm=False)
    theirs = vector_stack(
        KeepResetMask(make_vec("CartPole-v1", 6, mode)), GYM_VECTOR, with_obs_norm=False
    )
    ours.reset(seed=9)
    theirs.reset(seed=9)
    ended = partial_resets = 0
    for actions in actions_for(ours.unwrapped.action_space, 400, 9):
        a = ours.step(actions)
        ended += assert_same_vector_step(a, theirs.step(actions), obs=False)
        done = np.logical_or(a[2], a[3])
        if mode is AutoresetMode.DISABLED and done.any():
            ours.reset(options={"reset_mask": done.copy()})
            theirs.reset(options={"reset_mask": done.copy()})
            partial_resets += int(not done.all())
    np.testing.assert_array_equal(
        layer(ours, "accumulated_reward"), layer(theirs, "accumulated_reward")
    )
    np.testing.assert_array_equal(layer(ours, "return_rms").var, layer(theirs, "return_rms").var)
    np.testing.assert_array_equal(layer(ours, "episode_lengths"), layer(theirs, "episode_lengths"))
    assert ended >= (1 if mode is AutoresetMode.DISABLED else 3)
    if mode is AutoresetMode.DISABLED:
        assert partial_resets >= 3, "the trajectory must cross partial resets"
