"""FlattenObservation's transform: ``gymnasium.spaces.utils.flatten`` in any library.

Example:
    >>> import numpy as np, gymnasium as gym
    >>> from anywrap.transforms.flatten_observation import flatten_observation, flatten_plan
    >>> space = gym.spaces.Dict({"pos": gym.spaces.Box(-1, 1, (2,)), "id": gym.spaces.Discrete(3)})
    >>> obs = {"pos": np.array([0.5, -0.5], np.float32), "id": 2}
    >>> flatten_observation(obs, flatten_plan(space))
    array([ 0. ,  0. ,  1. ,  0.5, -0.5])
"""

from __future__ import annotations

import math
from typing import Any, NamedTuple

import gymnasium as gym

from anywrap.tree import Path, get_at
from anywrap.xp import Array, device, is_host, namespace, resolve_dtype

__all__ = ["FlatLeaf", "FlatPlan", "flatten_observation", "flatten_plan"]


class FlatLeaf(NamedTuple):
    """One leaf: path, ``"box"`` or ``"onehot"``, dtype, flat size, one-hot counts and starts."""

    path: Path
    kind: str
    dtype: str
    size: int
    counts: tuple[int, ...] = ()
    starts: tuple[int, ...] = ()


class FlatPlan(NamedTuple):
    """How a space flattens: its leaves, the flat dtype, whether it is a Dict or Tuple."""

    leaves: tuple[FlatLeaf, ...]
    dtype: str
    composite: bool


def flatten_plan(space: gym.Space, owner: str = "flatten") -> FlatPlan:
    """Read ``space`` into a :class:`FlatPlan` (a TypeError where it is no array)."""
    import numpy as np  # the space's host values

    leaves: list[FlatLeaf] = []

    def visit(s: gym.Space, path: Path) -> None:
        if isinstance(s, gym.spaces.Dict | gym.spaces.Tuple):
            items = s.spaces.items() if isinstance(s, gym.spaces.Dict) else enumerate(s.spaces)
            for k, sub in items:
                visit(sub, (*path, k))
        elif isinstance(s, gym.spaces.Box | gym.spaces.MultiBinary):
            leaves.append(FlatLeaf(path, "box", np.dtype(s.dtype).name, math.prod(s.shape)))
        elif isinstance(s, gym.spaces.Discrete | gym.spaces.MultiDiscrete):
            nvec = s.n if isinstance(s, gym.spaces.Discrete) else s.nvec
            counts = tuple(int(v) for v in np.ravel(nvec))
            starts = tuple(int(v) for v in np.ravel(s.start))
            leaves.append(
                FlatLeaf(path, "onehot", np.dtype(s.dtype).name, sum(counts), counts, starts)
            )
        else:
            raise TypeError(
                f"{owner}: expected a Box, Discrete, MultiDiscrete or MultiBinary space, "
                f"or a Dict / Tuple of them, got {s}"
            )

    visit(space, ())
    dtype = np.result_type(*(np.dtype(leaf.dtype) for leaf in leaves)).name if leaves else "float32"
    return FlatPlan(tuple(leaves), dtype, isinstance(space, gym.spaces.Dict | gym.spaces.Tuple))


def _flat_leaf(x: Any, leaf: FlatLeaf, batch_ndim: int) -> Array:
    xp = namespace(x)
    if is_host(x):
        x = xp.asarray(x)
    dev = device(x)
    dtype = resolve_dtype(xp, leaf.dtype, dev)
    batch = tuple(x.shape[:batch_ndim])
    if leaf.kind == "box":
        return xp.reshape(xp.astype(x, dtype, copy=False), (*batch, leaf.size))
    x = xp.reshape(x, (*batch, len(leaf.counts)))
    parts = []
    for j, (n, start) in enumerate(zip(leaf.counts, leaf.starts)):
        values = xp.arange(start, start + n, dtype=x.dtype, device=dev)
        parts.append(xp.astype(x[..., j : j + 1] == values, dtype, copy=False))
    return parts[0] if len(parts) == 1 else xp.concat(parts, axis=-1)


def flatten_observation(obs: Any, plan: FlatPlan, batch_ndim: int = 0) -> Array:
    """``obs`` (or a batch) flattened to shape ``batch + (flat size,)``."""
    parts = [_flat_leaf(get_at(obs, leaf.path), leaf, batch_ndim) for leaf in plan.leaves]
    if not plan.composite:
        return parts[0]
    xp = namespace(*parts)
    dtype = resolve_dtype(xp, plan.dtype, device(parts[0]))
    return xp.concat([xp.astype(p, dtype, copy=False) for p in parts], axis=-1)
