"""Action clipping to a Box's bounds.

Example:
    >>> import numpy as np
    >>> from anywrap.transforms.actions import clip_action
    >>> clip_action(np.array([3.0, -3.0]), np.array([-2.0, -2.0]), np.array([2.0, 2.0]))
    array([ 2., -2.])
"""

from __future__ import annotations

from anywrap.xp import Array, namespace

__all__ = ["clip_action"]


def clip_action(action: Array, low: Array, high: Array) -> Array:
    """``min(max(action, low), high)`` elementwise, in the action's dtype and device."""
    xp = namespace(action)
    return xp.clip(action, low, high)
