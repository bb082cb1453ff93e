"""Memory and file size of RecordHTML over one long episode of noise frames.

Usage: python benchmarks/record_long_episode.py [steps] [frames: 0 or 1]
Prints the peak RSS after the steps and after close, and the report's size.
"""

from __future__ import annotations

import os
import resource
import sys
import tempfile
import time

import gymnasium as gym
import numpy as np

import anywrap


class Noise(gym.Env):
    """One episode of ``length`` steps; each frame 64 x 64 of noise (hard to compress)."""

    metadata = {"render_modes": ["rgb_array"], "render_fps": 30}
    observation_space = gym.spaces.Box(-np.inf, np.inf, (3,), np.float32)
    action_space = gym.spaces.Discrete(2)
    render_mode = "rgb_array"

    def __init__(self, length: int) -> None:
        self.length, self.t = length, 0

    def reset(self, *, seed=None, options=None):  # type: ignore[no-untyped-def]
        self.t = 0
        return np.zeros(3, np.float32), {"note": "reset"}

    def step(self, action):  # type: ignore[no-untyped-def]
        self.t += 1
        obs = np.array([self.t, 0.5 * self.t, np.sin(self.t)], np.float32)
        return obs, 1.0, self.t >= self.length, False, {"t": float(self.t)}

    def render(self) -> np.ndarray:
        return np.random.default_rng(self.t).integers(0, 256, (64, 64, 3), dtype=np.uint8)


def main() -> None:
    steps = int(sys.argv[1]) if len(sys.argv) > 1 else 30_000
    frames = (sys.argv[2] if len(sys.argv) > 2 else "1") == "1"
    folder = tempfile.mkdtemp()

    def rss_mb() -> float:
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024

    env = anywrap.RecordHTML(Noise(steps), folder, frames=frames)
    env.reset(seed=0)
    before, start = rss_mb(), time.perf_counter()
    for _ in range(steps):
        env.step(0)
    after = rss_mb()
    env.close()
    size = sum(os.path.getsize(os.path.join(folder, f)) for f in os.listdir(folder))
    print(
        f"steps={steps} frames={frames}: +{after - before:.0f} MB while recording, "
        f"peak {rss_mb():.0f} MB at close, file {size / 1e6:.1f} MB, "
        f"{time.perf_counter() - start:.1f} s"
    )


if __name__ == "__main__":
    main()
