"""ResizeObservation's transform: Gymnasium's resize (OpenCV's ``INTER_AREA``), any library.

Example:
    >>> import numpy as np
    >>> from anywrap.transforms.resize_observation import resize
    >>> resize(np.full((2, 6, 4), 7, np.uint8), (3, 2), channels=False)[0]
    array([[7, 7],
           [7, 7],
           [7, 7]], dtype=uint8)
"""

from __future__ import annotations

from anywrap.xp import Array, namespace
from anywrap.xp.images import resize_images

__all__ = ["resize"]


def resize(images: Array, size: tuple[int, int], *, channels: bool, method: str = "area") -> Array:
    """Resize ``uint8`` images ``(*batch, H, W[, C])`` to ``(*batch, *size[, C])``."""
    xp = namespace(images)
    spatial = images.ndim - (3 if channels else 2)
    batch = tuple(images.shape[:spatial])
    h, w = images.shape[spatial], images.shape[spatial + 1]
    c = images.shape[-1] if channels else 1
    out = resize_images(xp.reshape(images, (-1, h, w, c)), size, method)
    return xp.reshape(out, (*batch, *size, *((c,) if channels else ())))
