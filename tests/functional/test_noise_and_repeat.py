"""anywrap.functional's AddWhiteNoise, ObstructView and RepeatAction: under jit and vmap,
keys from the reset key, RepeatAction against anywrap.RepeatAction's (Gymnasium's) loop."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

jax = pytest.importorskip("jax")
import jax.numpy as jnp  # noqa: E402
from gymnasium.vector import AutoresetMode  # noqa: E402
from helpers import jax_no_host_sync  # noqa: E402

import anywrap  # noqa: E402
from anywrap import functional as F  # noqa: E402


class Frames:
    """One env of 40x30 RGB frames, all of colour ``t`` at step ``t``; episodes of 5."""

    observation_space = gym.spaces.Box(0, 255, (40, 30, 3), np.uint8)
    action_space = gym.spaces.Discrete(2)
    num_envs, autoreset_mode = None, AutoresetMode.DISABLED

    def frame(self, t):
        return jnp.full((40, 30, 3), t, jnp.uint8)

    def reset(self, key):
        t = jnp.zeros((), jnp.int32)
        return self.frame(t), t

    def step(self, t, action):
        t = t + 1
        end = t % 5 == 0
        return F.Step(self.frame(t), t, (t * 1.5).astype(jnp.float32), end, jnp.zeros((), bool), {})


@pytest.mark.parametrize(
    "make",
    [
        lambda env: F.AddWhiteNoise(env, 0.4),
        lambda env: F.AddWhiteNoise(env, 0.4, is_noise_grayscale=True),
        lambda env: F.ObstructView(env, 0.4, 3),
    ],
)
def test_noise_on_observations_under_jit_and_vmap(make):
    env = F.VmapWrapper(make(Frames()), 6)
    reset, step = jax.jit(env.reset), jax.jit(env.step)
    obs, state = reset(jax.random.split(jax.random.key(0), 6))
    with jax_no_host_sync():
        out = step(state, jnp.zeros(6, jnp.int32))
        again = step(state, jnp.zeros(6, jnp.int32))
    got = np.asarray(out.obs)
    np.testing.assert_array_equal(got, np.asarray(again.obs))  # the key is in the state
    assert got.shape == (6, 40, 30, 3) and got.dtype == np.uint8
    noisy = (got != 1).any(-1)
    assert 0.25 < noisy.mean() < 0.45, noisy.mean()
    assert not np.array_equal(got[0], got[1])  # each env its own key
    assert not np.array_equal(
        np.asarray(obs)[0], np.asarray(reset(jax.random.split(jax.random.key(1), 6))[0])[0]
    )


def test_one_key_for_a_batched_env():
    class Batch(Frames):
        num_envs = 4

        def frame(self, t):
            return jnp.full((4, 40, 30, 3), 0, jnp.uint8) + t.astype(jnp.uint8)

        def reset(self, key):
            return self.frame(jnp.zeros((), jnp.int32)), jnp.zeros((), jnp.int32)

    env = F.ObstructView(Batch(), 0.3, 2)
    obs, state = jax.jit(env.reset)(jax.random.key(0))
    assert obs.shape == (4, 40, 30, 3) and state.key.shape == (2,)
    assert not np.array_equal(np.asarray(obs[0]), np.asarray(obs[1]))


def test_repeat_action_is_the_single_wrappers_loop():
    """The same sums and early stops as anywrap.RepeatAction (tested against Gymnasium's)
    over the same counting env, as a Gymnasium env."""

    class Counting(gym.Env):
        observation_space, action_space = Frames.observation_space, Frames.action_space

        def reset(self, *, seed=None, options=None):
            self.t = 0
            return np.full((40, 30, 3), 0, np.uint8), {}

        def step(self, action):
            self.t += 1
            return np.full((40, 30, 3), self.t, np.uint8), self.t * 1.5, self.t % 5 == 0, False, {}

    single = anywrap.RepeatAction(Counting(), 3)
    env = F.RepeatAction(Frames(), 3)
    _, state = env.reset(jax.random.key(0))
    single.reset()
    step = jax.jit(env.step)
    for _ in range(4):
        out = step(state, 0)
        want = single.step(0)
        state = out.state
        np.testing.assert_array_equal(np.asarray(out.obs), want[0])
        assert (float(out.reward), bool(out.terminated)) == want[1:3]
        if want[2]:
            _, state = env.reset(jax.random.key(1))
            single.reset()


def test_repeat_action_refuses_a_batch():
    class Batch(Frames):
        num_envs = 4

    with pytest.raises(TypeError, match=r"anywrap\.functional\.RepeatAction: expected one env"):
        F.RepeatAction(Batch(), 2)
    with pytest.raises(
        ValueError, match=r"anywrap\.functional\.ObstructView: expected `obstruction_width`"
    ):
        F.ObstructView(Frames(), 0.2, 0)


def test_final_observations_get_noise_too():
    """SAME_STEP: ``info["final_obs"]`` is a frame like the others, with its own draws."""

    class SameStep(Frames):
        autoreset_mode = AutoresetMode.SAME_STEP

        def step(self, t, action):
            s = super().step(t, action)
            return s._replace(info={"final_obs": self.frame(t + 1)})

    env = F.AddWhiteNoise(SameStep(), 0.5)
    _, state = env.reset(jax.random.key(0))
    out = jax.jit(env.step)(state, 0)
    final, obs = np.asarray(out.info["final_obs"]), np.asarray(out.obs)
    assert 0.35 < (final != 1).any(-1).mean() < 0.65
    assert not np.array_equal(final, obs)
    assert not np.array_equal(np.asarray(out.state.key), np.asarray(state.key))
