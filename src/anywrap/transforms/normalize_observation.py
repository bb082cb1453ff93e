"""NormalizeObservation's transform over nested observations: each leaf has its own
:class:`~anywrap.transforms.moments.Moments` and is normalised to ``out_dtype``.

Example:
    >>> import numpy as np
    >>> from anywrap.transforms import normalize_observation as T
    >>> s = T.init_observation_stats({"a": (2,)}, xp=np, dtype=np.float32)
    >>> s, y = T.normalize_observation(s, {"a": np.array([[1.0, 2.0]], np.float32)}, epsilon=1e-8)
    >>> y["a"].dtype
    dtype('float32')
"""

from __future__ import annotations

from types import ModuleType
from typing import Any

from anywrap.transforms.moments import Moments, Reduce, init_moments, normalize, update_moments
from anywrap.tree import is_branch, tree_map, unzip
from anywrap.xp import Array, stop_gradient

__all__ = [
    "held_apart",
    "init_observation_stats",
    "normalize_observation",
    "normalize_observation_with_final",
]


def _is_shape(x: Any) -> bool:
    return type(x) is tuple and all(isinstance(d, int) for d in x)


def _is_moments(x: Any) -> bool:
    return isinstance(x, Moments)


def init_observation_stats(shapes: Any, *, xp: ModuleType, dtype: Any, device: Any = None) -> Any:
    """Fresh :class:`Moments` per leaf shape of ``shapes``; ``dtype`` is one or a tree."""
    dtypes = dtype if is_branch(dtype) else tree_map(lambda _: dtype, shapes, is_leaf=_is_shape)

    def leaf(shape: tuple[int, ...], d: Any) -> Moments:
        return init_moments(shape, xp=xp, dtype=d, device=device)

    return tree_map(leaf, shapes, dtypes, is_leaf=_is_shape)


def normalize_observation(
    stats: Any,
    obs: Any,
    mask: Array | None = None,
    *,
    epsilon: float,
    update: bool = True,
    batched: bool = True,
    out_dtype: str = "float32",
    reduce: Reduce | None = None,
    stats_gradient: bool = False,
) -> tuple[Any, Any]:
    """Update each leaf's moments (``stats``, a tree of :class:`Moments` shaped like ``obs``)
    with the rows of ``obs`` (axis 0, or one observation unless ``batched``) that the bool
    ``mask`` ``(batch,)`` selects, if ``update``; then normalise it (``epsilon`` added to
    the variance under the square root) to ``out_dtype``: ``(stats, normalised)``.
    ``reduce``: a sum over the participants of a distributed batch; ``stats_gradient``: let
    the output's gradient flow through this step's update (the state returned holds none
    either way)."""

    def leaf(m: Moments, x: Array) -> tuple[Moments, Array]:
        if update:
            seen = x if stats_gradient else stop_gradient(x)
            m = update_moments(m, seen, mask, batched=batched, reduce=reduce)
        return held_apart(m, stats_gradient and update), normalize(m, x, epsilon, out_dtype)

    if type(stats) is Moments:
        return leaf(stats, obs)
    return unzip(tree_map(leaf, stats, obs, is_leaf=_is_moments), stats, 2, _is_moments)


def held_apart(stats: Any, stats_gradient: bool) -> Any:
    """The statistics as state keeps them: without a gradient."""
    return tree_map(stop_gradient, stats) if stats_gradient else stats


def normalize_observation_with_final(
    stats: Any,
    obs: Any,
    final_obs: Any,
    final_mask: Array,
    *,
    epsilon: float,
    update: bool = True,
    learn_final: bool = False,
    out_dtype: str = "float32",
    reduce: Reduce | None = None,
    stats_gradient: bool = False,
) -> tuple[Any, tuple[Any, Any]]:
    """:func:`normalize_observation` for a SAME_STEP vector env: learn from ``obs`` and,
    with ``learn_final``, from the rows of ``final_obs`` in ``final_mask`` (as NEXT_STEP
    would); normalise both: ``(stats, (obs, final_obs))``."""
    seen = (lambda a: a) if stats_gradient else stop_gradient

    def leaf(m: Moments, x: Array, f: Array) -> tuple[Moments, tuple[Array, Array]]:
        if update and learn_final:
            m = update_moments(m, (seen(x), seen(f)), (None, final_mask), reduce=reduce)
        elif update:
            m = update_moments(m, seen(x), reduce=reduce)
        out = (normalize(m, x, epsilon, out_dtype), normalize(m, f, epsilon, out_dtype))
        return held_apart(m, stats_gradient), out

    if type(stats) is Moments:
        return leaf(stats, obs, final_obs)
    stats, both = unzip(
        tree_map(leaf, stats, obs, final_obs, is_leaf=_is_moments), stats, 2, _is_moments
    )
    return stats, unzip(both, stats, 2, _is_moments)  # type: ignore[return-value]
