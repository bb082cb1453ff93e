"""anywrap.vector.ReshapeObservation beyond the contract suite: every autoreset mode,
other backends, and no host sync on a device env."""

from __future__ import annotations

import pytest
from array_helpers import MODES, QUIET, assert_never_syncs, stateless_on, vector_parity

import anywrap

pytestmark = QUIET


@pytest.mark.parametrize("mode", MODES, ids=lambda m: m.name)
@pytest.mark.parametrize(("env_id", "shape"), [("CartPole-v1", (2, 2)), ("Pendulum-v1", (3, 1))])
def test_the_observations_are_gymnasiums_in_every_mode(env_id, shape, mode):
    vector_parity("ReshapeObservation", env_id, (shape,), mode)


def test_on_every_backend(backend):
    stateless_on(backend, "ReshapeObservation", "CartPole-v1", ((2, 2),), vector=True)


@pytest.mark.parametrize("mode", MODES, ids=lambda m: m.name)
@pytest.mark.parametrize("lib", ["jax", "torch"])
def test_never_syncs(lib, mode):
    assert_never_syncs(lambda e: anywrap.vector.ReshapeObservation(e, (2, 1)), lib, mode)
