"""anywrap.vector.RescaleObservation beyond the contract suite: every autoreset mode,
array and infinite bounds, other backends, and no host sync on a device env."""

from __future__ import annotations

import numpy as np
import pytest
from array_helpers import MODES, QUIET, assert_never_syncs, stateless_on, vector_parity

import anywrap

pytestmark = QUIET

CASES = [
    ("Pendulum-v1", (-1.0, 1.0)),
    ("MountainCarContinuous-v0", (np.array([0.0, -1.0]), np.array([1.0, 0.5]))),
    ("CartPole-v1", (np.array([-1, -np.inf, -1, -np.inf]), np.array([1, np.inf, 1, np.inf]))),
]


@pytest.mark.parametrize("mode", MODES, ids=lambda m: m.name)
@pytest.mark.parametrize(("env_id", "args"), CASES, ids=lambda x: str(x)[:24])
def test_the_observations_are_gymnasiums_in_every_mode(env_id, args, mode):
    vector_parity("RescaleObservation", env_id, args, mode)


def test_on_every_backend(backend):
    stateless_on(backend, "RescaleObservation", "Pendulum-v1", (-1.0, 1.0), vector=True)


@pytest.mark.parametrize("mode", MODES, ids=lambda m: m.name)
@pytest.mark.parametrize("lib", ["jax", "torch"])
def test_never_syncs(lib, mode):
    infinite = (np.array([-np.inf, -np.inf]), np.array([np.inf, np.inf]))
    assert_never_syncs(lambda e: anywrap.vector.RescaleObservation(e, *infinite), lib, mode)
