"""ReshapeObservation's transform: an observation (or a batch) in a new shape.

Example:
    >>> import numpy as np
    >>> from anywrap.transforms.reshape_observation import reshape_observation
    >>> reshape_observation(np.arange(8.0).reshape(2, 4), (2, 2), batch_ndim=1).shape
    (2, 2, 2)
"""

from __future__ import annotations

from anywrap.xp import Array, namespace

__all__ = ["reshape_observation"]


def reshape_observation(obs: Array, shape: tuple[int, ...], batch_ndim: int = 0) -> Array:
    """``obs`` (or a batch of them) reshaped to ``shape`` (after the batch axes)."""
    return namespace(obs).reshape(obs, (*tuple(obs.shape[:batch_ndim]), *shape))
