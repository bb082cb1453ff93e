"""Cases of the image wrappers: GrayscaleObservation, ResizeObservation,
FrameStackObservation and MaxAndSkipObservation, single and vector.

The envs are :class:`image_helpers.ImageEnv`'s small RGB frames (episodes of 7
steps, registered so that a spec can name them). Gymnasium has the four single
wrappers and the vector grayscale and resize; its vector ones refuse SAME_STEP, and
it has no vector frame stack or max-and-skip (their numbers are checked per sub-env
against its single wrappers in tests/vector/test_frame_stack_observation.py and
tests/vector/test_max_and_skip_observation.py).
"""

from __future__ import annotations

import functools

import gymnasium as gym
from contracts.case import Case
from gymnasium.vector import AutoresetMode
from helpers import make_backend
from image_helpers import (
    ENV_ID,
    SMALL,
    DeviceImageEnv,
    ImageReplayVectorEnv,
    env_fns,
    record_image_vector,
)

_OBS = frozenset({"obs"})


def single() -> gym.Env:
    return gym.make(ENV_ID, length=7, shape=SMALL)


def vector(mode: AutoresetMode = AutoresetMode.NEXT_STEP) -> gym.vector.VectorEnv:
    return gym.vector.SyncVectorEnv(env_fns(4, SMALL), autoreset_mode=mode)


def device_vector(
    library: str, mode: AutoresetMode = AutoresetMode.NEXT_STEP
) -> gym.vector.VectorEnv:
    """A recorded run of :func:`vector` in ``library``'s arrays, replayed round and round."""
    return ImageReplayVectorEnv(
        record_image_vector(4, 24, mode, SMALL), make_backend(library), cycle=True
    )


_KWARGS = {
    "GrayscaleObservation": {"keep_dim": True},
    "ResizeObservation": {"shape": (21, 16)},
    "FrameStackObservation": {"stack_size": 3, "padding_type": "zero"},
    "MaxAndSkipObservation": {"skip": 3},
}
_NO_VECTOR = "Gymnasium has no vector version: its single one per sub-env in tests/vector/"
_SAME_STEP = functools.partial(vector, AutoresetMode.SAME_STEP)
_SAME_STEP_DEVICE = functools.partial(device_vector, mode=AutoresetMode.SAME_STEP)

CASES: list[Case] = [
    *(
        Case(name, False, single, kwargs=kw, array_env=DeviceImageEnv, consumes=_OBS)
        for name, kw in _KWARGS.items()
    ),
    *(
        Case(
            name,
            True,
            vector,
            kwargs=kw,
            reference=name in ("GrayscaleObservation", "ResizeObservation"),
            array_env=device_vector,
            consumes=_OBS,
            note="" if name in ("GrayscaleObservation", "ResizeObservation") else _NO_VECTOR,
        )
        for name, kw in _KWARGS.items()
    ),
    *(
        Case(
            name,
            True,
            _SAME_STEP,
            kwargs=_KWARGS[name],
            reference=False,
            array_env=_SAME_STEP_DEVICE,
            consumes=_OBS,
            note="SAME_STEP: the final stacks and frames on device; numbers in tests/vector/",
            label="SAME_STEP",
        )
        for name in ("FrameStackObservation", "MaxAndSkipObservation")
    ),
]
