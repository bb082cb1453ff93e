"""Adapters (brax, gymnax, Gymnasium FuncEnv), VmapWrapper and AutoReset."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

jax = pytest.importorskip("jax")
gymnax = pytest.importorskip("gymnax")
import jax.numpy as jnp  # noqa: E402
from functional_envs import rollout as scan  # noqa: E402

from anywrap import functional as F  # noqa: E402

SAME_STEP = gym.vector.AutoresetMode.SAME_STEP


# ---------------------------------------------------------------------- gymnax


@pytest.mark.parametrize("batched", ["vmap", "num_envs"])
def test_gymnax_batch_truncates_with_final_obs_and_autoresets(batched):
    raw = gymnax.make("Pendulum-v1")[0]
    env = (
        F.VmapWrapper(F.from_gymnax(raw), 3)
        if batched == "vmap"
        else F.from_gymnax(raw, num_envs=3)
    )
    assert env.autoreset_mode == SAME_STEP and env.num_envs == 3
    assert env.observation_space.shape == (3,) and env.action_space.shape == (1,)
    obs0, _, (obs, _rew, term, trunc, info) = scan(env, jnp.zeros((201, 3, 1)))
    assert len({tuple(np.round(np.asarray(o), 6)) for o in obs0}) == 3  # each env its own start
    trunc, term = np.asarray(trunc), np.asarray(term)
    assert not term.any() and trunc[199].all() and trunc.sum() == 3
    final = np.asarray(info["final_obs"])
    np.testing.assert_allclose(final[:199], np.asarray(obs)[:199])  # no done: final == obs
    assert not np.allclose(final[199], np.asarray(obs)[199])  # done: obs is a fresh episode
    assert "final_observation" not in info and "terminated" not in info


def test_batched_gymnax_adapter_draws_new_randomness_every_step_and_env():
    """CartPole resets draw fresh uniform states: every reset of every env differs."""
    raw, params = gymnax.make("CartPole-v1")
    env = F.from_gymnax(raw, params.replace(max_steps_in_episode=2), num_envs=4)
    _, _, (obs, *_rest) = scan(env, jnp.zeros((6, 4), jnp.int32))
    starts = np.asarray(obs)[[1, 3, 5]].reshape(-1, 4)  # the reset observations
    assert len({tuple(np.round(r, 7)) for r in starts}) == 12


def test_batched_gymnax_adapter_resets_from_a_batch_of_keys():
    env = F.from_gymnax(gymnax.make("Pendulum-v1")[0], num_envs=4)
    keys = jax.random.split(jax.random.key(0), 2)  # a shard of 2 envs
    obs, state = env.reset(keys)
    assert obs.shape == (2, 3)
    s = jax.jit(env.step)(state, jnp.zeros((2, 1)))
    assert s.obs.shape == (2, 3) and s.reward.shape == (2,)
    with pytest.raises(ValueError, match="already batched"):
        F.VmapWrapper(env, 2)
    with pytest.raises(ValueError, match="num_envs"):
        F.from_gymnax(gymnax.make("Pendulum-v1")[0], num_envs=0)


def test_gymnax_adapter_matches_raw_gymnax_on_the_same_keys():
    raw, params = gymnax.make("CartPole-v1")
    env = F.from_gymnax(raw)
    key = jax.random.key(3)
    obs, state = env.reset(key)
    k, sub = jax.random.split(key)
    obs_r, st_r = raw.reset(sub, params)
    np.testing.assert_array_equal(np.asarray(obs), np.asarray(obs_r))
    for t in range(5):
        s = env.step(state, jnp.int32(t % 2))
        out = raw.step(jax.random.fold_in(k, t), st_r, jnp.int32(t % 2), params)
        np.testing.assert_array_equal(np.asarray(s.obs), np.asarray(out[0]))
        assert float(s.reward) == float(out[2])
        state, st_r = s.state, out[1]


def test_gymnax_cartpole_terminates_and_resets():
    env = F.VmapWrapper(F.from_gymnax(gymnax.make("CartPole-v1")[0]), 4)
    assert isinstance(env.action_space, gym.spaces.Discrete) and env.action_space.n == 2
    _, _, (obs, _, term, trunc, info) = scan(env, jnp.ones((60, 4), jnp.int32))
    term = np.asarray(term)
    assert term.any() and not np.asarray(trunc).any()  # always pushing right falls over
    t, i = np.argwhere(term)[0]
    assert np.abs(np.asarray(obs)[t, i]).max() < 0.06  # a fresh episode's small state
    assert np.abs(np.asarray(info["final_obs"])[t, i]).max() > 0.2


def test_gymnax_old_five_tuple_step_api_is_an_error():
    """gymnax < 1.0's ``(obs, state, reward, done, info)`` is below the floor (gymnax>=1.0.1)."""
    raw, _ = gymnax.make("CartPole-v1")

    class Old(type(raw)):  # type: ignore[misc]
        def step(self, key, state, action, params=None):
            obs, state, reward, term, trunc, _info = super().step(key, state, action, params)
            return obs, state, reward, jnp.logical_or(term, trunc), {"discount": 1.0 - term}

    env = F.VmapWrapper(F.from_gymnax(Old()), 4)
    _, state = env.reset(jax.random.key(0))
    with pytest.raises(TypeError, match="step returned 5 values; expected 6"):
        env.step(state, jnp.ones(4, jnp.int32))


def test_gymnax_error_on_non_env():
    with pytest.raises(TypeError, match="expected a gymnax Environment"):
        F.from_gymnax(object())


@pytest.mark.parametrize("num_envs", [None, 4])
def test_gymnax_reset_refuses_what_is_not_a_key_by_name(num_envs):
    """An int reached gymnax as `'int' object has no attribute 'ndim'` (num_envs set) or
    JAX's invalid-key message (one env); a batch of keys was split as if it were one key."""
    env = F.from_gymnax(gymnax.make("Pendulum-v1")[0], num_envs=num_envs)
    for key in (0, jnp.zeros(3, jnp.uint32), jnp.zeros((2, 3), jnp.uint32)):
        with pytest.raises(TypeError, match=r"from_gymnax\(Pendulum-v1\)\.reset: expected a PRNG"):
            env.reset(key)
    keys = jax.random.split(jax.random.key(0), 4)
    if num_envs is None:
        with pytest.raises(ValueError, match=r"expected one key: the env is unbatched"):
            env.reset(keys)
    else:
        assert env.reset(keys)[0].shape == (4, 3)  # a shard's keys, one per env
    for key in (jax.random.key(0), jax.random.PRNGKey(0)):  # typed and raw keys pass
        assert env.reset(key)[0].shape == ((3,) if num_envs is None else (4, 3))


@pytest.mark.parametrize("num_envs", [True, 2.0, "4"])
def test_gymnax_num_envs_of_another_type_is_refused(num_envs):
    with pytest.raises(TypeError, match="from_gymnax: expected `num_envs` to be an int >= 1"):
        F.from_gymnax(gymnax.make("Pendulum-v1")[0], num_envs=num_envs)
    with pytest.raises(ValueError, match="from_gymnax: expected `num_envs` >= 1, got 0"):
        F.from_gymnax(gymnax.make("Pendulum-v1")[0], num_envs=0)


# ------------------------------------------------------------------------ brax
def test_brax_bare_env_with_anywrap_autoreset():
    envs = pytest.importorskip("brax.envs")
    from brax.envs.wrappers.training import EpisodeWrapper

    env = F.from_brax(EpisodeWrapper(envs.get_environment("fast"), 4, 1))
    assert env.num_envs is None and env.autoreset_mode == gym.vector.AutoresetMode.DISABLED
    assert env.observation_space.shape == (2,) and env.action_space.shape == (1,)
    env = F.NormalizeObservation(F.RecordEpisodeStatistics(F.VmapWrapper(F.AutoReset(env), 2)))
    _, _, (_obs, _rew, term, trunc, info) = scan(env, jnp.ones((9, 2, 1)))
    trunc = np.asarray(trunc)
    np.testing.assert_array_equal(trunc[:, 0], [0, 0, 0, 1, 0, 0, 0, 1, 0])
    assert not np.asarray(term).any()
    np.testing.assert_array_equal(np.asarray(info["episode"]["l"])[3], [4, 4])
    assert np.all(np.isnan(np.asarray(info["episode"]["r"])[:3]))


def test_brax_create_detects_batch_and_autoreset():
    envs = pytest.importorskip("brax.envs")
    env = F.from_brax(envs.create("fast", episode_length=3, batch_size=4, auto_reset=True))
    assert env.num_envs == 4 and env.autoreset_mode == SAME_STEP
    _, _, (obs, _rew, _term, trunc, _) = scan(F.ClipAction(env), jnp.ones((4, 4, 1)))
    np.testing.assert_array_equal(np.asarray(trunc)[:, 0], [0, 0, 1, 0])
    np.testing.assert_array_equal(np.asarray(obs)[2], 0.0)  # reset to Fast's start


# --------------------------------------------------------- Gymnasium FuncEnv
def test_func_env_pendulum_time_limit_and_autoreset():
    from gymnasium.envs.phys2d.pendulum import PendulumFunctional

    func = PendulumFunctional()
    env = F.VmapWrapper(F.AutoReset(F.from_func_env(func, max_episode_steps=5)), 3)
    assert env.autoreset_mode == SAME_STEP
    assert env.observation_space == func.observation_space
    _, _, (obs, rew, _term, trunc, info) = scan(env, jnp.zeros((11, 3, 1)))
    np.testing.assert_array_equal(np.asarray(trunc)[:, 0], [0, 0, 0, 0, 1] * 2 + [0])
    assert np.all(np.asarray(rew) <= 0.0)
    final, obs = np.asarray(info["final_obs"]), np.asarray(obs)
    assert not np.allclose(final[4], obs[4]) and np.allclose(final[3], obs[3])


def test_func_env_error_on_non_func_env():
    with pytest.raises(TypeError, match="expected a gymnasium FuncEnv"):
        F.from_func_env(object())


@pytest.mark.parametrize("steps", ["200", 2.5, True, -1])
def test_func_env_max_episode_steps_is_checked_when_built(steps):
    """A string failed at the first step with a comparison error; 2.5 truncated after 3."""
    from gymnasium.envs.phys2d.pendulum import PendulumFunctional

    error = ValueError if steps == -1 else TypeError
    with pytest.raises(error, match=r"from_func_env: expected `max_episode_steps`"):
        F.from_func_env(PendulumFunctional(), max_episode_steps=steps)
