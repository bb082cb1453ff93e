"""anywrap: Gymnasium's wrappers, written once, run natively on any array library.

``anywrap.X`` wraps a single env and ``anywrap.vector.X`` a vector env, with
Gymnasium 1.4's names, arguments, spaces and info keys. Arrays stay in their
library and on their device. ``anywrap.functional`` holds pure versions for
JAX-native envs, and ``anywrap.distributed`` the hooks that make statistics
global across devices and processes (both load on first use).

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

from anywrap import convert, transforms, tree, vector, wrappers, xp
from anywrap.checkpoint import load_state, save_state
from anywrap.convert.wrappers import *  # noqa: F403  (ToTorch, JaxToNumpy, ...)
from anywrap.wrappers import *  # noqa: F403  (Gymnasium's single-env wrappers)

__version__ = "0.1.0"

__all__ = ["convert", "load_state", "save_state", "transforms", "tree", "vector", "xp"]
__all__ += [*wrappers.__all__, *convert.wrappers.__all__]
__all__ += ["RecordHTML", "distributed", "functional"]  # noqa: F405  (loaded on first use)


def __getattr__(name: str) -> Any:
    if name in {"functional", "distributed", "demo", "record"}:  # loaded on first use
        return importlib.import_module(f"anywrap.{name}")
    if name == "RecordHTML":
        return importlib.import_module("anywrap.record.single").RecordHTML
    raise AttributeError(f"module 'anywrap' has no attribute {name!r}")


def __dir__() -> list[str]:  # the lazy names too (tab completion), none of them loaded
    return sorted({*globals(), *__all__})
