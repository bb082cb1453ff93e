"""RecordHTML keeps its reports through what an env or a disk throws at it: strings that
are not valid UTF-8, infinite returns, and a write that fails."""

from __future__ import annotations

import errno
import os
import warnings
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
import pytest
from record_envs import read_report

import anywrap

pytest.importorskip("PIL")


class Scripted(gym.Env):
    """Five-step episodes whose rewards and infos the test chooses."""

    observation_space = gym.spaces.Box(-1.0, 1.0, (2,), np.float32)
    action_space = gym.spaces.Discrete(2)

    def __init__(self, rewards: list[float], info: dict[str, Any] | None = None) -> None:
        self.rewards, self.info, self.t = rewards, info or {}, 0

    def reset(self, *, seed: Any = None, options: Any = None) -> Any:
        self.t = 0
        return np.zeros(2, np.float32), {}

    def step(self, action: Any) -> Any:
        reward = self.rewards[self.t % len(self.rewards)]
        self.t += 1
        return np.full(2, 0.1 * self.t, np.float32), reward, self.t >= 5, False, dict(self.info)


def record(env: gym.Env, folder: Path, episodes: int = 1) -> Any:
    rec = anywrap.RecordHTML(env, folder, episode_trigger=lambda e: True, frames=False)
    for _ in range(episodes):
        rec.reset(seed=0)
        done = False
        while not done:
            _, _, terminated, truncated, _ = rec.step(0)
            done = terminated or truncated
    return rec


def test_a_lone_surrogate_in_info_is_kept_escaped(tmp_path: Path) -> None:
    name = os.fsdecode(b"run-\xff.log")  # a file name that is not UTF-8: a lone surrogate
    rec = record(Scripted([1.0], {"file": name, "n": 3.0}), tmp_path)
    rec.close()
    (path,) = rec.report_paths
    data = read_report(path)
    assert data["labels"]["text"] == ["info.file"]
    assert data["envs"][0]["text"][0][1:] == [name] * 5  # JSON.parse gives the same code points
    assert not list(tmp_path.glob(".*.tmp"))


@pytest.mark.parametrize(
    "rewards", [[1.0, np.inf, -2.0], [1.0, np.inf, np.inf, -2.0], [1.0, np.inf, -np.inf]]
)
def test_infinite_returns_are_gaps_not_a_lost_report(tmp_path: Path, rewards: list[float]) -> None:
    rec = record(Scripted(rewards), tmp_path)
    rec.close()
    (path,) = rec.report_paths
    text = Path(path).read_text(encoding="utf-8")
    assert "Infinity" not in text and "NaN" not in text
    data = read_report(path)
    returns = [e["return"] for env in data["envs"] for e in env["episodes"]]
    assert returns == [None]  # an infinite return is shown as a gap, not 1.797e308


def test_a_failed_write_leaves_no_temporary_file_and_recording_goes_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = Path.write_text
    calls = []

    def full_disk(self: Path, *args: Any, **kwargs: Any) -> int:
        calls.append(self.name)
        if len(calls) == 1:  # the first report: a partial write, then the disk is full
            real(self, "<!doctype html><html", encoding="utf-8")
            raise OSError(errno.EFBIG, "File too large")
        return real(self, *args, **kwargs)

    monkeypatch.setattr(Path, "write_text", full_disk)
    with pytest.warns(RuntimeWarning, match=r"could not write rl-report-episode-0\.html"):
        rec = record(Scripted([1.0]), tmp_path, episodes=3)
    rec.close()
    assert not list(tmp_path.glob(".*.tmp"))
    names = sorted(p.name for p in tmp_path.iterdir())
    assert names == ["rl-report-episode-1.html", "rl-report-episode-2.html"]
    assert read_report(tmp_path / "rl-report-episode-2.html")["envs"][0]["episodes"]


def test_frames_of_every_dtype_keep_their_picture() -> None:
    """Floats in [0, 255] are not saturated, uint16 frames keep their high byte (not the
    low one), bools are black and white (not black and 1/255)."""
    from anywrap.record.frames import to_uint8

    ramp = np.array([[0.0, 63.75, 127.5, 255.0]])
    np.testing.assert_array_equal(to_uint8(ramp.astype(np.float32)), [[0, 64, 128, 255]])
    np.testing.assert_array_equal(to_uint8(ramp / 255.0), [[0, 64, 128, 255]])
    wide = np.array([[0, 256, 32768, 65535]], np.uint16)
    np.testing.assert_array_equal(to_uint8(wide), [[0, 1, 128, 255]])
    np.testing.assert_array_equal(to_uint8(np.array([[True, False]])), [[255, 0]])
    np.testing.assert_array_equal(to_uint8(np.array([[-5, 300]], np.int64)), [[0, 255]])
    np.testing.assert_array_equal(to_uint8(np.array([[np.nan, 2.0]])), [[0, 2]])


class Drawn(Scripted):
    render_mode = "rgb_array"

    def __init__(self, frame: np.ndarray, bad_from: int) -> None:
        super().__init__([1.0])
        self.frame, self.bad_from, self.calls = frame, bad_from, 0

    def render(self) -> np.ndarray:
        self.calls += 1
        return self.frame if self.calls > self.bad_from else np.zeros((8, 8, 3), np.uint8)


@pytest.mark.parametrize(
    ("frame", "message"),
    [
        (np.zeros((0, 0, 3), np.uint8), "empty frame"),
        (np.zeros((3, 16, 16), np.uint8), "channels first"),
        (np.zeros((16,), np.uint8), r"got shape \(16,\)"),
    ],
)
def test_a_frame_that_is_no_picture_is_refused_at_its_step(
    tmp_path: Path, frame: np.ndarray, message: str
) -> None:
    """Refused at the step that rendered it (it failed only at close, losing the report)."""
    rec = anywrap.RecordHTML(Drawn(frame, bad_from=3), tmp_path, episode_trigger=lambda e: True)
    rec.reset(seed=0)
    rec.step(0)
    rec.step(0)
    with pytest.raises(ValueError, match=rf"anywrap.RecordHTML: expected .*{message}"):
        rec.step(0)


def test_a_second_run_into_the_same_folder_warns_before_it_overwrites(tmp_path: Path) -> None:
    record(Scripted([1.0]), tmp_path).close()
    with pytest.warns(UserWarning, match=r"overwriting the existing reports .* rl-report-\*"):
        anywrap.RecordHTML(Scripted([1.0]), tmp_path, frames=False)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # another prefix: nothing to overwrite
        anywrap.RecordHTML(Scripted([1.0]), tmp_path, name_prefix="eval", frames=False)
