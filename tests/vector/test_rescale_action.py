"""anywrap.vector.RescaleAction beyond the contract suite: every autoreset mode, array
bounds, other backends, and no host sync on a device env."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest
from array_helpers import MODES, QUIET, assert_never_syncs, stateless_on, vector_parity

import anywrap

pytestmark = QUIET

CASES = [
    ("Pendulum-v1", (-1.0, 1.0)),
    ("MountainCarContinuous-v0", (0, 3)),
    ("Pendulum-v1", (np.array([0.25], np.float32), np.array([0.75]))),
]


@pytest.mark.parametrize("mode", MODES, ids=lambda m: m.name)
@pytest.mark.parametrize(("env_id", "args"), CASES, ids=lambda x: str(x)[:24])
def test_the_actions_sent_are_gymnasiums_in_every_mode(env_id, args, mode):
    vector_parity("RescaleAction", env_id, args, mode)


def test_on_every_backend(backend):
    stateless_on(backend, "RescaleAction", "Pendulum-v1", (-1.0, 1.0), vector=True)


@pytest.mark.parametrize("mode", MODES, ids=lambda m: m.name)
@pytest.mark.parametrize("lib", ["jax", "torch"])
def test_never_syncs(lib, mode):
    assert_never_syncs(lambda e: anywrap.vector.RescaleAction(e, 0.0, 2.0), lib, mode)


def test_a_discrete_space_is_refused():
    envs = gym.make_vec("CartPole-v1", 2, vectorization_mode="sync")
    with pytest.raises(TypeError, match=r"anywrap\.vector\.RescaleAction.*Box"):
        anywrap.vector.RescaleAction(envs, -1.0, 1.0)
