"""Image transforms: Gymnasium's grayscale and resize, on any array library.

**Grayscale.** Gymnasium computes ``0.2125 r + 0.7154 g + 0.0721 b`` in
float64 and truncates to ``uint8``. Here the sum is taken exactly, in
integers, as ``(2125 r + 7154 g + 721 b) // 10000``; where the exact value is
a whole number, Gymnasium's float64 rounding sometimes lands a hair below it
and truncates one lower (63 of the 16.7 million colours, grey 43 among them),
and a table of those colours (:func:`anywrap.xp.images.gray_fix_table`)
takes the same step down. So every backend, float32-only ones included
(JAX without x64), gives Gymnasium's numbers for every colour. NumPy and
PyTorch look each colour up in a table of Gymnasium's results instead
(:func:`anywrap.xp.images.rgb_to_gray`), which takes fewer passes.

**Resize.** :func:`anywrap.xp.images.resize_images` on each image, with
OpenCV's ``INTER_AREA`` filter by default (Gymnasium's); images are
``(*batch, H, W)`` or ``(*batch, H, W, C)``.

Example:
    >>> import numpy as np
    >>> from anywrap.transforms.images import grayscale, resize
    >>> rgb = np.array([[[43, 43, 43], [255, 0, 0], [0, 255, 0]]], dtype=np.uint8)
    >>> grayscale(rgb)
    array([[ 42,  54, 182]], dtype=uint8)
    >>> grayscale(rgb, keep_dim=True).shape
    (1, 3, 1)
    >>> resize(np.full((2, 6, 4), 7, np.uint8), (3, 2), channels=False)[0]
    array([[7, 7],
           [7, 7],
           [7, 7]], dtype=uint8)
"""

from __future__ import annotations

from anywrap.xp import Array, namespace
from anywrap.xp.images import resize_images, rgb_to_gray

__all__ = ["grayscale", "resize"]


def grayscale(images: Array, *, keep_dim: bool = False) -> Array:
    """``uint8`` RGB images ``(..., 3)`` to grayscale ``(...)`` (``(..., 1)`` with ``keep_dim``).

    Bit for bit Gymnasium's ``GrayscaleObservation``:
    ``uint8(0.2125 r + 0.7154 g + 0.0721 b)`` as float64 gives it.
    """
    xp = namespace(images)
    out = rgb_to_gray(images)
    return xp.expand_dims(out, axis=-1) if keep_dim else out


def resize(images: Array, size: tuple[int, int], *, channels: bool, method: str = "area") -> Array:
    """Resize ``uint8`` images ``(*batch, H, W[, C])`` to ``(*batch, *size[, C])``.

    ``channels`` says whether the last axis is a channel axis. ``method`` is
    ``"area"`` (OpenCV's ``INTER_AREA``, Gymnasium's) or ``"bilinear"``
    (antialiased); see :mod:`anywrap.xp.images` for how far each backend is
    from OpenCV.
    """
    xp = namespace(images)
    spatial = images.ndim - (3 if channels else 2)
    batch = tuple(images.shape[:spatial])
    h, w = images.shape[spatial], images.shape[spatial + 1]
    c = images.shape[-1] if channels else 1
    flat = xp.reshape(images, (-1, h, w, c))
    out = resize_images(flat, (int(size[0]), int(size[1])), method)
    tail = (c,) if channels else ()
    return xp.reshape(out, (*batch, int(size[0]), int(size[1]), *tail))
