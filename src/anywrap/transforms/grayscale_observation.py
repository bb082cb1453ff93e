"""GrayscaleObservation's transform: Gymnasium's ``uint8(0.2125 r + 0.7154 g + 0.0721 b)``.

Example:
    >>> import numpy as np
    >>> from anywrap.transforms.grayscale_observation import grayscale
    >>> rgb = np.array([[[43, 43, 43], [255, 0, 0], [0, 255, 0]]], dtype=np.uint8)
    >>> grayscale(rgb)  # Gymnasium's grey 43 is 42
    array([[ 42,  54, 182]], dtype=uint8)
"""

from __future__ import annotations

from anywrap.xp import Array, namespace
from anywrap.xp.images import rgb_to_gray

__all__ = ["grayscale"]


def grayscale(images: Array, *, keep_dim: bool = False) -> Array:
    """``uint8`` RGB images ``(..., 3)`` to grayscale ``(...)`` (``(..., 1)`` with ``keep_dim``)."""
    out = rgb_to_gray(images)
    return namespace(out).expand_dims(out, axis=-1) if keep_dim else out
