"""Stateless array transforms: reward clipping, dtype casts, flattening and reshaping.

Every function takes an observation (or a batch of them, ``batch_ndim=1``)
of any library and returns one of the same library, on its device. Where
dtypes meet, the result takes the dtype NumPy's promotion gives
(:func:`promote`), so that JAX and PyTorch, whose own promotion rules
differ, return what Gymnasium returns on NumPy.

:func:`flatten_plan` reads a Gymnasium space once, on the host, into a plan of
static leaves; :func:`flatten_observation` then flattens like
``gymnasium.spaces.utils.flatten``: a Box or MultiBinary leaf is cast to its
space's dtype and raveled, a Discrete or MultiDiscrete leaf becomes a one-hot
vector, and the leaves of a Dict or Tuple are joined in the space's order, in
the dtype NumPy's concatenation gives.

Example:
    >>> import numpy as np
    >>> import gymnasium as gym
    >>> from anywrap.transforms.arrays import clip_reward, flatten_observation, flatten_plan
    >>> clip_reward(np.array([-2.0, 0.5, 3.0]), -1.0, 1.0)
    array([-1. ,  0.5,  1. ])
    >>> space = gym.spaces.Dict({"pos": gym.spaces.Box(-1, 1, (2,)), "id": gym.spaces.Discrete(3)})
    >>> obs = {"pos": np.array([0.5, -0.5], np.float32), "id": 2}
    >>> flatten_observation(obs, flatten_plan(space))
    array([ 0. ,  0. ,  1. ,  0.5, -0.5])
"""

from __future__ import annotations

import math
from types import ModuleType
from typing import Any, NamedTuple

import gymnasium as gym
import numpy as np

from anywrap.tree import Path, get_at
from anywrap.xp import Array, device, namespace, resolve_dtype

__all__ = [
    "FlatLeaf",
    "cast",
    "clip_reward",
    "dtype_name",
    "flatten_observation",
    "flatten_plan",
    "promote",
    "reshape_observation",
]


def dtype_name(dtype: Any) -> str:
    """The NumPy name of any library's dtype (``torch.float32`` -> ``'float32'``)."""
    name = getattr(dtype, "name", None)
    if isinstance(name, str):
        return name
    if isinstance(dtype, type):  # a scalar type, e.g. jax.numpy.float32
        return np.dtype(dtype).name
    return str(dtype).rsplit(".", 1)[-1]


_promotions: dict[tuple[int, tuple[str, ...], str], Any] = {}


def promote(xp: ModuleType, *dtypes: Any, device: Any = None) -> Any:
    """``xp``'s dtype for NumPy's promotion of ``dtypes`` (float64 held as float32
    where ``xp`` has none). JAX, PyTorch and the strict Array API promote
    integers with floats differently, or not at all; NumPy's rule is Gymnasium's."""
    names = tuple(dtype_name(d) for d in dtypes)
    key = (id(xp), names, str(device))
    hit = _promotions.get(key)
    if hit is None:
        name = np.result_type(*(np.dtype(n) for n in names)).name
        hit = _promotions[key] = resolve_dtype(xp, name, device)
    return hit


def clip_reward(reward: Array, low: Any, high: Any, dtype: Any = None) -> Array:
    """``min(max(reward, low), high)``; a ``None`` bound is left out.

    A Python-number bound takes the reward's dtype; an array bound promotes
    with it as NumPy's ``np.clip`` does. ``dtype`` casts the result (the
    vector wrapper writes into Gymnasium's reward array, whose dtype it keeps).
    NaN stays NaN.
    """
    if type(reward) in (float, int) or isinstance(reward, np.generic | np.ndarray):
        out = np.clip(reward, low, high)
    else:
        xp = namespace(reward)
        bounds = [b for b in (low, high) if b is not None and not isinstance(b, float | int)]
        if bounds:
            common = promote(xp, reward.dtype, *(b.dtype for b in bounds), device=device(reward))
            reward = xp.astype(reward, common, copy=False)
            low = low if low is None or isinstance(low, float | int) else xp.astype(low, common, copy=False)
            high = high if high is None or isinstance(high, float | int) else xp.astype(high, common, copy=False)
        out = xp.clip(reward, low, high)
    return out if dtype is None else xp.astype(out, dtype, copy=False)


def cast(x: Array, dtype: Any) -> Array:
    """``x`` in ``dtype``; a host scalar becomes a NumPy scalar of that dtype."""
    if isinstance(x, float | int | bool | np.generic):
        return np.dtype(dtype).type(x)
    return namespace(x).astype(x, dtype, copy=False)


# -------------------------------------------------------------------- flatten
class FlatLeaf(NamedTuple):
    """One leaf of a flattened space: where it is, how it flattens, what it holds."""

    path: Path
    kind: str
    """``"box"`` (Box and MultiBinary: cast and ravel) or ``"onehot"``
    (Discrete and MultiDiscrete)."""
    dtype: str
    """The leaf space's dtype name."""
    size: int
    """The leaf's length once flat."""
    counts: tuple[int, ...] = ()
    """One-hot only: the number of values of each component (``n`` or ``nvec``)."""
    starts: tuple[int, ...] = ()
    """One-hot only: the first value of each component."""


class FlatPlan(NamedTuple):
    """How a space flattens: its leaves in order, and the flat dtype."""

    leaves: tuple[FlatLeaf, ...]
    dtype: str
    composite: bool
    """Whether the space is a Dict or Tuple (leaves are joined)."""


def flatten_plan(space: gym.Space, owner: str = "flatten") -> FlatPlan:
    """Read ``space`` into a :class:`FlatPlan` (host work, once).

    Raises:
        TypeError: a space that Gymnasium does not flatten to one array
            (Graph, Sequence, Text, OneOf, or a Dict / Tuple holding one).
    """
    leaves: list[FlatLeaf] = []

    def visit(s: gym.Space, path: Path) -> None:
        if isinstance(s, gym.spaces.Dict):
            for k, sub in s.spaces.items():
                visit(sub, (*path, k))
        elif isinstance(s, gym.spaces.Tuple):
            for i, sub in enumerate(s.spaces):
                visit(sub, (*path, i))
        elif isinstance(s, gym.spaces.Box | gym.spaces.MultiBinary):
            leaves.append(FlatLeaf(path, "box", np.dtype(s.dtype).name, math.prod(s.shape)))
        elif isinstance(s, gym.spaces.Discrete):
            n, start = int(s.n), int(s.start)
            leaves.append(FlatLeaf(path, "onehot", np.dtype(s.dtype).name, n, (n,), (start,)))
        elif isinstance(s, gym.spaces.MultiDiscrete):
            counts = tuple(int(v) for v in np.ravel(s.nvec))
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
    if not hasattr(x, "shape") or isinstance(x, np.generic):
        x = np.asarray(x)
    xp = namespace(x)
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
    """``obs`` (or a batch of them) flattened as :func:`gymnasium.spaces.utils.flatten` does.

    The result has shape ``batch + (flat size,)``.
    """
    parts = [_flat_leaf(get_at(obs, leaf.path), leaf, batch_ndim) for leaf in plan.leaves]
    if not plan.composite:
        return parts[0]
    xp = namespace(*parts)
    dtype = resolve_dtype(xp, plan.dtype, device(parts[0]))
    return xp.concat([xp.astype(p, dtype, copy=False) for p in parts], axis=-1)


def reshape_observation(obs: Array, shape: tuple[int, ...], batch_ndim: int = 0) -> Array:
    """``obs`` (or a batch of them) reshaped to ``shape`` (after the batch axes)."""
    xp = namespace(obs)
    return xp.reshape(obs, (*tuple(obs.shape[:batch_ndim]), *shape))
