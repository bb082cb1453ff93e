"""anywrap.vector.FlattenObservation beyond the contract suite: every autoreset mode,
discrete spaces, other backends, and no host sync on a device env."""

from __future__ import annotations

import gymnasium as gym
import pytest
from array_helpers import MODES, QUIET, assert_never_syncs, stateless_on, vector_parity

import anywrap

pytestmark = QUIET


# Taxi-v4 since Gymnasium 1.4 (v3 before: the same Discrete observations).
TAXI = "Taxi-v4" if "Taxi-v4" in gym.registry else "Taxi-v3"


@pytest.mark.parametrize("mode", MODES, ids=lambda m: m.name)
@pytest.mark.parametrize("env_id", ["Blackjack-v1", "FrozenLake-v1", TAXI, "CartPole-v1"])
def test_the_observations_are_gymnasiums_in_every_mode(env_id, mode):
    vector_parity("FlattenObservation", env_id, (), mode)


def test_on_every_backend(backend):
    stateless_on(backend, "FlattenObservation", "Blackjack-v1", (), vector=True)


@pytest.mark.parametrize("mode", MODES, ids=lambda m: m.name)
@pytest.mark.parametrize("lib", ["jax", "torch"])
def test_never_syncs(lib, mode):
    assert_never_syncs(anywrap.vector.FlattenObservation, lib, mode)
