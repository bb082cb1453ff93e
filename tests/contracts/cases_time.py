"""Cases of the wrappers that keep per-episode state: TimeLimit, TimeAwareObservation,
DelayObservation and StickyAction, single and vector.

Gymnasium has the four single wrappers and none of the vector ones; each vector one
equals, row by row, a Gymnasium vector env of sub-envs in Gymnasium's single wrapper,
in every autoreset mode (tests/vector/test_<name>.py). Gymnasium's StickyAction draws
from the env's generator, anywrap's from its own: with ``p = 0`` and one episode the
two agree; the choices on the same draws are compared in tests/wrappers/test_sticky_action.py.
"""

from __future__ import annotations

import gymnasium as gym
from array_envs import CounterVectorEnv
from contracts.case import Case
from helpers import make_backend

ENV_ID, STEPS = "Pendulum-v1", 15
"""Pendulum with episodes of 15 steps: the runs cross several episode ends."""


def single() -> gym.Env:
    return gym.make(ENV_ID, max_episode_steps=STEPS)


def vector() -> gym.vector.VectorEnv:
    return gym.make_vec(ENV_ID, num_envs=4, vectorization_mode="sync", max_episode_steps=STEPS)


def counter(library: str) -> CounterVectorEnv:
    """Sub-envs whose state lives in ``library``, and that take masked resets."""
    backend = make_backend(library)
    return CounterVectorEnv(backend.xp, device=backend.device)


_OBS = frozenset({"obs"})
_NO_VECTOR = "Gymnasium has no vector version: its single one per sub-env in tests/vector/"

CASES: list[Case] = [
    Case("TimeLimit", False, single, kwargs={"max_episode_steps": 10}),
    Case(
        "TimeLimit",
        True,
        vector,
        kwargs={"max_episode_steps": 10},
        reference=False,
        replay=False,
        array_env=counter,
        consumes=frozenset({"reward"}),
        note=_NO_VECTOR + "; it resets the sub-envs it truncates, which a replay cannot",
    ),
    Case(
        "TimeAwareObservation",
        False,
        single,
        kwargs={"normalize_time": True},
        replay=False,
        consumes=_OBS,
        note="the replay has no time limit: the max_timesteps case runs on devices",
    ),
    Case(
        "TimeAwareObservation",
        False,
        single,
        kwargs={"normalize_time": True, "max_timesteps": STEPS},
        reference=False,
        consumes=_OBS,
        label="max_timesteps",
        note="anywrap's keyword, for envs without a limit of their own (the replays)",
    ),
    Case(
        "TimeAwareObservation",
        True,
        vector,
        kwargs={"max_timesteps": STEPS},
        reference=False,
        consumes=_OBS,
        note=_NO_VECTOR,
    ),
    Case("DelayObservation", False, single, kwargs={"delay": 2}, consumes=_OBS),
    Case(
        "DelayObservation",
        True,
        vector,
        kwargs={"delay": 2},
        reference=False,
        consumes=_OBS,
        note=_NO_VECTOR,
    ),
    Case(
        "StickyAction",
        False,
        single,
        kwargs={"repeat_action_probability": 0.0},
        steps=STEPS - 1,
        consumes=frozenset({"action"}),
        note="p = 0 over one episode: Gymnasium's draws move the env's generator",
    ),
    Case(
        "StickyAction",
        False,
        single,
        kwargs={"repeat_action_probability": 0.5, "repeat_action_duration": (1, 3)},
        reference=False,
        label="repeats",
        note="anywrap draws from its own stream: tests/wrappers/test_sticky_action.py",
    ),
    Case(
        "StickyAction",
        True,
        vector,
        kwargs={"repeat_action_probability": 0.5, "repeat_action_duration": (1, 3)},
        reference=False,
        consumes=frozenset({"action"}),
        note=_NO_VECTOR,
    ),
]
