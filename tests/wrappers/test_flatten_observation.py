"""anywrap.FlattenObservation beyond the contract suite: Discrete, Dict and Tuple spaces
(one-hot leaves) and other backends."""

from __future__ import annotations

import gymnasium as gym
import pytest
from array_helpers import QUIET, single_parity, stateless_on

import anywrap

pytestmark = QUIET


# Taxi-v4 since Gymnasium 1.4 (v3 before: the same Discrete observations).
TAXI = "Taxi-v4" if "Taxi-v4" in gym.registry else "Taxi-v3"


@pytest.mark.parametrize("env_id", ["FrozenLake-v1", TAXI, "CartPole-v1"])
def test_the_observations_are_gymnasiums(env_id):
    single_parity("FlattenObservation", env_id, ())


def test_on_every_backend(backend):
    stateless_on(backend, "FlattenObservation", "Blackjack-v1", (), vector=False)


def test_spaces_gymnasium_cannot_flatten_to_an_array_are_refused():
    class Env(gym.Env):
        observation_space = gym.spaces.Sequence(gym.spaces.Discrete(3))
        action_space = gym.spaces.Discrete(2)

    with pytest.raises(TypeError, match=r"anywrap\.FlattenObservation.*Sequence"):
        anywrap.FlattenObservation(Env())
