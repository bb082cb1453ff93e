"""Cases of the CleanRL wrappers: the statistics, the clip and the two Transform wrappers."""

from __future__ import annotations

import functools
from typing import Any

import gymnasium as gym
from contracts.case import Case

ENV_ID, STEPS = "Pendulum-v1", 15
"""Pendulum with episodes of 15 steps: the runs cross several episode ends."""


def single() -> gym.Env:
    return gym.make(ENV_ID, max_episode_steps=STEPS)


def vector(
    mode: gym.vector.AutoresetMode = gym.vector.AutoresetMode.NEXT_STEP,
) -> gym.vector.VectorEnv:
    return gym.make_vec(
        ENV_ID,
        num_envs=4,
        vectorization_mode="sync",
        vector_kwargs={"autoreset_mode": mode},
        max_episode_steps=STEPS,
    )


def _halve(x: Any) -> Any:
    """A user function that works on arrays of any library."""
    return x * 0.5


_BOTH = ((False, single), (True, vector))

CASES: list[Case] = [
    *(
        Case(
            "NormalizeObservation",
            v,
            make,
            kwargs={"epsilon": 1e-6},
            consumes=frozenset({"obs"}),
        )
        for v, make in _BOTH
    ),
    *(
        Case(
            "NormalizeReward",
            v,
            make,
            kwargs={"gamma": 0.9},
            consumes=frozenset({"reward"}),
        )
        for v, make in _BOTH
    ),
    *(
        Case(
            "RecordEpisodeStatistics",
            v,
            make,
            kwargs={"buffer_length": 5},
            consumes=frozenset({"reward"}),
        )
        for v, make in _BOTH
    ),
    *(Case("ClipAction", v, make, consumes=frozenset({"action"})) for v, make in _BOTH),
    Case("TransformObservation", False, single, args=(_halve, None)),
    Case("TransformObservation", True, vector, args=(_halve,)),
    Case("TransformReward", False, single, args=(_halve,)),
    Case("TransformReward", True, vector, args=(_halve,)),
    # Gymnasium refuses SAME_STEP vector envs in these wrappers; anywrap takes them.
    Case(
        "NormalizeObservation",
        True,
        functools.partial(vector, gym.vector.AutoresetMode.SAME_STEP),
        kwargs={"learn_final_obs": True},
        reference=False,
        consumes=frozenset({"obs"}),
        replay=False,
        label="SAME_STEP",
        note="the same numbers in SAME_STEP: tests/vector/test_normalize_observation.py",
    ),
]
