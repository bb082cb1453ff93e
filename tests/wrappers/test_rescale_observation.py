"""anywrap.RescaleObservation beyond the contract suite: array and infinite bounds,
other backends, and its errors."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest
from array_helpers import QUIET, single_parity, stateless_on

import anywrap

pytestmark = QUIET

CASES = [
    ("MountainCarContinuous-v0", (np.array([0.0, -1.0]), np.array([1.0, 0.5]))),
    # An infinite bound of the Box stays the same infinity (gradient 1 there).
    ("CartPole-v1", (np.array([-1, -np.inf, -1, -np.inf]), np.array([1, np.inf, 1, np.inf]))),
]


@pytest.mark.parametrize(("env_id", "args"), CASES, ids=lambda x: str(x)[:24])
def test_the_observations_are_gymnasiums(env_id, args):
    single_parity("RescaleObservation", env_id, args)


def test_on_every_backend(backend):
    stateless_on(backend, "RescaleObservation", "Pendulum-v1", (-1.0, 1.0), vector=False)


def test_a_finite_bound_for_an_infinite_one_is_refused():
    with pytest.raises(ValueError, match=r"anywrap\.RescaleObservation.*infinite"):
        anywrap.RescaleObservation(gym.make("CartPole-v1"), -1.0, 1.0)
