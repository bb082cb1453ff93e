"""Uniform bins over a Box: an observation to its bin indices, a bin index to an action.

Example:
    >>> import numpy as np
    >>> from anywrap.transforms.discretize import bin_plan, discretize, undiscretize
    >>> plan = bin_plan(np.array([-1.0, 0.0], np.float32), np.array([1.0, 1.0], np.float32), [4, 2])
    >>> discretize(np.array([0.3, 0.9], np.float32), *plan.observation, (2,), False)
    np.int64(5)
    >>> undiscretize(np.array(5), *plan.action, (2,), "float32", False)
    array([0.25, 0.75], dtype=float32)
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from anywrap.transforms.dtype_observation import cast
from anywrap.xp import Array, clip, device, namespace

__all__ = ["BinPlan", "bin_plan", "discretize", "undiscretize"]


class BinPlan(NamedTuple):
    """The arguments of :func:`discretize` (``observation``) and :func:`undiscretize`
    (``action``), and each dimension's ``bins[i] + 1`` edges (``grids``)."""

    observation: tuple[np.ndarray, ...]
    action: tuple[np.ndarray, ...]
    grids: list[np.ndarray]


def bin_plan(low: np.ndarray, high: np.ndarray, bins: Any) -> BinPlan:
    """The tables of ``bins`` over flat finite bounds, as Gymnasium 1.4 computes them."""
    bins = np.asarray(bins, dtype=np.int64)
    width = int(bins.max())
    grids = [np.linspace(lo, hi, b + 1) for lo, hi, b in zip(low, high, bins)]
    edges = np.full((len(bins), max(width - 1, 1)), np.inf, dtype=grids[0].dtype)
    centers = np.zeros((len(bins), width), dtype=grids[0].dtype)
    for i, grid in enumerate(grids):
        edges[i, : bins[i] - 1] = grid[1:-1]
        centers[i, : bins[i]] = 0.5 * (grid[:-1] + grid[1:])
    strides = np.array([int(np.prod(bins[i + 1 :])) for i in range(len(bins))], dtype=np.int64)
    return BinPlan((low, high - 1e-8, edges, strides), (centers, bins, strides), grids)


def discretize(
    obs: Array,
    low: Array,
    upper: Array,
    edges: Array,
    strides: Array,
    shape: tuple[int, ...],
    multidiscrete: bool,
) -> Array:
    """The bin index ``(..., n)`` of each dimension of ``obs``, clipped first (NumPy's
    ``digitize``: a NaN in the last bin), or the flat ``sum(index[i] * strides[i])``
    unless ``multidiscrete``."""
    xp = namespace(obs)
    batch = tuple(obs.shape[: obs.ndim - len(shape)])
    x = clip(xp.reshape(obs, (*batch, edges.shape[0])), low, upper)
    x = xp.astype(xp.where(x == x, x, upper), edges.dtype)  # digitize's NaN: the last bin
    index = xp.sum(xp.astype(x[..., None] >= edges, strides.dtype), axis=-1)
    return index if multidiscrete else xp.sum(index * strides, axis=-1)


def undiscretize(
    action: Array,
    centers: Array,
    bins: Array,
    strides: Array,
    shape: tuple[int, ...],
    dtype: str,
    multidiscrete: bool,
) -> Array:
    """The centre of the bin that ``action`` (flat, or per dimension if ``multidiscrete``)
    names in each dimension, clipped into its bins, in ``dtype`` and ``shape``."""
    xp = namespace(action)
    action = xp.astype(action, strides.dtype)
    index = action if multidiscrete else (action[..., None] // strides) % bins
    index = clip(index, xp.zeros_like(bins), bins - 1)
    pick = xp.arange(centers.shape[1], dtype=index.dtype, device=device(index)) == index[..., None]
    value = xp.sum(xp.where(pick, centers, xp.zeros_like(centers)), axis=-1)
    batch = tuple(value.shape[:-1])
    return xp.reshape(cast(value, dtype), (*batch, *shape))
