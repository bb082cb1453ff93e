"""anywrap.RecordVideo and anywrap.vector.RecordVideo side by side with Gymnasium's: the
same files with the same frames, from NumPy, torch and JAX frames. With moviepy installed
(the dev extra) both write real videos, read back here; without it (the compatibility
venv) an encoder that keeps the frames stands in for moviepy's."""

from __future__ import annotations

import importlib.util
import sys
import types
from collections.abc import Callable
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
import pytest
import render_envs
from helpers import make_backend, torch_no_host_sync

import anywrap

MOVIEPY = importlib.util.find_spec("moviepy") is not None
# moviepy starts ffmpeg as a subprocess: a fork followed at once by an exec, which JAX's
# threads (imported by the JAX cases) cannot deadlock.
pytestmark = pytest.mark.filterwarnings("ignore:os.fork:RuntimeWarning")
Videos = Callable[[Path], list[tuple[str, np.ndarray]]]


def _read_back(folder: Path) -> list[tuple[str, np.ndarray]]:
    """Each ``.mp4`` file of ``folder`` by name, with its frames decoded (imageio-ffmpeg,
    moviepy's own dependency, reads what moviepy's ffmpeg wrote)."""
    import imageio_ffmpeg

    out = []
    for path in sorted(Path(folder).glob("*.mp4")):
        reader = imageio_ffmpeg.read_frames(str(path))
        width, height = next(reader)["size"]
        frames = [np.frombuffer(f, np.uint8).reshape(height, width, 3) for f in reader]
        out.append((path.name, np.stack(frames)))
    return out


@pytest.fixture
def videos(monkeypatch: pytest.MonkeyPatch) -> Videos:
    """``videos(folder)``: ``(file name, frames)`` of each video written in ``folder``, by
    name: read back from the files, or with no moviepy the frames its stand-in was given."""
    if MOVIEPY:
        return _read_back
    written: dict[Path, np.ndarray] = {}

    class ImageSequenceClip:
        def __init__(self, frames: list[Any], fps: float) -> None:
            assert all(isinstance(f, np.ndarray) for f in frames)
            self.frames = np.stack(frames)

        def write_videofile(self, path: str, logger: Any = None) -> None:
            written[Path(path)] = self.frames

    names = ["moviepy", "moviepy.video", "moviepy.video.io", "moviepy.video.io.ImageSequenceClip"]
    for name in names:
        monkeypatch.setitem(sys.modules, name, types.ModuleType(name))
    sys.modules["moviepy.video.io.ImageSequenceClip"].ImageSequenceClip = ImageSequenceClip  # type: ignore[attr-defined]
    return lambda folder: [(p.name, f) for p, f in sorted(written.items()) if p.parent == folder]


def _run_single(env: Any, episodes: int) -> None:
    for e in range(episodes):
        env.reset(seed=e)
        while True:
            _, _, terminated, truncated, _ = env.step(1)
            if terminated or truncated:
                break
    env.close()


def _same_videos(videos: Videos, ours: Path, theirs: Path) -> None:
    """The same file names, each with the same number of frames and the same frames."""
    got, want = videos(ours), videos(theirs)
    assert got and [name for name, _ in got] == [name for name, _ in want]
    for (name, a), (_, b) in zip(got, want):
        assert a.shape == b.shape, name
        np.testing.assert_array_equal(a, b, err_msg=name)


TRIGGERS = [
    {"episode_trigger": lambda e: e % 2 == 0},
    {"step_trigger": lambda s: s % 9 == 2, "video_length": 5},
    {},  # Gymnasium's capped cubic schedule
]


@pytest.mark.parametrize("library", ["numpy", "torch", "jax", "tensorflow"])
@pytest.mark.parametrize("kwargs", TRIGGERS)
def test_single_env_videos_are_gymnasiums(videos, tmp_path, library, kwargs):
    env = render_envs.FakeAtari("rgb_array", library=library)
    _run_single(anywrap.RecordVideo(env, str(tmp_path / "ours"), **kwargs), 3)
    theirs = gym.wrappers.RecordVideo(
        render_envs.FakeAtari("rgb_array"), str(tmp_path / "gym"), **kwargs
    )
    _run_single(theirs, 3)
    _same_videos(videos, tmp_path / "ours", tmp_path / "gym")


def test_steps_that_record_nothing_read_nothing(videos, tmp_path):
    torch = pytest.importorskip("torch")
    env = anywrap.RecordVideo(
        render_envs.FakeAtari("rgb_array", library="torch"),
        str(tmp_path),
        step_trigger=lambda s: s == 6,
        video_length=2,
    )
    env.reset(seed=0)
    with torch_no_host_sync():
        for _ in range(6):
            assert isinstance(env.step(1)[0], torch.Tensor)
    env.step(1)  # recording: its frame is copied to the host
    assert len(env.recorded_frames) == 1 and isinstance(env.recorded_frames[0], np.ndarray)
    env.close()
    assert [name for name, _ in videos(tmp_path)] == ["rl-video-step-6.mp4"]


# ------------------------------------------------------------------------ vector
def _vector(n: int = 3) -> gym.vector.SyncVectorEnv:
    return gym.vector.SyncVectorEnv(
        [lambda i=i: render_envs.FakeAtari("rgb_array", length=5 + i) for i in range(n)]
    )


class _BatchFrames(gym.vector.VectorWrapper):
    """A GPU simulator's vector env: one batch of frames, flags and rewards in ``library``."""

    def __init__(self, env: Any, library: str) -> None:
        super().__init__(env)
        self.b = make_backend(library)

    def render(self) -> Any:
        return self.b.to_backend(np.stack(self.env.render()))

    def step(self, actions: Any) -> Any:
        obs, reward, terminated, truncated, info = self.env.step(actions)
        conv = self.b.to_backend
        return conv(obs), conv(reward), conv(terminated), conv(truncated), info


def _run_vector(env: Any, steps: int) -> None:
    env.reset(seed=0)
    for _ in range(steps):
        env.step(np.ones(env.num_envs, np.int64))
    env.close()


@pytest.mark.parametrize("library", ["numpy", "torch", "jax", "tensorflow"])
@pytest.mark.parametrize(
    "kwargs",
    [
        {"episode_trigger": lambda e: e % 2 == 1},
        {"step_trigger": lambda s: s % 7 == 0, "video_length": 4, "video_aspect_ratio": (16, 9)},
        {"record_first_only": True, "episode_trigger": lambda e: True},
    ],
)
def test_vector_videos_are_gymnasiums(videos, tmp_path, library, kwargs):
    env = _vector() if library == "numpy" else _BatchFrames(_vector(), library)
    _run_vector(anywrap.vector.RecordVideo(env, str(tmp_path / "ours"), **kwargs), 20)
    _run_vector(gym.wrappers.vector.RecordVideo(_vector(), str(tmp_path / "gym"), **kwargs), 20)
    _same_videos(videos, tmp_path / "ours", tmp_path / "gym")


def test_a_vector_step_trigger_reads_no_flag(videos, tmp_path):
    pytest.importorskip("torch")
    env = anywrap.vector.RecordVideo(
        _BatchFrames(_vector(), "torch"), str(tmp_path), step_trigger=lambda s: s == 9
    )
    env.reset(seed=0)
    with torch_no_host_sync():
        for _ in range(9):
            env.step(np.ones(3, np.int64))
    env.step(np.ones(3, np.int64))
    env.close()
    assert [name for name, _ in videos(tmp_path)] == ["rl-video-step-9.mp4"]
