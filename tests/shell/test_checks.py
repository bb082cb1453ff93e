"""Contract 7: bad input fails loudly, naming the wrapper, what it expected and
what it got; a failed call leaves the wrapper's state (and the env) as they were.
Also the NaN / inf policy of the normalising wrappers."""

from __future__ import annotations

import re

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.error import InvalidBound
from gymnasium.vector import AutoresetMode
from gymnasium.wrappers.utils import RunningMeanStd
from helpers import (
    ReplayEnv,
    ReplayVectorEnv,
    VectorTrajectory,
    assert_same_state,
    flat_state,
    make_backend,
    record_single_trajectory,
    record_vector_trajectory,
    run_single,
)

import anywrap
from anywrap.xp import UnknownArrayTypeError


def vector_stack(replay):
    env = anywrap.vector.RecordEpisodeStatistics(replay)
    env = anywrap.vector.ClipAction(env)
    env = anywrap.vector.NormalizeObservation(env)
    return anywrap.vector.NormalizeReward(env)


def started_stack(backend_name="numpy", steps=5, mode=AutoresetMode.NEXT_STEP):
    traj = record_vector_trajectory(autoreset_mode=mode)
    replay = ReplayVectorEnv(traj, make_backend(backend_name))
    env = vector_stack(replay)
    env.reset(seed=0)
    for _ in range(steps):
        env.step(replay.action())
    return env, replay


def fails_cleanly(env, replay, call, exc, *patterns):
    """``call()`` raises ``exc`` whose message matches every pattern; nothing changed."""
    before, position = flat_state(env), replay.position
    with pytest.raises(exc) as info:
        call()
    msg = str(info.value)
    for p in patterns:
        assert re.search(p, msg), f"{p!r} not in {msg!r}"
    assert_same_state(flat_state(env), before)
    assert replay.position == position, "the env was called despite the error"
    return msg


# ---------------------------------------------------------------- spaces
def test_clip_action_on_a_non_box_space():
    with pytest.raises(TypeError, match=r"anywrap\.ClipAction.*Box.*got Discrete\(2\)"):
        anywrap.ClipAction(gym.make("CartPole-v1"))
    envs = gym.make_vec("CartPole-v1", num_envs=2, vectorization_mode="sync")
    with pytest.raises(TypeError, match=r"anywrap\.vector\.ClipAction.*Box.*got Discrete\(2\)"):
        anywrap.vector.ClipAction(envs)


def test_normalize_observation_on_a_discrete_space():
    with pytest.raises(TypeError, match=r"anywrap\.NormalizeObservation.*Box.*Discrete\(16\)"):
        anywrap.NormalizeObservation(gym.make("FrozenLake-v1"))
    envs = gym.make_vec("FrozenLake-v1", num_envs=2, vectorization_mode="sync")
    with pytest.raises(
        TypeError, match=r"anywrap\.vector\.NormalizeObservation.*Box.*Discrete\(16\)"
    ):
        anywrap.vector.NormalizeObservation(envs)


# ---------------------------------------------------------------- bounds
@pytest.mark.parametrize("gamma", [-0.1, 1.5, float("nan")])
def test_gamma_outside_unit_interval(gamma):
    for cls, env in (
        (anywrap.NormalizeReward, gym.make("Pendulum-v1")),
        (anywrap.vector.NormalizeReward, gym.make_vec("Pendulum-v1", 2, "sync")),
    ):
        name = (cls.__module__.startswith("anywrap.vector") and "anywrap.vector.") or "anywrap."
        with pytest.raises(InvalidBound, match=re.escape(name + "NormalizeReward") + ".*gamma"):
            cls(env, gamma=gamma)


@pytest.mark.parametrize("epsilon", [0.0, -1e-8, float("inf")])
def test_epsilon_not_strictly_positive(epsilon):
    single, vec = gym.make("Pendulum-v1"), gym.make_vec("Pendulum-v1", 2, "sync")
    cases = [
        (anywrap.NormalizeReward, single, "anywrap.NormalizeReward"),
        (anywrap.NormalizeObservation, single, "anywrap.NormalizeObservation"),
        (anywrap.vector.NormalizeReward, vec, "anywrap.vector.NormalizeReward"),
        (anywrap.vector.NormalizeObservation, vec, "anywrap.vector.NormalizeObservation"),
    ]
    for cls, env, name in cases:
        with pytest.raises(InvalidBound, match=re.escape(name) + ".*epsilon.*" + "got"):
            cls(env, epsilon=epsilon)


# ---------------------------------------------------------------- actions
def test_action_of_the_wrong_library():
    pytest.importorskip("jax")
    torch = pytest.importorskip("torch")
    env, replay = started_stack("jax")
    action = torch.zeros((replay.num_envs, 1))
    fails_cleanly(
        env,
        replay,
        lambda: env.step(action),
        TypeError,
        r"anywrap\.vector\.ClipAction",
        r"jax",
        r"got torch\.Tensor",
    )


def test_single_action_of_the_wrong_library():
    pytest.importorskip("jax")
    torch = pytest.importorskip("torch")
    replay = ReplayEnv(record_single_trajectory(), make_backend("jax"))
    env = anywrap.NormalizeObservation(anywrap.ClipAction(replay))
    run_single(env, steps=2)
    fails_cleanly(
        env,
        replay,
        lambda: env.step(torch.zeros((1,))),
        TypeError,
        r"anywrap\.ClipAction",
        r"jax",
        r"got torch\.Tensor",
    )


def test_action_on_the_wrong_device():
    """A tensor on the ``meta`` device into a CPU tensor env (runs without a GPU)."""
    torch = pytest.importorskip("torch")
    env, replay = started_stack("torch")
    action = torch.zeros((replay.num_envs, 1), device="meta")
    fails_cleanly(
        env,
        replay,
        lambda: env.step(action),
        ValueError,
        r"anywrap\.vector\.ClipAction",
        r"device",
        r"cpu",
        r"meta",
    )


@pytest.mark.parametrize("backend_name", ["numpy", "torch"])
def test_action_of_the_wrong_shape(backend_name):
    env, replay = started_stack(backend_name)
    b = make_backend(backend_name)
    action = b.to_backend(np.zeros((replay.num_envs - 1, 1), np.float32))
    fails_cleanly(
        env,
        replay,
        lambda: env.step(action),
        ValueError,
        r"anywrap\.vector\.ClipAction",
        r"shape \(4, 1\)",
        r"shape=\(3, 1\)",
    )


# ---------------------------------------------------------------- reset_mask
@pytest.mark.parametrize(
    "shell", ["RecordEpisodeStatistics", "NormalizeObservation", "NormalizeReward"]
)
@pytest.mark.parametrize(
    "mask, got",
    [
        (np.array([True, False, True]), r"shape=\(3,\)"),
        (np.array([1, 0, 1, 0]), r"dtype=int64"),
        (np.array([[True, False, True, False]]), r"shape=\(1, 4\)"),
    ],
)
def test_reset_mask_of_wrong_shape_or_dtype(shell, mask, got):
    traj = record_vector_trajectory(autoreset_mode=AutoresetMode.DISABLED)
    replay = ReplayVectorEnv(traj, make_backend("numpy"))
    env = getattr(anywrap.vector, shell)(replay)
    env.reset(seed=0)
    for _ in range(3):
        env.step(replay.action())
    fails_cleanly(
        env,
        replay,
        lambda: env.reset(options={"reset_mask": mask}),
        ValueError,
        re.escape(f"anywrap.vector.{shell}"),
        r"bool",
        r"\(4,\)",
        got,
    )


# ---------------------------------------------------------------- unknown types
class Opaque:
    """An array-like type no one registered."""

    def __init__(self, a):
        self.a, self.shape, self.dtype = np.asarray(a), np.shape(a), np.asarray(a).dtype


def test_unknown_array_type_shows_the_registration():
    traj = record_vector_trajectory()
    backend = make_backend("numpy")
    replay = ReplayVectorEnv(traj, backend)
    replay._events = [e._replace(obs=Opaque(e.obs)) for e in replay._events]
    env = anywrap.vector.NormalizeObservation(replay)
    before = flat_state(env)
    with pytest.raises(UnknownArrayTypeError) as info:
        env.reset(seed=0)
    msg = str(info.value)
    assert "Opaque" in msg
    assert "anywrap.xp.register_namespace(Opaque," in msg
    assert_same_state(flat_state(env), before)


# ---------------------------------------------------------------- NaN policy
def nan_trajectory(row: int, step: int) -> VectorTrajectory:
    traj = record_vector_trajectory().copy()
    e = traj.events[step]
    assert e.kind == "step"
    e.obs[row, 1] = np.nan
    e.reward[row] = np.nan
    return traj


def test_vector_nan_observation_is_left_out_of_the_statistics():
    traj = nan_trajectory(row=2, step=5)
    replay = ReplayVectorEnv(traj, make_backend("numpy"))
    env = anywrap.vector.NormalizeObservation(replay)
    ref = RunningMeanStd(shape=traj.single_observation_space.shape, dtype=np.float32)
    obs = env.reset(seed=0)[0]
    ref.update(traj.events[0].obs)
    for t in range(1, 8):
        obs = env.step(replay.action())[0]
        batch = traj.events[t].obs
        ref.update(batch[np.isfinite(batch).all(axis=1)])
        if t == 5:
            assert np.isnan(obs[2, 1]) and np.isfinite(np.delete(obs, 2, axis=0)).all()
    np.testing.assert_allclose(env.obs_rms.mean, ref.mean, rtol=1e-5)
    np.testing.assert_allclose(env.obs_rms.var, ref.var, rtol=1e-5)
    assert float(env.obs_rms.count) == pytest.approx(ref.count, rel=1e-12)
    assert np.isfinite(env.obs_rms.mean).all()


def test_single_nan_observation_and_reward_leave_stats_unchanged(backend):
    traj = record_single_trajectory().copy()
    k = 4
    traj.events[k] = traj.events[k]._replace(reward=float("nan"))
    traj.events[k].obs[0] = np.nan
    replay = ReplayEnv(traj, backend)
    env = anywrap.NormalizeReward(anywrap.NormalizeObservation(replay))
    run_single(env, steps=k - 1)
    before = flat_state(env)
    _, obs, reward, *_ = run_single(env, steps=1)[0]
    assert_same_state(flat_state(env), before)  # neither the obs nor the return stats moved
    assert np.isnan(backend.to_numpy(obs)[0]) and np.isfinite(backend.to_numpy(obs)[1:]).all()
    assert np.isnan(backend.to_numpy(reward))
    run_single(env, steps=3)  # and later steps learn again, unpoisoned
    assert np.isfinite(flat_state(env)["0.NormalizeReward.rms.var"])
    assert not np.array_equal(
        flat_state(env)["0.NormalizeReward.rms.var"], before["0.NormalizeReward.rms.var"]
    )


def test_vector_nan_reward_is_left_out_of_the_return_statistics():
    traj = nan_trajectory(row=1, step=5)
    replay = ReplayVectorEnv(traj, make_backend("numpy"))
    env = anywrap.vector.NormalizeReward(replay)
    env.reset(seed=0)
    for _ in range(4):
        env.step(replay.action())
    count, acc = float(env.return_rms.count), np.array(env.accumulated_reward)
    _, reward, *_ = env.step(replay.action())
    assert np.isnan(reward[1]) and np.isfinite(np.delete(reward, 1)).all()
    assert float(env.return_rms.count) == count + 3  # the other three envs still count
    assert env.accumulated_reward[1] == acc[1]  # G of the NaN env is kept as it was
    assert np.isfinite(env.return_rms.var)


# Regression: an unknown observation type once raised an error naming only the
# type (Contract 7: every error names the wrapper).
def test_unknown_array_type_error_names_the_wrapper():
    replay = ReplayVectorEnv(record_vector_trajectory(), make_backend("numpy"))
    replay._events = [e._replace(obs=Opaque(e.obs)) for e in replay._events]
    env = anywrap.vector.NormalizeObservation(replay)
    with pytest.raises(UnknownArrayTypeError, match=r"anywrap\.vector\.NormalizeObservation"):
        env.reset(seed=0)
