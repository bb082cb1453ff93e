"""Cases of the stateless array wrappers: ClipReward, DtypeObservation,
FlattenObservation, ReshapeObservation, RescaleAction and RescaleObservation, single
and vector. Gymnasium has all twelve; its vector observation wrappers refuse SAME_STEP
(anywrap's take it: tests/vector/test_<name>.py, against sub-envs in Gymnasium's
single wrapper). More envs and bounds, side by side: tests/wrappers/ and tests/vector/.
"""

from __future__ import annotations

import gymnasium as gym
import numpy as np
from contracts.case import Case

ENV_ID, STEPS = "Pendulum-v1", 15
"""Pendulum with episodes of 15 steps: the runs cross several episode ends."""


def single() -> gym.Env:
    return gym.make(ENV_ID, max_episode_steps=STEPS)


def vector() -> gym.vector.VectorEnv:
    return gym.make_vec(ENV_ID, num_envs=4, vectorization_mode="sync", max_episode_steps=STEPS)


def blackjack() -> gym.Env:
    return gym.make("Blackjack-v1")


def blackjacks() -> gym.vector.VectorEnv:
    return gym.make_vec("Blackjack-v1", num_envs=4, vectorization_mode="sync")


_OBS, _ACTION = frozenset({"obs"}), frozenset({"action"})
_KWARGS = {
    "ClipReward": ({"min_reward": -1.0, "max_reward": 0.5}, frozenset()),
    "DtypeObservation": ({"dtype": np.float64}, frozenset()),
    "FlattenObservation": ({}, frozenset()),
    "ReshapeObservation": ({"shape": (3, 1)}, _OBS),
    "RescaleAction": ({"min_action": -1.0, "max_action": 1.0}, _ACTION),
    "RescaleObservation": ({"min_obs": -1.0, "max_obs": 1.0}, _OBS),
}

CASES: list[Case] = [
    *(
        Case(name, vector_case, vector if vector_case else single, kwargs=kw, consumes=used)
        for name, (kw, used) in _KWARGS.items()
        for vector_case in (False, True)
    ),
    # A Tuple of Discrete spaces: one-hot leaves, joined in NumPy's common dtype.
    *(
        Case(
            "FlattenObservation",
            vector_case,
            blackjacks if vector_case else blackjack,
            steps=40,
            replay=False,
            label="Blackjack",
            note="discrete observations: the Pendulum case runs on devices",
        )
        for vector_case in (False, True)
    ),
]
