"""RecordHTML keeps its reports through what an env or a disk throws at it: strings that
are not valid UTF-8, infinite returns, and a write that fails."""

from __future__ import annotations

import errno
import os
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


def test_infinite_returns_are_gaps_not_a_lost_report(tmp_path: Path) -> None:
    rec = record(Scripted([1.0, np.inf, np.inf, -2.0]), tmp_path)
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
