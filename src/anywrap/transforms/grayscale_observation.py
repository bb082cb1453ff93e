"""GrayscaleObservation's transform: Gymnasium's grayscale, bit for bit, on any library but TF.

Gymnasium computes ``0.2125 r + 0.7154 g + 0.0721 b`` in float64 and
truncates to ``uint8``. Here the sum is taken exactly, in integers, as
``(2125 r + 7154 g + 721 b) // 10000``; where the exact value is a whole
number, Gymnasium's float64 rounding sometimes lands a hair below it and
truncates one lower (63 of the 16.7 million colours, grey 43 among them), and
a table of those colours (:func:`anywrap.xp.images.gray_fix_table`) takes the
same step down. So every backend, float32-only ones included (JAX without
x64), gives Gymnasium's numbers for every colour. NumPy and eager PyTorch look
each colour up in a table of Gymnasium's results instead (the same numbers in
fewer passes: :func:`anywrap.xp.images.rgb_to_gray`).

Example:
    >>> import numpy as np
    >>> from anywrap.transforms.grayscale_observation import grayscale
    >>> rgb = np.array([[[43, 43, 43], [255, 0, 0], [0, 255, 0]]], dtype=np.uint8)
    >>> grayscale(rgb)  # Gymnasium's grey 43 is 42
    array([[ 42,  54, 182]], dtype=uint8)
    >>> grayscale(rgb, keep_dim=True).shape
    (1, 3, 1)
"""

from __future__ import annotations

from anywrap.xp import Array, namespace
from anywrap.xp.images import rgb_to_gray

__all__ = ["grayscale"]


def grayscale(images: Array, *, keep_dim: bool = False) -> Array:
    """``uint8`` RGB images ``(..., 3)`` to grayscale ``(...)`` (``(..., 1)`` with ``keep_dim``).

    Bit for bit Gymnasium's ``GrayscaleObservation``:
    ``uint8(0.2125 r + 0.7154 g + 0.0721 b)`` as float64 gives it.
    """
    out = rgb_to_gray(images)
    return namespace(out).expand_dims(out, axis=-1) if keep_dim else out
