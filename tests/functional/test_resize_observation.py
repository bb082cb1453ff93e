"""anywrap.functional.ResizeObservation: Gymnasium's checks of ``shape``, by name (its
numbers: test_frame_stack_observation.py)."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

pytest.importorskip("jax")
from functional_envs import Episodes

from anywrap import functional as F


class Frames(Episodes):
    observation_space = gym.spaces.Box(0, 255, (8, 8, 3), np.uint8)


@pytest.mark.parametrize(
    ("shape", "error"), [((0, 4), ValueError), ((4,), ValueError), ([4, 4], TypeError)]
)
def test_bad_shapes_are_refused_by_name(shape, error):
    with pytest.raises(error, match=r"anywrap\.functional\.ResizeObservation.*shape"):
        F.ResizeObservation(Frames(), shape)
    with pytest.raises(ValueError, match="interpolation"):
        F.ResizeObservation(Frames(), (4, 4), interpolation="cubic-ish")
