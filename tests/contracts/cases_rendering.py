"""Cases of the render wrappers and the Atari ones: AddWhiteNoise, ObstructView,
RepeatAction, AddRenderObservation, AtariPreprocessing (one env; Gymnasium has no
vector versions), and RecordVideo (single and vector).

Their env is :class:`render_envs.FakeAtari` (RGB frames, ``render()``, and what
Gymnasium's AtariPreprocessing reads). AddWhiteNoise and ObstructView change
``render()`` only: the steps here pass through, their frames are compared with
Gymnasium's in tests/wrappers/test_noise_and_repeat.py, on device there too.

RecordVideo, as Gymnasium's, needs moviepy to be built: where it is not installed,
a stand-in encoder that writes nothing is put in its place (:func:`_encoder`); the
files and their frames are compared with Gymnasium's in
tests/wrappers/test_record_video.py.
"""

from __future__ import annotations

import functools
import importlib.util
import sys
import tempfile
import types
from typing import Any

import gymnasium as gym
import render_envs
from contracts.case import Case

_DEVICE = functools.partial(render_envs.FakeAtari, "rgb_array")
_RENDER = "render() only: the frames side by side in tests/wrappers/test_noise_and_repeat.py"


def _encoder() -> None:
    if "moviepy" in sys.modules or importlib.util.find_spec("moviepy") is not None:
        return
    names = ["moviepy", "moviepy.video", "moviepy.video.io", "moviepy.video.io.ImageSequenceClip"]
    for name in names:
        sys.modules[name] = types.ModuleType(name)

    class ImageSequenceClip:
        def __init__(self, frames: Any, fps: float) -> None:
            pass

        def write_videofile(self, path: str, logger: Any = None) -> None:
            pass

    sys.modules[names[-1]].ImageSequenceClip = ImageSequenceClip  # type: ignore[attr-defined]


def _video_single() -> gym.Env:
    _encoder()
    return render_envs.make()


def _video_vector() -> gym.vector.VectorEnv:
    _encoder()
    return gym.vector.SyncVectorEnv(
        [functools.partial(render_envs.FakeAtari, "rgb_array", length=5 + i) for i in range(3)]
    )


_VIDEOS = {"video_folder": tempfile.mkdtemp(prefix="anywrap-video-cases-")}

CASES: list[Case] = [
    Case(
        "AddWhiteNoise",
        False,
        render_envs.make,
        kwargs={"probability_of_noise_per_pixel": 0.3, "is_noise_grayscale": True},
        replay=False,
        array_env=lambda library: _DEVICE(library=library),
        note=_RENDER,
    ),
    Case(
        "ObstructView",
        False,
        render_envs.make,
        kwargs={"obstructed_pixels_ratio": 0.2, "obstruction_width": 3},
        replay=False,
        array_env=lambda library: _DEVICE(library=library),
        note=_RENDER,
    ),
    Case(
        "RepeatAction",
        False,
        render_envs.make,
        kwargs={"num_repeats": 3},
        replay=False,
        array_env=lambda library: _DEVICE(library=library),
        consumes=frozenset({"reward"}),
        note="stops on the env's flags, read on the host: Gymnasium's single envs' Python bools",
    ),
    Case(
        "AddRenderObservation",
        False,
        render_envs.make,
        kwargs={"render_only": False},
        replay=False,
        array_env=lambda library: _DEVICE(library=library),
    ),
    Case(
        "AtariPreprocessing",
        False,
        render_envs.make,
        kwargs={"noop_max": 3, "frame_skip": 2, "screen_size": 16, "terminal_on_life_loss": True},
        replay=False,
        array_env=lambda library: render_envs.FakeAtari(library=library),
        consumes=frozenset({"obs"}),
    ),
    *(
        Case(
            "RecordVideo",
            vector,
            make,
            kwargs=_VIDEOS,
            replay=False,
            note="frames side by side, and on device, in tests/wrappers/test_record_video.py",
        )
        for vector, make in ((False, _video_single), (True, _video_vector))
    ),
]
