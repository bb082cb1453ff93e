"""RecordHTML: an interactive HTML report of a Pendulum-v1 swing-up.

Run: ``python docs/recipes/record_html.py [FOLDER]`` (default: ``reports``).
It prints the path of the report; open it in any browser, offline. The docs
build runs this recipe to make the site's live example page.
"""

# Gymnasium's names for what a step returns, used or not, as readers know them.
# ruff: noqa: RUF059

from __future__ import annotations

import sys
from pathlib import Path

import gymnasium as gym
import numpy as np

import anywrap


def swing_up(obs: np.ndarray) -> np.ndarray:
    """A Pendulum-v1 controller: pump energy until near the top, then hold it there."""
    cos, sin, speed = (float(v) for v in obs)
    if cos > 0.85:  # near upright: a PD controller on the angle
        torque = -(12.0 * np.arctan2(sin, cos) + 2.5 * speed)
    elif 0.5 * speed * speed + 15.0 * cos < 15.0:  # below the upright rest's energy
        torque = 2.0 if speed >= 0 else -2.0
    else:
        torque = -0.5 if speed >= 0 else 0.5
    return np.array([np.clip(torque, -2.0, 2.0)], dtype=np.float32)


def record(folder: str | Path) -> list[Path]:
    """Record one Pendulum-v1 episode into ``folder``; the report's paths."""
    env = gym.make("Pendulum-v1", render_mode="rgb_array")
    env = anywrap.RecordEpisodeStatistics(env)
    env = anywrap.RecordHTML(env, folder, name_prefix="pendulum", max_frame_side=256)
    obs, info = env.reset(seed=3)
    done = False
    while not done:
        obs, reward, terminated, truncated, info = env.step(swing_up(obs))
        done = terminated or truncated
    env.close()
    print(f"return {info['episode']['r']:.1f} over {info['episode']['l']} steps")
    return [Path(p) for p in env.report_paths]


if __name__ == "__main__":
    paths = record(sys.argv[1] if len(sys.argv) > 1 else "reports")
    assert [p.name for p in paths] == ["pendulum-episode-0.html"], paths
    assert paths[0].stat().st_size < 1_000_000  # 201 frames of 256 x 256, WebP
    print(*paths, sep="\n")
