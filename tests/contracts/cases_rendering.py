"""Cases of the render wrappers and the Atari ones: AddWhiteNoise, ObstructView,
RepeatAction, AddRenderObservation, AtariPreprocessing (one env; Gymnasium has no
vector versions).

Their env is :class:`render_envs.FakeAtari` (RGB frames, ``render()``, and what
Gymnasium's AtariPreprocessing reads). AddWhiteNoise and ObstructView change
``render()`` only: the steps here pass through, their frames are compared with
Gymnasium's in tests/wrappers/test_noise_and_repeat.py, on device there too.
"""

from __future__ import annotations

import functools

import render_envs
from contracts.case import Case

_DEVICE = functools.partial(render_envs.FakeAtari, "rgb_array")
_RENDER = "render() only: the frames side by side in tests/wrappers/test_noise_and_repeat.py"

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
]
