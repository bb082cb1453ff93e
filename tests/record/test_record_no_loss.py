"""RecordHTML loses no report without a word (issue 34): a script that exits without
``close()`` (as notebooks do) still writes the report being recorded, and an episode
trigger that raises has the report it ends written before its error goes up."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import gymnasium as gym
import numpy as np
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


class GrowingEnv(gym.Env):
    """Its observations change shape on the third step of each episode."""

    observation_space = gym.spaces.Box(-1, 1, (3,))
    action_space = gym.spaces.Discrete(2)

    def reset(self, *, seed=None, options=None):
        self.t = 0
        return np.zeros(3, np.float32), {}

    def step(self, action):
        self.t += 1
        return np.zeros(3 if self.t < 3 else 5, np.float32), 0.0, self.t >= 6, False, {}


def test_observations_that_change_shape_mid_episode_keep_the_report_so_far(tmp_path):
    """It failed with NumPy's 'cannot reshape array of size 5 into shape (1,3)' inside
    the step; now the wrapper names the shapes, writes the rows it has, and goes on."""
    env = anywrap.RecordHTML(GrowingEnv(), tmp_path, episode_trigger=lambda k: True)
    env.reset(seed=0)
    env.step(0)
    env.step(0)
    with pytest.warns(RuntimeWarning, match=r"anywrap\.RecordHTML: expected obs of the shapes "):
        obs = env.step(0)[0]
    assert obs.shape == (5,)  # the step itself goes through
    report = tmp_path / "rl-report-episode-0.html"
    assert report.is_file()
    rows = json.loads(re.search(r'id="report-data">(.*?)</script>', report.read_text(), re.S)[1])
    assert len(rows["envs"][0]["obs"][0]) == 3  # the reset and two steps
    for _ in range(3):
        env.step(0)
    env.reset()  # a new report learns the shapes again
    with pytest.warns(RuntimeWarning):
        for _ in range(3):
            env.step(0)
    env.close()
    assert (tmp_path / "rl-report-episode-1.html").is_file()
