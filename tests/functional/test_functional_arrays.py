"""The functional array wrappers: jittable, and equal to Gymnasium's wrappers.

* The stateless maps over gymnax Pendulum (a batch, SAME_STEP) against
  Gymnasium's single-env wrapper applied to each row of the bare env's output.
* The stateful ones (TimeLimit, TimeAwareObservation, DelayObservation) over
  a functional counter env, against a Gymnasium SAME_STEP vector env of the
  same counter in Gymnasium's wrappers; each rollout is one jitted
  ``lax.scan``.
* StickyAction: reproducible from the reset key, and an episode's first
  action is never a repeat.
"""

from __future__ import annotations

import functools
import os
import sys
import warnings

import gymnasium as gym
import numpy as np
import pytest

jax = pytest.importorskip("jax")
gymnax = pytest.importorskip("gymnax")
import jax.numpy as jnp  # noqa: E402
from gymnasium.vector import AutoresetMode, SyncVectorEnv  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.dirname(__file__)))
from array_envs import CounterEnv, functional_counter  # noqa: E402

from anywrap import functional as F  # noqa: E402

N = 6


@pytest.fixture(autouse=True)
def _quiet():
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*precision lowered.*")
        yield


class Holder(gym.Env):
    """Gives a Gymnasium wrapper the spaces it is built from."""

    def __init__(self, observation_space: gym.Space, action_space: gym.Space) -> None:
        self.observation_space, self.action_space = observation_space, action_space


def rollout(env, steps: int, actions: np.ndarray, key: int = 0):
    """One jitted scan: ``(first obs, final state, per-step Step fields)``."""

    def body(state, a):
        s = env.step(state, a)
        return s.state, (s.obs, s.reward, s.terminated, s.truncated, s.info)

    @jax.jit
    def run(key, acts):
        obs, state = env.reset(key)
        state, out = jax.lax.scan(body, state, acts)
        return obs, state, out

    return run(jax.random.key(key), jnp.asarray(actions))


def pendulum():
    return F.from_gymnax(gymnax.make("Pendulum-v1")[0], num_envs=N)


@functools.cache
def bare_pendulum_rollout(steps: int = 12):
    """The actions and the bare env's rollout (shared by the tests: one compilation)."""
    acts = np.random.default_rng(0).uniform(-2, 2, (steps, N, 1)).astype(np.float32)
    return acts, rollout(pendulum(), steps, acts)


OBS_MAPS = [
    ("RescaleObservation", (-1.0, 1.0)),
    ("DtypeObservation", (np.float16,)),
    ("FlattenObservation", ()),
    ("ReshapeObservation", ((3, 1),)),
]


@pytest.mark.parametrize(("name", "args"), OBS_MAPS, ids=lambda x: str(x)[:20])
def test_observation_maps_match_gymnasium_row_by_row(name, args):
    bare = pendulum()
    acts, (bobs0, _, (bobs, _, _, _, binfo)) = bare_pendulum_rollout()
    env = getattr(F, name)(bare, *args)
    ref = getattr(gym.wrappers, name)(Holder(bare.observation_space, bare.action_space), *args)
    assert env.observation_space == ref.observation_space
    obs0, _, (obs, _, _, _, info) = rollout(env, len(acts), acts)
    for got, base in [(obs0, bobs0), *zip(obs, bobs), *zip(info["final_obs"], binfo["final_obs"])]:
        want = np.stack([ref.observation(np.asarray(row)) for row in np.asarray(base)])
        assert np.asarray(got).dtype == want.dtype
        np.testing.assert_allclose(np.asarray(got), want, rtol=1e-6, atol=1e-6)


def test_clip_reward_and_rescale_action_match_gymnasium():
    steps = 12
    acts = np.random.default_rng(1).uniform(-1, 1, (steps, N, 1)).astype(np.float32)
    bare = pendulum()
    holder = Holder(bare.observation_space, bare.action_space)
    rescale = gym.wrappers.RescaleAction(holder, -1.0, 1.0)
    clip = gym.wrappers.ClipReward(holder, -2.0, -0.5)
    env = F.ClipReward(F.RescaleAction(bare, -1.0, 1.0), -2.0, -0.5)
    _, _, (obs, rew, *_) = rollout(env, steps, acts)
    env_acts = np.stack([[rescale.action(a) for a in row] for row in acts])
    _, _, (bobs, brew, *_) = rollout(bare, steps, env_acts)
    np.testing.assert_allclose(np.asarray(obs), np.asarray(bobs), rtol=1e-5, atol=1e-6)
    want = np.vectorize(clip.reward)(np.asarray(brew, dtype=np.float64))
    np.testing.assert_allclose(np.asarray(rew), want, rtol=1e-6)
    assert env.action_space == rescale.action_space


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
    obs0, _, (obs, rew, term, trunc, info) = rollout(env, steps, acts)
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


def test_time_limit_refuses_an_env_that_resets_itself():
    with pytest.raises(ValueError, match=r"anywrap\.functional\.TimeLimit.*below AutoReset"):
        F.TimeLimit(pendulum(), 10)


def test_time_aware_needs_a_limit():
    with pytest.raises(
        ValueError, match=r"anywrap\.functional\.TimeAwareObservation.*max_timesteps"
    ):
        F.TimeAwareObservation(pendulum())


def sticky_sent(key: int, p: float = 0.5, steps: int = 30):
    """What the counter received at each step, asked for action ``t`` at step ``t``; and
    its ``terminated``."""
    env = F.StickyAction(F.AutoReset(functional_counter(ENDS)), p, (1, 2))
    acts = np.broadcast_to(np.arange(steps, dtype=np.float32)[:, None, None], (steps, len(ENDS), 1))

    def body(state, a):
        s = env.step(state, a)
        sent = s.state.sticky.last[:, 0]  # the action the env was given
        return s.state, (sent, s.terminated)

    @jax.jit
    def run(k):
        _, state = env.reset(k)
        return jax.lax.scan(body, state, jnp.asarray(acts))[1]

    sent, term = run(jax.random.key(key))
    return np.asarray(sent), np.asarray(term)


def test_sticky_is_reproducible_from_the_reset_key():
    a, _ = sticky_sent(1)
    b, _ = sticky_sent(1)
    c, _ = sticky_sent(2)
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(a, c)


def test_sticky_never_repeats_across_an_episode_end():
    sent, term = sticky_sent(3, p=0.9)
    asked = np.arange(len(sent), dtype=np.float32)[:, None]
    repeat = sent != asked
    assert repeat.mean() > 0.5  # p = 0.9 repeats often...
    after_end = np.zeros_like(term)
    after_end[1:] = term[:-1]
    assert not repeat[after_end].any()  # ...but never the old episode's action
    assert not repeat[0].any()
    np.testing.assert_array_equal(sent[1:][repeat[1:]], sent[:-1][repeat[1:]])
