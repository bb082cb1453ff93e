"""from_brax on Brax and MuJoCo Playground envs as their users have them, and AutoReset's
two ways to start an episode, against Brax's own wrappers."""

from __future__ import annotations

import numpy as np
import pytest

jax = pytest.importorskip("jax")
envs = pytest.importorskip("brax.envs")
import jax.numpy as jnp  # noqa: E402
from brax.envs.wrappers import training  # noqa: E402
from brax_envs import Drift, raw_keys  # noqa: E402
from functional_envs import cleanrl_stack  # noqa: E402
from gymnasium.vector import AutoresetMode  # noqa: E402

from anywrap import functional as F  # noqa: E402

N, T, L = 4, 7, 3


def brax_rollout(env, keys, actions):
    """Brax's own env stepped over ``actions``: (obs, reward, done, truncation) per step."""

    @jax.jit
    def run(keys, actions):
        def body(state, a):
            state = env.step(state, a)
            return state, (state.obs, state.reward, state.done, state.info["truncation"])

        return jax.lax.scan(body, env.reset(keys), actions)[1]

    return run(keys, actions)


def anywrap_rollout(env, key, actions):
    @jax.jit
    def run(key, actions):
        def body(state, a):
            s = env.step(state, a)
            return s.state, (s.obs, s.reward, s.terminated, s.truncated, s.info)

        obs, state = env.reset(key)
        return obs, jax.lax.scan(body, state, actions)[1]

    return run(key, actions)


def actions(seed=1):
    return jax.random.uniform(jax.random.key(seed), (T, N, 1), minval=-1.0, maxval=1.0)


# ------------------------------------------------------------- from_brax's forms
@pytest.mark.parametrize("num_envs", [None, N], ids=["as-it-is", "num_envs"])
def test_training_wrap_steps_as_brax_does(num_envs):
    """brax.envs.training.wrap's vmap has no batch_size: taken as it is, the reset keys
    set the batch; with num_envs, one key is split into that many."""
    wrapped = envs.training.wrap(Drift(), episode_length=L)
    env = F.from_brax(wrapped, num_envs=num_envs)
    assert env.num_envs == num_envs and env.batched
    assert env.autoreset_mode == AutoresetMode.SAME_STEP
    keys = raw_keys(0, N)
    ref_obs, ref_rew, ref_done, ref_trunc = brax_rollout(wrapped, keys, actions())
    # a batch of keys, as ppo.train passes them, raw or typed: the same envs as Brax's
    for k in (keys, jax.random.wrap_key_data(keys)):
        _, (obs, rew, term, trunc, _) = anywrap_rollout(env, k, actions())
        np.testing.assert_allclose(obs, ref_obs, rtol=1e-6)  # XLA may fuse differently
        np.testing.assert_allclose(rew, ref_rew, rtol=1e-6)
        np.testing.assert_array_equal(trunc, ref_trunc.astype(bool) & ref_done.astype(bool))
        np.testing.assert_array_equal(term | trunc, ref_done.astype(bool))
    assert np.asarray(trunc)[L - 1].any() and np.asarray(term).any()  # both kinds of ends
    if num_envs is None:  # one key: the size is unknown, and the error says what to pass
        with pytest.raises(ValueError, match=r"expected a batch of keys.*got one key.*num_envs"):
            env.reset(jax.random.key(3))
        with pytest.raises(ValueError, match=r"to_vector_env: .*reset keys: pass num_envs"):
            F.to_vector_env(env)
    else:  # one key is split into num_envs keys
        obs, _ = env.reset(jax.random.key(3))
        assert obs.shape == (N, 3) and len({tuple(np.asarray(o)) for o in obs}) == N


def test_a_batch_of_unknown_size_is_batched_through_the_stack():
    """The wrappers over from_brax(training.wrap(env)) treat it as a batch (not as one
    env), VmapWrapper refuses it, and shard_specs reads the batch off the state."""
    env = cleanrl_stack(F.from_brax(envs.training.wrap(Drift(), episode_length=L)))
    assert env.num_envs is None and env.batched and F.batch_ndim(env) == 1
    with pytest.raises(ValueError, match="VmapWrapper: the env is already batched"):
        F.VmapWrapper(F.from_brax(envs.training.wrap(Drift(), episode_length=L)), 2)
    obs, state = env.reset(raw_keys(0, N))
    assert obs.shape == (N, 3)
    obs_stats = F.find_state(state, F.NormalizeObservationState).obs_stats
    assert obs_stats.mean.shape == (3,)  # statistics of the batch, not one per env
    specs = F.shard_specs(env, state, "d")
    P = jax.sharding.PartitionSpec
    assert F.find_state(specs, F.NormalizeObservationState).obs_stats.mean == P()
    last = F.find_state(specs, F.EpisodeStatisticsState).last  # each env's last episode
    last = jax.tree.leaves(last, is_leaf=lambda x: isinstance(x, P))
    assert last and all(spec == P("d") for spec in last)


def test_create_with_batch_size_is_read_and_takes_one_key():
    env = F.from_brax(envs.create("fast", episode_length=L, batch_size=N, auto_reset=True))
    assert env.num_envs == N and env.autoreset_mode == AutoresetMode.SAME_STEP
    assert env.reset(jax.random.PRNGKey(0))[0].shape == (N, 2)
    with pytest.raises(ValueError, match=r"reset: expected one key.*got a batch of 4 keys"):
        env.reset(jax.random.split(jax.random.key(0), N))
    with pytest.raises(ValueError, match=r"num_envs=3, but .* holds a batch of 4"):
        F.from_brax(envs.create("fast", batch_size=N), num_envs=3)


def test_domain_randomisation_batch_is_read_from_the_model():
    def randomize(sys):  # five gains, one per env
        return {"gain": jnp.linspace(0.1, 0.5, 5)}, {"gain": 0}

    wrapped = envs.training.wrap(Drift(), episode_length=L, randomization_fn=randomize)
    env = F.from_brax(wrapped)
    assert env.num_envs == 5
    obs, state = env.reset(jax.random.key(0))
    moved = env.step(state, jnp.ones((5, 1))).obs - obs
    np.testing.assert_allclose(moved[:, 0], np.linspace(0.1, 0.5, 5), rtol=1e-5)


def test_bare_env_is_one_env_and_num_envs_is_refused():
    env = F.from_brax(Drift())
    assert env.num_envs is None and env.autoreset_mode == AutoresetMode.DISABLED
    with pytest.raises(ValueError, match=r"num_envs=3, but Drift is not batched"):
        F.from_brax(Drift(), num_envs=3)
    with pytest.raises(ValueError, match=r"expected one key: the env is unbatched"):
        env.reset(raw_keys(0, 2))


@pytest.mark.parametrize(
    "key",
    [jnp.zeros(3), jnp.zeros((2, 2), jnp.float32), jax.random.split(jax.random.key(0), (2, 2))],
    ids=["float", "float-pairs", "typed-2d"],
)
def test_a_wrong_key_is_refused_naming_what_was_expected(key):
    env = F.from_brax(envs.training.wrap(Drift(), episode_length=L), num_envs=N)
    with pytest.raises(TypeError, match=r"from_brax\(AutoResetWrapper\)\.reset: expected a PRNG"):
        env.reset(key)
    with pytest.raises(ValueError, match="num_envs must be a positive int"):
        F.from_brax(Drift(), num_envs=0)


# ------------------------------------------------------------------- AutoReset
def test_cached_autoreset_steps_as_brax_autoreset_wrapper():
    """Brax's training wrappers (vmap, episode, cached autoreset) and anywrap's
    VmapWrapper(AutoReset(..., full_reset=False)) give the same obs, rewards and ends
    from the same keys, with the final observations on top."""
    keys = raw_keys(0, N)
    ref_obs, ref_rew, ref_done, _ = brax_rollout(
        envs.training.wrap(Drift(), episode_length=L), keys, actions()
    )
    env = F.VmapWrapper(
        F.AutoReset(F.from_brax(training.EpisodeWrapper(Drift(), L, 1)), full_reset=False), N
    )
    first, (obs, rew, term, trunc, info) = anywrap_rollout(env, keys, actions())
    np.testing.assert_allclose(obs, ref_obs, rtol=1e-6)  # vmap inside vs outside: XLA's fusions
    np.testing.assert_allclose(rew, ref_rew, rtol=1e-6)
    np.testing.assert_array_equal(term | trunc, ref_done.astype(bool))
    done = np.asarray(term | trunc)
    t, i = np.argwhere(done)[0]
    np.testing.assert_array_equal(obs[t, i], first[i])  # the cached first state
    assert not np.array_equal(info["final_obs"][t, i], obs[t, i])
    np.testing.assert_array_equal(info["final_obs"][~done], np.asarray(obs)[~done])


def test_full_autoreset_over_a_batch_of_per_env_keys_is_the_vmap_of_autoreset():
    """AutoReset over Brax's VmapWrapper without batch_size (one key per env) splits each
    env's key as VmapWrapper(AutoReset(one env)) does: the same episodes from the same keys,
    fresh starts included."""
    over_batch = F.AutoReset(
        F.from_brax(training.VmapWrapper(training.EpisodeWrapper(Drift(), L, 1)))
    )
    per_env = F.VmapWrapper(F.AutoReset(F.from_brax(training.EpisodeWrapper(Drift(), L, 1))), N)
    assert over_batch.num_envs is None and over_batch.batched
    keys = jax.random.split(jax.random.key(0), N)
    got, want = (anywrap_rollout(env, keys, actions()) for env in (over_batch, per_env))
    for a, b in zip(jax.tree.leaves(got), jax.tree.leaves(want), strict=True):
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-6)
    first, (obs, _, _, trunc, _) = got
    assert np.asarray(trunc)[L - 1].all()
    assert not np.isclose(np.asarray(obs)[L - 1], np.asarray(first)).all(axis=-1).any()


def test_sticky_action_over_a_batch_of_per_env_keys():
    """StickyAction takes the keys Brax's trainers pass (one per env): the env gets one
    per env, and the wrapper draws from the first env's."""
    n = 1000
    env = F.StickyAction(
        F.from_brax(envs.training.wrap(Drift(), episode_length=L)), repeat_action_probability=0.25
    )
    _, state = env.reset(raw_keys(0, n))
    state = env.step(state, jnp.zeros((n, 1))).state
    state = env.step(state, jnp.ones((n, 1))).state
    repeated = float((state.sticky.last[:, 0] == 0).mean())  # the first action, sent again
    assert 0.2 < repeated < 0.3, repeated


def test_full_autoreset_draws_a_fresh_start():
    env = F.VmapWrapper(F.AutoReset(F.from_brax(training.EpisodeWrapper(Drift(), L, 1))), N)
    first, (obs, _, _, trunc, _) = anywrap_rollout(env, jax.random.key(0), jnp.zeros((T, N, 1)))
    assert np.asarray(trunc)[L - 1].all()
    starts = np.asarray(obs)[L - 1]  # every env restarted on step L
    assert not np.isclose(starts, np.asarray(first)).all(axis=-1).any()
    with pytest.raises(
        TypeError, match=r"functional\.AutoReset: expected `full_reset` to be a bool"
    ):
        F.AutoReset(F.from_brax(Drift()), full_reset="no")


def test_cleanrl_stack_over_the_training_wrap_keeps_brax_rewards_in_its_statistics():
    wrapped = envs.training.wrap(Drift(), episode_length=L)
    env = cleanrl_stack(F.from_brax(wrapped))
    _, ref_rew, ref_done, _ = brax_rollout(wrapped, raw_keys(0, N), actions())
    _, (obs, _, _, _, info) = anywrap_rollout(env, raw_keys(0, N), actions())
    # the episode returns are sums of Brax's own rewards
    ret = np.zeros(N)
    want = []
    for t in range(T):
        ret += np.asarray(ref_rew[t])
        done = np.asarray(ref_done[t]).astype(bool)
        want.append(np.where(done, ret, np.nan))
        ret[done] = 0.0
    np.testing.assert_allclose(info["episode"]["r"], np.array(want), rtol=1e-6)
    assert np.abs(np.asarray(obs)).max() <= 5.0  # normalised and clipped


# ------------------------------------------------------------------ Playground
@pytest.mark.slow
def test_playground_wrap_for_brax_training():
    """MuJoCo Playground's CartpoleBalance (MJX-JAX impl) wrapped for Brax training."""
    registry = pytest.importorskip("mujoco_playground").registry
    from mujoco_playground import wrapper

    env = registry.load("CartpoleBalance", config_overrides={"impl": "jax"})
    wrapped = wrapper.wrap_for_brax_training(env, episode_length=L)
    adapted = F.from_brax(wrapped)  # as it is: the reset keys set the batch
    with pytest.raises(ValueError, match=r"BraxAutoResetWrapper > EpisodeWrapper.*num_envs"):
        adapted.reset(jax.random.key(0))
    assert adapted.autoreset_mode == AutoresetMode.SAME_STEP
    assert adapted.observation_space.shape == (5,)
    keys = raw_keys(0, N)
    _, ref_rew, ref_done, _ = brax_rollout(wrapped, keys, actions())
    _, (_, rew, term, trunc, _) = anywrap_rollout(adapted, keys, actions())
    np.testing.assert_allclose(rew, ref_rew, rtol=1e-6)
    np.testing.assert_array_equal(term | trunc, np.asarray(ref_done).astype(bool))
    assert np.asarray(trunc)[L - 1].all()
