"""The array wrappers on NumPy against Gymnasium 1.4 itself, run side by side on real envs.

Every output is compared bit for bit, dtype and Python type included:
observations, rewards, flags and (SAME_STEP) ``info["final_obs"]``. Where
Gymnasium has no vector version, the reference is a Gymnasium vector env of
sub-envs wrapped in Gymnasium's single-env wrapper, which is what the vector
wrapper promises to equal.
"""

from __future__ import annotations

import functools
import warnings

import gymnasium as gym
import numpy as np
import pytest
from array_envs import ScriptedStickyAction, assert_final_obs, assert_same, script
from gymnasium.envs.classic_control import CartPoleEnv, PendulumEnv
from gymnasium.vector import AutoresetMode, SyncVectorEnv
from gymnasium.wrappers import vector as gym_vector

import anywrap

MODES = [AutoresetMode.NEXT_STEP, AutoresetMode.SAME_STEP, AutoresetMode.DISABLED]


@pytest.fixture(autouse=True)
def _quiet():
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*precision lowered.*")
        warnings.filterwarnings("ignore", message=".*is out of date.*")
        yield


def actions_for(
    space: gym.Space, n: int, seed: int, *, batch: int | None = None, mixed: bool = True
) -> list:
    """Random actions; Box actions in float64 and, with ``mixed``, float32 on odd steps
    (dtypes must survive)."""
    rng = np.random.default_rng(seed)
    out = []
    for t in range(n):
        if isinstance(space, gym.spaces.Box):
            shape = space.shape if batch is None else (batch, *space.shape)
            low = np.where(np.isfinite(space.low), space.low, -1.0)
            high = np.where(np.isfinite(space.high), space.high, 1.0)
            a = rng.uniform(low, high, shape)
            out.append(a.astype(np.float32) if t % 2 and mixed else a)
        else:
            space.seed(int(rng.integers(2**31)))
            out.append(
                space.sample()
                if batch is None
                else np.array([space.sample() for _ in range(batch)])
            )
    return out


def drive_single(
    ours: gym.Env, theirs: gym.Env, actions: list, seed: int = 3, numpy_scalars: bool = False
) -> int:
    """Step both through ``actions``, resetting both where an episode ends; compare all."""
    same = functools.partial(assert_same, numpy_scalars=numpy_scalars)
    same(ours.reset(seed=seed)[0], theirs.reset(seed=seed)[0], "reset")
    ends = 0
    for t, a in enumerate(actions):
        x, y = ours.step(a), theirs.step(a)
        same(x[0], y[0], f"step {t} obs")
        for i, name in enumerate(("reward", "terminated", "truncated"), 1):
            assert_same(x[i], y[i], f"step {t} {name}")
        if y[2] or y[3]:
            ends += 1
            same(ours.reset()[0], theirs.reset()[0], f"reset after {t}")
    return ends


def drive_vector(ours, theirs, actions: list, mode: AutoresetMode, seed: int = 5) -> int:
    """Vector version of :func:`drive_single`; in DISABLED mode both are reset with the
    ``reset_mask`` of the episodes that ended."""
    assert_same(ours.reset(seed=seed)[0], theirs.reset(seed=seed)[0], "reset")
    ends = 0
    for t, a in enumerate(actions):
        x, y = ours.step(a), theirs.step(a)
        for i, name in enumerate(("obs", "reward", "terminated", "truncated")):
            assert_same(x[i], y[i], f"step {t} {name}")
        assert_final_obs(x[4], y[4], f"step {t}")
        done = y[2] | y[3]
        ends += int(done.sum())
        if mode is AutoresetMode.DISABLED and done.any():
            x0, _ = ours.reset(options={"reset_mask": done.copy()})
            y0, _ = theirs.reset(options={"reset_mask": done.copy()})
            assert_same(x0, y0, f"masked reset after {t}")
    return ends


def make_vec(env_id: str, n: int, mode: AutoresetMode, **kwargs) -> gym.vector.VectorEnv:
    return gym.make_vec(
        env_id,
        num_envs=n,
        vectorization_mode="sync",
        vector_kwargs={"autoreset_mode": mode},
        **kwargs,
    )


# ------------------------------------------------------------------ stateless
BOX = gym.spaces.Box
STATELESS = [
    ("RescaleAction", "Pendulum-v1", (-1.0, 1.0)),
    ("RescaleAction", "MountainCarContinuous-v0", (0, 3)),
    ("RescaleAction", "Pendulum-v1", (np.array([0.25], np.float32), np.array([0.75]))),
    ("RescaleObservation", "Pendulum-v1", (-1.0, 1.0)),
    (
        "RescaleObservation",
        "MountainCarContinuous-v0",
        (np.array([0.0, -1.0]), np.array([1.0, 0.5])),
    ),
    (
        "RescaleObservation",
        "CartPole-v1",
        (np.array([-1, -np.inf, -1, -np.inf]), np.array([1, np.inf, 1, np.inf])),
    ),
    ("ClipReward", "Pendulum-v1", (-1.0, None)),
    ("ClipReward", "CartPole-v1", (0.0, 0.5)),
    ("ClipReward", "MountainCarContinuous-v0", (np.float32(-0.05), np.array(0.05))),
    ("DtypeObservation", "CartPole-v1", (np.float64,)),
    ("DtypeObservation", "Pendulum-v1", ("float16",)),
    ("DtypeObservation", "FrozenLake-v1", (np.float32,)),
    ("FlattenObservation", "Blackjack-v1", ()),
    ("FlattenObservation", "FrozenLake-v1", ()),
    ("FlattenObservation", "Taxi-v4", ()),
    ("FlattenObservation", "CartPole-v1", ()),
    ("ReshapeObservation", "CartPole-v1", ((2, 2),)),
    ("ReshapeObservation", "Pendulum-v1", ((3, 1),)),
]


@pytest.mark.parametrize(("name", "env_id", "args"), STATELESS, ids=lambda x: str(x)[:24])
def test_single_stateless_matches_gymnasium(name, env_id, args):
    ours = getattr(anywrap, name)(gym.make(env_id), *args)
    theirs = getattr(gym.wrappers, name)(gym.make(env_id), *args)
    assert ours.observation_space == theirs.observation_space
    assert ours.action_space == theirs.action_space
    drive_single(ours, theirs, actions_for(ours.action_space, 300, seed=1))


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(("name", "env_id", "args"), STATELESS, ids=lambda x: str(x)[:24])
def test_vector_stateless_matches_gymnasium(name, env_id, args, mode):
    """Against Gymnasium's vector wrapper; its observation wrappers refuse SAME_STEP, so
    there the reference is a vector env of sub-envs in Gymnasium's single wrapper."""
    kwargs = {"max_episode_steps": 15} if env_id != "FrozenLake-v1" else {}
    ours = getattr(anywrap.vector, name)(make_vec(env_id, 3, mode, **kwargs), *args)
    if mode is AutoresetMode.SAME_STEP and name != "RescaleAction":
        sub = functools.partial(
            lambda: getattr(gym.wrappers, name)(gym.make(env_id, **kwargs), *args)
        )
        theirs = SyncVectorEnv([sub] * 3, autoreset_mode=mode)
    else:
        theirs = getattr(gym_vector, name)(make_vec(env_id, 3, mode, **kwargs), *args)
    assert ours.single_observation_space == theirs.single_observation_space
    assert ours.observation_space == theirs.observation_space
    assert ours.single_action_space == theirs.single_action_space
    acts = actions_for(ours.single_action_space, 40, seed=2, batch=3)
    assert drive_vector(ours, theirs, acts, mode) > 0


# ------------------------------------------------------------------ TimeLimit
@pytest.mark.parametrize("limit", [1, 4, 60])
@pytest.mark.parametrize("env_cls", [CartPoleEnv, PendulumEnv])
def test_single_time_limit_matches_gymnasium(env_cls, limit):
    ours, theirs = anywrap.TimeLimit(env_cls(), limit), gym.wrappers.TimeLimit(env_cls(), limit)
    assert isinstance(ours, gym.wrappers.TimeLimit)
    assert drive_single(ours, theirs, actions_for(ours.action_space, 200, seed=4)) > 0
    spec = anywrap.TimeLimit(gym.make("CartPole-v1"), 7).spec
    assert spec is not None and spec.max_episode_steps == 7


def cartpole_until(limit: int | None, index: int) -> gym.Env:
    """CartPole whose episodes also end by a Gymnasium TimeLimit (``None``: no limit)."""
    env = CartPoleEnv()
    return env if limit is None else gym.wrappers.TimeLimit(env, limit)


@pytest.mark.parametrize("mode", MODES)
def test_vector_time_limit_matches_sub_env_time_limits(mode):
    """anywrap.vector.TimeLimit over limit-free sub-envs = Gymnasium's TimeLimit in each."""
    n, limit = 4, 9
    ours = anywrap.vector.TimeLimit(
        SyncVectorEnv(
            [functools.partial(cartpole_until, None, i) for i in range(n)], autoreset_mode=mode
        ),
        limit,
    )
    theirs = SyncVectorEnv(
        [functools.partial(cartpole_until, limit, i) for i in range(n)], autoreset_mode=mode
    )
    acts = actions_for(ours.single_action_space, 70, seed=6, batch=n)
    ends = drive_vector(ours, theirs, acts, mode)
    assert ends >= 10


# ------------------------------------------------------------ TimeAwareObservation
def blackjack() -> gym.Env:
    return gym.make("Blackjack-v1", max_episode_steps=6)


TIME_ENVS = {
    "CartPole-v1": lambda: gym.make("CartPole-v1", max_episode_steps=25),
    "Pendulum-v1": lambda: gym.make("Pendulum-v1", max_episode_steps=13),
    "Blackjack-v1": blackjack,
}


@pytest.mark.parametrize("normalize", [False, True])
@pytest.mark.parametrize("flatten", [True, False])
@pytest.mark.parametrize("env_id", list(TIME_ENVS))
def test_single_time_aware_matches_gymnasium(env_id, flatten, normalize):
    make = TIME_ENVS[env_id]
    ours = anywrap.TimeAwareObservation(make(), flatten, normalize)
    theirs = gym.wrappers.TimeAwareObservation(make(), flatten, normalize)
    assert ours.observation_space == theirs.observation_space
    assert drive_single(ours, theirs, actions_for(ours.action_space, 120, seed=7)) > 0


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("normalize", [False, True])
def test_vector_time_aware_matches_sub_env_wrappers(mode, normalize):
    make = TIME_ENVS["CartPole-v1"]
    ours = anywrap.vector.TimeAwareObservation(
        SyncVectorEnv([make] * 3, autoreset_mode=mode), normalize_time=normalize
    )
    sub = functools.partial(
        lambda m: gym.wrappers.TimeAwareObservation(m(), normalize_time=normalize), make
    )
    theirs = SyncVectorEnv([sub] * 3, autoreset_mode=mode)
    assert ours.single_observation_space == theirs.single_observation_space
    acts = actions_for(ours.single_action_space, 80, seed=8, batch=3)
    assert drive_vector(ours, theirs, acts, mode) > 0


def test_vector_time_aware_unflattened_tuple_space():
    """A Tuple observation (Blackjack): the count is appended, shaped as its space says."""
    envs = anywrap.vector.TimeAwareObservation(
        gym.make_vec("Blackjack-v1", 3, "sync", max_episode_steps=6), flatten=False
    )
    obs, _ = envs.reset(seed=0)
    assert envs.observation_space.contains(obs)
    obs, *_ = envs.step(np.zeros(3, dtype=np.int64))
    assert obs[-1].dtype == np.int32 and obs[-1].shape == (3, 1)
    np.testing.assert_array_equal(obs[-1], [[1], [1], [1]])


# ------------------------------------------------------------ DelayObservation
@pytest.mark.parametrize("delay", [0, 1, 3])
@pytest.mark.parametrize("env_id", ["CartPole-v1", "Blackjack-v1"])
def test_single_delay_matches_gymnasium(env_id, delay):
    ours = anywrap.DelayObservation(gym.make(env_id), delay)
    theirs = gym.wrappers.DelayObservation(gym.make(env_id), delay)
    acts = actions_for(ours.action_space, 150, seed=9)
    assert drive_single(ours, theirs, acts, numpy_scalars=env_id == "Blackjack-v1") > 0


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("delay", [1, 3])
def test_vector_delay_matches_sub_env_wrappers(mode, delay):
    make = TIME_ENVS["Pendulum-v1"]
    ours = anywrap.vector.DelayObservation(SyncVectorEnv([make] * 3, autoreset_mode=mode), delay)
    sub = functools.partial(lambda m: gym.wrappers.DelayObservation(m(), delay), make)
    theirs = SyncVectorEnv([sub] * 3, autoreset_mode=mode)
    acts = actions_for(ours.single_action_space, 45, seed=10, batch=3)
    assert drive_vector(ours, theirs, acts, mode) > 0


def test_vector_delay_staggered_masked_resets():
    """DISABLED with episodes of different lengths: masked resets of some sub-envs
    while the others keep their queues."""
    lengths = [3, 5, 7]
    makes = [functools.partial(gym.make, "Pendulum-v1", max_episode_steps=k) for k in lengths]
    ours = anywrap.vector.DelayObservation(
        SyncVectorEnv(makes, autoreset_mode=AutoresetMode.DISABLED), 2
    )
    subs = [functools.partial(lambda m: gym.wrappers.DelayObservation(m(), 2), m) for m in makes]
    theirs = SyncVectorEnv(subs, autoreset_mode=AutoresetMode.DISABLED)
    acts = actions_for(ours.single_action_space, 40, seed=11, batch=3)
    assert drive_vector(ours, theirs, acts, AutoresetMode.DISABLED) >= 10


# ------------------------------------------------------------ StickyAction
@pytest.mark.parametrize("env_id", ["CartPole-v1", "Pendulum-v1"])
def test_single_sticky_without_repeats_is_the_env(env_id):
    """p = 0 sends every action through unchanged, and leaves the env's own random
    stream alone (Gymnasium's wrapper draws from it, which changes later resets)."""
    ours = anywrap.StickyAction(gym.make(env_id), 0.0)
    assert drive_single(ours, gym.make(env_id), actions_for(ours.action_space, 200, seed=12)) > 0


@pytest.mark.parametrize("duration", [1, 3, (1, 4)])
@pytest.mark.parametrize("env_id", ["CartPole-v1", "Pendulum-v1"])
def test_single_sticky_state_machine_matches_gymnasium(env_id, duration):
    """With the same draws, anywrap's choices are Gymnasium's, step for step."""
    steps = 300
    table = np.random.default_rng(13).random((steps + 1, 2))
    clock = [0]
    ours = anywrap.StickyAction(gym.make(env_id), 0.4, duration)
    theirs = ScriptedStickyAction(
        gym.make(env_id),
        table,
        clock,
        (),
        repeat_action_probability=0.4,
        repeat_action_duration=duration,
    )
    ours.reset(seed=0)
    theirs.reset(seed=0)
    script(ours, table)
    acts = actions_for(ours.action_space, steps, seed=14, mixed=False)
    repeats = 0
    for t, a in enumerate(acts):
        clock[0] = t
        x, y = ours.step(a), theirs.step(a)
        assert_same(x[0], y[0], f"step {t}")
        repeats += not np.array_equal(theirs.last_action, a)
        if y[2] or y[3]:
            ours.reset()
            theirs.reset()
    assert repeats > 20


@pytest.mark.parametrize("mode", MODES)
def test_vector_sticky_state_machine_matches_sub_env_wrappers(mode):
    n, steps = 3, 60
    table = np.random.default_rng(15).random((steps + 1, n, 2))
    clock = [0]
    make = TIME_ENVS["CartPole-v1"]
    ours = anywrap.vector.StickyAction(SyncVectorEnv([make] * n, autoreset_mode=mode), 0.5, (1, 3))
    subs = [
        functools.partial(
            lambda i: ScriptedStickyAction(
                make(),
                table,
                clock,
                i,
                repeat_action_probability=0.5,
                repeat_action_duration=(1, 3),
            ),
            i,
        )
        for i in range(n)
    ]
    theirs = SyncVectorEnv(subs, autoreset_mode=mode)
    assert_same(ours.reset(seed=1)[0], theirs.reset(seed=1)[0])
    script(ours, table)
    acts = actions_for(ours.single_action_space, steps, seed=16, batch=n, mixed=False)
    ends = 0
    for t, a in enumerate(acts):
        clock[0] = t
        x, y = ours.step(a), theirs.step(a)
        for i in range(4):
            assert_same(x[i], y[i], f"step {t} output {i}")
        done = y[2] | y[3]
        ends += int(done.sum())
        if mode is AutoresetMode.DISABLED and done.any():
            assert_same(
                ours.reset(options={"reset_mask": done.copy()})[0],
                theirs.reset(options={"reset_mask": done.copy()})[0],
            )
    assert ends >= 3


def test_single_sticky_exposes_gymnasium_attributes():
    """``last_action``, ``is_sticky_actions``, ``num_repeats`` and ``repeats_taken``, as
    Gymnasium's wrapper keeps them, on the same draws."""
    steps = 40
    table = np.random.default_rng(17).random((steps + 1, 2))
    clock = [0]
    ours = anywrap.StickyAction(gym.make("Pendulum-v1"), 0.5, (2, 4))
    theirs = ScriptedStickyAction(
        gym.make("Pendulum-v1"),
        table,
        clock,
        (),
        repeat_action_probability=0.5,
        repeat_action_duration=(2, 4),
    )
    ours.reset(seed=0)
    theirs.reset(seed=0)
    assert ours.last_action is None and theirs.last_action is None
    script(ours, table)
    for t, a in enumerate(actions_for(ours.action_space, steps, seed=18, mixed=False)):
        clock[0] = t
        ours.step(a)
        theirs.step(a)
        np.testing.assert_array_equal(ours.last_action, theirs.last_action)
        assert ours.is_sticky_actions == theirs.is_sticky_actions
        assert ours.num_repeats == theirs.num_repeats
        assert ours.repeats_taken == theirs.repeats_taken
