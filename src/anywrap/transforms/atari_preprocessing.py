"""AtariPreprocessing's transform: the last two kept frames max-pooled, resized with
OpenCV's ``INTER_AREA`` and scaled, from the image transforms anywrap already has.

Gymnasium keeps the pooled frame as its newest (``np.maximum(..., out=buffer[0])``):
a step whose episode ends before a frame is kept pools that frame again with the
older one. :func:`atari_frame` returns the pooled frame for the caller to keep.

Example:
    >>> import numpy as np
    >>> from anywrap.transforms.atari_preprocessing import atari_frame
    >>> newest, older = np.full((4, 4), 10, np.uint8), np.full((4, 4), 30, np.uint8)
    >>> pooled, obs = atari_frame(newest, older, size=(2, 2), pool=True, scale=True, newaxis=True)
    >>> pooled[0, 0], obs.shape, obs.dtype, obs[0, 0, 0] == np.float32(30 / 255)
    (np.uint8(30), (2, 2, 1), dtype('float32'), np.True_)
"""

from __future__ import annotations

from anywrap.transforms.resize_observation import resize
from anywrap.xp import Array, namespace

__all__ = ["atari_frame"]


def atari_frame(
    newest: Array, older: Array, *, size: tuple[int, int], pool: bool, scale: bool, newaxis: bool
) -> tuple[Array, Array]:
    """``(pooled, obs)``: uint8 frames ``(H, W)`` or ``(H, W, 3)`` pooled (where ``pool``),
    resized to ``size`` (rows, columns), then ``float32(obs) / 255`` where ``scale``, with a
    channel axis added where ``newaxis``."""
    xp = namespace(newest)
    pooled = xp.maximum(newest, older) if pool else newest
    obs = resize(pooled, size, channels=pooled.ndim == 3, method="area")
    if scale:
        obs = xp.astype(obs, xp.float32) / 255.0
    return pooled, xp.expand_dims(obs, axis=-1) if newaxis else obs
