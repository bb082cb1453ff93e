"""RecordHTML loses no report without a word (issue 34): a script that exits without
``close()`` (as notebooks do) still writes the report being recorded, and an episode
trigger that raises has the report it ends written before its error goes up."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import gymnasium as gym
import pytest

import anywrap

SRC = Path(__file__).resolve().parents[2] / "src"


def test_a_script_that_exits_without_close_writes_its_report(tmp_path: Path) -> None:
    code = (
        "import gymnasium as gym, anywrap, sys\n"
        "env = anywrap.RecordHTML(gym.make('CartPole-v1'), sys.argv[1], "
        "episode_trigger=lambda k: True)\n"
        "env.reset(seed=0)\n"
        "for _ in range(5):\n"
        "    env.step(0)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, str(tmp_path / "r")],
        capture_output=True,
        text=True,
        env=dict(os.environ, PYTHONPATH=str(SRC)),
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    report = tmp_path / "r" / "rl-report-episode-0.html"
    assert report.is_file()
    assert f"wrote {report} at exit" in done.stderr


def test_an_episode_trigger_that_raises_loses_no_report(tmp_path: Path) -> None:
    def trigger(episode: int) -> bool:
        if episode == 1:
            raise RuntimeError("a bug in the trigger")
        return True

    env = anywrap.RecordHTML(gym.make("CartPole-v1"), tmp_path, episode_trigger=trigger)
    env.reset(seed=0)
    for _ in range(3):
        env.step(0)
    with pytest.raises(RuntimeError, match="a bug in the trigger"):
        env.reset()
    assert (tmp_path / "rl-report-episode-0.html").is_file()  # the episode it ended
    env.reset()  # the wrapper keeps working: episode 2 is recorded
    env.step(0)
    env.close()
    assert (tmp_path / "rl-report-episode-2.html").is_file()
