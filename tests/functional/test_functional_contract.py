"""One contract for the three shells: the functional wrappers take the stateful
shells' arguments, defaults, info keys and checks, except where the README's
table says why not.

References: Gymnasium 1.4's own signatures and errors, the stateful shells'
errors (the same checks must give the same messages, the wrapper's name
aside), closed forms on envs with known episodes, and JAX's dtypes.
"""

from __future__ import annotations

import inspect

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.error import InvalidBound

jax = pytest.importorskip("jax")
gymnax = pytest.importorskip("gymnax")
import jax.numpy as jnp  # noqa: E402

import anywrap  # noqa: E402
import anywrap.vector  # noqa: E402
from anywrap import functional as F  # noqa: E402
from anywrap.transforms.moments import total_count  # noqa: E402

N = 4


def pendulum(n: int | None = N, max_steps: int = 200) -> F.FunctionalEnv:
    env, params = gymnax.make("Pendulum-v1")
    env = F.from_gymnax(env, params.replace(max_steps_in_episode=max_steps))
    return env if n is None else F.VmapWrapper(env, n)


class Counting:
    """A batch of 3 envs whose episodes last 2, 3 and 4 steps; reward = step number.

    ``extra_info`` is merged into every step's info (to collide with a stats key).
    """

    observation_space = gym.spaces.Box(-np.inf, np.inf, (1,), np.float32)
    action_space = gym.spaces.Box(-1.0, 1.0, (1,), np.float32)
    num_envs = 3
    autoreset_mode = gym.vector.AutoresetMode.SAME_STEP
    limits = jnp.array([2, 3, 4])

    def __init__(self, extra_info: dict | None = None) -> None:
        self.extra_info = extra_info or {}

    def reset(self, key):
        return jnp.zeros((3, 1)), jnp.zeros(3, jnp.int32)

    def step(self, t, action):
        t = t + 1
        done = t == self.limits
        obs = t[:, None].astype(jnp.float32)
        info = dict(self.extra_info)
        return F.Step(obs, jnp.where(done, 0, t), t.astype(jnp.float32), done, done & False, info)


def run(env, steps, n=3):
    """``steps`` jitted steps with zero actions; the final state and the stacked infos."""

    @jax.jit
    def go(key):
        _, state = env.reset(key)

        def body(state, _):
            s = env.step(state, jnp.zeros((n, 1)))
            return s.state, s.info

        return jax.lax.scan(body, state, None, length=steps)

    return go(jax.random.key(0))


def leaves_equal(a, b) -> bool:
    la, lb = jax.tree.leaves(a), jax.tree.leaves(b)
    return len(la) == len(lb) and all(
        np.array_equal(np.asarray(x), np.asarray(y)) for x, y in zip(la, lb)
    )


# ------------------------------------------------------------ RecordEpisodeStatistics
def test_record_episode_statistics_has_gymnasiums_arguments_and_defaults():
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
    env = F.RecordEpisodeStatistics(Counting())
    assert env.buffer_length == 0 and env.stats_key == "episode"


def test_stats_key_names_the_info_keys_and_the_buffer_keeps_the_newest_episodes():
    # Episodes of 2, 3 and 4 steps over 12 steps: 6 + 4 + 3 = 13 episodes.
    state, info = run(F.RecordEpisodeStatistics(Counting(), 4, "stats"), 12)
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


def test_episode_count_stays_exact_past_two_to_the_24():
    env = F.RecordEpisodeStatistics(Counting(), buffer_length=0)
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
    env = F.RecordEpisodeStatistics(Counting({"episode": jnp.zeros(3)}))
    _, state = env.reset(jax.random.key(0))
    before = jax.tree.map(np.array, state)
    with pytest.raises(ValueError) as err:
        env.step(state, jnp.zeros((3, 1)))
    msg = str(err.value)
    assert "anywrap.functional.RecordEpisodeStatistics" in msg and "'episode'" in msg
    assert "stats_key" in msg
    assert leaves_equal(state, before)
    with pytest.raises(ValueError, match="'_ep'"):
        F.RecordEpisodeStatistics(Counting({"_ep": 1}), stats_key="ep").step(
            state, jnp.zeros((3, 1))
        )
    # another key is fine, and the env's own entry passes through
    s = F.RecordEpisodeStatistics(Counting({"episode": 7}), stats_key="stats").step(
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
def test_record_episode_statistics_bad_arguments_name_the_wrapper(kwargs, error, words):
    with pytest.raises(error) as err:
        F.RecordEpisodeStatistics(Counting(), **kwargs)
    msg = str(err.value)
    assert msg.startswith("anywrap.functional.RecordEpisodeStatistics: ")
    for word in words:
        assert word in msg, (word, msg)
    assert F.RecordEpisodeStatistics(Counting(), buffer_length=np.int64(3)).buffer_length == 3


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
    from anywrap.transforms import record_episode_statistics as episodes

    e = episodes.init_episodes((2,), xp=np, buffer_length=3)
    with pytest.raises(ValueError, match="gather"):
        episodes.step_episodes(
            e, np.ones(2), np.ones(2, bool), np.zeros(2, bool), reduce=lambda k: k
        )


# ----------------------------------------------------------------- NormalizeReward
def test_normalize_reward_has_the_stateful_arguments_and_defaults():
    ours = inspect.signature(F.NormalizeReward).parameters
    theirs = inspect.signature(gym.wrappers.vector.NormalizeReward).parameters
    for name in ("gamma", "epsilon"):
        assert ours[name].default == theirs[name].default
    assert ours["stats_dtype"].default is None
    assert ours["stats_dtype"].default == (
        inspect.signature(anywrap.vector.NormalizeReward).parameters["stats_dtype"].default
    )


@pytest.mark.parametrize("batched", [True, False])
def test_normalize_reward_stats_dtype(batched):
    env = pendulum(N if batched else None)

    def dtypes(**kw):
        g = F.find_state(
            F.NormalizeReward(env, **kw).reset(jax.random.key(0))[1], F.NormalizeRewardState
        )
        return g.returns.accumulated.dtype, g.returns.rms.var.dtype, g.returns.rms.count.dtype

    with jax.enable_x64(True):
        # Gymnasium's: float32 G for a batch (its vector wrapper), float64 for one env;
        # float64 statistics
        acc, var, _ = dtypes()
        assert (acc, var) == ((jnp.float32 if batched else jnp.float64), jnp.float64)
        assert dtypes(stats_dtype="float32")[:2] == (jnp.float32, jnp.float32)
        assert dtypes(stats_dtype=np.float64)[:2] == (jnp.float64, jnp.float64)
    # x64 off: JAX has no float64, so everything is float32
    assert dtypes()[:2] == dtypes(stats_dtype="float64")[:2] == (jnp.float32, jnp.float32)


class Waves:
    """4 envs with episodes of 3, 4, 5 and 6 steps (the even ones terminate, the odd
    ones truncate) and rewards ``(i + 1) sin(1.3 t + i)``, float32."""

    observation_space = gym.spaces.Box(-np.inf, np.inf, (1,), np.float32)
    action_space = gym.spaces.Box(-1.0, 1.0, (1,), np.float32)
    num_envs = 4
    autoreset_mode = gym.vector.AutoresetMode.SAME_STEP

    def reset(self, key):
        return jnp.zeros((4, 1), jnp.float32), jnp.zeros(4, jnp.int32)

    def step(self, t, action):
        t = t + 1
        i = jnp.arange(4)
        done = t == i + 3
        reward = ((i + 1) * jnp.sin(1.3 * t + i)).astype(jnp.float32)
        obs = t[:, None].astype(jnp.float32)
        return F.Step(
            obs, jnp.where(done, 0, t), reward, done & (i % 2 == 0), done & (i % 2 == 1), {}
        )


def test_normalize_reward_stats_dtype_float64_matches_gymnasium_closely():
    """With x64 on, the default keeps Gymnasium's dtypes (float32 G, float64 statistics):
    scaled rewards within float32 rounding and the variance to 1e-9."""
    gamma = 0.95
    with jax.enable_x64(True):
        fenv = F.to_vector_env(F.NormalizeReward(Waves(), gamma), seed=1)
        genv = gym.wrappers.vector.NormalizeReward(
            gym.wrappers.vector.JaxToNumpy(F.to_vector_env(Waves(), seed=1)), gamma=gamma
        )
        fenv.reset(seed=1)
        genv.reset(seed=1)
        a = np.zeros((4, 1), np.float32)
        for _ in range(30):  # several ends of every env
            f = np.asarray(fenv.step(a)[1])
            g = genv.step(a)[1]
            np.testing.assert_allclose(f, g, rtol=1e-6)
        r = F.find_state(fenv.state, F.NormalizeRewardState).returns
        assert r.rms.var.dtype == jnp.float64
        np.testing.assert_allclose(float(r.rms.var), genv.return_rms.var, rtol=1e-9)
        np.testing.assert_allclose(np.asarray(r.accumulated), genv.accumulated_reward, rtol=1e-6)


@pytest.mark.parametrize("bad", ["int32", "float16", "bogus", 3])
def test_bad_stats_dtype_names_the_wrapper(bad):
    for cls in (F.NormalizeReward, F.NormalizeObservation):
        with pytest.raises(ValueError) as err:
            cls(pendulum(), stats_dtype=bad)
        msg = str(err.value)
        assert msg.startswith(f"anywrap.functional.{cls.__name__}: ") and "stats_dtype" in msg
        assert repr(bad) in msg and "'float32' or 'float64'" in msg


# ----------------------------------------------------------- gamma and epsilon checks
BAD_VALUES = [
    ("gamma", 1.5, InvalidBound),
    ("gamma", -0.1, InvalidBound),
    ("gamma", np.float32(1.01), InvalidBound),
    ("gamma", "0.99", TypeError),
    ("gamma", None, TypeError),
    ("epsilon", -1.0, InvalidBound),
    ("epsilon", 0.0, InvalidBound),
    ("epsilon", float("nan"), InvalidBound),
    ("epsilon", "1e-8", TypeError),
]


def _vector_pendulum():
    return gym.make_vec("Pendulum-v1", num_envs=1, vectorization_mode="sync")


@pytest.mark.parametrize(("name", "value", "error"), BAD_VALUES)
def test_bad_gamma_and_epsilon_fail_as_in_the_stateful_shells(name, value, error):
    cases = [(F.NormalizeReward, anywrap.vector.NormalizeReward)]
    if name == "epsilon":
        cases.append((F.NormalizeObservation, anywrap.vector.NormalizeObservation))
    for functional, vector in cases:
        with pytest.raises(error) as ours:
            functional(pendulum(), **{name: value})
        with pytest.raises(error) as theirs:
            vector(_vector_pendulum(), **{name: value})
        got = str(ours.value)
        assert got.startswith(f"anywrap.functional.{functional.__name__}: ")
        assert got.split(": ", 1)[1] == str(theirs.value).split(": ", 1)[1]
        assert f"`{name}`" in got and repr(value) in got


@pytest.mark.parametrize(
    "value", [np.float32(0.9), np.float64(0.9), np.array(0.9), jnp.asarray(0.9), 0.9]
)
def test_gamma_and_epsilon_accept_numpy_and_jax_scalars(value):
    env = F.NormalizeReward(pendulum(), gamma=value, epsilon=value * 1e-7)
    assert type(env.gamma) is float and env.gamma == pytest.approx(0.9)
    assert type(env.epsilon) is float and env.epsilon == pytest.approx(0.9e-7)
    obs_env = F.NormalizeObservation(pendulum(), epsilon=value)
    assert type(obs_env.epsilon) is float and obs_env.epsilon == pytest.approx(0.9)


# ------------------------------------------------------------- update_running_mean
def _counts(env, state):
    """The sample counts of the normalisers in ``state`` (without Gymnasium's 1e-4)."""
    out = []
    if isinstance(env, F.NormalizeReward):
        out.append(float(total_count(state.returns.rms)))
    obs = F.find_state(state, F.NormalizeObservationState).obs_stats
    out.append(float(total_count(obs)))
    return [round(c) for c in out]


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


@pytest.mark.parametrize("cls", [F.NormalizeObservation, F.NormalizeReward])
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


@pytest.mark.parametrize(("parts", "per", "buffer"), [(4, 5, 3), (3, 2, 7), (2, 6, 6)])
def test_split_batch_keeps_the_buffer_and_count_of_the_whole_batch(parts, per, buffer):
    """The transform over ``parts`` participants of ``per`` envs (a vmap with the
    functional shell's hooks) equals the transform over the whole batch, step by
    step, with random ends: buffers shorter and longer than a participant's batch."""
    from anywrap.functional.core import psum
    from anywrap.functional.record_episode_statistics import all_gather
    from anywrap.transforms import record_episode_statistics as episodes

    n = parts * per
    rng = np.random.default_rng(parts * 100 + per)
    whole = episodes.init_episodes((n,), xp=jnp, buffer_length=buffer)
    split = jax.tree.map(lambda x: jnp.stack([x] * parts), whole)
    split = split._replace(
        returns=jnp.zeros((parts, per)),
        lengths=jnp.zeros((parts, per), whole.lengths.dtype),
        start_time=jnp.zeros((parts, per)),
        prev_done=jnp.zeros((parts, per), bool),
    )

    def step(state, reward, done, **hooks):
        return episodes.step_episodes(
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
    assert float(episodes.episode_total(whole)) == total
    np.testing.assert_array_equal(np.asarray(episodes.episode_total(split)), [total] * parts)
    np.testing.assert_array_equal(np.asarray(split.returns).reshape(-1), np.asarray(whole.returns))


def test_the_guide_shows_the_functional_signatures():
    """The guide's table of the functional wrappers gives each one's real signature."""
    from pathlib import Path

    guide = Path(__file__).resolve().parents[2] / "docs" / "guide" / "functional.md"
    readme = guide.read_text()
    for cls in (F.RecordEpisodeStatistics, F.NormalizeObservation, F.NormalizeReward):
        parts, star = [], False
        for p in inspect.signature(cls).parameters.values():
            if p.kind is p.KEYWORD_ONLY and not star:
                parts.append("*")
                star = True
            default = p.default
            shown = f'"{default}"' if isinstance(default, str) else repr(default)
            shown = shown.replace("e-0", "e-")  # 1e-8, as written
            parts.append(p.name if default is p.empty else f"{p.name}={shown}")
        row = f"| `{cls.__name__}({', '.join(parts)})` |"
        assert row in readme, row
