"""BraxTraining: an anywrap stack as the env of Brax's trainers, its evaluation env and
the deployed policy seeing the training statistics. References come from Brax: its own
training wrappers stepped with the same keys, its EvalWrapper, its normaliser."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

jax = pytest.importorskip("jax")
envs = pytest.importorskip("brax.envs")
import jax.numpy as jnp  # noqa: E402
from brax.envs.wrappers.training import EvalWrapper  # noqa: E402
from brax.training.acme import running_statistics  # noqa: E402
from brax_envs import Drift, raw_keys  # noqa: E402

from anywrap import functional as F  # noqa: E402

N, L, T = 4, 5, 12


def stack(env):
    env = F.RecordEpisodeStatistics(env)
    env = F.NormalizeObservation(env)
    env = F.TransformObservation(env, lambda o: jnp.clip(o, -10.0, 10.0))
    env = F.NormalizeReward(env, gamma=0.9)
    return F.TransformReward(env, lambda r: jnp.clip(r, -10.0, 10.0))


def actions():
    return jax.random.uniform(jax.random.key(1), (T, N, 1), minval=-1.0, maxval=1.0)


def on_one_device(fn, *args):
    """``fn`` under a pmap of one device with Brax's axis name, as ppo.train runs it."""
    out = jax.pmap(fn, axis_name=F.BRAX_AXIS)(*(jax.tree.map(lambda x: x[None], a) for a in args))
    return jax.tree.map(lambda x: x[0], out)


def rollout(env, keys, acts, *, pmapped):
    def run(keys, acts):
        def body(state, a):
            state = env.step(state, a)
            return state, state

        first = env.reset(keys)
        last, states = jax.lax.scan(body, first, acts)
        return first, last, states

    return on_one_device(run, keys, acts) if pmapped else jax.jit(run)(keys, acts)


def test_the_evaluation_env_steps_as_brax_does_in_the_envs_own_units():
    training = F.BraxTraining(stack)
    eval_env = training(training.eval_env(Drift()), episode_length=L)
    assert "Reward" not in repr(eval_env.stack)  # no reward wrapper left
    ref = envs.training.wrap(Drift(), episode_length=L)
    keys = raw_keys(0, N)
    first, _, states = rollout(eval_env, keys, actions(), pmapped=False)
    ref_first = ref.reset(keys)

    def ref_body(state, a):
        state = ref.step(state, a)
        return state, state

    _, ref_states = jax.lax.scan(ref_body, ref_first, actions())
    np.testing.assert_allclose(states.reward, ref_states.reward, rtol=1e-6)
    np.testing.assert_array_equal(states.done, ref_states.done)
    np.testing.assert_array_equal(states.info["truncation"], ref_states.info["truncation"])
    np.testing.assert_array_equal(states.info["steps"], ref_states.info["steps"])
    np.testing.assert_allclose(
        states.info["episode_metrics"]["sum_reward"],
        ref_states.info["episode_metrics"]["sum_reward"],
        rtol=1e-6,
    )
    assert first.obs.shape == (N, 3) and sorted(first.info) == [
        "episode_done",
        "episode_metrics",
        "steps",
        "truncation",
    ]


def test_brax_eval_wrapper_sums_the_envs_own_rewards():
    training = F.BraxTraining(stack)
    eval_env = EvalWrapper(training(training.eval_env(Drift()), episode_length=L))
    keys = raw_keys(0, N)
    _, last, _ = rollout(eval_env, keys, actions(), pmapped=False)
    ref = EvalWrapper(envs.training.wrap(Drift(), episode_length=L))

    def ref_body(state, a):
        state = ref.step(state, a)
        return state, state

    ref_last, _ = jax.lax.scan(ref_body, ref.reset(keys), actions())
    got, want = last.info["eval_metrics"], ref_last.info["eval_metrics"]
    np.testing.assert_allclose(
        got.episode_metrics["reward"], want.episode_metrics["reward"], rtol=1e-6
    )
    np.testing.assert_array_equal(got.episode_steps, want.episode_steps)
    np.testing.assert_array_equal(got.active_episodes, want.active_episodes)


def test_training_normalises_under_brax_pmap_and_evaluation_deploys_its_statistics():
    training = F.BraxTraining(stack, publish_every=4)
    train_env = training(Drift(), episode_length=L)
    keys = raw_keys(0, N)
    _, last, states = rollout(train_env, keys, actions(), pmapped=True)
    jax.effects_barrier()
    # sent after steps 4, 8 and 12: the last is the training's last step's statistics
    stats = F.find_state(last.pipeline_state.stack, F.NormalizeObservationState).obs_stats
    count = float(np.asarray(stats.count) + np.asarray(stats.count_lo))
    assert count == pytest.approx(N * (T + 1) + 1e-4)
    for a, b in zip(jax.tree.leaves(training.obs_stats), jax.tree.leaves(stats)):
        np.testing.assert_array_equal(a, np.asarray(b))
    # the training rewards are scaled: not the env's own, -dist
    assert not np.allclose(states.reward, -states.metrics["dist"], rtol=0.05)

    # the training's own normalised observation of its last step, replayed on the raw one
    raw_obs = last.pipeline_state.stack
    while hasattr(raw_obs, "inner"):
        raw_obs = raw_obs.inner
    deployed = training.observation_fn(stats)
    np.testing.assert_allclose(deployed(raw_obs.obs), last.obs, rtol=1e-6, atol=1e-6)

    # an evaluation starts from the statistics sent, and keeps them
    eval_env = training(training.eval_env(Drift()), episode_length=L)
    _, eval_last, eval_states = rollout(eval_env, raw_keys(5, N), actions(), pmapped=False)
    got = F.find_state(eval_last.pipeline_state.stack, F.NormalizeObservationState).obs_stats
    for a, b in zip(jax.tree.leaves(got), jax.tree.leaves(stats)):
        np.testing.assert_array_equal(np.asarray(a), np.asarray(b))
    inner = eval_states.pipeline_state.stack
    while hasattr(inner, "inner"):
        inner = inner.inner
    np.testing.assert_allclose(
        training.observation_fn()(inner.obs), eval_states.obs, rtol=1e-6, atol=1e-6
    )
    # the deployed policy's input is that observation
    seen = []

    def make_policy(params, deterministic=False):
        def policy(obs, key):
            seen.append(obs)
            return jnp.zeros((obs.shape[0], 1)), {}

        return policy

    training.make_policy(make_policy)(None, True)(inner.obs[-1], jax.random.key(0))
    np.testing.assert_allclose(seen[0], eval_states.obs[-1], rtol=1e-6, atol=1e-6)


def test_a_reset_of_brax_goes_on_from_the_statistics_sent():
    """ppo.train(num_resets_per_eval=k) resets the training envs between epochs: the
    normalisers go on from the statistics last sent, not from fresh ones."""
    training = F.BraxTraining(stack, publish_every=4)
    train_env = training(Drift(), episode_length=L)
    _, last, _ = rollout(train_env, raw_keys(0, N), actions(), pmapped=True)
    jax.effects_barrier()
    before = last.pipeline_state.stack
    again = on_one_device(train_env.reset, raw_keys(1, N)).pipeline_state.stack
    obs0 = F.find_state(before, F.NormalizeObservationState).obs_stats
    obs1 = F.find_state(again, F.NormalizeObservationState).obs_stats
    total = float(np.asarray(obs1.count) + np.asarray(obs1.count_lo))
    assert total == pytest.approx(N * (T + 1) + N + 1e-4)  # and the new reset's N
    rew0 = F.find_state(before, F.NormalizeRewardState).returns.rms
    rew1 = F.find_state(again, F.NormalizeRewardState).returns.rms
    for a, b in zip(jax.tree.leaves(rew1), jax.tree.leaves(rew0)):
        np.testing.assert_array_equal(np.asarray(a), np.asarray(b))
    assert not np.array_equal(np.asarray(obs1.mean), np.asarray(obs0.mean))  # learnt the reset


def test_brax_normalizer_params_normalise_as_anywrap_does():
    env = F.NormalizeObservation(F.from_brax(envs.training.wrap(Drift(), L), num_envs=64))
    base = F.from_brax(envs.training.wrap(Drift(), L), num_envs=64)
    raw, _ = base.reset(raw_keys(0, 64))
    obs, state = env.reset(raw_keys(0, 64))
    params = F.brax_normalizer_params(F.find_state(state, F.NormalizeObservationState).obs_stats)
    np.testing.assert_allclose(running_statistics.normalize(raw, params), obs, atol=1e-5)
    assert int(params.count.lo) == 64 and int(params.count.hi) == 0
    # Brax's update from there: its std stays that of the same samples
    again = running_statistics.update(params, raw)
    np.testing.assert_allclose(again.std, jnp.std(jnp.concatenate([raw, raw]), 0), rtol=1e-3)


def test_misuse_is_refused_with_what_to_do():
    with pytest.raises(TypeError, match="make_stack to be a function"):
        F.BraxTraining(F.from_brax(Drift()))
    with pytest.raises(ValueError, match="publish_every >= 1"):
        F.BraxTraining(stack, publish_every=0)
    training = F.BraxTraining(stack)
    train_env = training(Drift(), episode_length=L)
    state = jax.jit(train_env.reset)(raw_keys(0, N))  # a reset outside pmap is fine
    with pytest.raises(ValueError, match=r"eval_env=training.eval_env\(env\)"):
        train_env.step(state, jnp.zeros((N, 1)))
    with pytest.raises(ValueError, match="batch of keys"):
        train_env.reset(jax.random.PRNGKey(0))
    twice = F.BraxTraining(lambda env: F.NormalizeObservation(F.NormalizeObservation(env)))
    with pytest.raises(ValueError, match="more than one NormalizeObservation"):
        twice(Drift(), episode_length=L)
    elsewhere = F.BraxTraining(lambda env: F.from_brax(Drift()))
    with pytest.raises(TypeError, match="must build over the env it is given"):
        elsewhere(Drift(), episode_length=L)
    with pytest.raises(RuntimeError, match="no stack was built"):
        F.BraxTraining(stack).observation_fn()


@pytest.mark.slow
def test_ppo_train_on_four_devices():
    """Brax's ppo.train through BraxTraining on 4 host CPU devices: global statistics,
    the evaluator's equal to the training's, the deployed policy's inputs training's."""
    script = Path(__file__).with_name("_brax_ppo_script.py")
    src = Path(__file__).resolve().parents[2] / "src"
    tests = Path(__file__).resolve().parents[1]
    env = {
        **os.environ,
        "XLA_FLAGS": "--xla_force_host_platform_device_count=4",
        "JAX_PLATFORMS": "cpu",
        "PYTHONPATH": os.pathsep.join([str(src), str(tests)]),
    }
    out = subprocess.run(
        [sys.executable, str(script)], env=env, capture_output=True, text=True, timeout=600
    )
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-3000:]
    assert "ok" in out.stdout
