"""anywrap.StickyAction beyond the contract suite: Gymnasium's state machine on the same
draws (and its attributes), the env's own stream left alone, other backends, its errors
and a checkpoint that restores the generator."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest
from array_envs import BackendEnv, ScriptedStickyAction, assert_same, script
from array_helpers import (
    actions_for,
    checkpoint_continues,
    drive_single,
    fails_cleanly,
    run_single_on,
    stepped,
)
from gymnasium.error import InvalidBound, InvalidProbability

import anywrap


@pytest.mark.parametrize("env_id", ["CartPole-v1", "Pendulum-v1"])
def test_without_repeats_it_is_the_env(env_id):
    """p = 0 sends every action through unchanged, and leaves the env's own random
    stream alone (Gymnasium's wrapper draws from it, which changes later resets)."""
    ours = anywrap.StickyAction(gym.make(env_id), 0.0)
    assert drive_single(ours, gym.make(env_id), actions_for(ours.action_space, 200, seed=12)) > 0


def scripted_pair(env_id: str, steps: int, p: float, duration, seed: int):
    """anywrap's wrapper and Gymnasium's, both drawing from one table (and a clock)."""
    table = np.random.default_rng(seed).random((steps + 1, 2))
    clock = [0]
    ours = anywrap.StickyAction(gym.make(env_id), p, duration)
    theirs = ScriptedStickyAction(
        gym.make(env_id),
        table,
        clock,
        (),
        repeat_action_probability=p,
        repeat_action_duration=duration,
    )
    ours.reset(seed=0)
    theirs.reset(seed=0)
    script(ours, table)
    return ours, theirs, clock


@pytest.mark.parametrize("duration", [1, 3, (1, 4)])
@pytest.mark.parametrize("env_id", ["CartPole-v1", "Pendulum-v1"])
def test_the_state_machine_is_gymnasiums(env_id, duration):
    """With the same draws, anywrap's choices are Gymnasium's, step for step."""
    ours, theirs, clock = scripted_pair(env_id, 300, 0.4, duration, seed=13)
    repeats = 0
    for t, a in enumerate(actions_for(ours.action_space, 300, seed=14, mixed=False)):
        clock[0] = t
        x, y = ours.step(a), theirs.step(a)
        assert_same(x[0], y[0], f"step {t}")
        repeats += not np.array_equal(theirs.last_action, a)
        if y[2] or y[3]:
            ours.reset()
            theirs.reset()
    assert repeats > 20


def test_gymnasiums_attributes():
    """``last_action``, ``is_sticky_actions``, ``num_repeats`` and ``repeats_taken``, as
    Gymnasium's wrapper keeps them, on the same draws."""
    ours, theirs, clock = scripted_pair("Pendulum-v1", 40, 0.5, (2, 4), seed=17)
    assert ours.last_action is None and theirs.last_action is None
    for t, a in enumerate(actions_for(ours.action_space, 40, seed=18, mixed=False)):
        clock[0] = t
        ours.step(a)
        theirs.step(a)
        np.testing.assert_array_equal(ours.last_action, theirs.last_action)
        assert ours.is_sticky_actions == theirs.is_sticky_actions
        assert ours.num_repeats == theirs.num_repeats
        assert ours.repeats_taken == theirs.repeats_taken


def test_on_every_backend(backend):
    make = lambda: gym.make("Pendulum-v1", max_episode_steps=7)  # noqa: E731
    run_single_on(backend, anywrap.StickyAction(BackendEnv(make(), backend), 0.0), make(), steps=30)


@pytest.mark.parametrize(
    ("args", "exc", "pattern"),
    [
        ((1.0,), InvalidProbability, r"\[0, 1\)"),
        ((0.5, (3, 2)), InvalidBound, "range"),
        ((0.5, 0), ValueError, ">= 1"),
        ((0.5, [1, 2]), ValueError, "int or a tuple"),
    ],
)
def test_bad_arguments_name_the_wrapper(args, exc, pattern):
    with pytest.raises(exc, match=r"anywrap\.StickyAction.*" + pattern):
        anywrap.StickyAction(gym.make("CartPole-v1"), *args)


def test_a_step_before_reset_is_refused():
    with pytest.raises(gym.error.ResetNeeded, match=r"anywrap\.StickyAction"):
        anywrap.StickyAction(gym.make("CartPole-v1"), 0.5).action(0)


def test_an_action_of_another_shape_changes_nothing():
    env = stepped(anywrap.StickyAction(gym.make("Pendulum-v1"), 0.5))
    fails_cleanly(
        env,
        lambda: env.step(np.zeros(3)),
        ValueError,
        r"anywrap\.StickyAction",
        r"shape \(1,\)",
        r"numpy\.ndarray\(shape=\(3,\)",
    )


def test_a_checkpoint_continues_bit_for_bit(tmp_path):
    make = lambda: anywrap.StickyAction(gym.make("Pendulum-v1"), 0.6, (1, 3))  # noqa: E731
    checkpoint_continues(make, tmp_path / "s")


@pytest.mark.parametrize("vector", [False, True])
@pytest.mark.parametrize("seed", ["abc", 1.5, [1, "x"]])
def test_a_seed_that_is_no_int_is_refused_by_name_before_the_env_resets(vector, seed):
    """The wrapper reads the seed itself (for its own stream), so it names itself in the
    refusal, and neither the env nor the wrapper's state moves."""
    if vector:
        env = anywrap.vector.StickyAction(gym.make_vec("CartPole-v1", 2), 0.5)
    else:
        env = anywrap.StickyAction(gym.make("CartPole-v1"), 0.5)
    env.reset(seed=3)
    env.step(env.action_space.sample())
    physics = np.array(env.unwrapped.state, copy=True)
    fails_cleanly(
        env,
        lambda: env.reset(seed=seed),
        TypeError,
        r"anywrap\.(vector\.)?StickyAction",
        r"expected `seed` to be an int, a list of ints or None",
    )
    assert np.array_equal(env.unwrapped.state, physics)  # the env was not reset either
