"""anywrap.vector.ResizeObservation beyond the contract suite: one-channel frames
(``(H, W, 1)``, OpenCV drops the axis and Gymnasium puts it back), side by side
with Gymnasium's vector wrappers."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest
from image_helpers import env_fns

import anywrap

pytest.importorskip("cv2")  # Gymnasium's ResizeObservation


def test_one_channel_frames_are_gymnasiums():
    envs = [gym.vector.SyncVectorEnv(env_fns(3)) for _ in range(2)]
    ref = gym.wrappers.vector.ResizeObservation(
        gym.wrappers.vector.GrayscaleObservation(envs[0], keep_dim=True), (30, 40)
    )
    ours = anywrap.vector.ResizeObservation(
        anywrap.vector.GrayscaleObservation(envs[1], keep_dim=True), (30, 40)
    )
    assert (
        ours.observation_space
        == ref.observation_space
        == gym.spaces.Box(0, 255, (3, 30, 40, 1), np.uint8)
    )
    np.testing.assert_array_equal(ours.reset(seed=0)[0], ref.reset(seed=0)[0])
    for _ in range(6):
        a = np.zeros(3, int)
        np.testing.assert_array_equal(ours.step(a)[0], ref.step(a)[0])
