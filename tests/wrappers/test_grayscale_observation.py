"""anywrap.GrayscaleObservation beyond the contract suite: its checks of spaces and frames."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest
from image_helpers import ImageEnv

import anywrap


def test_a_space_that_is_not_an_rgb_image_is_refused():
    with pytest.raises(ValueError, match=r"anywrap.GrayscaleObservation: .*3 channels.*\(4,\)"):
        anywrap.GrayscaleObservation(gym.make("CartPole-v1"))
    with pytest.raises(TypeError, match=r"anywrap.GrayscaleObservation: expected a Box"):
        anywrap.GrayscaleObservation(gym.make("FrozenLake-v1"))
    floats = gym.spaces.Box(0.0, 1.0, (20, 16, 3), np.float64)
    env = gym.wrappers.TransformObservation(ImageEnv(shape=(20, 16, 3)), lambda o: o / 255, floats)
    with pytest.raises(ValueError, match=r"0 to 255 and dtype uint8.*float64"):
        anywrap.GrayscaleObservation(env)


@pytest.mark.parametrize(
    "bad, exc, pattern",
    [
        (np.zeros((20, 16, 3), np.float32), ValueError, r"dtype uint8.*float32"),
        (np.zeros((20, 16, 3), np.uint8).tolist(), TypeError, r"expected an observation array"),
        (np.zeros((20, 16), np.uint8), ValueError, r"shape \(20, 16, 3\).*shape=\(20, 16\)"),
    ],
)
def test_a_bad_frame_names_the_wrapper_what_it_expected_and_what_it_got(bad, exc, pattern):
    env = anywrap.GrayscaleObservation(ImageEnv(shape=(20, 16, 3)))
    with pytest.raises(exc, match="anywrap.GrayscaleObservation: .*" + pattern):
        env.observation(bad)
