"""The six functional wrappers: compile whole, share statistics, report honestly."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest
from helpers import moments_with_prior

jax = pytest.importorskip("jax")
gymnax = pytest.importorskip("gymnax")
import jax.numpy as jnp  # noqa: E402

from anywrap import functional as F  # noqa: E402
from anywrap.transforms.moments import total_count  # noqa: E402

N = 8


def pendulum(n: int | None = N) -> F.FunctionalEnv:
    env = F.from_gymnax(gymnax.make("Pendulum-v1")[0])
    return env if n is None else F.VmapWrapper(env, n)


def six(env: F.FunctionalEnv) -> F.FunctionalEnv:
    env = F.RecordEpisodeStatistics(env)
    env = F.ClipAction(env)
    env = F.NormalizeObservation(env)
    env = F.TransformObservation(env, lambda o: jnp.clip(o, -5.0, 5.0))
    env = F.NormalizeReward(env)
    return F.TransformReward(env, lambda r: jnp.clip(r, -5.0, 5.0))


def rollout(env, steps, key=0, n=N, action_scale=3.0):
    """A whole jitted lax.scan rollout with random actions; returns (state, per-step outputs)."""

    def body(state, k):
        a = jax.random.uniform(k, (n, 1), minval=-action_scale, maxval=action_scale)
        s = env.step(state, a)
        return s.state, (s.obs, s.reward, s.terminated, s.truncated, s.info)

    @jax.jit
    def run(key):
        k0, k1 = jax.random.split(key)
        obs, state = env.reset(k0)
        state, out = jax.lax.scan(body, state, jax.random.split(k1, steps))
        return obs, state, out

    return run(jax.random.key(key))


def test_six_wrapper_stack_compiles_whole_and_runs():
    env = six(pendulum())
    obs0, state, (obs, rew, _term, _trunc, info) = rollout(env, 30)
    assert obs0.shape == (N, 3) and obs.shape == (30, N, 3) and rew.shape == (30, N)
    assert obs.dtype == jnp.float32
    assert float(jnp.max(jnp.abs(obs))) <= 5.0 and float(jnp.max(jnp.abs(rew))) <= 5.0
    assert set(info) >= {"episode", "_episode", "final_obs"}
    assert isinstance(env.observation_space, gym.spaces.Box)
    assert env.observation_space.dtype == np.float32
    assert np.all(np.isinf(env.action_space.high))
    # the whole stack's state is one pytree: wrapper states nest
    assert isinstance(state, F.NormalizeRewardState)
    F.find_state(state, F.NormalizeObservationState)
    F.find_state(state, F.EpisodeStatisticsState)
    with pytest.raises(LookupError, match="AutoResetState"):
        F.find_state(state, F.AutoResetState)


def raw_observations(steps: int, key: int = 0) -> np.ndarray:
    """Observations (reset + each step) of the bare batched env on the rollout's keys."""
    obs0, _, (obs, *_rest) = rollout(pendulum(), steps, key)
    return np.concatenate([np.asarray(obs0)[None], np.asarray(obs)])


def test_normalize_observation_shares_one_set_of_moments_across_the_batch():
    steps = 50
    _, state, _ = rollout(F.NormalizeObservation(pendulum()), steps)
    m = F.find_state(state, F.NormalizeObservationState).obs_stats
    assert m.mean.shape == (3,)  # one set for the batch, not one per env
    mean, var, count = moments_with_prior(raw_observations(steps).reshape(-1, 3))
    assert float(total_count(m)) == pytest.approx(count)
    np.testing.assert_allclose(np.asarray(m.mean), mean, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(np.asarray(m.var), var, rtol=2e-5)


def test_normalize_observation_output_uses_updated_moments_and_final_obs_too():
    """Each step's output is normalised with the moments of every observation so far,
    this step's included (the float64 closed form over the bare env's observations)."""
    env = F.NormalizeObservation(pendulum())
    obs0, _, (obs, _, _, _, info) = rollout(env, 3)
    raw = raw_observations(3)
    for t, out in enumerate([obs0, *obs]):
        mean, var, _ = moments_with_prior(raw[: t + 1].reshape(-1, 3))
        expect = (raw[t] - mean) / np.sqrt(var + 1e-8)
        np.testing.assert_allclose(np.asarray(out), expect, rtol=1e-5, atol=1e-5, err_msg=t)
    # no episode ended: final_obs is the raw observation, normalised the same way
    np.testing.assert_allclose(np.asarray(info["final_obs"][-1]), expect, rtol=1e-5, atol=1e-5)


def test_update_running_mean_false_freezes_statistics():
    env = F.NormalizeObservation(pendulum(), update_running_mean=False)
    _, state, _ = rollout(env, 5)
    m = F.find_state(state, F.NormalizeObservationState).obs_stats
    np.testing.assert_array_equal(np.asarray(m.mean), 0.0)
    np.testing.assert_array_equal(np.asarray(m.var), 1.0)


def test_vmap_with_axis_name_shares_statistics_like_a_batched_env():
    """vmap of an unbatched wrapped env with axis_name == the batched wrapper."""
    steps = 20
    single = F.NormalizeReward(F.NormalizeObservation(pendulum(None), axis_name="e"), axis_name="e")

    def body(state, k):
        a = jax.random.uniform(k, (N, 1), minval=-3.0, maxval=3.0)
        s = jax.vmap(single.step, axis_name="e")(state, a)
        return s.state, (s.obs, s.reward)

    @jax.jit
    def run(key):
        k0, k1 = jax.random.split(key)
        _, state = jax.vmap(single.reset, axis_name="e")(jax.random.split(k0, N))
        return jax.lax.scan(body, state, jax.random.split(k1, steps))

    state_v, (obs_v, rew_v) = run(jax.random.key(0))
    batched = F.NormalizeReward(F.NormalizeObservation(pendulum()))
    _, state_b, (obs_b, rew_b, *_r) = rollout(batched, steps)
    np.testing.assert_allclose(np.asarray(obs_v), np.asarray(obs_b), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(np.asarray(rew_v), np.asarray(rew_b), rtol=1e-5, atol=1e-6)
    mv = F.find_state(state_v, F.NormalizeObservationState).obs_stats
    mb = F.find_state(state_b, F.NormalizeObservationState).obs_stats
    assert mv.mean.shape == (N, 3)  # one identical copy per env
    np.testing.assert_allclose(np.asarray(mv.mean), np.broadcast_to(mb.mean, (N, 3)), rtol=1e-5)


def test_normalize_reward_matches_discounted_return_variance():
    steps, gamma = 60, 0.9
    env = F.NormalizeReward(pendulum(), gamma=gamma)
    _, state, (_, scaled, term, trunc, _) = rollout(env, steps)
    _, _, (_, raw, *_r) = rollout(pendulum(), steps)
    raw = np.asarray(raw, dtype=np.float64)
    g = np.zeros(N)
    gs = []
    for t in range(steps):  # no episode ends in 60 steps of Pendulum
        g = gamma * g + raw[t]
        gs.append(g.copy())
    assert not np.any(np.asarray(term) | np.asarray(trunc))
    _, var, _ = moments_with_prior(np.concatenate(gs))  # float64 closed form
    r = F.find_state(state, F.NormalizeRewardState).returns
    np.testing.assert_allclose(float(r.rms.var), var, rtol=2e-5)
    np.testing.assert_allclose(np.asarray(scaled[-1]), raw[-1] / np.sqrt(var + 1e-8), rtol=1e-5)


def test_record_episode_statistics_reports_nan_not_zeros_before_first_episode():
    env = F.RecordEpisodeStatistics(pendulum(), buffer_length=5)
    _, state, (_, _, _, _, info) = rollout(env, 20)
    assert not bool(jnp.any(info["_episode"]))
    assert bool(jnp.all(jnp.isnan(info["episode"]["r"])))
    _, _, valid = F.recent_episodes(state)
    assert not bool(jnp.any(valid))
    _, _, last_valid = F.last_episodes(state)
    assert last_valid.shape == (N,) and not bool(jnp.any(last_valid))


def test_record_episode_statistics_returns_and_lengths():
    steps = 205  # Pendulum truncates at 200
    env = F.RecordEpisodeStatistics(pendulum(), buffer_length=2 * N)
    _, state, (_, rew, _, trunc, info) = rollout(env, steps)
    done = np.asarray(info["_episode"])
    assert done.sum() == N and np.all(done[199]) and np.all(np.asarray(trunc)[199])
    r = np.asarray(info["episode"]["r"])
    np.testing.assert_allclose(r[199], np.asarray(rew, np.float64)[:200].sum(0), rtol=1e-5)
    assert np.all(np.isnan(r[~done]))
    np.testing.assert_array_equal(np.asarray(info["episode"]["l"])[199], 200)
    returns, _lengths, valid = F.recent_episodes(state)
    assert int(valid.sum()) == N
    # newest first: the highest env index ended last (Gymnasium's order)
    np.testing.assert_allclose(np.asarray(returns)[:N], r[199][::-1], rtol=1e-6)
    last_r, last_l, last_valid = F.last_episodes(state)
    assert bool(jnp.all(last_valid))
    np.testing.assert_allclose(np.asarray(last_r), r[199], rtol=1e-6)
    np.testing.assert_array_equal(np.asarray(last_l), 200)


class Staggered:
    """A batch of 2 envs whose episodes last 3 and 5 steps; reward = step number."""

    observation_space = gym.spaces.Box(-np.inf, np.inf, (1,), np.float32)
    action_space = gym.spaces.Box(-1.0, 1.0, (1,), np.float32)
    num_envs = 2
    autoreset_mode = gym.vector.AutoresetMode.SAME_STEP
    limits = jnp.array([3, 5])

    def reset(self, key):
        return jnp.zeros((2, 1)), jnp.zeros(2, jnp.int32)

    def step(self, t, action):
        t = t + 1
        done = t == self.limits
        obs = t[:, None].astype(jnp.float32)
        return F.Step(obs, jnp.where(done, 0, t), t.astype(jnp.float32), done, done & False, {})


def test_last_episodes_keep_each_envs_latest_episode_with_staggered_ends():
    env = F.RecordEpisodeStatistics(Staggered())
    _, state = env.reset(jax.random.key(0))
    valid_seen = []
    for _ in range(8):  # env 0 ends after steps 3 and 6; env 1 after step 5
        state = jax.jit(env.step)(state, jnp.zeros((2, 1))).state
        valid_seen.append(np.asarray(F.last_episodes(state)[2]))
    returns, lengths, _ = F.last_episodes(state)
    np.testing.assert_array_equal(np.stack(valid_seen)[:, 0], [0, 0, 1, 1, 1, 1, 1, 1])
    np.testing.assert_array_equal(np.stack(valid_seen)[:, 1], [0, 0, 0, 0, 1, 1, 1, 1])
    np.testing.assert_array_equal(np.asarray(lengths), [3, 5])
    np.testing.assert_allclose(np.asarray(returns), [1 + 2 + 3, 1 + 2 + 3 + 4 + 5])


def test_recent_episodes_needs_a_buffer():
    env = F.RecordEpisodeStatistics(pendulum(), buffer_length=0)
    _, state = env.reset(jax.random.key(0))
    with pytest.raises(ValueError, match="buffer_length=0"):
        F.recent_episodes(state)
    with pytest.raises(ValueError, match="buffer_length"):
        F.RecordEpisodeStatistics(pendulum(), buffer_length=-1)


def test_clip_action_clips_before_the_env():
    env = F.ClipAction(pendulum())
    _, _, (obs_c, rew_c, *_a) = rollout(env, 10, action_scale=10.0)
    bare = pendulum()

    def body(state, k):
        a = jax.random.uniform(k, (N, 1), minval=-10.0, maxval=10.0)
        s = bare.step(state, jnp.clip(a, -2.0, 2.0))
        return s.state, (s.obs, s.reward)

    k0, k1 = jax.random.split(jax.random.key(0))
    _, state = bare.reset(k0)
    _, (obs_b, rew_b) = jax.lax.scan(body, state, jax.random.split(k1, 10))
    np.testing.assert_allclose(np.asarray(obs_c), np.asarray(obs_b), rtol=1e-6)
    np.testing.assert_allclose(np.asarray(rew_c), np.asarray(rew_b), rtol=1e-6)


def test_transform_wrappers_apply_func_to_obs_final_obs_and_reward():
    env = F.AutoReset(F.from_func_env(_cartpole(), max_episode_steps=3))
    env = F.TransformReward(
        F.TransformObservation(F.VmapWrapper(env, 2), lambda o: o * 0 + 7), lambda r: r - 1
    )
    _, _, (obs, rew, _, _trunc, info) = rollout(env, 3, n=2, action_scale=1.0)
    np.testing.assert_array_equal(np.asarray(obs), 7.0)
    np.testing.assert_array_equal(np.asarray(info["final_obs"]), 7.0)
    np.testing.assert_array_equal(np.asarray(rew), 0.0)  # CartPole pays 1 per step


def _cartpole():
    from gymnasium.envs.phys2d.cartpole import CartPoleFunctional

    class IntAction(CartPoleFunctional):
        def transition(self, state, action, rng=None, params=None):
            return super().transition(state, (action > 0).astype(jnp.int32).squeeze(), rng, params)

    return IntAction()


def test_normalize_observation_on_unbatched_env():
    env = F.NormalizeObservation(pendulum(None))
    obs, state = env.reset(jax.random.key(0))
    assert obs.shape == (3,)
    s = jax.jit(env.step)(state, jnp.ones((1,)))
    assert s.obs.shape == (3,)
    assert float(total_count(s.state.obs_stats)) == pytest.approx(2 + 1e-4)


def test_bad_inputs_fail_loudly():
    with pytest.raises(TypeError, match="ClipAction: expected a Box"):
        F.ClipAction(F.VmapWrapper(F.from_gymnax(gymnax.make("CartPole-v1")[0]), 2))
    with pytest.raises(ValueError, match="already batched"):
        F.VmapWrapper(pendulum(), 2)
    with pytest.raises(TypeError, match="expected a functional env"):
        F.NormalizeObservation(gym.make("Pendulum-v1"))  # type: ignore[arg-type]
    with pytest.raises(gym.error.InvalidBound, match="NormalizeReward: `gamma`"):
        F.NormalizeReward(pendulum(), gamma=1.5)
    with pytest.raises(gym.error.InvalidBound, match="NormalizeObservation: `epsilon`"):
        F.NormalizeObservation(pendulum(), epsilon=-1)  # NaN observations before the check
    with pytest.raises(ValueError, match="already resets itself"):
        F.AutoReset(pendulum(None))
    with pytest.raises(TypeError, match="func must be callable"):
        F.TransformReward(pendulum(), 3)  # type: ignore[arg-type]


@pytest.mark.parametrize("consumer", ["sum", "trajectory"])
def test_functional_bench_runs_all_three_rollouts(consumer):
    pytest.importorskip("brax")
    from anywrap.bench import functional_bench

    res = functional_bench.run(num_envs=8, steps=5, reps=1, consumer=consumer)
    assert res["consumer"] == consumer
    for case in ("bare", "anywrap", "peer"):
        assert res[f"{case}_steps_per_s"] > 0
    with pytest.raises(ValueError, match="consumer"):
        functional_bench.run(num_envs=8, steps=5, reps=1, consumer="mean")


def test_functional_bench_ratios_are_medians_of_within_round_ratios(monkeypatch):
    """Scripted timings: round r takes (1 + r) x the case's base time, so each
    within-round ratio is exact while the medians of raw times would not pair up."""
    from anywrap.bench import functional_bench as fb

    base = {"bare": 1.0, "anywrap": 1.25, "peer": 1.0 / 0.8}
    for name in base:
        monkeypatch.setattr(fb, f"_{name}", lambda n, s, c, name=name: (name, None))
    calls: list[str] = []

    def fake_time(fn, carry):
        calls.append(fn)
        return base[fn] * (1 + (len(calls) - 1) // 3)  # each round slower than the last

    monkeypatch.setattr(fb, "_time", fake_time)
    res = fb.run(num_envs=4, steps=10, reps=3)
    assert calls[6:9] == ["bare", "anywrap", "peer"]  # round 0 (after two warm-ups each)
    assert calls[9:12] == ["anywrap", "peer", "bare"]  # round 1: the order rotates
    assert res["anywrap_vs_bare"] == pytest.approx(0.8)
    assert res["peer_vs_bare"] == pytest.approx(0.8)
    assert res["anywrap_vs_peer"] == pytest.approx(1.0)
