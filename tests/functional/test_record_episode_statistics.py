"""anywrap.functional.RecordEpisodeStatistics: Gymnasium's arguments, queues and counts, in a
jitted scan; the whole batch's count and buffer over a split batch."""

from __future__ import annotations

import inspect

import gymnasium as gym
import numpy as np
import pytest

jax = pytest.importorskip("jax")
pytest.importorskip("gymnax")
import jax.numpy as jnp  # noqa: E402
from functional_envs import Episodes, N, leaves_equal, pendulum, rollout  # noqa: E402

import anywrap  # noqa: E402
import anywrap.vector  # noqa: E402
from anywrap import functional as F  # noqa: E402
from anywrap.functional.core import psum  # noqa: E402
from anywrap.functional.statistics import all_gather  # noqa: E402
from anywrap.transforms import record_episode_statistics as T  # noqa: E402


def zeros(steps, n=3):
    return jnp.zeros((steps, n, 1))


def test_gymnasiums_arguments_and_defaults_but_no_buffer_by_default():
    ours = inspect.signature(F.RecordEpisodeStatistics).parameters
    for reference in (
        gym.wrappers.RecordEpisodeStatistics,
        gym.wrappers.vector.RecordEpisodeStatistics,
        anywrap.RecordEpisodeStatistics,
        anywrap.vector.RecordEpisodeStatistics,
    ):
        theirs = inspect.signature(reference).parameters
        assert ours["stats_key"].default == theirs["stats_key"].default, reference
        # the one deliberate difference: a buffer costs a compiled step a top-k
        # over the batch (about 3% of B4's step), so the functional default is 0
        assert theirs["buffer_length"].default == 100 and ours["buffer_length"].default == 0
    assert list(ours)[:3] == ["env", "buffer_length", "stats_key"]  # positional as Gymnasium's
    env = F.RecordEpisodeStatistics(Episodes())
    assert env.buffer_length == 0 and env.stats_key == "episode"


def test_stats_key_names_the_info_keys_and_the_buffer_keeps_the_newest_episodes():
    # Episodes of 2, 3 and 4 steps over 12 steps: 6 + 4 + 3 = 13 episodes.
    _, state, (*_, info) = rollout(F.RecordEpisodeStatistics(Episodes(), 4, "stats"), zeros(12))
    assert "stats" in info and "_stats" in info and "episode" not in info
    done = np.asarray(info["_stats"])
    t = np.arange(1, 13)[:, None]
    np.testing.assert_array_equal(done, t % np.array([2, 3, 4]) == 0)
    r = np.asarray(info["stats"]["r"])
    # an episode of length L pays 1 + 2 + ... + L
    np.testing.assert_array_equal(r[done], np.broadcast_to([3.0, 6.0, 10.0], done.shape)[done])
    assert np.all(np.isnan(r[~done]))
    assert float(F.episode_count(state)) == 13
    returns, lengths, valid = F.recent_episodes(state)
    # Step 12 ends envs 0, 1 and 2 (the newest is env 2), step 10 ends env 0.
    np.testing.assert_array_equal(np.asarray(lengths), [4, 3, 2, 2])
    np.testing.assert_array_equal(np.asarray(returns), [10.0, 6.0, 3.0, 3.0])
    assert bool(jnp.all(valid))


def test_recent_episodes_match_gymnasiums_return_queue():
    """Gymnasium's own vector wrapper over the same env: its queues, reversed, are our buffer."""
    buffer = 5
    fenv = F.RecordEpisodeStatistics(pendulum(3, max_steps=4), buffer, "ep")
    venv = F.to_vector_env(fenv, seed=3)
    genv = gym.wrappers.vector.RecordEpisodeStatistics(
        gym.wrappers.vector.JaxToNumpy(F.to_vector_env(pendulum(3, max_steps=4), seed=3)),
        buffer_length=buffer,
        stats_key="ep",
    )
    venv.reset(seed=3)
    genv.reset(seed=3)
    for _ in range(10):
        a = np.ones((3, 1), np.float32)
        venv.step(a)
        genv.step(a)
    returns, lengths, valid = F.recent_episodes(venv.state)
    assert bool(jnp.all(valid)) and len(genv.return_queue) == buffer
    np.testing.assert_allclose(np.asarray(returns), list(genv.return_queue)[::-1], rtol=1e-5)
    np.testing.assert_array_equal(np.asarray(lengths), list(genv.length_queue)[::-1])
    assert float(F.episode_count(venv.state)) == genv.episode_count == 6


def test_nan_not_zeros_before_the_first_episode_ends():
    env = F.RecordEpisodeStatistics(pendulum(), buffer_length=5)
    _, state, (*_, info) = rollout(env, zeros(20, N))
    assert not bool(jnp.any(info["_episode"]))
    assert bool(jnp.all(jnp.isnan(info["episode"]["r"])))
    assert not bool(jnp.any(F.recent_episodes(state)[2]))
    last_valid = F.last_episodes(state)[2]
    assert last_valid.shape == (N,) and not bool(jnp.any(last_valid))


def test_returns_and_lengths_of_pendulums_truncated_at_200():
    env = F.RecordEpisodeStatistics(pendulum(), buffer_length=2 * N)
    _, state, (_, rew, _, trunc, info) = rollout(env, zeros(205, N))
    done = np.asarray(info["_episode"])
    assert done.sum() == N and np.all(done[199]) and np.all(np.asarray(trunc)[199])
    r = np.asarray(info["episode"]["r"])
    np.testing.assert_allclose(r[199], np.asarray(rew, np.float64)[:200].sum(0), rtol=1e-5)
    np.testing.assert_array_equal(np.asarray(info["episode"]["l"])[199], 200)
    returns, _lengths, valid = F.recent_episodes(state)
    assert int(valid.sum()) == N
    # newest first: the highest env index ended last (Gymnasium's order)
    np.testing.assert_allclose(np.asarray(returns)[:N], r[199][::-1], rtol=1e-6)
    last_r, last_l, last_valid = F.last_episodes(state)
    assert bool(jnp.all(last_valid))
    np.testing.assert_allclose(np.asarray(last_r), r[199], rtol=1e-6)
    np.testing.assert_array_equal(np.asarray(last_l), 200)


def test_last_episodes_keep_each_envs_latest_episode_with_staggered_ends():
    env = F.RecordEpisodeStatistics(Episodes((3, 5)))
    _, state = env.reset(jax.random.key(0))
    step = jax.jit(env.step)
    valid_seen = []
    for _ in range(8):  # env 0 ends after steps 3 and 6; env 1 after step 5
        state = step(state, jnp.zeros((2, 1))).state
        valid_seen.append(np.asarray(F.last_episodes(state)[2]))
    returns, lengths, _ = F.last_episodes(state)
    np.testing.assert_array_equal(np.stack(valid_seen)[:, 0], [0, 0, 1, 1, 1, 1, 1, 1])
    np.testing.assert_array_equal(np.stack(valid_seen)[:, 1], [0, 0, 0, 0, 1, 1, 1, 1])
    np.testing.assert_array_equal(np.asarray(lengths), [3, 5])
    np.testing.assert_allclose(np.asarray(returns), [1 + 2 + 3, 1 + 2 + 3 + 4 + 5])


def test_episode_count_stays_exact_past_two_to_the_24():
    env = F.RecordEpisodeStatistics(Episodes(), buffer_length=0)
    _, state = env.reset(jax.random.key(0))
    e = state.episodes
    state = state._replace(
        episodes=e._replace(episode_count=jnp.asarray(2.0**24, e.episode_count.dtype))
    )
    step = jax.jit(env.step)
    for _ in range(12):  # 13 episodes end
        state = step(state, jnp.zeros((3, 1))).state
    e = state.episodes
    assert e.episode_count.dtype == jnp.float32  # x64 off: the words are float32
    assert int(np.asarray(e.episode_count)) + int(np.asarray(e.episode_count_lo)) == 2**24 + 13


def test_info_that_already_has_the_stats_key_is_refused_before_anything_changes():
    env = F.RecordEpisodeStatistics(Episodes(extra_info={"episode": jnp.zeros(3)}))
    _, state = env.reset(jax.random.key(0))
    before = jax.tree.map(np.array, state)
    with pytest.raises(ValueError) as err:
        env.step(state, jnp.zeros((3, 1)))
    msg = str(err.value)
    assert "anywrap.functional.RecordEpisodeStatistics" in msg and "'episode'" in msg
    assert "stats_key" in msg
    assert leaves_equal(state, before)
    with pytest.raises(ValueError, match="'_ep'"):
        F.RecordEpisodeStatistics(Episodes(extra_info={"_ep": 1}), stats_key="ep").step(
            state, jnp.zeros((3, 1))
        )
    # another key is fine, and the env's own entry passes through
    s = F.RecordEpisodeStatistics(Episodes(extra_info={"episode": 7}), stats_key="stats").step(
        state, jnp.zeros((3, 1))
    )
    assert s.info["episode"] == 7 and "stats" in s.info


@pytest.mark.parametrize(
    ("kwargs", "error", "words"),
    [
        ({"buffer_length": -1}, ValueError, ["buffer_length", ">= 0", "-1"]),
        ({"buffer_length": 2.5}, TypeError, ["buffer_length", "float 2.5"]),
        ({"buffer_length": True}, TypeError, ["buffer_length", "bool True"]),
        ({"stats_key": 3}, TypeError, ["stats_key", "int 3"]),
        ({"stats_key": ""}, TypeError, ["stats_key", "non-empty"]),
    ],
)
def test_bad_arguments_name_the_wrapper(kwargs, error, words):
    with pytest.raises(error) as err:
        F.RecordEpisodeStatistics(Episodes(), **kwargs)
    msg = str(err.value)
    assert msg.startswith("anywrap.functional.RecordEpisodeStatistics: ")
    for word in words:
        assert word in msg, (word, msg)
    assert F.RecordEpisodeStatistics(Episodes(), buffer_length=np.int64(3)).buffer_length == 3


def test_recent_episodes_needs_a_buffer():
    _, state = F.RecordEpisodeStatistics(pendulum(), buffer_length=0).reset(jax.random.key(0))
    with pytest.raises(ValueError, match="buffer_length=0"):
        F.recent_episodes(state)


def test_axis_name_under_vmap_gives_every_env_the_batchs_count_and_buffer():
    """``vmap`` of an unbatched env with ``axis_name`` equals the batched wrapper."""
    one = F.RecordEpisodeStatistics(pendulum(None, max_steps=3), 5, axis_name="e")
    batched = F.RecordEpisodeStatistics(pendulum(N, max_steps=3), 5)
    _, sv = jax.vmap(one.reset)(jax.random.split(jax.random.key(0), N))
    _, sb = batched.reset(jax.random.split(jax.random.key(0), N))
    actions = jax.random.uniform(jax.random.key(1), (7, N, 1), minval=-2.0, maxval=2.0)
    step_v = jax.jit(jax.vmap(one.step, axis_name="e"))
    step_b = jax.jit(batched.step)
    for a in actions:
        sv, sb = step_v(sv, a).state, step_b(sb, a).state
    np.testing.assert_array_equal(np.asarray(F.episode_count(sv)), [2 * N] * N)  # 2 ends each
    rb, lb, vb = F.recent_episodes(sb)
    rv, lv, vv = F.recent_episodes(sv)
    assert rv.shape == (N, 5)  # one copy per env, each the whole batch's
    for i in range(N):
        np.testing.assert_allclose(np.asarray(rv[i]), np.asarray(rb), rtol=1e-6)
        np.testing.assert_array_equal(np.asarray(lv[i]), np.asarray(lb))
        np.testing.assert_array_equal(np.asarray(vv[i]), np.asarray(vb))
    # each env's own last episode stays its own
    np.testing.assert_allclose(
        np.asarray(F.last_episodes(sv)[0]), np.asarray(F.last_episodes(sb)[0]), rtol=1e-6
    )
    # without axis_name each env would count only its own episodes: the check can fail
    alone = F.RecordEpisodeStatistics(pendulum(None, max_steps=3), 0)
    _, sa = jax.vmap(alone.reset)(jax.random.split(jax.random.key(0), N))
    step_a = jax.jit(jax.vmap(alone.step))
    for a in actions:
        sa = step_a(sa, a).state
    np.testing.assert_array_equal(np.asarray(F.episode_count(sa)), [2] * N)


def test_a_buffer_over_a_split_batch_needs_a_gather():
    e = T.init_episodes((2,), xp=np, buffer_length=3)
    with pytest.raises(ValueError, match="gather"):
        T.step_episodes(e, np.ones(2), np.ones(2, bool), np.zeros(2, bool), reduce=lambda k: k)


@pytest.mark.parametrize(("parts", "per", "buffer"), [(4, 5, 3), (3, 2, 7), (2, 6, 6)])
def test_split_batch_keeps_the_buffer_and_count_of_the_whole_batch(parts, per, buffer):
    """The transform over ``parts`` participants of ``per`` envs (a vmap with the
    functional shell's hooks) equals the transform over the whole batch, step by
    step, with random ends: buffers shorter and longer than a participant's batch."""
    n = parts * per
    rng = np.random.default_rng(parts * 100 + per)
    whole = T.init_episodes((n,), xp=jnp, buffer_length=buffer)
    split = jax.tree.map(lambda x: jnp.stack([x] * parts), whole)
    split = split._replace(
        returns=jnp.zeros((parts, per)),
        lengths=jnp.zeros((parts, per), whole.lengths.dtype),
        start_time=jnp.zeros((parts, per)),
        prev_done=jnp.zeros((parts, per), bool),
    )

    def step(state, reward, done, **hooks):
        return T.step_episodes(
            state, reward, done, jnp.zeros_like(done), same_step=True, timed=False, **hooks
        )[0]

    split_step = jax.jit(
        jax.vmap(
            lambda s, r, d: step(s, r, d, reduce=psum("p"), gather=all_gather("p")),
            axis_name="p",
        )
    )
    whole_step = jax.jit(step)
    total = 0
    for _ in range(12):
        reward = jnp.asarray(rng.normal(size=n), jnp.float32)
        done = jnp.asarray(rng.random(n) < 0.3)
        total += int(done.sum())
        whole = whole_step(whole, reward, done)
        split = split_step(split, reward.reshape(parts, per), done.reshape(parts, per))
        for field in ("recent_returns", "recent_lengths", "recent_size"):
            for p in range(parts):
                np.testing.assert_array_equal(
                    np.asarray(getattr(split, field)[p]), np.asarray(getattr(whole, field))
                )
    assert float(T.episode_total(whole)) == total
    np.testing.assert_array_equal(np.asarray(T.episode_total(split)), [total] * parts)
    np.testing.assert_array_equal(np.asarray(split.returns).reshape(-1), np.asarray(whole.returns))
