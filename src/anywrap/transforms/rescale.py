"""RescaleAction's and RescaleObservation's transforms: ``y = g x + c`` onto new bounds,
and its inverse, with Gymnasium's coefficients to the bit.

Example:
    >>> import numpy as np, gymnasium as gym
    >>> from anywrap.transforms.rescale import affine, affine_inverse, rescale_coefficients
    >>> g, c = rescale_coefficients(gym.spaces.Box(-2.0, 2.0, (1,)), -1.0, 1.0)
    >>> g, c, affine(np.array([2.0], dtype=np.float32), g, c), affine_inverse(np.array([1.0]), g, c)
    (array([0.5], dtype=float32), array([0.], dtype=float32),
     array([1.], dtype=float32), array([2.]))
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym

from anywrap.transforms.promotion import promote
from anywrap.xp import Array, device, is_host, namespace, resolve_dtype

__all__ = ["affine", "affine_inverse", "rescale_coefficients", "target_bounds"]


def target_bounds(box: gym.spaces.Box, bound: Any, name: str) -> Any:
    """``bound`` (a number or an array of ``box``'s shape) as an array of that shape."""
    import numpy as np  # host values, read once

    if not isinstance(bound, np.ndarray):
        if isinstance(bound, bool) or not (
            np.issubdtype(type(bound), np.integer) or np.issubdtype(type(bound), np.floating)
        ):
            raise TypeError(
                f"expected `{name}` to be an int, a float or a NumPy array, got {bound!r}"
            )
        bound = np.full(box.shape, bound)
    if bound.shape != box.shape:
        raise ValueError(f"expected `{name}` of shape {box.shape}, got shape {bound.shape}")
    return bound


def rescale_coefficients(
    box: gym.spaces.Box, new_min: Any, new_max: Any, *, names: tuple[str, str] = ("min", "max")
) -> tuple[Any, Any]:
    """``(gradient, intercept)`` in ``box.dtype`` mapping ``box`` onto ``[new_min, new_max]``."""
    import numpy as np  # host values, read once

    lo, hi = (target_bounds(box, b, name) for b, name in zip((new_min, new_max), names))
    for new, old, name in ((lo, box.low, names[0]), (hi, box.high, names[1])):
        infinite = np.isinf(new) | np.isinf(old)
        if not np.all(new[infinite] == old[infinite]):
            raise ValueError(
                f"`{name}` must equal the Box's bound where either is infinite: "
                f"got {new} for the Box bound {old}"
            )
    if not np.all(lo <= hi):
        raise ValueError(f"expected `{names[0]}` <= `{names[1]}`, got {lo} and {hi}")
    lo_finite, hi_finite = np.isfinite(lo), np.isfinite(hi)
    both = lo_finite & hi_finite
    gradient = np.ones(box.shape, dtype=box.dtype)
    span = np.asarray(box.high[both], np.longdouble) - np.asarray(box.low[both], np.longdouble)
    gradient[both] = (hi[both] - lo[both]) / span
    intercept = np.zeros(box.shape, dtype=box.dtype)
    intercept[hi_finite] = hi[hi_finite] - box.high[hi_finite]
    # Where both are finite, the lower bound decides (from the rounded gradient).
    intercept[lo_finite] = gradient[lo_finite] * -box.low[lo_finite] + lo[lo_finite]
    return gradient, intercept


def _common(x: Array, gradient: Array, intercept: Array) -> tuple[Array, Array, Array]:
    if is_host(x) and is_host(gradient):  # NumPy promotes by itself
        return x, gradient, intercept
    xp = namespace(x, gradient)
    dtype = promote(xp, x.dtype, gradient.dtype, device=device(x))
    g, c = (xp.astype(a, dtype, copy=False) for a in (gradient, intercept))
    return xp.astype(x, dtype, copy=False), g, c


def _cast(out: Array, dtype: Any) -> Array:
    if dtype is None:
        return out
    xp = namespace(out)
    return xp.astype(out, resolve_dtype(xp, dtype, device(out)), copy=False)


def affine(x: Array, gradient: Array, intercept: Array, dtype: Any = None) -> Array:
    """``gradient * x + intercept`` (then cast to ``dtype``, a dtype or its name, when given)."""
    x, g, c = _common(x, gradient, intercept)
    return _cast(g * x + c, dtype)


def affine_inverse(x: Array, gradient: Array, intercept: Array, dtype: Any = None) -> Array:
    """``(x - intercept) / gradient`` (then cast to ``dtype`` when given)."""
    x, g, c = _common(x, gradient, intercept)
    return _cast((x - c) / g, dtype)
