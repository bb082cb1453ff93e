"""anywrap.MaxAndSkipObservation beyond the contract suite: Gymnasium's stale buffer,
side by side, and its checks."""

from __future__ import annotations

import numpy as np
import pytest
from gymnasium.wrappers import MaxAndSkipObservation as GymMaxSkip
from image_helpers import ImageEnv

import anywrap


def test_an_episode_that_ends_before_the_last_two_steps_returns_older_frames():
    """Gymnasium's quirk: the two-frame buffer is never cleared."""
    ref, ours = GymMaxSkip(ImageEnv(1, 2), 4), anywrap.MaxAndSkipObservation(ImageEnv(1, 2), 4)
    for env in (ref, ours):
        env.reset(seed=0)
    outs = [(ref.step(0), ours.step(0)) for _ in range(3)]
    for a, b in outs:
        np.testing.assert_array_equal(b[0], a[0])
        assert a[1:4] == b[1:4] and type(b[1]) is type(a[1])
    assert outs[0][0][2] is True  # ends at the second of four steps


@pytest.mark.parametrize(
    "skip, exc, pattern", [(1, ValueError, r"skip.*at least 2"), (2.0, TypeError, r"integer")]
)
def test_bad_arguments_name_the_wrapper(skip, exc, pattern):
    with pytest.raises(exc, match="anywrap.MaxAndSkipObservation: .*" + pattern):
        anywrap.MaxAndSkipObservation(ImageEnv(shape=(20, 16, 3)), skip)
