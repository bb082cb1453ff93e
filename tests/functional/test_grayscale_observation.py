"""anywrap.functional.GrayscaleObservation: refuses what is not an RGB uint8 image, by name
(its numbers: test_frame_stack_observation.py)."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

pytest.importorskip("jax")
from functional_envs import Episodes

from anywrap import functional as F


@pytest.mark.parametrize(
    "space",
    [gym.spaces.Box(0.0, 1.0, (8, 8, 3), np.float32), gym.spaces.Box(0, 255, (8, 8), np.uint8)],
)
def test_refuses_what_is_not_an_rgb_image(space):
    class Frames(Episodes):
        observation_space = space

    with pytest.raises(ValueError, match=r"anywrap\.functional\.GrayscaleObservation"):
        F.GrayscaleObservation(Frames())
