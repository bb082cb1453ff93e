"""Checkpoints of a functional stack's statistics: anywrap.save_state / load_state with
``state=``. The same safetensors format and checks as the stateful shells; the file holds
the statistics of the whole batch, once; the per-env parts come from the template.

References are the saved state's own arrays and the file read with safetensors itself,
never anywrap's reading of it. Across processes: test_multiprocess.py.
"""

from __future__ import annotations

import numpy as np
import pytest

jax = pytest.importorskip("jax")
pytest.importorskip("gymnax")
pytest.importorskip("safetensors")
import gymnasium as gym  # noqa: E402
import jax.numpy as jnp  # noqa: E402
from functional_envs import cleanrl_stack, pendulum, uniform_actions  # noqa: E402
from safetensors import safe_open  # noqa: E402
from safetensors.numpy import load_file, save_file  # noqa: E402

import anywrap  # noqa: E402
from anywrap import functional as F  # noqa: E402
from anywrap.checkpoint import CheckpointError  # noqa: E402

# The statistics of the CleanRL stack, by the wrapper's depth in it (TransformReward is 0).
OBS = "3.NormalizeObservation.obs_stats."
RMS = "1.NormalizeReward.returns.rms."
EPISODES = "5.RecordEpisodeStatistics.episodes."
EXPECTED = sorted(
    [OBS + f for f in ("mean", "var", "count", "count_lo")]
    + [RMS + f for f in ("mean", "var", "count", "count_lo")]
    + [
        EPISODES + f
        for f in (
            "recent_returns",
            "recent_lengths",
            "recent_times",
            "recent_size",
            "episode_count",
            "episode_count_lo",
        )
    ]
)


def make(n=4):
    return cleanrl_stack(pendulum(n, max_steps=5), buffer_length=3)


def trained(env, steps=12, n=4, key=0):
    actions = uniform_actions(steps, n)

    @jax.jit
    def run(k, acts):
        _, state = env.reset(k)
        return jax.lax.scan(lambda s, a: (env.step(s, a).state, None), state, acts)[0]

    return run(jax.random.key(key), actions)


def statistics(state):
    """The statistics by checkpoint key, read from the state by hand (the reference)."""
    obs = F.find_state(state, F.NormalizeObservationState).obs_stats
    rms = F.find_state(state, F.NormalizeRewardState).returns.rms
    ep = F.find_state(state, F.EpisodeStatisticsState).episodes
    out = {OBS + f: getattr(obs, f) for f in obs._fields}
    out.update({RMS + f: getattr(rms, f) for f in rms._fields})
    out.update({EPISODES + f: getattr(ep, f) for f in EXPECTED_EPISODES})
    return {k: np.asarray(v) for k, v in out.items()}


EXPECTED_EPISODES = [k[len(EPISODES) :] for k in EXPECTED if k.startswith(EPISODES)]


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    env = make()
    state = trained(env)
    path = tmp_path_factory.mktemp("ckpt") / "stats.safetensors"
    anywrap.save_state(env, path, state=state)
    return env, state, path


def test_the_file_is_safetensors_with_each_statistic_once(saved):
    _, state, path = saved
    with safe_open(str(path), framework="numpy") as f:
        meta = f.metadata()
    assert meta == {
        "format": "anywrap.functional/1",
        "layers": "1.NormalizeReward,3.NormalizeObservation,5.RecordEpisodeStatistics",
    }
    tensors = load_file(str(path))
    assert sorted(tensors) == EXPECTED
    want = statistics(state)
    for key, value in tensors.items():
        np.testing.assert_array_equal(value, want[key], err_msg=key)
        assert value.dtype == want[key].dtype, key
    assert float(want[EPISODES + "episode_count"]) == 8  # 4 envs x 2 episodes of 5 steps


def test_loading_gives_the_saved_statistics_and_keeps_the_templates_per_env_parts(saved):
    env, state, path = saved
    _, template = jax.jit(env.reset)(jax.random.key(7))
    loaded = anywrap.load_state(env, path, state=template)
    assert jax.tree.structure(loaded) == jax.tree.structure(template)
    want, fresh = statistics(state), statistics(template)
    got = statistics(loaded)
    for key in EXPECTED:
        np.testing.assert_array_equal(got[key], want[key], err_msg=key)
        assert got[key].dtype == want[key].dtype
        if not key.endswith(("_lo", "recent_times")):  # (no clock: the times stay 0)
            assert not np.array_equal(fresh[key], want[key]), key
    # the per-env parts are the template's: running returns, episode clocks, the env
    for kind, field in (
        (F.NormalizeRewardState, "returns"),
        (F.EpisodeStatisticsState, "last"),
    ):
        part = getattr(F.find_state(loaded, kind), field)
        same = getattr(F.find_state(template, kind), field)
        if field == "returns":
            part, same = (part.accumulated, part.prev_done), (same.accumulated, same.prev_done)
        for a, b in zip(jax.tree.leaves(part), jax.tree.leaves(same)):
            assert a is b
    ep, ep0 = (F.find_state(s, F.EpisodeStatisticsState).episodes for s in (loaded, template))
    assert ep.returns is ep0.returns and ep.lengths is ep0.lengths
    inner, inner0 = (F.find_state(s, F.EpisodeStatisticsState).inner for s in (loaded, template))
    assert all(a is b for a, b in zip(jax.tree.leaves(inner), jax.tree.leaves(inner0)))


def test_a_stack_loaded_into_its_own_state_continues_as_the_saved_one(saved):
    env, state, path = saved
    loaded = anywrap.load_state(env, path, state=state)
    for a, b in zip(jax.tree.leaves(loaded), jax.tree.leaves(state), strict=True):
        if jax.dtypes.issubdtype(a.dtype, jax.dtypes.prng_key):
            a, b = jax.random.key_data(a), jax.random.key_data(b)
        np.testing.assert_array_equal(np.asarray(a), np.asarray(b))
    action = uniform_actions(1, 4, key=3)[0]
    step = jax.jit(env.step)
    s1, s2 = step(loaded, action), step(state, action)
    np.testing.assert_array_equal(np.asarray(s1.obs), np.asarray(s2.obs))
    np.testing.assert_array_equal(np.asarray(s1.reward), np.asarray(s2.reward))


def test_the_file_does_not_depend_on_the_batch_size(saved):
    _, state, path = saved
    wide = make(8)
    loaded = anywrap.load_state(wide, path, state=jax.jit(wide.reset)(jax.random.key(1))[1])
    got, want = statistics(loaded), statistics(state)
    for key in EXPECTED:
        np.testing.assert_array_equal(got[key], want[key], err_msg=key)


def _edited(path, tmp_path, key, value):
    tensors = load_file(str(path))
    with safe_open(str(path), framework="numpy") as f:
        meta = f.metadata()
    tensors[key] = np.asarray(value)
    out = tmp_path / "edited.safetensors"
    save_file(tensors, str(out), metadata=meta)
    return out


@pytest.mark.parametrize(
    ("key", "value", "message"),
    [
        (OBS + "var", [1.0, -1.0, 1.0], "must be non-negative"),
        (OBS + "mean", [0.0, np.nan, 0.0], "must be finite"),
        (RMS + "count", -5.0, "must be non-negative"),
        (RMS + "count_lo", -1e9, "must total a non-negative count"),
        (OBS + "mean", np.zeros(3, np.int32), "holds int32 values"),
        (EPISODES + "recent_size", 7, "must be at most the buffer's 3"),
        (EPISODES + "recent_lengths", np.array([1, 2, 2**40], np.int64), "fit int32"),
        (OBS + "mean", np.zeros(4, np.float32), r"has shape \(4,\), this wrapper expects \(3,\)"),
    ],
)
def test_entries_that_the_wrappers_cannot_hold_are_refused_by_name(
    saved, tmp_path, key, value, message
):
    env, state, path = saved
    bad = _edited(path, tmp_path, key, value)
    field = key.split(".", 2)[2]
    with pytest.raises(CheckpointError, match=rf"anywrap.load_state: .*edited.*{field}.*{message}"):
        anywrap.load_state(env, bad, state=state)


def test_an_entry_of_no_saved_wrapper_is_refused_by_a_strict_load(saved, tmp_path):
    env, state, path = saved
    bad = _edited(path, tmp_path, "extra", np.zeros(3, np.float32))
    with pytest.raises(CheckpointError, match=r"holds entries of no saved wrapper, \['extra'\]"):
        anywrap.load_state(env, bad, state=state)
    loaded = anywrap.load_state(env, bad, state=state, strict=False)  # what fits loads
    assert jax.tree.structure(loaded) == jax.tree.structure(state)


def test_files_of_another_stack_or_kind_are_refused(saved, tmp_path):
    env, state, path = saved
    other = F.NormalizeObservation(pendulum())
    with pytest.raises(CheckpointError, match=r"\[1.NormalizeReward,.*\], this functional stack"):
        anywrap.load_state(other, path, state=other.reset(jax.random.key(0))[1])
    tensors = load_file(str(path))
    del tensors[OBS + "count_lo"]
    with safe_open(str(path), framework="numpy") as f:
        meta = f.metadata()
    save_file(tensors, str(tmp_path / "short.safetensors"), metadata=meta)
    with pytest.raises(CheckpointError, match=r"3.NormalizeObservation .*missing \['3.Normal"):
        anywrap.load_state(env, tmp_path / "short.safetensors", state=state)
    # a stateful stack's file, and the other way round
    vec = anywrap.vector.NormalizeObservation(gym.make_vec("Pendulum-v1", num_envs=2))
    vec.reset(seed=0)
    anywrap.save_state(vec, tmp_path / "vector.safetensors")
    with pytest.raises(CheckpointError, match="holds a stateful stack's statistics"):
        anywrap.load_state(env, tmp_path / "vector.safetensors", state=state)
    with pytest.raises(CheckpointError, match="functional stack's statistics: load them with"):
        anywrap.load_state(vec, path)


def test_a_functional_stack_needs_its_state_and_a_stateful_one_takes_none(saved, tmp_path):
    env, state, _ = saved
    target = tmp_path / "x.safetensors"
    with pytest.raises(ValueError, match=r"keeps its statistics in its state: pass it"):
        anywrap.save_state(env, target)
    vec = anywrap.vector.NormalizeObservation(gym.make_vec("Pendulum-v1", num_envs=2))
    with pytest.raises(ValueError, match=r"expected `state` only with an anywrap\.functional"):
        anywrap.save_state(vec, target, state=state)
    bare = pendulum()
    with pytest.raises(ValueError, match="at least one anywrap wrapper that keeps statistics"):
        anywrap.save_state(bare, target, state=bare.reset(jax.random.key(0))[1])
    assert not target.exists()


def test_a_float64_count_past_2_24_loads_exactly_into_float32_words(tmp_path):
    env = F.NormalizeObservation(pendulum())
    with jax.enable_x64(True):
        _, state = env.reset(jax.random.key(0))
        stats = state.obs_stats
        assert stats.count.dtype == jnp.float64
        big = stats._replace(count=jnp.asarray(2.0**31 - 3), count_lo=jnp.asarray(0.0))
        anywrap.save_state(env, tmp_path / "x64.safetensors", state=state._replace(obs_stats=big))
    _, template = env.reset(jax.random.key(0))
    loaded = anywrap.load_state(env, tmp_path / "x64.safetensors", state=template).obs_stats
    assert loaded.count.dtype == jnp.float32 and loaded.mean.dtype == jnp.float32
    assert int(loaded.count) + int(loaded.count_lo) == 2**31 - 3


def test_one_unbatched_env_saves_its_statistics_too(tmp_path):
    env = F.NormalizeReward(F.NormalizeObservation(pendulum(None)))
    _, state = env.reset(jax.random.key(0))
    for _ in range(3):
        state = env.step(state, jnp.ones(1)).state
    anywrap.save_state(env, tmp_path / "one.safetensors", state=state)
    assert sorted(load_file(str(tmp_path / "one.safetensors"))) == sorted(
        [f"0.NormalizeReward.returns.rms.{f}" for f in ("count", "count_lo", "mean", "var")]
        + [f"1.NormalizeObservation.obs_stats.{f}" for f in ("count", "count_lo", "mean", "var")]
    )
    loaded = anywrap.load_state(
        env, tmp_path / "one.safetensors", state=env.reset(jax.random.key(1))[1]
    )
    np.testing.assert_array_equal(loaded.inner.obs_stats.mean, state.inner.obs_stats.mean)
    assert float(loaded.inner.obs_stats.count) == pytest.approx(4.0001)


def test_only_process_zero_writes(tmp_path, monkeypatch):
    """Over several JAX processes the statistics are replicated: process 0 writes the file,
    the others return without writing (simulated here by the process index)."""
    env = make()
    state = trained(env)
    path = tmp_path / "stats.safetensors"
    monkeypatch.setattr(jax, "process_index", lambda *a, **k: 1)
    anywrap.save_state(env, path, state=state)
    assert not path.exists() and not list(tmp_path.iterdir())
    monkeypatch.setattr(jax, "process_index", lambda *a, **k: 0)
    anywrap.save_state(env, path, state=state)
    assert sorted(load_file(path)) == EXPECTED
