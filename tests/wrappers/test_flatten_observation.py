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


class _OutOfRange(gym.Env):
    """A Discrete(4) env whose step returns 5 (Blackjack stepped past its end does this)."""

    observation_space = gym.spaces.Discrete(4)
    action_space = gym.spaces.Discrete(2)

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        return 3, {}

    def step(self, action):
        return 5, 0.0, False, False, {}


def test_a_discrete_value_out_of_its_range_is_refused_as_in_gymnasium():
    """Gymnasium's one-hot raises IndexError; ours gave an all-zero row in silence."""
    import numpy as np

    for lib in (gym.wrappers, anywrap):
        env = lib.FlattenObservation(_OutOfRange())
        np.testing.assert_array_equal(env.reset(seed=0)[0], [0, 0, 0, 1])
        named = r"anywrap\.FlattenObservation: .*Discrete\(4\), got 5" if lib is anywrap else ""
        with pytest.raises(IndexError, match=named):
            env.step(0)
