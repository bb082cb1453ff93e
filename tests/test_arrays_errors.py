"""Contract 7 for the array wrappers: errors name the wrapper, what it expected and what it
got, before anything changes; and Contract 6: their state survives a checkpoint."""

from __future__ import annotations

import functools
import re

import gymnasium as gym
import numpy as np
import pytest
from array_envs import CounterVectorEnv
from gymnasium.error import InvalidBound, InvalidProbability
from gymnasium.vector import AutoresetMode, SyncVectorEnv
from helpers import assert_same_state, flat_state, make_backend

import anywrap


def vec(env_id: str = "Pendulum-v1", n: int = 2, **kw) -> gym.vector.VectorEnv:
    return gym.make_vec(env_id, n, vectorization_mode="sync", **kw)


# ------------------------------------------------------------- construction
CONSTRUCTION = [
    ("RescaleAction", lambda: gym.make("CartPole-v1"), (-1.0, 1.0), TypeError, r"Box.*Discrete"),
    (
        "RescaleAction",
        lambda: gym.make("Pendulum-v1"),
        (1.0, -1.0),
        ValueError,
        r"min_action.*max_action",
    ),
    ("RescaleAction", lambda: gym.make("Pendulum-v1"), (0.5, 0.5), InvalidBound, r"no inverse"),
    (
        "RescaleAction",
        lambda: gym.make("Pendulum-v1"),
        (np.zeros(2), 1.0),
        ValueError,
        r"shape \(1,\).*\(2,\)",
    ),
    ("RescaleAction", lambda: gym.make("Pendulum-v1"), ("a", 1.0), TypeError, r"min_action"),
    ("RescaleObservation", lambda: gym.make("CartPole-v1"), (-1.0, 1.0), ValueError, r"infinite"),
    ("ClipReward", lambda: gym.make("CartPole-v1"), (None, None), InvalidBound, r"both be None"),
    ("ClipReward", lambda: gym.make("CartPole-v1"), (1.0, 0.0), InvalidBound, r"smaller"),
    ("DtypeObservation", lambda: gym.make("Blackjack-v1"), (np.float32,), TypeError, r"Tuple"),
    ("ReshapeObservation", lambda: gym.make("CartPole-v1"), ((3, 2),), ValueError, r"holds 6"),
    ("ReshapeObservation", lambda: gym.make("CartPole-v1"), ([2, 2],), TypeError, r"tuple"),
    ("TimeLimit", lambda: gym.make("CartPole-v1"), (0,), ValueError, r"> 0"),
    ("TimeLimit", lambda: gym.make("CartPole-v1"), (2.5,), TypeError, r"int"),
    ("TimeAwareObservation", lambda: gym.make("Blackjack-v1"), (), ValueError, r"TimeLimit"),
    ("DelayObservation", lambda: gym.make("CartPole-v1"), (-1,), ValueError, r">= 0"),
    ("DelayObservation", lambda: gym.make("CartPole-v1"), (1.5,), TypeError, r"int"),
    ("StickyAction", lambda: gym.make("CartPole-v1"), (1.0,), InvalidProbability, r"\[0, 1\)"),
    ("StickyAction", lambda: gym.make("CartPole-v1"), (0.5, (3, 2)), InvalidBound, r"range"),
    ("StickyAction", lambda: gym.make("CartPole-v1"), (0.5, 0), ValueError, r">= 1"),
    ("StickyAction", lambda: gym.make("CartPole-v1"), (0.5, [1, 2]), ValueError, r"int or a tuple"),
]


@pytest.mark.parametrize(
    ("name", "make", "args", "exc", "pattern"), CONSTRUCTION, ids=lambda x: str(x)[:18]
)
def test_bad_arguments_name_the_wrapper(name, make, args, exc, pattern):
    with pytest.raises(exc, match=re.escape(f"anywrap.{name}") + ".*" + pattern):
        getattr(anywrap, name)(make(), *args)


def test_flatten_refuses_spaces_gymnasium_cannot_flatten_to_an_array():
    class Env(gym.Env):
        observation_space = gym.spaces.Sequence(gym.spaces.Discrete(3))
        action_space = gym.spaces.Discrete(2)

    with pytest.raises(TypeError, match=r"anywrap\.FlattenObservation.*Sequence"):
        anywrap.FlattenObservation(Env())


def test_vector_constructors_name_the_vector_wrapper():
    with pytest.raises(TypeError, match=r"anywrap\.vector\.RescaleAction.*Box"):
        anywrap.vector.RescaleAction(vec("CartPole-v1"), -1.0, 1.0)
    with pytest.raises(InvalidBound, match=r"anywrap\.vector\.ClipReward"):
        anywrap.vector.ClipReward(vec(), None, None)
    with pytest.raises(ValueError, match=r"anywrap\.vector\.TimeLimit"):
        anywrap.vector.TimeLimit(vec(), -3)
    with pytest.raises(ValueError, match=r"anywrap\.vector\.TimeAwareObservation.*TimeLimit"):
        anywrap.vector.TimeAwareObservation(SyncVectorEnv([gym.envs.classic_control.CartPoleEnv]))
    with pytest.raises(InvalidProbability, match=r"anywrap\.vector\.StickyAction"):
        anywrap.vector.StickyAction(vec(), -0.1)


# ------------------------------------------------------------- bad input
def stepped(env, steps: int = 3):
    env.reset(seed=0)
    for _ in range(steps):
        env.step(env.action_space.sample())
    return env


def fails_cleanly(env, call, exc, *patterns):
    before = flat_state(env)
    with pytest.raises(exc) as info:
        call()
    for p in patterns:
        assert re.search(p, str(info.value)), (p, str(info.value))
    assert_same_state(flat_state(env), before)


def test_sticky_refuses_an_action_of_another_shape():
    env = stepped(anywrap.StickyAction(gym.make("Pendulum-v1"), 0.5))
    fails_cleanly(
        env,
        lambda: env.step(np.zeros(3)),
        ValueError,
        r"anywrap\.StickyAction",
        r"shape \(1,\)",
        r"numpy\.ndarray\(shape=\(3,\)",
    )
    envs = stepped(anywrap.vector.StickyAction(vec(), 0.5))
    fails_cleanly(
        envs,
        lambda: envs.step(np.zeros((3, 1))),
        ValueError,
        r"anywrap\.vector\.StickyAction",
        r"shape \(2, 1\)",
    )


def test_sticky_refuses_an_action_of_another_library():
    torch = pytest.importorskip("torch")
    backend = make_backend("jax")
    counter = CounterVectorEnv(backend.xp)
    env = anywrap.vector.StickyAction(counter, 0.5)
    env.reset(seed=0)
    env.step(backend.xp.zeros((4, 1), dtype=backend.xp.float32))
    fails_cleanly(
        env,
        lambda: env.step(torch.zeros((4, 1))),
        TypeError,
        r"anywrap\.vector\.StickyAction",
        r"env's library",
        r"torch\.Tensor",
    )
    assert len(counter.received) == 1, "the env was stepped despite the error"


def test_sticky_needs_a_reset_first():
    with pytest.raises(gym.error.ResetNeeded, match=r"anywrap\.StickyAction"):
        anywrap.StickyAction(gym.make("CartPole-v1"), 0.5).action(0)


def test_rescale_action_refuses_an_action_of_another_shape():
    env = anywrap.RescaleAction(gym.make("Pendulum-v1"), -1.0, 1.0)
    env.reset(seed=0)
    with pytest.raises(ValueError, match=r"anywrap\.RescaleAction.*shape \(1,\).*shape=\(2,\)"):
        env.step(np.zeros(2))


STATEFUL_VECTOR = {
    "TimeLimit": lambda e: anywrap.vector.TimeLimit(e, 5),
    "TimeAwareObservation": lambda e: anywrap.vector.TimeAwareObservation(e),
    "DelayObservation": lambda e: anywrap.vector.DelayObservation(e, 2),
    "StickyAction": lambda e: anywrap.vector.StickyAction(e, 0.5),
}


@pytest.mark.parametrize("name", list(STATEFUL_VECTOR))
def test_bad_reset_mask_changes_nothing(name):
    env = stepped(STATEFUL_VECTOR[name](vec(n=3)))
    for bad in (np.array([True, False]), np.array([1, 0, 1])):
        fails_cleanly(
            env,
            lambda bad=bad: env.reset(options={"reset_mask": bad}),
            ValueError,
            rf"anywrap\.vector\.{name}",
            r"bool array of shape \(3,\)",
        )


@pytest.mark.parametrize("name", list(STATEFUL_VECTOR))
def test_load_state_dict_of_another_shape_changes_nothing(name):
    env = stepped(STATEFUL_VECTOR[name](vec(n=3)))
    other = stepped(STATEFUL_VECTOR[name](vec(n=2)))
    fails_cleanly(env, lambda: env.load_state_dict(other.state_dict()), ValueError, r"shape")
    missing = dict(list(env.state_dict().items())[1:])
    fails_cleanly(env, lambda: env.load_state_dict(missing), KeyError, r"missing|expected")


# ------------------------------------------------------------- checkpoints
SINGLE_STATEFUL = {
    "TimeLimit": lambda: anywrap.TimeLimit(gym.make("Pendulum-v1"), 8),
    "TimeAwareObservation": lambda: anywrap.TimeAwareObservation(gym.make("Pendulum-v1")),
    "DelayObservation": lambda: anywrap.DelayObservation(gym.make("Pendulum-v1"), 3),
    "StickyAction": lambda: anywrap.StickyAction(gym.make("Pendulum-v1"), 0.6, (1, 3)),
}


@pytest.mark.parametrize("name", list(SINGLE_STATEFUL))
def test_checkpoint_continues_bit_for_bit(name, tmp_path):
    """Save mid-episode, run on, load into a fresh stack over an env in the same state:
    both continue with the same outputs (the sticky generator included)."""
    pytest.importorskip("safetensors")
    acts = [np.array([np.sin(t)], np.float32) for t in range(20)]
    first = SINGLE_STATEFUL[name]()
    first.reset(seed=1)
    for a in acts[:6]:
        first.step(a)
    path = tmp_path / "state.safetensors"
    anywrap.save_state(first, path)
    env_state = first.unwrapped.state.copy()
    want = [first.step(a)[:4] for a in acts[6:]]
    second = SINGLE_STATEFUL[name]()
    second.reset(seed=99)
    anywrap.load_state(second, path)
    second.unwrapped.state = env_state
    got = [second.step(a)[:4] for a in acts[6:]]
    for w, g in zip(want, got):
        np.testing.assert_array_equal(g[0], w[0])
        assert g[1:] == w[1:]


def test_vector_time_limit_needs_no_reset_mask_support_in_disabled_mode():
    """DISABLED: the caller resets; the wrapper never calls reset itself."""
    counter = CounterVectorEnv(np, ends=(100, 100), mode=AutoresetMode.DISABLED)
    env = anywrap.vector.TimeLimit(counter, 3)
    env.reset(seed=0)
    for _ in range(5):
        _, _, _, trunc, _ = env.step(np.zeros((2, 1), np.float32))
    assert trunc.all() and counter.resets == [None]


def test_vector_time_aware_finds_the_limit_of_an_anywrap_time_limit():
    make = functools.partial(gym.envs.classic_control.CartPoleEnv)
    env = anywrap.vector.TimeAwareObservation(anywrap.vector.TimeLimit(SyncVectorEnv([make]), 17))
    assert env.max_timesteps == 17
