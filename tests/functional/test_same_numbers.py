"""The functional wrappers give Gymnasium's numbers, side by side with Gymnasium itself.

* The stateless maps over gymnax Pendulum (a batch, SAME_STEP) against Gymnasium's
  single-env wrapper applied to each row of the bare env's output.
* The stateful array wrappers over a functional counter, against a Gymnasium SAME_STEP
  vector env of the same counter in Gymnasium's wrappers, in one jitted ``lax.scan``.
* The CleanRL stack driven through ``to_vector_env``, against ``anywrap.vector``'s shells
  and Gymnasium's vector wrappers on the same trajectory (two episode ends per env);
  Gymnasium's NormalizeObservation refuses SAME_STEP envs, so its ``RunningMeanStd`` is
  fed what the wrapper learns from.
"""

from __future__ import annotations

import functools

import gymnasium as gym
import numpy as np
import pytest
from array_envs import CounterEnv, functional_counter
from gymnasium.vector import AutoresetMode, SyncVectorEnv
from gymnasium.wrappers.utils import RunningMeanStd

jax = pytest.importorskip("jax")
pytest.importorskip("gymnax")
import jax.numpy as jnp  # noqa: E402
from functional_envs import Holder, cleanrl_stack, pendulum, rollout  # noqa: E402

import anywrap.vector as V  # noqa: E402
from anywrap import functional as F  # noqa: E402

N = 6


@functools.cache
def bare_pendulum_rollout(steps: int = 12):
    """Actions and the bare env's rollout (shared by the tests: one compilation)."""
    acts = np.random.default_rng(0).uniform(-2, 2, (steps, N, 1)).astype(np.float32)
    return acts, rollout(pendulum(N, vmap=False), acts)


OBS_MAPS = [
    ("RescaleObservation", (-1.0, 1.0)),
    ("DtypeObservation", (np.float16,)),
    ("FlattenObservation", ()),
    ("ReshapeObservation", ((3, 1),)),
    ("TransformObservation", (lambda o: o * 2.0 - 1.0, None)),
]


@pytest.mark.parametrize(("name", "args"), OBS_MAPS, ids=lambda x: str(x)[:20])
def test_observation_maps_match_gymnasium_row_by_row(name, args):
    bare = pendulum(N, vmap=False)
    acts, (bobs0, _, (bobs, _, _, _, binfo)) = bare_pendulum_rollout()
    env = getattr(F, name)(bare, *args)
    ref = getattr(gym.wrappers, name)(Holder(bare.observation_space, bare.action_space), *args)
    assert env.observation_space == ref.observation_space
    obs0, _, (obs, _, _, _, info) = rollout(env, acts)
    for got, base in [(obs0, bobs0), *zip(obs, bobs), *zip(info["final_obs"], binfo["final_obs"])]:
        want = np.stack([ref.observation(np.asarray(row)) for row in np.asarray(base)])
        assert np.asarray(got).dtype == want.dtype
        np.testing.assert_allclose(np.asarray(got), want, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize(
    ("name", "args", "scale"), [("ClipAction", (), 4.0), ("RescaleAction", (-1.0, 1.0), 1.0)]
)
def test_action_maps_match_gymnasium(name, args, scale):
    """The env behind the wrapper steps as the bare env given Gymnasium's mapped actions."""
    steps = 12
    acts = np.random.default_rng(1).uniform(-scale, scale, (steps, N, 1)).astype(np.float32)
    bare = pendulum(N, vmap=False)
    ref = getattr(gym.wrappers, name)(Holder(bare.observation_space, bare.action_space), *args)
    env = getattr(F, name)(bare, *args)
    assert env.action_space == ref.action_space
    _, _, (obs, rew, *_) = rollout(env, acts)
    mapped = np.stack([[ref.action(a) for a in row] for row in acts])
    _, _, (bobs, brew, *_) = rollout(bare, mapped)
    np.testing.assert_allclose(np.asarray(obs), np.asarray(bobs), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(np.asarray(rew), np.asarray(brew), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize(
    ("name", "args"),
    [("ClipReward", (-2.0, -0.5)), ("TransformReward", (lambda r: 2.0 * r + 1.0,))],
)
def test_reward_maps_match_gymnasium(name, args):
    acts, (_, _, (_, brew, *_)) = bare_pendulum_rollout()
    bare = pendulum(N, vmap=False)
    ref = getattr(gym.wrappers, name)(Holder(bare.observation_space, bare.action_space), *args)
    _, _, (_, rew, *_) = rollout(getattr(F, name)(bare, *args), acts)
    want = np.vectorize(ref.reward)(np.asarray(brew, dtype=np.float64))
    np.testing.assert_allclose(np.asarray(rew), want, rtol=1e-6)


# ------------------------------------------------------------------ stateful
ENDS = (3, 4, 6, 9)


def gym_counter(wrap) -> gym.vector.VectorEnv:
    subs = [functools.partial(lambda i: wrap(CounterEnv(i, ENDS[i])), i) for i in range(len(ENDS))]
    return SyncVectorEnv(subs, autoreset_mode=AutoresetMode.SAME_STEP)


STATEFUL = {
    "TimeLimit": (
        lambda e: F.AutoReset(F.TimeLimit(e, 5)),
        lambda e: gym.wrappers.TimeLimit(e, 5),
    ),
    "TimeAwareObservation": (
        lambda e: F.TimeAwareObservation(F.AutoReset(F.TimeLimit(e, 5)), normalize_time=True),
        lambda e: gym.wrappers.TimeAwareObservation(
            gym.wrappers.TimeLimit(e, 5), normalize_time=True
        ),
    ),
    "TimeAwareObservation(dict)": (
        lambda e: F.TimeAwareObservation(F.AutoReset(F.TimeLimit(e, 5)), flatten=False),
        lambda e: gym.wrappers.TimeAwareObservation(gym.wrappers.TimeLimit(e, 5), flatten=False),
    ),
    "DelayObservation": (
        lambda e: F.DelayObservation(F.AutoReset(e), 2),
        lambda e: gym.wrappers.DelayObservation(e, 2),
    ),
}


def rows(tree, i):
    return (
        {k: rows(v, i) for k, v in tree.items()} if isinstance(tree, dict) else np.asarray(tree)[i]
    )


def close(a, b, what):
    if isinstance(b, dict):
        for k in b:
            close(a[k], b[k], f"{what}.{k}")
        return
    a, b = np.asarray(a), np.asarray(b)
    assert a.shape == b.shape, (what, a.shape, b.shape)
    np.testing.assert_allclose(a, b, rtol=1e-6, err_msg=what)


@pytest.mark.parametrize("name", list(STATEFUL))
def test_stateful_wrappers_match_gymnasium_in_a_jitted_scan(name):
    ours_of, theirs_of = STATEFUL[name]
    env = ours_of(functional_counter(ENDS))
    ref = gym_counter(theirs_of)
    steps = 25
    acts = np.zeros((steps, len(ENDS), 1), np.float32)
    obs0, _, (obs, rew, term, trunc, info) = rollout(env, acts)
    close(obs0, ref.reset(seed=0)[0], "reset")
    ends = 0
    for t in range(steps):
        o, r, te, tr, inf = ref.step(acts[t])
        close(rows(obs, t), o, f"step {t} obs")
        np.testing.assert_array_equal(np.asarray(term[t]), te)
        np.testing.assert_array_equal(np.asarray(trunc[t]), tr)
        np.testing.assert_allclose(np.asarray(rew[t]), r)
        for i in np.flatnonzero(te | tr):
            ends += 1
            close(rows(rows(info["final_obs"], t), i), inf["final_obs"][i], f"step {t} final[{i}]")
    assert ends >= 8


# ------------------------------------------------------------- the CleanRL stack
STEPS, SEED, EPISODE = 105, 5, 50


def base() -> F.FunctionalEnv:
    return pendulum(N, max_steps=EPISODE)


def drive(venv, recorded: bool = True):
    """Step with fixed actions (beyond the bounds, so ClipAction matters); collect outputs.

    ``recorded``: the stack records episode statistics (checked against the dones).
    """
    rng = np.random.default_rng(0)
    obs0, _ = venv.reset(seed=SEED)
    out = {"obs": [np.asarray(obs0)], "rew": [], "done": [], "r": [], "l": [], "final": []}
    for _ in range(STEPS):
        a = rng.uniform(-3.0, 3.0, (N, 1)).astype(np.float32)
        obs, rew, term, trunc, info = venv.step(a)
        done = np.asarray(term) | np.asarray(trunc)
        out["obs"].append(np.asarray(obs))
        out["rew"].append(np.asarray(rew))
        out["done"].append(done)
        if recorded:
            np.testing.assert_array_equal(np.asarray(info.get("_episode", np.zeros(N, bool))), done)
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
    raw = raw_run()
    ref = RunningMeanStd(shape=(3,), dtype=np.float32)

    def normalised(o):
        return np.clip((o - ref.mean) / np.sqrt(ref.var + 1e-8), -4.0, 4.0)

    ref.update(raw["obs"][0])
    np.testing.assert_allclose(f["obs"][0], normalised(raw["obs"][0]), rtol=1e-5, atol=1e-5)
    for t in range(STEPS):
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
def test_the_stack_equals_the_vector_shells_and_gymnasiums_moments(learn_final_obs):
    stack = cleanrl_stack(base(), gamma=0.95, clip=(4.0, 3.0), learn_final_obs=learn_final_obs)
    f = drive(F.to_vector_env(stack, seed=SEED))
    assert_gymnasium_moments(f, learn_final_obs)
    env = V.RecordEpisodeStatistics(F.to_vector_env(base(), seed=SEED))
    env = V.ClipAction(env)
    env = V.NormalizeObservation(env, learn_final_obs=learn_final_obs)
    env = V.TransformObservation(env, lambda o: jnp.clip(o, -4.0, 4.0))  # and final_obs
    env = V.NormalizeReward(env, gamma=0.95)
    v = drive(V.TransformReward(env, lambda r: jnp.clip(r, -3.0, 3.0)))
    np.testing.assert_allclose(f["obs"], v["obs"], rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(f["rew"], v["rew"], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(f["r"], v["r"], rtol=1e-6)
    np.testing.assert_array_equal(f["l"], v["l"])
    np.testing.assert_allclose(f["final"], v["final"], rtol=1e-5, atol=1e-5)


def test_the_stack_equals_gymnasiums_vector_wrappers():
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
