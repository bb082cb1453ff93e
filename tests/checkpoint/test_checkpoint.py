"""Contract 6: statistics survive. Plain-array state dicts, safetensors files
(never pickle), atomic saves, bit-identical continuation after a restore, and
counts exact past 2^24 samples in float32 JAX."""

from __future__ import annotations

import json
import os
import pickle
import struct
import time

import gymnasium as gym
import numpy as np
import pytest
from helpers import (
    ReplayVectorEnv,
    VectorTrajectory,
    assert_same_state,
    flat_state,
    make_backend,
    record_vector_trajectory,
    run_vector,
)

import anywrap
from anywrap import xp as axp
from anywrap.checkpoint import stack_state_dict
from anywrap.xp import to_numpy

pytest.importorskip("safetensors")


def stack(replay):
    env = anywrap.vector.RecordEpisodeStatistics(replay)
    env = anywrap.vector.ClipAction(env)
    env = anywrap.vector.NormalizeObservation(env)
    return anywrap.vector.NormalizeReward(env, gamma=0.99)


def layer(env, cls):
    while not isinstance(env, cls):
        env = env.env
    return env


def host(sd: dict) -> dict:
    return {k: np.array(to_numpy(v), copy=True) for k, v in sd.items()}


def untimed(sd: dict) -> dict:
    """Without the episode clocks (wall time differs between two runs)."""
    return {k: v for k, v in sd.items() if "time" not in k}


@pytest.mark.parametrize("backend_name", ["numpy", "jax", "torch"])
def test_state_dict_round_trip_holds_plain_arrays(backend_name):
    backend = make_backend(backend_name)
    traj = record_vector_trajectory()
    replay = ReplayVectorEnv(traj, backend)
    env = stack(replay)
    run_vector(env, steps=20)
    shells = [
        layer(env, c)
        for c in (
            anywrap.vector.NormalizeObservation,
            anywrap.vector.NormalizeReward,
            anywrap.vector.RecordEpisodeStatistics,
        )
    ]
    saved = [shell.state_dict() for shell in shells]
    for shell, sd in zip(shells, saved):
        assert sd and all(isinstance(k, str) for k in sd)
        for k, v in sd.items():
            assert isinstance(v, backend.array_type), (k, type(v))
        fresh = type(shell)(ReplayVectorEnv(traj, backend))
        fresh.load_state_dict(sd)
        assert_same_state(
            host(fresh.state_dict()),
            host(sd),
            same_dtype=False,  # a fresh shell holds NumPy (float64 counts) until it sees data
        )
    # A state dict of NumPy arrays (as read from disk) loads into shells that have
    # seen none of the data, which then continue exactly as the saved ones do.
    position = replay.position
    twins = []
    for shell, sd in zip(shells, saved):
        twin = type(shell)(ReplayVectorEnv(traj, backend, start=position))
        assert any(
            not np.array_equal(a, b)
            for a, b in zip(host(untimed(twin.state_dict())).values(), host(untimed(sd)).values())
        ), "a fresh shell must differ from the saved state, or the load proves nothing"
        twin.load_state_dict({k: backend.to_numpy(v) for k, v in sd.items()})
        assert_same_state(host(twin.state_dict()), host(sd), same_dtype=False)
        twins.append(twin)
    for _ in range(5):
        env.step(replay.action())
    for shell, twin in zip(shells, twins):
        for _ in range(5):
            twin.step(twin.env.action())
        for v in twin.state_dict().values():
            assert isinstance(v, backend.array_type)  # the state followed the data
        assert_same_state(
            untimed(host(twin.state_dict())), untimed(host(shell.state_dict())), same_dtype=False
        )


def test_load_state_dict_of_another_shape_changes_nothing():
    env = layer(
        stack(ReplayVectorEnv(record_vector_trajectory(), make_backend("numpy"))),
        anywrap.vector.NormalizeObservation,
    )
    env.reset(seed=0)
    sd = {k: np.asarray(v) for k, v in env.state_dict().items()}
    sd["mean"] = np.zeros(5, np.float32)
    before = flat_state(env)
    with pytest.raises(ValueError, match=r"anywrap\.vector\.NormalizeObservation.*'mean'.*\(5,\)"):
        env.load_state_dict(sd)
    assert_same_state(flat_state(env), before)
    with pytest.raises(KeyError, match=r"missing \['var'\]"):
        env.load_state_dict({k: v for k, v in sd.items() if k != "var"})


@pytest.mark.parametrize("backend_name", ["numpy", "jax"])
def test_restored_stack_continues_bit_identically(tmp_path, backend_name):
    backend = make_backend(backend_name)
    traj = record_vector_trajectory(num_steps=60)
    path = tmp_path / "stats.safetensors"
    original = stack(ReplayVectorEnv(traj, backend))
    run_vector(original, steps=25)
    anywrap.save_state(original, path)
    replay = original
    while not isinstance(replay, ReplayVectorEnv):
        replay = replay.env
    position = replay.position

    restored = stack(ReplayVectorEnv(traj, backend, start=position))
    anywrap.load_state(restored, path)
    rest_a = run_vector(original)
    rest_b = run_vector(restored)
    assert len(rest_a) == len(rest_b) > 20
    for x, y in zip(rest_a, rest_b):
        assert x[0] == y[0]
        np.testing.assert_array_equal(backend.to_numpy(x[1]), backend.to_numpy(y[1]))
        if x[0] == "step":
            np.testing.assert_array_equal(backend.to_numpy(x[2]), backend.to_numpy(y[2]))
    a, b = flat_state(original), flat_state(restored)
    timed = [k for k in a if "time" in k]  # wall clock: differs between two runs
    assert_same_state(
        {k: v for k, v in a.items() if k not in timed},
        {k: v for k, v in b.items() if k not in timed},
        same_dtype=False,
    )


# Regression: `recent_size` once turned from int32 into int64 at the first
# step on NumPy and PyTorch, so fresh and used checkpoints differed in dtype.
@pytest.mark.parametrize("backend_name", ["numpy", "torch"])
def test_state_dtypes_do_not_change_when_stepping(backend_name):
    env = stack(ReplayVectorEnv(record_vector_trajectory(), make_backend(backend_name)))
    env.reset(seed=0)
    first = {k: v.dtype for k, v in flat_state(env).items()}
    run_vector(env, steps=15)
    later = {k: v.dtype for k, v in flat_state(env).items()}
    assert later == first


# Regression: episode start times were once saved against the wrapper's own
# construction clock, so an episode spanning a checkpoint came back too short.
def test_restored_episode_clock_keeps_running(tmp_path):
    backend = make_backend("numpy")
    traj = record_vector_trajectory(num_steps=60)
    original = stack(ReplayVectorEnv(traj, backend))
    time.sleep(0.3)  # the run starts a while after the wrappers are built
    begin = time.perf_counter()
    run_vector(original, steps=3)  # episodes in progress, none ended yet
    path = tmp_path / "stats.safetensors"
    anywrap.save_state(original, path)
    restored = stack(ReplayVectorEnv(traj, backend, start=4))
    anywrap.load_state(restored, path)
    out = run_vector(restored, steps=12)
    ends = [o[5] for o in out if o[0] == "step" and "episode" in o[5]]
    assert ends
    t = ends[0]["episode"]["t"][ends[0]["_episode"]]
    assert (t >= 0).all(), f"episode wall time {t} is negative after a restore"
    assert (t <= time.perf_counter() - begin + 1e-3).all()


def test_save_and_load_whole_stack_round_trip(tmp_path):
    backend = make_backend("numpy")
    env = stack(ReplayVectorEnv(record_vector_trajectory(), backend))
    run_vector(env, steps=30)
    path = tmp_path / "s.safetensors"
    anywrap.save_state(env, path)
    other = stack(ReplayVectorEnv(record_vector_trajectory(), backend))
    assert not np.array_equal(
        layer(other, anywrap.vector.NormalizeObservation).obs_rms.mean,
        layer(env, anywrap.vector.NormalizeObservation).obs_rms.mean,
    )
    anywrap.load_state(other, path)
    assert_same_state(flat_state(other), flat_state(env), same_dtype=False)
    assert len(stack_state_dict(env)) >= 10


def test_a_file_saved_before_functional_checkpoints_still_loads():
    """tests/data/checkpoint_0_1_vector.safetensors was written by anywrap before
    save_state took functional states (a NumPy vector stack, 2 Pendulums, 30 steps):
    it loads into the same stack with the file's values, read by safetensors itself."""
    from pathlib import Path

    from safetensors.numpy import load_file

    path = Path(__file__).parent.parent / "data" / "checkpoint_0_1_vector.safetensors"
    envs = gym.make_vec("Pendulum-v1", num_envs=2, vectorization_mode="sync")
    envs = anywrap.vector.RecordEpisodeStatistics(envs)
    envs = anywrap.vector.NormalizeObservation(envs)
    envs = anywrap.vector.NormalizeReward(envs, gamma=0.99)
    envs.reset(seed=1)
    anywrap.load_state(envs, path)
    saved, now = load_file(str(path)), stack_state_dict(envs)
    assert sorted(saved) == sorted(now)
    assert float(saved["1.NormalizeObservation.count"]) == 62.0001  # 2 resets + 2 x 30 steps
    for key, value in saved.items():
        if not key.endswith("start_time"):  # a clock, saved relative to the moment of saving
            np.testing.assert_array_equal(to_numpy(now[key]), value, err_msg=key)


def test_file_is_safetensors_and_loading_never_unpickles(tmp_path, monkeypatch):
    env = stack(ReplayVectorEnv(record_vector_trajectory(), make_backend("numpy")))
    run_vector(env, steps=10)
    path = tmp_path / "s.safetensors"
    anywrap.save_state(env, path)
    raw = path.read_bytes()
    (n,) = struct.unpack("<Q", raw[:8])
    header = json.loads(raw[8 : 8 + n])
    assert header["__metadata__"]["format"].startswith("anywrap")
    assert set(header) - {"__metadata__"} == set(stack_state_dict(env))
    assert b"\x80\x04" not in raw[:2] and not raw.startswith(b"\x80")  # no pickle opcode

    def no_pickle(*a, **k):
        raise AssertionError("pickle used while loading")

    for name in ("loads", "load", "Unpickler"):
        monkeypatch.setattr(pickle, name, no_pickle)
    before = flat_state(env)
    fresh = stack(ReplayVectorEnv(record_vector_trajectory(), make_backend("numpy")))
    anywrap.load_state(fresh, path)
    assert_same_state(flat_state(fresh), before, same_dtype=False)


def test_interrupted_save_keeps_the_previous_file(tmp_path, monkeypatch):
    env = stack(ReplayVectorEnv(record_vector_trajectory(), make_backend("numpy")))
    replay = env
    while not isinstance(replay, ReplayVectorEnv):
        replay = replay.env
    run_vector(env, steps=10)
    path = tmp_path / "s.safetensors"
    anywrap.save_state(env, path)
    good, good_state = path.read_bytes(), flat_state(env)
    run_vector(env, steps=10)  # the statistics move on

    def crash_halfway(src, dst):  # killed with half the new file written
        data = open(src, "rb").read()
        with open(src, "wb") as f:
            f.write(data[: len(data) // 2])
        raise KeyboardInterrupt("killed mid-write")

    monkeypatch.setattr(os, "replace", crash_halfway)
    with pytest.raises(KeyboardInterrupt):
        anywrap.save_state(env, path)
    assert path.read_bytes() == good
    assert os.listdir(tmp_path) == ["s.safetensors"], "a temporary file was left behind"
    fresh = stack(ReplayVectorEnv(record_vector_trajectory(), make_backend("numpy")))
    anywrap.load_state(fresh, path)
    assert_same_state(flat_state(fresh), good_state, same_dtype=False)


def test_loading_into_a_stack_of_another_shape_changes_nothing(tmp_path):
    """Only the middle layer differs (observation shape), so a load that wrote
    layer by layer would already have changed the outer one."""

    def synthetic(obs_dim):
        rng = np.random.default_rng(obs_dim)
        return VectorTrajectory.from_arrays(
            rng.normal(size=(9, 4, obs_dim)).astype(np.float32), rng.normal(size=(8, 4))
        )

    backend = make_backend("numpy")
    a = stack(ReplayVectorEnv(synthetic(3), backend))
    run_vector(a)
    path = tmp_path / "a.safetensors"
    anywrap.save_state(a, path)
    b = stack(ReplayVectorEnv(synthetic(2), backend))
    run_vector(b)
    before = flat_state(b)
    with pytest.raises(ValueError, match=r"anywrap\.load_state.*NormalizeObservation"):
        anywrap.load_state(b, path)
    assert_same_state(flat_state(b), before)
    # another set of wrappers
    c = anywrap.vector.NormalizeReward(ReplayVectorEnv(synthetic(3), backend))
    before = flat_state(c)
    with pytest.raises(ValueError, match=r"anywrap\.load_state"):
        anywrap.load_state(c, path)
    assert_same_state(flat_state(c), before)


def test_count_exact_past_2_24_in_float32_jax(tmp_path):
    """17 batches of 1_000_003 observations: 17_000_051 > 2^24 and odd, so a
    float32 count cannot hold it (nor could it have grown past 2^24 by adding)."""
    jax_backend = make_backend("jax")
    import jax

    if jax.config.read("jax_enable_x64"):
        pytest.skip("checks the float32 count")
    n, steps = 1_000_003, 16
    obs = np.broadcast_to(np.arange(n, dtype=np.float32)[None, :, None] % 7, (steps + 1, n, 1))
    traj = VectorTrajectory.from_arrays(np.ascontiguousarray(obs), np.ones((steps, n)))
    env = anywrap.vector.NormalizeObservation(ReplayVectorEnv(traj, jax_backend))
    run_vector(env)
    total = n * (steps + 1)
    assert total > 2**24 and int(np.float32(total)) != total
    sd = env.state_dict()
    assert sd["count"].dtype == jax.numpy.float32
    count = float(np.float64(sd["count"]) + np.float64(sd["count_lo"]))
    # hi + lo carries ~48 bits: the integer part exactly, the 1e-4 start to ~1e-7
    assert abs(count - 1e-4 - total) < 1e-6, count - total
    naive = np.float32(1e-4)
    for _ in range(steps + 1):
        naive = np.float32(naive + np.float32(n))
    assert abs(float(naive) - total) >= 1  # what a plain float32 count would say
    # the mean of 0..6 repeated, computed without drift
    np.testing.assert_allclose(np.asarray(env.obs_rms.mean), [np.mean(np.arange(n) % 7)], rtol=1e-5)
    # and the exact count survives a file round trip
    path = tmp_path / "big.safetensors"
    anywrap.save_state(env, path)
    fresh = anywrap.vector.NormalizeObservation(
        ReplayVectorEnv(VectorTrajectory.from_arrays(obs[:2].copy(), np.ones((1, n))), jax_backend)
    )
    anywrap.load_state(fresh, path)
    sd2 = fresh.state_dict()
    assert float(np.float64(sd2["count"]) + np.float64(sd2["count_lo"])) == count


@pytest.mark.parametrize("library", ["numpy", "torch"])
@pytest.mark.parametrize("copier", ["deepcopy", "pickle"])
def test_a_stack_survives_copies_at_any_point_with_its_statistics(library, copier):
    """deepcopy and pickle of a stack, before its first step and after some: the copy
    holds the same statistics and steps on exactly as the original does (evaluation
    envs are cloned this way, and multiprocessing pickles)."""
    import copy
    import functools

    if library == "torch":
        pytest.importorskip("torch")

    def clone(env):
        return copy.deepcopy(env) if copier == "deepcopy" else pickle.loads(pickle.dumps(env))

    def make():
        envs = gym.vector.SyncVectorEnv([functools.partial(gym.make, "Pendulum-v1")] * 3)
        if library == "torch":
            envs = anywrap.vector.ToTorch(envs)
        envs = anywrap.vector.RecordEpisodeStatistics(envs)
        return anywrap.vector.NormalizeReward(anywrap.vector.NormalizeObservation(envs))

    actions = np.random.default_rng(0).uniform(-2, 2, (12, 3, 1)).astype(np.float32)
    env = make()
    before = clone(env)  # never stepped
    for envs in (env, before):
        envs.reset(seed=0)
    for a in actions[:6]:
        for envs in (env, before):
            envs.step(axp.to_library(a, library))
    after = clone(env)
    np.testing.assert_array_equal(
        axp.to_numpy(after.env.obs_rms.mean), axp.to_numpy(env.env.obs_rms.mean)
    )
    for a in actions[6:]:
        outs = [envs.step(axp.to_library(a, library)) for envs in (env, before, after)]
        for out in outs[1:]:
            np.testing.assert_array_equal(axp.to_numpy(out[0]), axp.to_numpy(outs[0][0]))
            np.testing.assert_array_equal(axp.to_numpy(out[1]), axp.to_numpy(outs[0][1]))
    assert float(axp.to_numpy(after.return_rms.count)) == float(axp.to_numpy(env.return_rms.count))


@pytest.mark.parametrize("backend_name", ["numpy", "torch"])
def test_a_float64_count_loads_as_one_word_and_merges_its_whole_total(backend_name):
    """A float64 count's low word is kept 0 (the merges add none): a file whose words
    are split otherwise (a float32 pair, say) loads as their total, which the next
    merge weighs whole, as Gymnasium's RunningMeanStd with that count does."""
    from gymnasium.wrappers.utils import RunningMeanStd

    obs = np.random.default_rng(0).normal(3.0, 2.0, (2, 5, 3))
    traj = VectorTrajectory.from_arrays(obs, np.ones((1, 5)))
    env = anywrap.vector.NormalizeObservation(ReplayVectorEnv(traj, make_backend(backend_name)))
    env.reset(seed=0)
    sd = host(env.state_dict())
    assert sd["count"].dtype == np.float64
    sd["count"], sd["count_lo"] = np.float64(1000.0), np.float64(0.5)
    env.load_state_dict(sd)
    loaded = host(env.state_dict())
    assert (float(loaded["count"]), float(loaded["count_lo"])) == (1000.5, 0.0)
    ref = RunningMeanStd(shape=(3,), dtype=np.float64)
    ref.mean, ref.var, ref.count = sd["mean"].copy(), sd["var"].copy(), 1000.5
    ref.update(obs[1])
    env.step(np.zeros((5, 1)))
    np.testing.assert_allclose(to_numpy(env.obs_rms.mean), ref.mean, rtol=1e-12)
    np.testing.assert_allclose(to_numpy(env.obs_rms.var), ref.var, rtol=1e-12)
    assert float(to_numpy(env.obs_rms.count)) == ref.count


def test_every_load_splits_a_count_again_in_the_dtype_kept():
    """The check every load passes (stateful and functional): a float64 count takes its
    words' total in one word; a float32 count, the two float32 words of that total."""
    from anywrap.shell.checks import checked_entries

    given = {"count": np.float64(2.0**30), "count_lo": np.float64(0.5)}
    for kept, want in ((np.float64, (2.0**30 + 0.5, 0.0)), (np.float32, (2.0**30, 0.5))):
        own = {k: ((), np.dtype(kept)) for k in given}
        hi, lo = checked_entries("test", own, given)
        assert (hi.dtype, lo.dtype) == (kept, kept)
        assert (float(hi), float(lo)) == want
