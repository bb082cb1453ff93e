"""The vector RecordVideo's transform: a batch of frames tiled into one, row by row.

Example:
    >>> import numpy as np
    >>> from anywrap.transforms.tile_frames import tile_frames
    >>> frames = np.arange(4).reshape(4, 1, 1, 1) * np.ones((4, 2, 3, 1), int)
    >>> tile_frames(frames, rows=2, cols=2)[..., 0]
    array([[0, 0, 0, 1, 1, 1],
           [0, 0, 0, 1, 1, 1],
           [2, 2, 2, 3, 3, 3],
           [2, 2, 2, 3, 3, 3]])
"""

from __future__ import annotations

from anywrap.xp import Array, namespace

__all__ = ["tile_frames"]


def tile_frames(frames: Array, *, rows: int, cols: int) -> Array:
    """Frames ``(rows * cols, H, W, C)`` as one ``(rows * H, cols * W, C)``, row by row."""
    xp = namespace(frames)
    _, h, w, c = frames.shape
    grid = xp.permute_dims(xp.reshape(frames, (rows, cols, h, w, c)), (0, 2, 1, 3, 4))
    return xp.reshape(grid, (rows * h, cols * w, c))
