"""anywrap.ClipReward beyond the contract suite: array bounds, other envs and backends."""

from __future__ import annotations

import re

import gymnasium as gym
import numpy as np
import pytest
from array_helpers import QUIET, single_parity, stateless_on
from gymnasium.error import InvalidBound

import anywrap

pytestmark = QUIET

CASES = [
    ("Pendulum-v1", (-1.0, None)),
    ("CartPole-v1", (0.0, 0.5)),
    # An array bound promotes the reward's dtype, as np.clip does.
    ("MountainCarContinuous-v0", (np.float32(-0.05), np.array(0.05))),
]


@pytest.mark.parametrize(("env_id", "args"), CASES, ids=lambda x: str(x)[:24])
def test_the_rewards_are_gymnasiums(env_id, args):
    single_parity("ClipReward", env_id, args)


def test_on_every_backend(backend):
    stateless_on(backend, "ClipReward", "Pendulum-v1", (-1.0, 0.5), vector=False)


@pytest.mark.parametrize(
    ("args", "pattern"), [((None, None), "both be None"), ((1.0, 0.0), "smaller")]
)
def test_bad_bounds_name_the_wrapper(args, pattern):
    with pytest.raises(InvalidBound, match=re.escape("anywrap.ClipReward") + ".*" + pattern):
        anywrap.ClipReward(gym.make("CartPole-v1"), *args)
