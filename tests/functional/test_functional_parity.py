"""The functional path gives the stateful path's numbers on the same trajectory.

Both stacks run the same env (gymnax Pendulum-v1, SAME_STEP autoreset) with
the same seed and actions, across two episode ends (time limit 50):

* functional wrappers, driven through ``to_vector_env``;
* ``anywrap.vector`` shells over ``to_vector_env`` of the bare env;
* Gymnasium's own vector wrappers (RecordEpisodeStatistics and
  NormalizeReward; its NormalizeObservation refuses SAME_STEP envs, so for
  that wrapper Gymnasium's ``RunningMeanStd`` is fed the same batches).
"""

from __future__ import annotations

import functools

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.wrappers.utils import RunningMeanStd

jax = pytest.importorskip("jax")
gymnax = pytest.importorskip("gymnax")
import jax.numpy as jnp  # noqa: E402

from anywrap import functional as F  # noqa: E402

N, T, SEED, EPISODE = 6, 105, 5, 50


def base() -> F.FunctionalEnv:
    env, params = gymnax.make("Pendulum-v1")
    params = params.replace(max_steps_in_episode=EPISODE)
    return F.VmapWrapper(F.from_gymnax(env, params), N)


def clip_obs(o):
    return jnp.clip(o, -4.0, 4.0)


def clip_rew(r):
    return jnp.clip(r, -3.0, 3.0)


def functional_stack(learn_final_obs: bool = False):
    env = F.RecordEpisodeStatistics(base())
    env = F.ClipAction(env)
    env = F.NormalizeObservation(env, learn_final_obs=learn_final_obs)
    env = F.TransformObservation(env, clip_obs)
    env = F.NormalizeReward(env, gamma=0.95)
    return F.to_vector_env(F.TransformReward(env, clip_rew), seed=SEED)


def drive(venv, recorded: bool = True):
    """Step with fixed actions (beyond the bounds, so ClipAction matters); collect outputs.

    ``recorded``: the stack records episode statistics (checked against the dones).
    """
    rng = np.random.default_rng(0)
    obs0, _ = venv.reset(seed=SEED)
    out = {"obs": [np.asarray(obs0)], "rew": [], "done": [], "r": [], "l": [], "final": []}
    for _ in range(T):
        a = rng.uniform(-3.0, 3.0, (N, 1)).astype(np.float32)
        obs, rew, term, trunc, info = venv.step(a)
        done = np.asarray(term) | np.asarray(trunc)
        out["obs"].append(np.asarray(obs))
        out["rew"].append(np.asarray(rew))
        out["done"].append(done)
        if recorded:
            mask = np.asarray(info.get("_episode", np.zeros(N, bool)))
            np.testing.assert_array_equal(mask, done)
        ep = info.get("episode", {"r": np.zeros(N), "l": np.zeros(N, int)})
        out["r"].append(np.where(done, np.asarray(ep["r"]), np.nan))
        out["l"].append(np.where(done, np.asarray(ep["l"]), -1))
        if "final_obs" in info:
            out["final"].append(np.where(done[:, None], np.asarray(info["final_obs"]), 0.0))
    res = {k: np.stack(v) for k, v in out.items() if v}
    assert res["done"].sum() == 2 * N  # two episode ends per env (truncated at 50)
    return res


@functools.cache
def raw_run():
    """The bare env (actions clipped) driven as the stacks are: what the wrappers see."""
    return drive(F.to_vector_env(F.ClipAction(base()), seed=SEED), recorded=False)


def assert_gymnasium_moments(f, learn_final_obs):
    """Gymnasium's NormalizeObservation refuses SAME_STEP envs, so its RunningMeanStd
    is fed what the wrapper learns from (each step's observations, and the final
    ones with ``learn_final_obs``), and its formula gives the reference."""
    raw = raw_run()
    ref = RunningMeanStd(shape=(3,), dtype=np.float32)

    def normalised(o):
        return np.clip((o - ref.mean) / np.sqrt(ref.var + 1e-8), -4.0, 4.0)

    ref.update(raw["obs"][0])
    np.testing.assert_allclose(f["obs"][0], normalised(raw["obs"][0]), rtol=1e-5, atol=1e-5)
    for t in range(T):
        done = raw["done"][t]
        batch = [raw["obs"][t + 1]] + ([raw["final"][t][done]] if learn_final_obs else [])
        ref.update(np.concatenate(batch))
        np.testing.assert_allclose(
            f["obs"][t + 1], normalised(raw["obs"][t + 1]), rtol=1e-5, atol=1e-5, err_msg=t
        )
        np.testing.assert_allclose(
            f["final"][t][done], normalised(raw["final"][t][done]), rtol=1e-5, atol=1e-5
        )


@pytest.mark.parametrize("learn_final_obs", [False, True])
def test_functional_equals_vector_shells_and_gymnasiums_moments(learn_final_obs):
    import anywrap.vector as V

    f = drive(functional_stack(learn_final_obs))
    assert_gymnasium_moments(f, learn_final_obs)
    env = V.RecordEpisodeStatistics(F.to_vector_env(base(), seed=SEED))
    env = V.ClipAction(env)
    env = V.NormalizeObservation(env, learn_final_obs=learn_final_obs)
    env = V.TransformObservation(env, clip_obs)  # clips info["final_obs"] too
    env = V.NormalizeReward(env, gamma=0.95)
    v = drive(V.TransformReward(env, clip_rew))
    np.testing.assert_allclose(f["obs"], v["obs"], rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(f["rew"], v["rew"], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(f["r"], v["r"], rtol=1e-6)
    np.testing.assert_array_equal(f["l"], v["l"])
    np.testing.assert_allclose(f["final"], v["final"], rtol=1e-5, atol=1e-5)


def test_functional_equals_gymnasium_vector_wrappers():
    fenv = F.NormalizeReward(F.RecordEpisodeStatistics(F.ClipAction(base())), gamma=0.95)
    f = drive(F.to_vector_env(fenv, seed=SEED))
    genv = gym.wrappers.vector.JaxToNumpy(F.to_vector_env(base(), seed=SEED))
    genv = gym.wrappers.vector.ClipAction(gym.wrappers.vector.RecordEpisodeStatistics(genv))
    g = drive(gym.wrappers.vector.NormalizeReward(genv, gamma=0.95))
    np.testing.assert_allclose(f["obs"], g["obs"], rtol=1e-6)
    # Gymnasium keeps float64 return statistics; JAX without x64 keeps float32
    np.testing.assert_allclose(f["rew"], g["rew"], rtol=2e-5, atol=1e-6)
    np.testing.assert_allclose(f["r"], g["r"], rtol=1e-5)
    np.testing.assert_array_equal(f["l"], g["l"])
