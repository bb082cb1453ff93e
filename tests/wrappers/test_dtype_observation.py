"""anywrap.DtypeObservation beyond the contract suite: other spaces and backends."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest
from array_helpers import QUIET, single_parity, stateless_on

import anywrap

pytestmark = QUIET

CASES = [
    ("CartPole-v1", (np.float64,)),
    ("Pendulum-v1", ("float16",)),
    ("FrozenLake-v1", (np.float32,)),  # a Discrete space: a 0-d Box of NumPy scalars
]


@pytest.mark.parametrize(("env_id", "args"), CASES, ids=lambda x: str(x)[:24])
def test_the_observations_are_gymnasiums(env_id, args):
    single_parity("DtypeObservation", env_id, args)


def test_on_every_backend(backend):
    stateless_on(backend, "DtypeObservation", "CartPole-v1", (np.float64,), vector=False)


def test_a_space_it_cannot_cast_is_refused():
    with pytest.raises(TypeError, match=r"anywrap\.DtypeObservation.*Tuple"):
        anywrap.DtypeObservation(gym.make("Blackjack-v1"), np.float32)
