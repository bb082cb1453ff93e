"""Gymnasium's JAX envs (``phys2d``): anywrap's stack on the live JAX env gives
Gymnasium's numbers, computed by Gymnasium's own stack on a NumPy replay of
the same trajectory. JAX here runs without x64, so the return statistics are
float32: agreement is to float32 tolerance.
"""

from __future__ import annotations

import warnings

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.wrappers import vector as gym_vector
from helpers import ReplayVectorEnv, VectorTrajectory, make_backend

import anywrap
from anywrap.xp import to_numpy

jax = pytest.importorskip("jax")
jnp = pytest.importorskip("jax.numpy")
pytest.importorskip("flax")  # Gymnasium's phys2d envs need it


class Tap(gym.vector.VectorWrapper):
    """Records what the raw env returns, as NumPy, without changing it."""

    def __init__(self, env):
        super().__init__(env)
        self.obs, self.rewards, self.term, self.trunc = [], [], [], []

    def reset(self, **kw):
        obs, info = self.env.reset(**kw)
        self.obs.append(to_numpy(obs).copy())
        return obs, info

    def step(self, actions):
        obs, r, te, tr, info = self.env.step(actions)
        for store, x in ((self.obs, obs), (self.rewards, r), (self.term, te), (self.trunc, tr)):
            store.append(to_numpy(x).copy())
        return obs, r, te, tr, info


def stack(envs, lib, clip):
    envs = lib.RecordEpisodeStatistics(envs)
    if isinstance(envs.single_action_space, gym.spaces.Box):
        envs = lib.ClipAction(envs)
    envs = lib.NormalizeObservation(envs)
    envs = lib.TransformObservation(envs, lambda o: clip(o, -10, 10))
    envs = lib.NormalizeReward(envs, gamma=0.99)
    return lib.TransformReward(envs, lambda r: clip(r, -10, 10))


@pytest.mark.parametrize("env_id", ["phys2d/Pendulum-v0", "phys2d/CartPole-v1"])
def test_phys2d_jax_stack_matches_gymnasium(env_id):
    if jax.config.read("jax_enable_x64"):
        pytest.skip("tolerances below are for float32 JAX")  # never in CI
    n, steps = 6, 260
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # phys2d lacks autoreset metadata: NEXT_STEP
        raw = gym.make_vec(env_id, num_envs=n, max_episode_steps=60)
    tap = Tap(raw)
    ours = stack(tap, anywrap.vector, jnp.clip)
    rng = np.random.default_rng(0)
    space = raw.single_action_space
    if isinstance(space, gym.spaces.Box):
        acts = [rng.uniform(-4, 4, (n, *space.shape)).astype(np.float32) for _ in range(steps)]
    else:
        acts = [rng.integers(0, space.n, n) for _ in range(steps)]
    ours.reset(seed=0)
    out_ours = [ours.step(jnp.asarray(a)) for a in acts]
    assert isinstance(out_ours[-1][0], jax.Array) and isinstance(out_ours[-1][1], jax.Array)
    ends = sum(int(np.sum(to_numpy(o[2]) | to_numpy(o[3]))) for o in out_ours)
    assert ends >= 3  # the trajectory covers episode ends

    traj = VectorTrajectory.from_arrays(
        np.stack(tap.obs),
        np.stack(tap.rewards).astype(np.float64),
        np.stack(tap.term),
        np.stack(tap.trunc),
        actions=np.stack(acts),
        action_space=space if isinstance(space, gym.spaces.Box) else None,
    )
    theirs = stack(ReplayVectorEnv(traj, make_backend("numpy")), gym_vector, np.clip)
    theirs.reset(seed=0)
    for a, o in zip(acts, out_ours):
        t = theirs.step(a)
        np.testing.assert_allclose(to_numpy(o[0]), t[0], rtol=1e-4, atol=1e-4)
        np.testing.assert_allclose(to_numpy(o[1]), t[1], rtol=1e-4, atol=1e-6)
        assert ("episode" in t[4]) <= ("episode" in o[4])  # JAX: keys on every step
        if "episode" in t[4]:
            np.testing.assert_array_equal(to_numpy(o[4]["_episode"]), t[4]["_episode"])
            np.testing.assert_allclose(
                to_numpy(o[4]["episode"]["r"]), t[4]["episode"]["r"], rtol=1e-5, atol=1e-4
            )
            np.testing.assert_array_equal(to_numpy(o[4]["episode"]["l"]), t[4]["episode"]["l"])
