"""Spaces that change with the data: Box leaves of Box / Dict / Tuple spaces.

Example:
    >>> import gymnasium as gym
    >>> import numpy as np
    >>> space = gym.spaces.Dict({"a": gym.spaces.Box(0, 1, (2,), np.uint8)})
    >>> map_space(unbounded_float32, space)
    Dict('a': Box(-inf, inf, (2,), float32))
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import gymnasium as gym
import numpy as np

__all__ = ["leaf_boxes", "map_space", "tree_of", "unbounded_float32"]


def unbounded_float32(box: gym.spaces.Box) -> gym.spaces.Box:
    """The unbounded float32 Box of ``box``'s shape (what a normaliser returns)."""
    return gym.spaces.Box(-np.inf, np.inf, shape=box.shape, dtype=np.float32)


def leaf_boxes(owner: str, space: gym.Space) -> Any:
    """The tree of Box leaves of a Box / Dict / Tuple space, or a clear error."""
    if isinstance(space, gym.spaces.Box):
        return space
    if isinstance(space, gym.spaces.Dict):
        return {k: leaf_boxes(owner, s) for k, s in space.spaces.items()}
    if isinstance(space, gym.spaces.Tuple):
        return tuple(leaf_boxes(owner, s) for s in space.spaces)
    raise TypeError(
        f"{owner}: expected a Box observation space, or a Dict or Tuple of Box spaces, got {space}"
    )


def map_space(fn: Callable[[Any], gym.Space], space: gym.Space) -> gym.Space:
    """Apply ``fn`` to each Box leaf of a Box / Dict / Tuple space."""
    if isinstance(space, gym.spaces.Dict):
        return gym.spaces.Dict({k: map_space(fn, s) for k, s in space.spaces.items()})
    if isinstance(space, gym.spaces.Tuple):
        return gym.spaces.Tuple(tuple(map_space(fn, s) for s in space.spaces))
    return fn(space)


def tree_of(space: gym.Space, fn: Callable[[Any], Any]) -> Any:
    """A dict / tuple tree with ``fn(box)`` at each Box leaf."""
    if isinstance(space, gym.spaces.Dict):
        return {k: tree_of(s, fn) for k, s in space.spaces.items()}
    if isinstance(space, gym.spaces.Tuple):
        return tuple(tree_of(s, fn) for s in space.spaces)
    return fn(space)
