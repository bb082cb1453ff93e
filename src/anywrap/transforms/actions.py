"""Action clipping to a Box's bounds.

Example:
    >>> import numpy as np
    >>> from anywrap.transforms.actions import clip_action
    >>> clip_action(np.array([3.0, -3.0]), np.array([-2.0, -2.0]), np.array([2.0, 2.0]))
    array([ 2., -2.])
"""

from __future__ import annotations

from typing import Any

from anywrap.xp import Array, clip, namespace

__all__ = ["clip_action"]


def clip_action(action: Array, low: Array, high: Array, dtype: Any = None) -> Array:
    """``min(max(action, low), high)`` in the action's dtype, or in ``dtype``."""
    out = clip(action, low, high)
    return out if dtype is None or out.dtype == dtype else namespace(out).astype(out, dtype)
