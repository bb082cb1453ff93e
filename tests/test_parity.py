"""Contract 2: the same numbers as Gymnasium 1.4, proven by running it side by side.

Each test builds the same wrapper stack twice, once from ``anywrap`` and once
from ``gymnasium.wrappers``, drives both with the same seeds and actions, and
compares every output step by step. No formula of Gymnasium's is copied here.
"""

from __future__ import annotations

import warnings

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.vector import AutoresetMode
from gymnasium.wrappers import vector as gym_vector
from gymnasium.wrappers.utils import RunningMeanStd
from helpers import GYM_VECTOR, KeepResetMask, moments_with_prior

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


def test_partial_reset_zeroes_only_the_reset_returns():
    envs = anywrap.vector.NormalizeReward(make_vec("CartPole-v1", 3, AutoresetMode.DISABLED))
    envs.reset(seed=0)
    for _ in range(3):
        envs.step(np.ones(3, dtype=np.int64))
    before = np.array(envs.accumulated_reward)
    mask = np.array([True, False, False])
    envs.reset(options={"reset_mask": mask})
    after = envs.accumulated_reward
    assert after[0] == 0
    np.testing.assert_array_equal(after[1:], before[1:])
    assert (before[1:] > 0).all()


def test_partial_reset_restarts_only_the_reset_episodes():
    envs = anywrap.vector.RecordEpisodeStatistics(
        make_vec("CartPole-v1", 3, AutoresetMode.DISABLED)
    )
    envs.reset(seed=0)
    for _ in range(3):
        envs.step(np.ones(3, dtype=np.int64))
    envs.reset(options={"reset_mask": np.array([False, True, False])})
    np.testing.assert_array_equal(envs.episode_lengths, [3, 0, 3])
    np.testing.assert_array_equal(envs.episode_returns, [3.0, 0.0, 3.0])


def test_gymnasium_refuses_what_anywrap_supports():
    """Gymnasium's vector NormalizeObservation refuses SAME_STEP; anywrap's accepts it."""
    with pytest.raises(ValueError):
        gym_vector.NormalizeObservation(make_vec("CartPole-v1", 2, AutoresetMode.SAME_STEP))
    anywrap.vector.NormalizeObservation(make_vec("CartPole-v1", 2, AutoresetMode.SAME_STEP))


@pytest.mark.parametrize(
    ("mode", "learn_final_obs"),
    [(mode, False) for mode in AutoresetMode] + [(AutoresetMode.SAME_STEP, True)],
)
def test_vector_normalize_observation_every_mode(mode, learn_final_obs):
    """In every mode the statistics are exactly those of the observations an agent sees.

    NEXT_STEP: every returned observation. SAME_STEP: every returned one, plus
    each ``final_obs`` with ``learn_final_obs``. DISABLED: every returned one
    after a step, and after a partial reset only the rows that were reset.
    """
    shadow = make_vec("CartPole-v1", 4, mode)
    envs = anywrap.vector.NormalizeObservation(
        make_vec("CartPole-v1", 4, mode), learn_final_obs=learn_final_obs
    )
    seen: list[np.ndarray] = []
    ref = RunningMeanStd(shape=(4,), dtype=np.float32)  # Gymnasium's, fed what anywrap learns

    def learn(*batches: np.ndarray) -> None:
        seen.extend(batches)
        ref.update(np.concatenate(batches))

    obs, _ = envs.reset(seed=2)
    raw, _ = shadow.reset(seed=2)
    learn(raw)
    np.testing.assert_allclose(obs, (raw - ref.mean) / np.sqrt(ref.var + envs.epsilon), 1e-5, 1e-5)
    rng = np.random.default_rng(0)
    finals = 0
    for _ in range(250):
        actions = rng.integers(0, 2, size=4)
        obs, _, term, trunc, info = envs.step(actions)
        raw, _, _, _, raw_info = shadow.step(actions)
        rows = []
        if mode is AutoresetMode.SAME_STEP and "final_obs" in raw_info:
            rows = [f for f, m in zip(raw_info["final_obs"], raw_info["_final_obs"]) if m]
        learn(raw, *([np.stack(rows)] if rows and learn_final_obs else []))
        want_obs = (raw - ref.mean) / np.sqrt(ref.var + envs.epsilon)
        np.testing.assert_allclose(obs, want_obs, rtol=1e-5, atol=1e-5)
        if rows:
            finals += len(rows)
            # final_obs comes back normalised with the same statistics as obs:
            # Gymnasium's RunningMeanStd fed the same batches, and its formula.
            m = info["_final_obs"]
            got = np.stack([f for f, k in zip(info["final_obs"], m) if k])
            want = (np.stack(rows) - ref.mean) / np.sqrt(ref.var + envs.epsilon)
            np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
        done = np.logical_or(term, trunc)
        if mode is AutoresetMode.DISABLED and done.any():
            obs, _ = envs.reset(options={"reset_mask": done})
            raw, _ = shadow.reset(options={"reset_mask": done})
            learn(raw[done])
            want_obs = (raw - ref.mean) / np.sqrt(ref.var + envs.epsilon)
            np.testing.assert_allclose(obs, want_obs, rtol=1e-5, atol=1e-5)
    if mode is AutoresetMode.SAME_STEP:
        assert finals > 0
    mean, var, count = moments_with_prior(np.concatenate(seen))
    rms = envs.obs_rms
    np.testing.assert_allclose(float(rms.count), count, rtol=1e-12)
    # Chan's merge in float32 against the float64 closed form: float32 noise.
    np.testing.assert_allclose(rms.mean, mean, rtol=2e-5, atol=1e-6)
    np.testing.assert_allclose(rms.var, var, rtol=2e-5, atol=1e-6)


def test_normalize_reward_never_resets_on_reset_quirk():
    """Gymnasium's single NormalizeReward keeps its accumulator across reset(): so do we."""
    ours = anywrap.NormalizeReward(gym.make("CartPole-v1"))
    theirs = gym.wrappers.NormalizeReward(gym.make("CartPole-v1"))
    for env in (ours, theirs):
        env.reset(seed=0)
        for _ in range(5):
            env.step(1)
        env.reset(seed=1)
    np.testing.assert_allclose(ours.discounted_reward, theirs.discounted_reward, rtol=1e-12)
    assert float(ours.discounted_reward[0]) > 1.0  # really not reset


@pytest.mark.parametrize("stats_dtype", ["float64"])
def test_stats_dtype_widens_observation_statistics(stats_dtype):
    env = anywrap.NormalizeObservation(gym.make("Pendulum-v1"), stats_dtype=stats_dtype)
    obs, _ = env.reset(seed=0)
    assert env.obs_rms.mean.dtype == np.dtype(stats_dtype)
    assert obs.dtype == np.float32  # the space still says float32
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        env.step(env.action_space.sample())


def test_vector_transform_observation_accepts_same_step_and_transforms_final_obs():
    """Gymnasium's refuses SAME_STEP envs; anywrap's applies func to final_obs too."""
    with pytest.raises(ValueError):
        gym_vector.TransformObservation(
            make_vec("CartPole-v1", 3, AutoresetMode.SAME_STEP), clip_obs
        )
    envs = anywrap.vector.TransformObservation(
        make_vec("CartPole-v1", 3, AutoresetMode.SAME_STEP), lambda o: o * 0 + 5
    )
    envs.reset(seed=0)
    for _ in range(100):
        obs, _, _, _, info = envs.step(np.ones(3, dtype=np.int64))
        np.testing.assert_array_equal(obs, np.full((3, 4), 5, np.float32))
        if "final_obs" in info:
            break
    else:
        pytest.fail("no episode ended")
    finals = [f for f, m in zip(info["final_obs"], info["_final_obs"]) if m]
    assert finals and all((f == 5).all() and f.shape == (4,) for f in finals)
    assert all(f is None for f, m in zip(info["final_obs"], info["_final_obs"]) if not m)
