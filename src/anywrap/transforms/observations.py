"""Observation normalisation over nested observations (Box, Dict or Tuple of Box).

Each leaf keeps its own :class:`~anywrap.transforms.moments.Moments`; the
normalised leaf is ``(x - mean) / sqrt(var + epsilon)`` cast to ``out_dtype``
(float32, as the wrapped observation space says).

Example:
    >>> import numpy as np
    >>> from anywrap.transforms import observations as obs
    >>> s = obs.init_observation_stats({"a": (2,)}, xp=np, dtype=np.float32)
    >>> s, y = obs.normalize_observation(s, {"a": np.array([[1.0, 2.0]], dtype=np.float32)},
    ...                                  epsilon=1e-8)
    >>> y["a"].dtype
    dtype('float32')
"""

from __future__ import annotations

from types import ModuleType
from typing import Any

from anywrap.transforms.moments import (
    Moments,
    Reduce,
    init_moments,
    normalize,
    update_moments,
    update_moments_one,
)
from anywrap.tree import is_branch, tree_map, unzip
from anywrap.xp import Array, astype, namespace

__all__ = [
    "init_observation_stats",
    "normalize_observation",
    "normalize_observation_with_final",
    "normalize_single_observation",
]


def init_observation_stats(shapes: Any, *, xp: ModuleType, dtype: Any, device: Any = None) -> Any:
    """A tree of fresh :class:`Moments`, one per leaf shape of ``shapes``.

    ``shapes`` is a shape tuple, or a dict / tuple of them (nested);
    ``dtype`` is one dtype, or a tree of dtypes shaped like ``shapes``.
    """
    if is_branch(dtype):
        return tree_map(
            lambda s, d: init_moments(s, xp=xp, dtype=d, device=device),
            shapes,
            dtype,
            is_leaf=_is_shape,
        )
    return tree_map(
        lambda s: init_moments(s, xp=xp, dtype=dtype, device=device), shapes, is_leaf=_is_shape
    )


def _is_shape(x: Any) -> bool:
    return type(x) is tuple and all(isinstance(d, int) for d in x)


def _is_moments(x: Any) -> bool:
    return isinstance(x, Moments)


def normalize_observation(
    stats: Any,
    obs: Any,
    *,
    epsilon: float,
    update: bool = True,
    mask: Array | None = None,
    out_dtype: str = "float32",
    reduce: Reduce | None = None,
) -> tuple[Any, Any]:
    """Update each leaf's moments with a batch (rows on axis 0), then normalise it.

    Args:
        stats: A tree of :class:`Moments` shaped like ``obs``.
        obs: A batch of observations: each leaf has the batch on axis 0.
        epsilon: Added to the variance under the square root.
        update: Whether the statistics learn from this batch.
        mask: Optional bool ``(batch,)``: only these rows update the statistics
            (all rows are normalised).
        out_dtype: The normalised observation's dtype name.
        reduce: Sums over the participants of a distributed batch, so that
            every shard learns the global statistics (see ``batch_moments``).

    Returns:
        ``(stats, normalised)``.
    """

    def leaf(m: Moments, x: Array) -> tuple[Moments, Array]:
        xp = namespace(m.mean, x)
        if update:
            m = update_moments(m, x, mask, reduce=reduce)
        return m, astype(normalize(m, x, epsilon), getattr(xp, out_dtype))

    if isinstance(stats, Moments):
        return leaf(stats, obs)
    return unzip(tree_map(leaf, stats, obs, is_leaf=_is_moments), stats, 2, _is_moments)


def normalize_observation_with_final(
    stats: Any,
    obs: Any,
    final_obs: Any,
    final_mask: Array,
    *,
    epsilon: float,
    update: bool = True,
    learn_final: bool = True,
    out_dtype: str = "float32",
    reduce: Reduce | None = None,
) -> tuple[Any, Any, Any]:
    """:func:`normalize_observation` for a SAME_STEP vector env: learn from ``obs``
    and, with ``learn_final``, from the rows of ``final_obs`` selected by
    ``final_mask`` (the episodes that ended); then normalise both.

    With ``learn_final`` the statistics see exactly what they would see in
    NEXT_STEP mode (every final and every first observation); the two batches
    are treated as parts of one, never concatenated. Without it they learn
    from ``obs`` only, and ``final_obs`` is only normalised: no reduction
    reads it, so a compiled program that never uses the normalised final
    observations need not compute them at all.

    Returns:
        ``(stats, normalised obs, normalised final_obs)``.
    """

    def leaf(m: Moments, x: Array, f: Array) -> tuple[Moments, Array, Array]:
        xp = namespace(m.mean, x)
        if update and learn_final:
            m = update_moments(m, (x, f), (None, final_mask), reduce=reduce)
        elif update:
            m = update_moments(m, x, reduce=reduce)
        dtype = getattr(xp, out_dtype)
        return m, astype(normalize(m, x, epsilon), dtype), astype(normalize(m, f, epsilon), dtype)

    if isinstance(stats, Moments):
        return leaf(stats, obs, final_obs)
    return unzip(tree_map(leaf, stats, obs, final_obs, is_leaf=_is_moments), stats, 3, _is_moments)


def normalize_single_observation(
    stats: Any, obs: Any, *, epsilon: float, update: bool = True, out_dtype: str = "float32"
) -> tuple[Any, Any]:
    """:func:`normalize_observation` for one unbatched observation."""

    def leaf(m: Moments, x: Array) -> tuple[Moments, Array]:
        xp = namespace(m.mean, x)
        if update:
            m = update_moments_one(m, xp.asarray(x))
        return m, astype(normalize(m, x, epsilon), getattr(xp, out_dtype))

    if isinstance(stats, Moments):
        return leaf(stats, obs)
    return unzip(tree_map(leaf, stats, obs, is_leaf=_is_moments), stats, 2, _is_moments)
