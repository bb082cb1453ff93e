"""anywrap: Gymnasium's wrappers, written once, run natively on any array library.

``anywrap.X`` wraps a single env and ``anywrap.vector.X`` a vector env, with
Gymnasium 1.4's names, arguments, spaces and info keys. Arrays stay in their
library and on their device. ``anywrap.functional`` holds pure versions for
JAX-native envs (loaded on first use, as it imports JAX).

Example:
    >>> import gymnasium as gym
    >>> import anywrap
    >>> env = gym.make("Pendulum-v1")
    >>> env = anywrap.RecordEpisodeStatistics(env)
    >>> env = anywrap.ClipAction(env)
    >>> env = anywrap.NormalizeObservation(env)
    >>> env = anywrap.NormalizeReward(env, gamma=0.99)
    >>> obs, info = env.reset(seed=0)
"""

from __future__ import annotations

import importlib
from typing import Any

from anywrap import transforms, vector, xp
from anywrap.checkpoint import load_state, save_state
from anywrap.wrappers import (
    ClipAction,
    ClipReward,
    DelayObservation,
    DtypeObservation,
    FlattenObservation,
    NormalizeObservation,
    NormalizeReward,
    RecordEpisodeStatistics,
    RescaleAction,
    RescaleObservation,
    ReshapeObservation,
    StickyAction,
    TimeAwareObservation,
    TimeLimit,
    TransformObservation,
    TransformReward,
)

__version__ = "0.1.0"

__all__ = [
    "ArrayConversion",
    "ClipAction",
    "ClipReward",
    "DelayObservation",
    "DtypeObservation",
    "FlattenObservation",
    "JaxToNumpy",
    "JaxToTorch",
    "NormalizeObservation",
    "NormalizeReward",
    "NumpyToTorch",
    "RecordEpisodeStatistics",
    "RescaleAction",
    "RescaleObservation",
    "ReshapeObservation",
    "StickyAction",
    "TimeAwareObservation",
    "TimeLimit",
    "ToJax",
    "ToNumpy",
    "ToTensorFlow",
    "ToTorch",
    "TransformObservation",
    "TransformReward",
    "functional",
    "load_state",
    "save_state",
    "transforms",
    "vector",
    "xp",
]

_LAZY_MODULES = {"functional", "convert", "demo"}
_CONVERSIONS = {
    "ArrayConversion",
    "JaxToNumpy",
    "JaxToTorch",
    "NumpyToTorch",
    "ToJax",
    "ToNumpy",
    "ToTensorFlow",
    "ToTorch",
}


def __getattr__(name: str) -> Any:
    if name in _LAZY_MODULES:
        return importlib.import_module(f"anywrap.{name}")
    if name in _CONVERSIONS:
        return getattr(importlib.import_module("anywrap.convert"), name)
    raise AttributeError(f"module 'anywrap' has no attribute {name!r}")
