"""The functional catalogue wrappers under ``jax.jit``: TransformAction,
FilterObservation, DiscretizeAction and DiscretizeObservation, each against the bare
env with Gymnasium's single wrapper (or the selection itself) applied row by row."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

jax = pytest.importorskip("jax")
jnp = pytest.importorskip("jax.numpy")
gymnax = pytest.importorskip("gymnax")

from anywrap import functional as F  # noqa: E402


def _pendulum(n: int = 3) -> F.FunctionalEnv:
    return F.from_gymnax(gymnax.make("Pendulum-v1")[0], num_envs=n)


class _Spaces(gym.Env):
    def __init__(self, observation_space: gym.Space, action_space: gym.Space) -> None:
        self.observation_space, self.action_space = observation_space, action_space


def test_transform_action_and_filter_observation() -> None:
    bare = F.TimeAwareObservation(_pendulum(), flatten=False, max_timesteps=200)
    env = F.FilterObservation(F.TransformAction(bare, lambda a: a * 0.25), ["obs"])
    assert env.observation_space == gym.spaces.Dict({"obs": bare.observation_space["obs"]})
    obs, state = jax.jit(env.reset)(jax.random.key(0))
    want, bare_state = bare.reset(jax.random.key(0))
    assert list(obs) == ["obs"]
    np.testing.assert_array_equal(obs["obs"], want["obs"])
    action = jnp.full((3, 1), 2.0)
    got = jax.jit(env.step)(state, action)
    ref = bare.step(bare_state, action * 0.25)
    np.testing.assert_array_equal(got.obs["obs"], ref.obs["obs"])
    np.testing.assert_array_equal(got.reward, ref.reward)
    with pytest.raises(ValueError, match=r"anywrap\.functional\.FilterObservation: All the"):
        F.FilterObservation(bare, ["speed"])


@pytest.mark.skipif(not hasattr(gym.wrappers, "DiscretizeAction"), reason="Gymnasium 1.4's")
@pytest.mark.parametrize("multidiscrete", [False, True])
def test_discretisers_are_gymnasiums_row_by_row(multidiscrete: bool) -> None:
    bare = _pendulum()
    env = F.DiscretizeObservation(F.DiscretizeAction(bare, (5,), multidiscrete), 4, multidiscrete)
    single = _Spaces(bare.observation_space, bare.action_space)
    obs_ref = gym.wrappers.DiscretizeObservation(single, 4, multidiscrete)
    act_ref = gym.wrappers.DiscretizeAction(single, (5,), multidiscrete)
    assert env.observation_space == obs_ref.observation_space
    assert env.action_space == act_ref.action_space
    step = jax.jit(env.step)
    obs, state = jax.jit(env.reset)(jax.random.key(1))
    raw, raw_state = bare.reset(jax.random.key(1))
    for t in range(6):
        np.testing.assert_array_equal(
            np.asarray(obs), np.stack([obs_ref.observation(r) for r in np.asarray(raw)])
        )
        index = np.array([t % 5, (t + 2) % 5, 4])
        agent = index[:, None] if multidiscrete else index
        s = step(state, jnp.asarray(agent))
        continuous = np.stack([act_ref.action(a) for a in agent])
        r = bare.step(raw_state, jnp.asarray(continuous))
        np.testing.assert_array_equal(s.reward, r.reward)
        obs, state, raw, raw_state = s.obs, s.state, r.obs, r.state
