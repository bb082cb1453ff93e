"""anywrap.RescaleAction beyond the contract suite: array bounds, integer bounds, other
backends, and its errors."""

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
    ("MountainCarContinuous-v0", (0, 3)),
    ("Pendulum-v1", (np.array([0.25], np.float32), np.array([0.75]))),
]


@pytest.mark.parametrize(("env_id", "args"), CASES, ids=lambda x: str(x)[:24])
def test_the_actions_sent_are_gymnasiums(env_id, args):
    """Float64 and float32 actions in turn: the env gets Gymnasium's bits and dtypes."""
    single_parity("RescaleAction", env_id, args)


def test_on_every_backend(backend):
    stateless_on(backend, "RescaleAction", "Pendulum-v1", (-1.0, 1.0), vector=False)


@pytest.mark.parametrize(
    ("make", "args", "exc", "pattern"),
    [
        (lambda: gym.make("CartPole-v1"), (-1.0, 1.0), TypeError, r"Box.*Discrete"),
        (lambda: gym.make("Pendulum-v1"), (1.0, -1.0), ValueError, r"min_action.*max_action"),
        (lambda: gym.make("Pendulum-v1"), (0.5, 0.5), InvalidBound, r"no inverse"),
        (lambda: gym.make("Pendulum-v1"), (np.zeros(2), 1.0), ValueError, r"shape \(1,\).*\(2,\)"),
        (lambda: gym.make("Pendulum-v1"), ("a", 1.0), TypeError, r"min_action"),
    ],
    ids=["discrete", "reversed", "equal", "shape", "type"],
)
def test_bad_bounds_name_the_wrapper(make, args, exc, pattern):
    with pytest.raises(exc, match=re.escape("anywrap.RescaleAction") + ".*" + pattern):
        anywrap.RescaleAction(make(), *args)


def test_an_action_of_another_shape_is_refused():
    env = anywrap.RescaleAction(gym.make("Pendulum-v1"), -1.0, 1.0)
    env.reset(seed=0)
    with pytest.raises(ValueError, match=r"anywrap\.RescaleAction.*shape \(1,\).*shape=\(2,\)"):
        env.step(np.zeros(2))
