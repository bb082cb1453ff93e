"""ClipReward's transform: ``min(max(reward, low), high)``, promoting as ``np.clip`` does.

Example:
    >>> import numpy as np
    >>> from anywrap.transforms.clip_reward import clip_reward
    >>> clip_reward(np.array([-2.0, 0.5, 3.0]), -1.0, 1.0)
    array([-1. ,  0.5,  1. ])
"""

from __future__ import annotations

from typing import Any

from anywrap.transforms.promotion import promote
from anywrap.xp import Array, device, is_host, namespace

__all__ = ["clip_reward"]


def _is_number(bound: Any) -> bool:
    return bound is None or isinstance(bound, float | int)


def clip_reward(reward: Array, low: Any, high: Any, keep_dtype: bool = False) -> Array:
    """``reward`` clipped to ``[low, high]`` (``None``: no bound); ``keep_dtype`` casts back
    to the reward's dtype (the vector wrapper's quirk)."""
    xp = namespace(reward)
    dtype = getattr(reward, "dtype", None)
    if not is_host(reward) and not (_is_number(low) and _is_number(high)):
        arrays = [b.dtype for b in (low, high) if not _is_number(b)]
        common = promote(xp, reward.dtype, *arrays, device=device(reward))
        reward, low, high = (
            b if _is_number(b) else xp.astype(b, common, copy=False) for b in (reward, low, high)
        )
    out = xp.clip(reward, low, high)
    return xp.astype(out, dtype, copy=False) if keep_dtype and dtype is not None else out
