"""anywrap.vector.ClipReward beyond the contract suite: every autoreset mode, array
bounds, other backends, and no host sync on a device env."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest
from array_helpers import MODES, QUIET, assert_never_syncs, stateless_on, vector_parity
from gymnasium.error import InvalidBound

import anywrap

pytestmark = QUIET

CASES = [
    ("Pendulum-v1", (-1.0, None)),
    ("CartPole-v1", (0.0, 0.5)),
    ("MountainCarContinuous-v0", (np.float32(-0.05), np.array(0.05))),
]


@pytest.mark.parametrize("mode", MODES, ids=lambda m: m.name)
@pytest.mark.parametrize(("env_id", "args"), CASES, ids=lambda x: str(x)[:24])
def test_the_rewards_are_gymnasiums_in_every_mode(env_id, args, mode):
    vector_parity("ClipReward", env_id, args, mode)


def test_on_every_backend(backend):
    stateless_on(backend, "ClipReward", "Pendulum-v1", (-1.0, 0.5), vector=True)


@pytest.mark.parametrize("mode", MODES, ids=lambda m: m.name)
@pytest.mark.parametrize("lib", ["jax", "torch"])
def test_never_syncs(lib, mode):
    assert_never_syncs(lambda e: anywrap.vector.ClipReward(e, 0.0, 2.5), lib, mode)


def test_bad_bounds_name_the_vector_wrapper():
    envs = gym.make_vec("Pendulum-v1", 2, vectorization_mode="sync")
    with pytest.raises(InvalidBound, match=r"anywrap\.vector\.ClipReward"):
        anywrap.vector.ClipReward(envs, None, None)
