"""Drop-in: ``gym.make(env.spec)`` rebuilds every anywrap wrapper with every argument
it was given, anywrap-only ones included (a forgotten one would come back as its
default, silently)."""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
import pytest

import anywrap

# Gymnasium's Box warns while it checks float64 bounds against a cast (its own
# DtypeObservation(MountainCar-v0, float64) warns the same): expected here.
pytestmark = pytest.mark.filterwarnings("ignore:overflow encountered in cast:RuntimeWarning")


# (wrapper, env id, non-default arguments)
CASES: list[tuple[str, str, dict[str, Any]]] = [
    ("ClipAction", "Pendulum-v1", {}),
    (
        "NormalizeObservation",
        "Pendulum-v1",
        {"epsilon": 1e-6, "stats_dtype": "float64", "update_running_mean": False},
    ),
    (
        "NormalizeReward",
        "Pendulum-v1",
        {"gamma": 0.9, "epsilon": 1e-6, "stats_dtype": "float32", "update_running_mean": False},
    ),
    ("RecordEpisodeStatistics", "Pendulum-v1", {"buffer_length": 7, "stats_key": "ep"}),
    ("RescaleAction", "Pendulum-v1", {"min_action": -1.0, "max_action": 1.0}),
    ("RescaleObservation", "Pendulum-v1", {"min_obs": -1.0, "max_obs": 1.0}),
    ("ClipReward", "Pendulum-v1", {"min_reward": -1.0, "max_reward": 0.5}),
    ("DtypeObservation", "MountainCar-v0", {"dtype": np.float64}),
    ("FlattenObservation", "Pendulum-v1", {}),
    ("ReshapeObservation", "Pendulum-v1", {"shape": (3, 1)}),
    (
        "TimeAwareObservation",
        "Pendulum-v1",
        {"flatten": False, "normalize_time": True, "dict_time_key": "clock"},
    ),
    ("DelayObservation", "Pendulum-v1", {"delay": 3}),
    ("StickyAction", "Pendulum-v1", {"repeat_action_probability": 0.4}),
    ("JaxToNumpy", "phys2d/CartPole-v1", {}),
    ("JaxToTorch", "phys2d/CartPole-v1", {"device": "cpu"}),
    ("NumpyToTorch", "CartPole-v1", {"device": "cpu"}),
    ("ToNumpy", "CartPole-v1", {"writable": True}),
]


@pytest.mark.parametrize(("name", "env_id", "kwargs"), CASES, ids=[c[0] for c in CASES])
def test_spec_rebuilds_the_wrapper_with_its_arguments(name, env_id, kwargs):
    if env_id.startswith("phys2d"):
        pytest.importorskip("jax")
    if "Torch" in name:
        pytest.importorskip("torch")
    env = getattr(anywrap, name)(gym.make(env_id), **kwargs)
    spec = env.spec.additional_wrappers[-1]
    assert spec.entry_point == f"anywrap.convert:{name}" or spec.entry_point.startswith("anywrap.")
    for key, value in kwargs.items():
        assert key in spec.kwargs, (key, spec.kwargs)
        assert spec.kwargs[key] == value or spec.kwargs[key] is value
    rebuilt = gym.make(env.spec)
    assert type(rebuilt) is type(env)
    assert rebuilt.spec.additional_wrappers[-1].kwargs == spec.kwargs
