"""Spaces that change with the data: Box leaves of Box / Dict / Tuple spaces.

Example:
    >>> space = gym.spaces.Dict({"a": gym.spaces.Box(0, 1, (2,), np.uint8)})
    >>> map_space(unbounded_float32, space)
    Dict('a': Box(-inf, inf, (2,), float32))
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import gymnasium as gym
import numpy as np

from anywrap import xp as axp
from anywrap.shell.statistics import RunningMeanStd
from anywrap.transforms.moments import default_stats_dtype, init_moments


def unbounded_float32(box: gym.spaces.Box) -> gym.spaces.Box:
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


def observation_stats(space: gym.Space, stats_dtype: Any) -> Any:
    """Fresh NumPy statistics boxes for each Box leaf of ``space``."""

    def stats(box: gym.spaces.Box) -> RunningMeanStd:
        dtype = np.dtype(stats_dtype or default_stats_dtype(box.dtype))
        return RunningMeanStd(init_moments(tuple(box.shape), xp=np, dtype=dtype))

    return tree_of(space, stats)


def _shape(space: gym.Space) -> tuple[int, ...]:
    return tuple(space.shape or ())


_TREE = object()  # the "shape" of a Dict or Tuple space's observations: always walked


class ObservationCheck:
    """Checks that observations fit a Box / Dict / Tuple space (the batch in front)."""

    def __init__(self, owner: str, space: gym.Space, batch: int | None = None) -> None:
        self.owner, self.space = owner, space
        self.batch: tuple[int, ...] = () if batch is None else (batch,)
        self.shape: Any = self.batch + _shape(space) if isinstance(space, gym.spaces.Box) else _TREE

    def __call__(self, obs: Any) -> None:
        if self.shape is _TREE:
            self._walk(obs, self.space, "")
        elif getattr(obs, "shape", None) != self.shape or not axp.dtype_kind(obs):
            self._leaf(obs, self.space, "")  # (the common case, one Box, checked at once)

    def _walk(self, obs: Any, space: gym.Space, where: str) -> None:
        if isinstance(space, gym.spaces.Dict):
            if not isinstance(obs, Mapping):
                raise TypeError(
                    f"{self.owner}: expected a dict observation{where} with keys "
                    f"{sorted(space.spaces)}, got {type(obs).__name__}"
                )
            missing = sorted(set(space.spaces) - set(obs))
            extra = sorted(set(obs) - set(space.spaces), key=str)
            if missing or extra:
                raise ValueError(
                    f"{self.owner}: expected the observation{where} to have the keys "
                    f"{sorted(space.spaces)}, got {sorted(obs, key=str)} (missing {missing}, "
                    f"unexpected {extra})"
                )
            for k, sub in space.spaces.items():
                self._walk(obs[k], sub, f"{where}[{k!r}]")
        elif isinstance(space, gym.spaces.Tuple):
            if not isinstance(obs, tuple) or len(obs) != len(space.spaces):
                size = len(obs) if isinstance(obs, (tuple, list)) else "?"
                raise TypeError(
                    f"{self.owner}: expected a tuple of {len(space.spaces)} observations"
                    f"{where}, got {type(obs).__name__} of length {size}"
                )
            for i, (o, sub) in enumerate(zip(obs, space.spaces)):
                self._walk(o, sub, f"{where}[{i}]")
        elif getattr(obs, "shape", None) != self.batch + _shape(space) or not axp.dtype_kind(obs):
            self._leaf(obs, space, where)

    def _leaf(self, obs: Any, space: gym.Space, where: str) -> None:
        shape = getattr(obs, "shape", None)
        envs = f" ({self.batch[0]} envs of {space})" if self.batch else f" ({space})"
        got = "None" if obs is None else axp.describe(obs)
        if shape is not None and tuple(shape) == self.batch + _shape(space):
            if axp.dtype_kind(obs):
                return  # a shape given as another sequence type
            try:  # an array of no known library: that error, which says how to register one
                axp.namespace(obs)
            except axp.UnknownArrayTypeError as e:
                raise axp.UnknownArrayTypeError(f"{self.owner}: {e}") from None
            raise TypeError(
                f"{self.owner}: expected observations{where} of real numbers or "
                f"bools{envs}, got {got}"
            )
        raise ValueError(
            f"{self.owner}: expected observations{where} of shape {self.batch + _shape(space)}"
            f"{envs}, got {got}"
        )
