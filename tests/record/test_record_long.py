"""RecordHTML keeps a long episode in bounded memory: frames thinned evenly to
``max_frames``, a report cut at ``max_rows`` (both said on the page), and an
encoder that cannot fall behind the env without bound."""

from __future__ import annotations

import base64
import io
import threading
import time
import tracemalloc
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
import pytest
from record_envs import read_report

import anywrap

Image = pytest.importorskip("PIL.Image")


class Clock(gym.Env):
    """One endless-looking episode of ``length`` steps; each frame writes its step
    number into its pixels (red: t mod 256, green: t // 256), or noise."""

    metadata = {"render_modes": ["rgb_array"], "render_fps": 30}
    observation_space = gym.spaces.Box(-np.inf, np.inf, (1,), np.float32)
    action_space = gym.spaces.Discrete(2)

    def __init__(self, length: int, side: int = 8, noise: bool = False) -> None:
        self.length, self.side, self.noise = length, side, noise
        self.render_mode = "rgb_array"
        self.t, self.renders = 0, 0

    def reset(self, *, seed: Any = None, options: Any = None) -> Any:
        self.t = 0
        return np.zeros(1, np.float32), {}

    def step(self, action: Any) -> Any:
        self.t += 1
        return np.full(1, self.t, np.float32), 1.0, self.t >= self.length, False, {}

    def render(self) -> np.ndarray:
        self.renders += 1
        if self.noise:
            rng = np.random.default_rng(self.t)
            return rng.integers(0, 256, (self.side, self.side, 3), dtype=np.uint8)
        frame = np.zeros((self.side, self.side, 3), np.uint8)
        frame[..., 0], frame[..., 1] = self.t % 256, self.t // 256
        return frame


def run(env: Clock, folder: Path, **kwargs: Any) -> dict[str, Any]:
    rec = anywrap.RecordHTML(env, folder, **kwargs)
    rec.reset(seed=0)
    done = False
    while not done:
        _, _, done, _, _ = rec.step(0)
    rec.close()
    return read_report(rec.report_paths[0])


def test_a_long_episode_keeps_at_most_max_frames_spread_evenly(tmp_path: Path) -> None:
    env = Clock(3000)
    data = run(env, tmp_path, frame_format="png", max_frames=100)
    frames = data["envs"][0]["frames"]
    assert len(frames) == 3001  # every row is in the report; only frames are thinned
    kept = [r for r, f in enumerate(frames) if f is not None]
    assert 50 < len(kept) <= 100
    gaps = set(np.diff(kept).tolist())
    assert len(gaps) == 1 and kept[0] == 0 and 3000 - kept[-1] < gaps.pop()  # even, whole run
    for r in kept[::7]:  # each kept frame is the one rendered at its row (step r)
        pixel = np.asarray(Image.open(io.BytesIO(base64.b64decode(frames[r]))))[0, 0]
        assert int(pixel[0]) + 256 * int(pixel[1]) == r
    assert env.renders < 3000 // 4  # thinned rows are not rendered at all
    assert any("max_frames=100" in note for note in data["notes"])


def test_an_episode_within_max_frames_keeps_every_frame(tmp_path: Path) -> None:
    data = run(Clock(99), tmp_path, frame_format="png", max_frames=100)
    assert all(f is not None for f in data["envs"][0]["frames"])
    assert not any("max_frames" in note for note in data["notes"])


def test_memory_stays_bounded_over_a_long_episode(tmp_path: Path) -> None:
    """Noise frames at 32 px: 4000 of them, all kept, peak at 126 MB (measured); 50 at ~8 MB."""
    tracemalloc.start()
    try:
        run(Clock(4000, side=32, noise=True), tmp_path, frame_format="png", max_frames=50)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 20e6, f"peak {peak / 1e6:.1f} MB"


def test_a_report_stops_at_max_rows_and_says_so(tmp_path: Path) -> None:
    rec = anywrap.RecordHTML(
        Clock(500), tmp_path, episode_trigger=lambda e: True, frames=False, max_rows=120
    )
    for _ in range(2):  # recording goes on at the next episode
        rec.reset(seed=0)
        done = False
        while not done:
            _, _, done, _, _ = rec.step(0)
    rec.close()
    assert [p.name for p in rec.report_paths] == [
        "rl-report-episode-0.html",
        "rl-report-episode-1.html",
    ]
    for path in rec.report_paths:
        data = read_report(path)
        assert data["envs"][0]["rows"] == 120
        assert data["steps"][-1] - data["steps"][0] == 119
        assert any("max_rows=120" in note for note in data["notes"])


def test_the_encoder_cannot_fall_behind_without_bound(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An env that renders faster than frames encode: raw frames must not pile up."""
    from anywrap.record.frames import FrameEncoder

    encoded = [0]
    lock = threading.Lock()
    real = FrameEncoder.encode

    def slow(self: FrameEncoder, frame: Any) -> bytes:
        time.sleep(0.002)
        out = real(self, frame)
        with lock:
            encoded[0] += 1
        return out

    monkeypatch.setattr(FrameEncoder, "encode", slow)
    env = Clock(300)
    backlog = []
    render = env.render

    def counted() -> np.ndarray:
        with lock:
            backlog.append(env.renders - encoded[0])
        return render()

    env.render = counted  # type: ignore[method-assign]
    run(env, tmp_path, frame_format="png")
    assert max(backlog) <= 40, max(backlog)
    assert env.renders == 301


@pytest.mark.parametrize("name", ["max_frames", "max_rows"])
@pytest.mark.parametrize("bad", [0, -1, 2.5, True])
def test_bad_caps_are_refused(tmp_path: Path, name: str, bad: Any) -> None:
    with pytest.raises(ValueError, match=rf"RecordHTML: {name} must be an int >= 1, got"):
        anywrap.RecordHTML(Clock(3), tmp_path, **{name: bad})
