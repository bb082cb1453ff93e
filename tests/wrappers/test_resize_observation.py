"""anywrap.ResizeObservation beyond the contract suite: its checks, and its filters."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest
from image_helpers import ImageEnv

import anywrap


@pytest.mark.parametrize(
    "shape, kwargs, exc, pattern",
    [
        ([8, 8], {}, TypeError, r"tuple"),
        ((8, 8, 3), {}, ValueError, r"length 2"),
        ((8, 0), {}, ValueError, r"> 0"),
        ((8.0, 8), {}, TypeError, r"integers"),
        ((8, 8), {"interpolation": "cubic"}, ValueError, r"interpolation.*'cubic'"),
    ],
)
def test_bad_arguments_name_the_wrapper(shape, kwargs, exc, pattern):
    with pytest.raises(exc, match="anywrap.ResizeObservation: .*" + pattern):
        anywrap.ResizeObservation(ImageEnv(shape=(20, 16, 3)), shape, **kwargs)


def test_a_space_that_is_not_an_image_is_refused():
    floats = gym.spaces.Box(0.0, 1.0, (20, 16, 3), np.float64)
    env = gym.wrappers.TransformObservation(ImageEnv(shape=(20, 16, 3)), lambda o: o / 255, floats)
    with pytest.raises(ValueError, match=r"anywrap.ResizeObservation: .*0 to 255.*float64"):
        anywrap.ResizeObservation(env, (8, 8))
    with pytest.raises(ValueError, match=r"anywrap.ResizeObservation: .*2D or 3D"):
        anywrap.ResizeObservation(gym.make("CartPole-v1"), (8, 8))


def test_gray_frames_and_bilinear_frames():
    """2D frames keep no channel axis; ``interpolation="bilinear"`` is another filter
    (the same space), close to the area filter on a smooth frame."""
    gray = anywrap.GrayscaleObservation(ImageEnv(shape=(42, 32, 3)))
    area = anywrap.ResizeObservation(gray, (21, 16))
    bilinear = anywrap.ResizeObservation(gray, (21, 16), interpolation="bilinear")
    assert (
        area.observation_space
        == bilinear.observation_space
        == gym.spaces.Box(0, 255, (21, 16), np.uint8)
    )
    frame = np.tile(np.arange(32, dtype=np.uint8) * 8, (42, 1))  # a ramp
    a, b = area.observation(frame), bilinear.observation(frame)
    assert a.shape == b.shape == (21, 16) and np.abs(a.astype(int) - b).max() <= 8
