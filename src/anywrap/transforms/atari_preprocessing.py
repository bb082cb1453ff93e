"""AtariPreprocessing's transform: the last two frames max-pooled, resized and scaled.

Gymnasium keeps the pooled frame as its newest, so :func:`atari_frame` returns it too.

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
    """``(pooled, obs)``: uint8 frames pooled, resized to ``size``, then maybe
    ``float32(obs) / 255`` (``scale``) with a channel axis (``newaxis``)."""
    xp = namespace(newest)
    pooled = xp.maximum(newest, older) if pool else newest
    obs = resize(pooled, size, channels=pooled.ndim == 3, method="area")
    if scale:
        obs = xp.astype(obs, xp.float32) / 255.0
    return pooled, xp.expand_dims(obs, axis=-1) if newaxis else obs
