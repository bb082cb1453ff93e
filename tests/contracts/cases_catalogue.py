"""Cases of the catalogue wrappers (issue 33).

Gymnasium's wrappers with no array arithmetic (OrderEnforcing, PassiveEnvChecker,
Autoreset, RenderCollection, HumanRendering): their device runs, where the replayed
Pendulum cannot render or a single env's reset must be read on the host, are in
tests/wrappers/test_common.py. TransformAction, the Vectorize* wrappers,
FilterObservation (over a Dict observation; on devices over the envs of
``catalogue_envs``) and DictInfoToList (over Gymnasium's episode statistics).
"""

from __future__ import annotations

import os
from typing import Any

import gymnasium as gym
from array_envs import CounterVectorEnv
from catalogue_envs import BinCounterEnv, DictCounterEnv, DictObservations
from contracts.case import Case
from helpers import make_backend

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")  # HumanRendering's window, off screen

ENV_ID, STEPS = "Pendulum-v1", 15


def single() -> gym.Env:
    return gym.make(ENV_ID, max_episode_steps=STEPS)


def rendered() -> gym.Env:
    return gym.make(ENV_ID, max_episode_steps=STEPS, render_mode="rgb_array")


def rendered_vector() -> gym.vector.VectorEnv:
    return gym.make_vec(
        ENV_ID,
        num_envs=2,
        vectorization_mode="sync",
        max_episode_steps=STEPS,
        render_mode="rgb_array",
    )


def _halve(x: Any) -> Any:
    return x * 0.5


def timed() -> gym.Env:  # Dict('obs': Box(3), 'time': Box(1, int32))
    return gym.wrappers.TimeAwareObservation(single(), flatten=False)


def vector() -> gym.vector.VectorEnv:
    return gym.make_vec(ENV_ID, num_envs=4, vectorization_mode="sync", max_episode_steps=STEPS)


def timed_vector() -> gym.vector.VectorEnv:
    return gym.make_vec(
        ENV_ID,
        num_envs=4,
        vectorization_mode="sync",
        max_episode_steps=STEPS,
        wrappers=[lambda e: gym.wrappers.TimeAwareObservation(e, flatten=False)],
    )


def with_statistics() -> gym.vector.VectorEnv:
    return gym.wrappers.vector.RecordEpisodeStatistics(vector())


def dict_counters(library: str) -> DictObservations:
    backend = make_backend(library)
    return DictObservations(CounterVectorEnv(backend.xp, device=backend.device))


_HOST_RESET = "a single env's reset is decided in Python: tests/wrappers/test_common.py"
_RENDERS = "renders, which the replay cannot: tests/wrappers/test_common.py"

CASES: list[Case] = [
    Case("OrderEnforcing", False, single),
    Case("PassiveEnvChecker", False, single),
    Case("Autoreset", False, single, replay=False, note=_HOST_RESET),
    Case("RenderCollection", False, rendered, steps=15, replay=False, note=_RENDERS),
    Case("HumanRendering", False, rendered, steps=15, replay=False, note=_RENDERS),
    Case("HumanRendering", True, rendered_vector, steps=15, replay=False, note=_RENDERS),
    Case("TransformAction", False, single, args=(_halve, None)),
    Case("TransformAction", True, vector, args=(_halve,)),
    Case(
        "VectorizeTransformAction",
        True,
        vector,
        args=(gym.wrappers.TransformAction,),
        kwargs={"func": _halve, "action_space": None},
    ),
    Case(
        "VectorizeTransformObservation",
        True,
        vector,
        args=(gym.wrappers.TransformObservation,),
        kwargs={"func": _halve, "observation_space": None},
    ),
    Case(
        "VectorizeTransformReward",
        True,
        vector,
        args=(gym.wrappers.TransformReward,),
        kwargs={"func": _halve},
    ),
    Case(
        "FilterObservation",
        False,
        timed,
        kwargs={"filter_keys": ["obs"]},
        replay=False,
        array_env=DictCounterEnv,
    ),
    Case(
        "FilterObservation",
        True,
        timed_vector,
        kwargs={"filter_keys": ["time"]},
        replay=False,
        array_env=dict_counters,
    ),
    Case("DictInfoToList", True, with_statistics),
    Case(
        "DiscretizeAction",
        False,
        single,
        kwargs={"bins": 5},
        replay=False,  # the replay's actions are continuous: the env below gives indices
        array_env=lambda library: BinCounterEnv(library),
        consumes=frozenset({"action"}),
    ),
    Case("DiscretizeObservation", False, single, kwargs={"bins": 4}, consumes=frozenset({"obs"})),
    Case(
        "DiscretizeObservation",
        False,
        single,
        kwargs={"bins": (2, 3, 4), "multidiscrete": True},
        consumes=frozenset({"obs"}),
        label="multidiscrete",
    ),
]
