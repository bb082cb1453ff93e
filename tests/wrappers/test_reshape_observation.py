"""anywrap.ReshapeObservation beyond the contract suite: other envs, backends and errors."""

from __future__ import annotations

import gymnasium as gym
import pytest
from array_helpers import QUIET, single_parity, stateless_on

import anywrap

pytestmark = QUIET


def test_the_observations_are_gymnasiums():
    single_parity("ReshapeObservation", "CartPole-v1", ((2, 2),))


def test_on_every_backend(backend):
    stateless_on(backend, "ReshapeObservation", "CartPole-v1", ((2, 2),), vector=False)


@pytest.mark.parametrize(
    ("shape", "exc", "pattern"), [((3, 2), ValueError, "holds 6"), ([2, 2], TypeError, "tuple")]
)
def test_bad_shapes_name_the_wrapper(shape, exc, pattern):
    with pytest.raises(exc, match=r"anywrap\.ReshapeObservation.*" + pattern):
        anywrap.ReshapeObservation(gym.make("CartPole-v1"), shape)
