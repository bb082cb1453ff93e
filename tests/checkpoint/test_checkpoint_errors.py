"""Bad checkpoint files and bad save targets get errors that name the file or the
entry, and change nothing; killed saves leave nothing behind for long; file modes
follow the umask."""

from __future__ import annotations

import os
import re
import signal
import stat
import subprocess
import sys
import textwrap
import time

import gymnasium as gym
import numpy as np
import pytest
from helpers import flat_state

import anywrap
from anywrap.checkpoint import CheckpointError

pytest.importorskip("safetensors")
from safetensors.numpy import load_file, save_file

SRC = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(__file__))), "src")


def trained_stack(seed: int = 0) -> gym.Env:
    env = anywrap.RecordEpisodeStatistics(gym.make("Pendulum-v1"), buffer_length=4)
    env = anywrap.NormalizeReward(anywrap.NormalizeObservation(env))
    env.reset(seed=seed)
    for _ in range(15):
        env.step(np.array([0.5], dtype=np.float32))
    return env


@pytest.fixture
def saved(tmp_path):
    path = tmp_path / "stats.safetensors"
    anywrap.save_state(trained_stack(), path)
    return path


@pytest.mark.parametrize("content", ["empty", "garbage", "truncated", "huge header"])
def test_unreadable_files_name_the_file_and_change_nothing(saved, tmp_path, content):
    data = saved.read_bytes()
    bad = tmp_path / f"{content.replace(' ', '_')}.safetensors"
    bad.write_bytes(
        {
            "empty": b"",
            "garbage": b"not a checkpoint at all" * 10,
            "truncated": data[: len(data) // 2],
            "huge header": (2**40).to_bytes(8, "little") + data[8:],
        }[content]
    )
    env = trained_stack(seed=1)
    before = flat_state(env)
    with pytest.raises(CheckpointError, match=f"anywrap.load_state: '{bad}' is not a readable"):
        anywrap.load_state(env, bad)
    assert flat_state(env).keys() == before.keys()
    for k, v in flat_state(env).items():
        np.testing.assert_array_equal(v, before[k])


def test_a_missing_file_is_named(tmp_path):
    with pytest.raises(FileNotFoundError, match=r"no checkpoint file at .*nothing\.safetensors"):
        anywrap.load_state(trained_stack(), tmp_path / "nothing.safetensors")


@pytest.mark.parametrize("path", [None, 3, b"stats.safetensors"], ids=["None", "int", "bytes"])
def test_a_path_of_another_type_is_refused_by_name(saved, tmp_path, monkeypatch, path):
    """None and an int reached os.fspath's message, with no function named; bytes made
    save_state fail on a str pattern, and load_state blame the (readable) file."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "stats.safetensors").write_bytes(saved.read_bytes())
    env = trained_stack(seed=1)
    before = flat_state(env)
    for fn in ("save_state", "load_state"):
        with pytest.raises(TypeError, match=rf"anywrap\.{fn}: expected `path` as a str or "):
            getattr(anywrap, fn)(env, path)
    assert sorted(os.listdir(tmp_path)) == ["stats.safetensors"]  # nothing written
    for k, v in flat_state(env).items():
        np.testing.assert_array_equal(v, before[k])


def _edited(saved, tmp_path, key_end, value):
    tensors = load_file(saved)
    key = next(k for k in tensors if k.endswith(key_end))
    tensors[key] = value(tensors[key])
    path = tmp_path / "edited.safetensors"
    save_file(tensors, path, metadata={"format": "anywrap.stack/1", "layers": _layers(saved)})
    return path, key


def _layers(saved) -> str:
    from safetensors import safe_open

    with safe_open(saved, framework="numpy") as f:
        return f.metadata()["layers"]


@pytest.mark.parametrize(
    ("key_end", "value", "message"),
    [
        ("NormalizeObservation.mean", lambda v: v.astype(np.complex64), "complex64 values"),
        ("NormalizeObservation.mean", lambda v: v.astype(np.float16), "float16 values"),
        ("NormalizeObservation.var", lambda v: v.astype(np.int32), "int32 values"),
        ("NormalizeObservation.var", lambda v: -v, "must be non-negative"),
        ("rms.var", lambda v: np.full_like(v, np.nan), "must be finite"),
        ("NormalizeObservation.count", lambda v: np.full_like(v, -3.0), "non-negative"),
        # Values no wrapper can hold (the adversarial probe's cases): every later
        # step would be NaN, or the queues and lengths would be wrong.
        ("NormalizeObservation.mean", lambda v: np.full_like(v, np.nan), "must be finite"),
        ("NormalizeObservation.mean", lambda v: np.full_like(v, np.inf), "must be finite"),
        ("NormalizeObservation.count_lo", lambda v: np.full_like(v, np.inf), "must be finite"),
        ("NormalizeObservation.count_lo", lambda v: np.full_like(v, -1e9), "non-negative"),
        ("accumulated", lambda v: np.full_like(v, np.nan), "must be finite"),
        ("RecordEpisodeStatistics.recent_size", lambda v: np.full_like(v, -1), "non-negative"),
        ("RecordEpisodeStatistics.recent_size", lambda v: np.full_like(v, 9), "at most"),
        ("RecordEpisodeStatistics.lengths", lambda v: np.full_like(v, -5), "non-negative"),
        (
            "RecordEpisodeStatistics.lengths",
            lambda v: np.full_like(v, 2**63, np.uint64),
            "fit int64",
        ),
        # Counts no run reaches (issue 34): past them a step can no longer add 1,
        # so the statistics would never move again, or a clock would wrap.
        ("NormalizeObservation.count", lambda v: np.full_like(v, 1e300), "can still add 1"),
        ("NormalizeObservation.count", lambda v: np.full_like(v, 2.0**53), "can still add 1"),
        ("NormalizeObservation.count_lo", lambda v: np.full_like(v, 2.0**53), "below 2\\*\\*53"),
        ("rms.count", lambda v: np.full_like(v, 1e300), "can still add 1"),
        ("episode_count", lambda v: np.full_like(v, 1e20), "can still add 1"),
        (
            "RecordEpisodeStatistics.lengths",
            lambda v: np.full_like(v, np.iinfo(np.int64).max),
            "can still add 1",
        ),
        # Values that fit the file's dtype but not the wrapper's: float32 statistics
        # given as float64 past float32's range became inf on the cast.
        (
            "NormalizeObservation.mean",
            lambda v: np.full(v.shape, 1e300, np.float64),
            "must fit float32",
        ),
        ("RecordEpisodeStatistics.start_time", lambda v: np.full_like(v, np.nan), "finite"),
        ("RecordEpisodeStatistics.recent_times", lambda v: np.full_like(v, np.inf), "finite"),
    ],
)
def test_entries_of_the_wrong_kind_are_refused_by_name(saved, tmp_path, key_end, value, message):
    path, key = _edited(saved, tmp_path, key_end, value)
    env = trained_stack(seed=2)
    before = flat_state(env)
    entry = re.escape(key.split(".", 2)[2])
    with pytest.raises(CheckpointError, match=rf"edited.safetensors.*'{entry}.*{message}"):
        anywrap.load_state(env, path)
    for k, v in flat_state(env).items():
        np.testing.assert_array_equal(v, before[k])


@pytest.mark.parametrize("stray", ["extra", "9.NormalizeObservation.mean"])
def test_an_entry_of_no_saved_wrapper_is_refused_by_a_strict_load(saved, tmp_path, stray):
    """An entry outside every saved layer (save_state writes none) was ignored silently."""
    tensors = load_file(saved)
    tensors[stray] = np.zeros(3, np.float32)
    path = tmp_path / "stray.safetensors"
    save_file(tensors, path, metadata={"format": "anywrap.stack/1", "layers": _layers(saved)})
    env = trained_stack(seed=2)
    before = flat_state(env)
    with pytest.raises(CheckpointError, match=rf"holds entries of no saved wrapper, \['{stray}'\]"):
        anywrap.load_state(env, path)
    for k, v in flat_state(env).items():
        np.testing.assert_array_equal(v, before[k])
    anywrap.load_state(env, path, strict=False)  # what fits loads
    assert flat_state(env).keys() == before.keys()


def test_a_failed_layer_changes_no_other_layer(saved, tmp_path):
    # the outer layer's entries are fine; the inner one's variance is not
    path, _ = _edited(saved, tmp_path, "NormalizeObservation.var", lambda v: -v)
    env = trained_stack(seed=3)
    before = flat_state(env)
    with pytest.raises(CheckpointError):
        anywrap.load_state(env, path)
    after = flat_state(env)
    for k in before:
        np.testing.assert_array_equal(after[k], before[k])


def test_save_into_a_missing_folder_names_the_requested_path(tmp_path):
    target = tmp_path / "no" / "such" / "folder" / "stats.safetensors"
    with pytest.raises(FileNotFoundError, match=f"cannot write '{target}'"):
        anywrap.save_state(trained_stack(), target)
    assert not (tmp_path / "no").exists()


def test_save_of_a_stack_without_statistics_is_refused(tmp_path):
    with pytest.raises(ValueError, match="at least one anywrap wrapper that keeps statistics"):
        anywrap.save_state(gym.make("CartPole-v1"), tmp_path / "x.safetensors")
    assert list(tmp_path.iterdir()) == []


def test_the_file_mode_follows_the_umask_and_an_existing_files_mode(tmp_path):
    old = os.umask(0o027)
    try:
        fresh = tmp_path / "fresh.safetensors"
        anywrap.save_state(trained_stack(), fresh)
        assert stat.S_IMODE(fresh.stat().st_mode) == 0o640
        kept = tmp_path / "kept.safetensors"
        kept.write_bytes(b"")
        kept.chmod(0o604)
        anywrap.save_state(trained_stack(), kept)
        assert stat.S_IMODE(kept.stat().st_mode) == 0o604
    finally:
        os.umask(old)


SAVE_LOOP = textwrap.dedent(
    """
    import sys, numpy as np, gymnasium as gym, anywrap
    env = anywrap.NormalizeObservation(gym.make("Pendulum-v1"), stats_dtype="float64")
    env.reset(seed=0)
    print("ready", flush=True)
    i = 0
    while True:
        env.step(np.zeros(1, np.float32))
        anywrap.save_state(env, sys.argv[1])
        i += 1
    """
)


def test_a_killed_save_loop_never_corrupts_the_target_and_leaves_nothing_for_long(tmp_path):
    target = tmp_path / "stats.safetensors"
    proc = subprocess.Popen(
        [sys.executable, "-c", SAVE_LOOP, str(target)],
        stdout=subprocess.PIPE,
        env=dict(os.environ, PYTHONPATH=SRC),
    )
    assert proc.stdout is not None and proc.stdout.readline().strip() == b"ready"
    deadline = time.time() + 30
    while not target.exists() and time.time() < deadline:
        time.sleep(0.01)
    time.sleep(0.3)
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=30)
    env = anywrap.NormalizeObservation(gym.make("Pendulum-v1"), stats_dtype="float64")
    anywrap.load_state(env, target)  # the target is whole
    assert float(env.obs_rms.count) > 1
    # a save that died between writing and renaming, as a SIGKILL can leave it
    orphan = tmp_path / f".anywrap-{proc.pid}-abcd.tmp"
    orphan.write_bytes(b"half a file")
    mine = tmp_path / f".anywrap-{os.getpid()}-live.tmp"  # a live process's: kept
    mine.write_bytes(b"in progress")
    anywrap.save_state(env, target)
    left = sorted(p.name for p in tmp_path.iterdir())
    assert left == sorted(["stats.safetensors", mine.name]), left


def test_float64_counts_load_exactly_into_float32_words_and_big_ints_are_refused():
    """A NumPy-saved vector RecordEpisodeStatistics loaded into a JAX stack without x64:
    the float64 episode count past 2^24 becomes the two float32 words of the same
    number, and lengths past int32 are refused instead of wrapped."""
    jax = pytest.importorskip("jax")
    import jax.numpy as jnp

    from anywrap.xp import to_numpy

    def stack(to_jax):
        envs = gym.make_vec("Pendulum-v1", num_envs=2, vectorization_mode="sync")
        if to_jax:
            envs = anywrap.vector.ToJax(envs)
        envs = anywrap.vector.RecordEpisodeStatistics(envs)
        envs.reset(seed=0)
        return envs

    assert not jax.config.jax_enable_x64
    saved = stack(False).state_dict()
    saved["episode_count"] = np.asarray(2.0**31 - 3)
    target = stack(True)
    target.load_state_dict(saved)
    state = target.state_dict()
    assert state["episode_count"].dtype == jnp.float32
    total = float(to_numpy(state["episode_count"])) + float(to_numpy(state["episode_count_lo"]))
    assert total == 2**31 - 3 and target.episode_count == 2**31 - 3
    saved["lengths"] = np.asarray([5, 2**33 + 5], dtype=np.int64)
    before = {k: to_numpy(v).copy() for k, v in target.state_dict().items() if k != "start_time"}
    with pytest.raises(ValueError, match=r"'lengths' holds int64 values .*fit int32"):
        target.load_state_dict(saved)
    after = {k: to_numpy(v) for k, v in target.state_dict().items() if k != "start_time"}
    for k in before:
        np.testing.assert_array_equal(after[k], before[k])


def test_a_full_disk_names_the_file_keeps_the_previous_one_and_leaves_no_temporary(
    tmp_path, monkeypatch
):
    """Issue 34: the write of a save fails (no space left): the error names the file and
    says the previous file is intact; it is, and no temporary file is left behind."""
    import errno

    target = tmp_path / "stats.safetensors"
    anywrap.save_state(trained_stack(), target)
    before = target.read_bytes()
    real_fdopen = os.fdopen

    class Full:
        def __init__(self, fd, mode):
            self.f = real_fdopen(fd, mode)

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            self.f.close()

        def write(self, data):
            raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "fdopen", Full)
    with pytest.raises(
        OSError, match=r"anywrap.save_state: could not write .*previous file is intact"
    ):
        anywrap.save_state(trained_stack(seed=1), target)
    monkeypatch.undo()
    assert target.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == ["stats.safetensors"]


def test_two_processes_saving_to_one_path_leave_a_whole_file(tmp_path):
    """Two save loops on one path at once (issue 34): every rename is atomic, so the
    file is always one of theirs, whole."""
    target = tmp_path / "stats.safetensors"
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", SAVE_LOOP, str(target)],
            stdout=subprocess.PIPE,
            env=dict(os.environ, PYTHONPATH=SRC),
        )
        for _ in range(2)
    ]
    try:
        for proc in procs:
            assert proc.stdout is not None and proc.stdout.readline().strip() == b"ready"
        deadline = time.time() + 30
        while not target.exists() and time.time() < deadline:
            time.sleep(0.01)
        for _ in range(20):
            env = anywrap.NormalizeObservation(gym.make("Pendulum-v1"), stats_dtype="float64")
            anywrap.load_state(env, target)
            time.sleep(0.02)
    finally:
        for proc in procs:
            proc.kill()
            proc.wait(timeout=30)
