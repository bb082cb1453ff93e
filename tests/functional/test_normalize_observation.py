"""anywrap.functional.NormalizeObservation: one set of moments for the whole batch, the
stateful shells' arguments and checks (the checks shared with NormalizeReward are here too)."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.error import InvalidBound
from helpers import moments_with_prior

jax = pytest.importorskip("jax")
pytest.importorskip("gymnax")
import jax.numpy as jnp  # noqa: E402
from functional_envs import Episodes, pendulum, rollout, uniform_actions  # noqa: E402

import anywrap.vector  # noqa: E402
from anywrap import functional as F  # noqa: E402
from anywrap.transforms.moments import total_count  # noqa: E402

NORMALIZERS = [F.NormalizeObservation, F.NormalizeReward]


def raw_observations(steps: int) -> np.ndarray:
    """The bare batch's observations (reset, then each step) on the rollout's actions."""
    obs0, _, (obs, *_rest) = rollout(pendulum(), uniform_actions(steps))
    return np.concatenate([np.asarray(obs0)[None], np.asarray(obs)])


def test_one_set_of_moments_for_the_whole_batch():
    steps = 50
    _, state, _ = rollout(F.NormalizeObservation(pendulum()), uniform_actions(steps))
    m = F.find_state(state, F.NormalizeObservationState).obs_stats
    assert m.mean.shape == (3,)  # one set for the batch, not one per env
    mean, var, count = moments_with_prior(raw_observations(steps).reshape(-1, 3))
    assert float(total_count(m)) == pytest.approx(count)
    np.testing.assert_allclose(np.asarray(m.mean), mean, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(np.asarray(m.var), var, rtol=2e-5)


def test_each_output_uses_the_moments_updated_with_it_and_final_obs_too():
    """Each step's output is normalised with the moments of every observation so far,
    this step's included (the float64 closed form over the bare env's observations)."""
    obs0, _, (obs, *_, info) = rollout(F.NormalizeObservation(pendulum()), uniform_actions(3))
    raw = raw_observations(3)
    for t, out in enumerate([obs0, *obs]):
        mean, var, _ = moments_with_prior(raw[: t + 1].reshape(-1, 3))
        expect = (raw[t] - mean) / np.sqrt(var + 1e-8)
        np.testing.assert_allclose(np.asarray(out), expect, rtol=1e-5, atol=1e-5, err_msg=t)
    # no episode ended: final_obs is the raw observation, normalised the same way
    np.testing.assert_allclose(np.asarray(info["final_obs"][-1]), expect, rtol=1e-5, atol=1e-5)


def test_update_running_mean_false_freezes_statistics():
    env = F.NormalizeObservation(pendulum(), update_running_mean=False)
    _, state, _ = rollout(env, uniform_actions(5))
    m = F.find_state(state, F.NormalizeObservationState).obs_stats
    np.testing.assert_array_equal(np.asarray(m.mean), 0.0)
    np.testing.assert_array_equal(np.asarray(m.var), 1.0)


def test_initial_stats_start_an_evaluation_env_from_training_statistics():
    """An evaluation env, reset from other keys, normalises with the training moments
    (frozen): ``(obs - mean) / sqrt(var + 1e-8)`` of its raw observations."""
    steps = 30
    _, state, _ = rollout(F.NormalizeObservation(pendulum()), uniform_actions(steps))
    m = F.find_state(state, F.NormalizeObservationState).obs_stats
    mean, var, _ = moments_with_prior(raw_observations(steps).reshape(-1, 3))
    for given in (m, lambda fresh: m):
        env = F.NormalizeObservation(pendulum(), update_running_mean=False, initial_stats=given)
        obs0, last, (obs, *_rest) = rollout(env, uniform_actions(5, key=9), key=7)
        raw0, _, (raw, *_rest) = rollout(pendulum(), uniform_actions(5, key=9), key=7)
        want = (np.concatenate([[raw0], raw]) - mean) / np.sqrt(var + 1e-8)
        np.testing.assert_allclose(np.concatenate([[obs0], obs]), want, rtol=1e-3, atol=1e-4)
        kept = F.find_state(last, F.NormalizeObservationState).obs_stats
        np.testing.assert_array_equal(np.asarray(kept.mean), np.asarray(m.mean))
    with pytest.raises(ValueError, match=r"NormalizeObservation: expected initial_stats shaped"):
        F.NormalizeObservation(pendulum(), initial_stats=m.mean).reset(jax.random.key(0))


def test_initial_stats_that_no_statistics_hold_are_refused_by_name():
    """A negative variance or a NaN mean made every observation NaN without a word."""
    _, state = F.NormalizeObservation(pendulum()).reset(jax.random.key(0))
    m = F.find_state(state, F.NormalizeObservationState).obs_stats
    bad = {
        r"var non-negative and finite, got \[-1\.0": m._replace(var=-np.ones(3)),
        r"mean finite, got \[nan": m._replace(mean=np.full(3, np.nan)),
        r"count non-negative and finite, got \[-1\.0\]": m._replace(count=-np.ones(())),
        r"var non-negative and finite, got \[inf": m._replace(var=np.full(3, np.inf)),
    }
    for message, given in bad.items():
        for stats in (given, lambda fresh, given=given: given):
            env = F.NormalizeObservation(pendulum(), initial_stats=stats)
            with pytest.raises(
                ValueError, match=rf"NormalizeObservation: expected initial_stats\.{message}"
            ):
                env.reset(jax.random.key(0))
    # Traced values are not read on the host (no sync): a jitted reset takes them.
    env = F.NormalizeObservation(
        pendulum(), initial_stats=lambda fresh: fresh._replace(var=fresh.var * 2)
    )
    obs, _ = jax.jit(env.reset)(jax.random.key(0))
    assert np.isfinite(np.asarray(obs)).all()


def test_an_unbatched_env_keeps_its_shapes():
    env = F.NormalizeObservation(pendulum(None))
    obs, state = env.reset(jax.random.key(0))
    assert obs.shape == (3,)
    s = jax.jit(env.step)(state, jnp.ones((1,)))
    assert s.obs.shape == (3,) and env.observation_space.dtype == np.float32
    assert float(total_count(s.state.obs_stats)) == pytest.approx(2 + 1e-4)


def test_a_dict_space_keeps_moments_per_leaf():
    class Two:  # a batch of 2 envs with Dict observations {"a": (2,), "b": ()}
        observation_space = gym.spaces.Dict(
            a=gym.spaces.Box(-np.inf, np.inf, (2,)), b=gym.spaces.Box(-np.inf, np.inf, ())
        )
        action_space = gym.spaces.Box(-1.0, 1.0, (1,))
        num_envs, autoreset_mode = 2, gym.vector.AutoresetMode.DISABLED

        def obs(self, t):
            x = t.astype(jnp.float32) + jnp.arange(2.0)
            return {"a": jnp.stack([x, 2 * x], 1), "b": -x}

        def reset(self, key):
            return self.obs(jnp.zeros(())), jnp.zeros(())

        def step(self, t, action):
            no = jnp.zeros(2, bool)
            return F.Step(self.obs(t + 1), t + 1, jnp.zeros(2), no, no, {})

    _, state, (obs, *_r) = rollout(F.NormalizeObservation(Two()), jnp.zeros((3, 2, 1)))
    m = state.obs_stats
    seen = np.arange(4.0)[:, None] + np.arange(2.0)  # t + i over the reset and 3 steps
    np.testing.assert_allclose(np.asarray(m["b"].mean), -seen.mean(), rtol=1e-4)
    np.testing.assert_allclose(np.asarray(m["a"].mean), [seen.mean(), 2 * seen.mean()], rtol=1e-4)
    assert obs["a"].shape == (3, 2, 2) and obs["b"].shape == (3, 2)


@pytest.mark.parametrize("bad", ["int32", "float16", "bogus", 3])
@pytest.mark.parametrize("cls", NORMALIZERS)
def test_bad_stats_dtype_names_the_wrapper(cls, bad):
    with pytest.raises(ValueError) as err:
        cls(pendulum(), stats_dtype=bad)
    msg = str(err.value)
    assert msg.startswith(f"anywrap.functional.{cls.__name__}: ") and "stats_dtype" in msg
    assert repr(bad) in msg and "'float32' or 'float64'" in msg


@pytest.mark.parametrize(
    ("value", "error"),
    [(-1.0, InvalidBound), (0.0, InvalidBound), (float("nan"), InvalidBound), ("1e-8", TypeError)],
)
@pytest.mark.parametrize("cls", NORMALIZERS)
def test_bad_epsilon_fails_as_in_the_vector_shell(cls, value, error):
    with pytest.raises(error) as ours:
        cls(pendulum(), epsilon=value)
    with pytest.raises(error) as theirs:
        getattr(anywrap.vector, cls.__name__)(
            gym.make_vec("Pendulum-v1", num_envs=1, vectorization_mode="sync"), epsilon=value
        )
    got = str(ours.value)
    assert got.startswith(f"anywrap.functional.{cls.__name__}: ")
    assert got.split(": ", 1)[1] == str(theirs.value).split(": ", 1)[1]
    assert "`epsilon`" in got and repr(value) in got


@pytest.mark.parametrize("cls", NORMALIZERS)
@pytest.mark.parametrize("bad", ["no", 1, None, jnp.asarray(True)])
def test_update_running_mean_must_be_a_bool(cls, bad):
    with pytest.raises(TypeError) as err:
        cls(pendulum(), update_running_mean=bad)
    assert str(err.value).startswith(f"anywrap.functional.{cls.__name__}: ")
    assert "update_running_mean" in str(err.value) and "bool" in str(err.value)
    env = cls(pendulum())
    with pytest.raises(TypeError, match="update_running_mean"):
        env.update_running_mean = bad
    assert env.update_running_mean is True  # unchanged
    env.update_running_mean = np.False_
    assert env.update_running_mean is False


def test_refuses_what_it_cannot_normalise():
    with pytest.raises(TypeError, match="expected a functional env"):
        F.NormalizeObservation(gym.make("Pendulum-v1"))  # type: ignore[arg-type]

    class Discrete(Episodes):
        observation_space = gym.spaces.Discrete(3)

    with pytest.raises(TypeError, match=r"anywrap\.functional\.NormalizeObservation: .*Box"):
        F.NormalizeObservation(Discrete())
