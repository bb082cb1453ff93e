"""anywrap.vector.DtypeObservation beyond the contract suite: every autoreset mode,
other spaces and backends, and no host sync on a device env."""

from __future__ import annotations

import numpy as np
import pytest
from array_helpers import MODES, QUIET, assert_never_syncs, stateless_on, vector_parity

import anywrap

pytestmark = QUIET

CASES = [
    ("CartPole-v1", (np.float64,)),
    ("Pendulum-v1", ("float16",)),
    ("FrozenLake-v1", (np.float32,)),
]


@pytest.mark.parametrize("mode", MODES, ids=lambda m: m.name)
@pytest.mark.parametrize(("env_id", "args"), CASES, ids=lambda x: str(x)[:24])
def test_the_observations_are_gymnasiums_in_every_mode(env_id, args, mode):
    vector_parity("DtypeObservation", env_id, args, mode)


def test_on_every_backend(backend):
    stateless_on(backend, "DtypeObservation", "CartPole-v1", (np.float64,), vector=True)


@pytest.mark.parametrize("mode", MODES, ids=lambda m: m.name)
@pytest.mark.parametrize("lib", ["jax", "torch"])
def test_never_syncs(lib, mode):
    assert_never_syncs(lambda e: anywrap.vector.DtypeObservation(e, np.float16), lib, mode)
