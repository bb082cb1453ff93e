"""anywrap.functional.NormalizeReward: the discounted return's variance, Gymnasium's dtypes,
the stateful shells' arguments and checks, and the switch read at trace time."""

from __future__ import annotations

import inspect

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.error import InvalidBound
from helpers import moments_with_prior

jax = pytest.importorskip("jax")
pytest.importorskip("gymnax")
import jax.numpy as jnp  # noqa: E402
from functional_envs import Episodes, N, pendulum, rollout, uniform_actions  # noqa: E402

import anywrap.vector  # noqa: E402
from anywrap import functional as F  # noqa: E402
from anywrap.transforms.moments import total_count  # noqa: E402


def test_the_stateful_arguments_and_defaults():
    ours = inspect.signature(F.NormalizeReward).parameters
    theirs = inspect.signature(gym.wrappers.vector.NormalizeReward).parameters
    for name in ("gamma", "epsilon"):
        assert ours[name].default == theirs[name].default
    assert ours["stats_dtype"].default is None
    assert ours["stats_dtype"].default == (
        inspect.signature(anywrap.vector.NormalizeReward).parameters["stats_dtype"].default
    )


def test_the_variance_is_the_discounted_returns():
    steps, gamma = 60, 0.9
    actions = uniform_actions(steps)
    _, state, (_, scaled, term, trunc, _) = rollout(F.NormalizeReward(pendulum(), gamma), actions)
    _, _, (_, raw, *_r) = rollout(pendulum(), actions)
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


@pytest.mark.parametrize("batched", [True, False])
def test_stats_dtype(batched):
    env = pendulum(N if batched else None)

    def dtypes(**kw):
        g = F.find_state(
            F.NormalizeReward(env, **kw).reset(jax.random.key(0))[1], F.NormalizeRewardState
        )
        return g.returns.accumulated.dtype, g.returns.rms.var.dtype

    with jax.enable_x64(True):
        # Gymnasium's: float32 G for a batch (its vector wrapper), float64 for one env;
        # float64 statistics
        assert dtypes() == ((jnp.float32 if batched else jnp.float64), jnp.float64)
        assert dtypes(stats_dtype="float32") == (jnp.float32, jnp.float32)
        assert dtypes(stats_dtype=np.float64) == (jnp.float64, jnp.float64)
    # x64 off: JAX has no float64, so everything is float32
    assert dtypes() == dtypes(stats_dtype="float64") == (jnp.float32, jnp.float32)


def test_with_x64_the_default_matches_gymnasium_closely():
    """With x64 on, the default keeps Gymnasium's dtypes (float32 G, float64 statistics):
    scaled rewards within float32 rounding and the variance to 1e-9. Envs of 3, 4, 5 and
    6 steps, the even ones terminated and the odd ones truncated (G resets on the former
    only), rewards ``(i + 1) sin(1.3 t + i)``."""

    class Waves(Episodes):
        def step(self, t, action):
            s = super().step(t, action)
            i = jnp.arange(4)
            return s._replace(reward=((i + 1) * jnp.sin(1.3 * (t + 1) + i)).astype(jnp.float32))

    def waves():
        return Waves((3, 4, 5, 6), truncate=(False, True, False, True))

    gamma = 0.95
    with jax.enable_x64(True):
        fenv = F.to_vector_env(F.NormalizeReward(waves(), gamma), seed=1)
        genv = gym.wrappers.vector.NormalizeReward(
            gym.wrappers.vector.JaxToNumpy(F.to_vector_env(waves(), seed=1)), gamma=gamma
        )
        fenv.reset(seed=1)
        genv.reset(seed=1)
        a = np.zeros((4, 1), np.float32)
        for _ in range(30):  # several ends of every env
            np.testing.assert_allclose(np.asarray(fenv.step(a)[1]), genv.step(a)[1], rtol=1e-6)
        r = F.find_state(fenv.state, F.NormalizeRewardState).returns
        assert r.rms.var.dtype == jnp.float64
        np.testing.assert_allclose(float(r.rms.var), genv.return_rms.var, rtol=1e-9)
        np.testing.assert_allclose(np.asarray(r.accumulated), genv.accumulated_reward, rtol=1e-6)


@pytest.mark.parametrize(
    ("value", "error"),
    [
        (1.5, InvalidBound),
        (-0.1, InvalidBound),
        (np.float32(1.01), InvalidBound),
        ("0.99", TypeError),
        (None, TypeError),
    ],
)
def test_bad_gamma_fails_as_in_the_vector_shell(value, error):
    with pytest.raises(error) as ours:
        F.NormalizeReward(pendulum(), gamma=value)
    with pytest.raises(error) as theirs:
        anywrap.vector.NormalizeReward(
            gym.make_vec("Pendulum-v1", num_envs=1, vectorization_mode="sync"), gamma=value
        )
    got = str(ours.value)
    assert got.startswith("anywrap.functional.NormalizeReward: ")
    assert got.split(": ", 1)[1] == str(theirs.value).split(": ", 1)[1]
    assert "`gamma`" in got and repr(value) in got


@pytest.mark.parametrize(
    "value", [np.float32(0.9), np.float64(0.9), np.array(0.9), jnp.asarray(0.9), 0.9]
)
def test_gamma_and_epsilon_accept_numpy_and_jax_scalars(value):
    env = F.NormalizeReward(pendulum(), gamma=value, epsilon=value * 1e-7)
    assert type(env.gamma) is float and env.gamma == pytest.approx(0.9)
    assert type(env.epsilon) is float and env.epsilon == pytest.approx(0.9e-7)
    obs_env = F.NormalizeObservation(pendulum(), epsilon=value)
    assert type(obs_env.epsilon) is float and obs_env.epsilon == pytest.approx(0.9)


def _counts(env, state):
    """The sample counts of the two normalisers in ``state`` (without Gymnasium's 1e-4)."""
    obs = F.find_state(state, F.NormalizeObservationState).obs_stats
    return [round(float(total_count(m))) for m in (state.returns.rms, obs)]


def test_update_running_mean_is_an_argument_and_a_settable_attribute_read_at_trace_time():
    env = F.NormalizeReward(F.NormalizeObservation(pendulum()))
    assert env.update_running_mean is True and env.env.update_running_mean is True
    _, state = env.reset(jax.random.key(0))
    a = jnp.zeros((N, 1))
    state = jax.jit(lambda s, a: env.step(s, a))(state, a).state
    assert _counts(env, state) == [N, 2 * N]  # returns: one step; obs: reset + one step
    env.update_running_mean = False
    env.env.update_running_mean = False
    # a function traced after the change reads the new setting
    state = jax.jit(lambda s, a: env.step(s, a))(state, a).state
    assert _counts(env, state) == [N, 2 * N]
    env.update_running_mean = True  # each wrapper has its own switch
    state = jax.jit(lambda s, a: env.step(s, a))(state, a).state
    assert _counts(env, state) == [2 * N, 2 * N]
    # as a constructor argument: an evaluation stack over the training state
    frozen = F.NormalizeReward(
        F.NormalizeObservation(pendulum(), update_running_mean=False), update_running_mean=False
    )
    assert frozen.update_running_mean is False and frozen.env.update_running_mean is False
    out = jax.jit(frozen.step)(state, a)
    assert _counts(env, out.state) == [2 * N, 2 * N]
    # ... which scales with the training statistics: the reward is raw / sqrt(var + eps)
    raw = pendulum().step(F.find_state(state, F.NormalizeObservationState).inner, a).reward
    var = float(state.returns.rms.var)
    np.testing.assert_allclose(
        np.asarray(out.reward), np.asarray(raw) / np.sqrt(var + 1e-8), rtol=1e-5
    )


def test_an_unbatched_env_keeps_its_shapes():
    env = F.NormalizeReward(pendulum(None))
    _, state = env.reset(jax.random.key(0))
    s = jax.jit(env.step)(state, jnp.ones((1,)))
    assert s.reward.shape == () and s.state.returns.accumulated.shape == (1,)
    assert float(total_count(s.state.returns.rms)) == pytest.approx(1 + 1e-4)
