"""The record tests' fixture; their envs and readers are in ``tests/record_envs.py``."""

from __future__ import annotations

import sys
import types
from pathlib import Path
from typing import Any

import pytest


@pytest.fixture
def record_video_clips(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, int]]:
    """Let Gymnasium's RecordVideo run without moviepy: its encoder is replaced by
    one that notes ``(file name, number of frames)``; its choice of frames is its own."""
    clips: list[tuple[str, int]] = []

    class ImageSequenceClip:
        def __init__(self, frames: list[Any], fps: float) -> None:
            self.n = len(frames)

        def write_videofile(self, path: str, logger: Any = None) -> None:
            clips.append((Path(path).stem, self.n))

    names = ["moviepy", "moviepy.video", "moviepy.video.io", "moviepy.video.io.ImageSequenceClip"]
    for name in names:
        monkeypatch.setitem(sys.modules, name, types.ModuleType(name))
    sys.modules["moviepy.video.io.ImageSequenceClip"].ImageSequenceClip = ImageSequenceClip  # type: ignore[attr-defined]
    return clips
