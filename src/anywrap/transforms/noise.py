"""AddWhiteNoise's and ObstructView's transforms: frames ``(..., H, W, C)`` with some pixels
replaced by noise drawn by the caller (:mod:`anywrap.shell.noise`).

Example:
    >>> import numpy as np
    >>> from anywrap.transforms.noise import obstruct
    >>> frame = np.zeros((4, 5, 1), np.uint8)
    >>> obstruct(frame, np.full((4, 5, 1), 9, np.uint8), np.array([0, 13]), width=2)[..., 0]
    array([[9, 0, 0, 0, 0],
           [0, 0, 9, 9, 0],
           [0, 0, 9, 9, 0],
           [0, 0, 0, 0, 0]], dtype=uint8)
"""

from __future__ import annotations

from anywrap.xp import Array, constant, device, namespace

__all__ = ["GRAY_HIGH", "gray_noise", "obstruct", "scaled_integers", "white_noise"]

GRAY_HIGH = (76, 149, 29)
"""Gymnasium's bounds of grayscale noise per channel, ``uint8(255 * (0.2989, 0.587, 0.114))``."""


def white_noise(frame: Array, noise: Array, u: Array, *, p: float) -> Array:
    """``frame`` with the pixels where ``u < p`` (``u`` of ``frame.shape[:-1]``) from ``noise``."""
    xp = namespace(frame)
    hit = xp.expand_dims(u < p, axis=-1)
    return xp.where(hit, xp.astype(noise, frame.dtype), frame)


def obstruct(frame: Array, noise: Array, centers: Array, *, width: int) -> Array:
    """``frame`` with the squares of side ``width`` around ``centers`` (flat indices into
    ``H * W``) from ``noise``: rows and columns ``[r - width // 2, r - width // 2 + width)``."""
    xp = namespace(frame)
    height, cols = frame.shape[-3], frame.shape[-2]
    low = width // 2
    r, c = xp.expand_dims(centers // cols, axis=-2), xp.expand_dims(centers % cols, axis=-2)
    dev = device(frame)
    rows_hit = _covers(xp.arange(height, device=dev), r, low, width)  # (..., H, n)
    cols_hit = _covers(xp.arange(cols, device=dev), c, low, width)  # (..., W, n)
    hits = xp.matmul(rows_hit, xp.matrix_transpose(cols_hit))  # squares over each pixel
    return xp.where(xp.expand_dims(hits > 0, axis=-1), xp.astype(noise, frame.dtype), frame)


def _covers(index: Array, centre: Array, low: int, width: int) -> Array:
    """``[i, k]``: whether line ``i`` is in square ``k`` (float32, for a product)."""
    xp = namespace(centre)
    index = xp.astype(xp.reshape(index, (-1, 1)), centre.dtype)
    start = centre - low
    inside = xp.logical_and(index >= start, index < start + width)
    return xp.astype(inside, xp.float32)


def gray_noise(channels: Array) -> Array:
    """Gymnasium's grayscale noise: three channels ``(..., 3)`` summed, on each (uint8)."""
    xp = namespace(channels)
    total = xp.sum(xp.astype(channels, xp.int32), axis=-1, keepdims=True)
    return xp.astype(xp.broadcast_to(total, channels.shape), xp.uint8)


def scaled_integers(u: Array, high: int | tuple[int, ...], dtype: str = "uint8") -> Array:
    """Integers ``floor(u * high)`` in ``[0, high)`` (``high`` per channel if a tuple)."""
    xp = namespace(u)
    top = constant(u, high)  # on PyTorch made once: an array made from host numbers is a copy
    if not hasattr(top, "dtype"):
        top = xp.asarray(high, dtype=u.dtype, device=device(u))
    scaled = xp.minimum(xp.floor(u * top), top - 1)  # float rounding never gives `high`
    return xp.astype(scaled, getattr(xp, dtype))
