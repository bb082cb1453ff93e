"""Argument and input checks shared by the shells; every error names the wrapper.

Example:
    >>> check_gamma("anywrap.NormalizeReward", 1.5)
    Traceback (most recent call last):
    ...
    gymnasium.error.InvalidBound: anywrap.NormalizeReward: `gamma` should be in ... got 1.5
"""

from __future__ import annotations

import math
from typing import Any

from gymnasium.error import InvalidBound
from gymnasium.vector import AutoresetMode

from anywrap import xp as axp

__all__ = [
    "autoreset_mode",
    "check_epsilon",
    "check_gamma",
    "check_reset_mask",
    "reset_mask_of",
    "wrapper_name",
]


def wrapper_name(obj: Any) -> str:
    """``anywrap.vector.NormalizeObservation`` style name of a wrapper, for messages."""
    mod = type(obj).__module__
    prefix = "anywrap.vector." if ".vector" in mod else "anywrap."
    return prefix + type(obj).__name__


def check_epsilon(owner: str, epsilon: float) -> None:
    """Gymnasium's bound on ``epsilon``, with the wrapper named."""
    if not (isinstance(epsilon, (int, float)) and math.isfinite(epsilon) and epsilon > 0):
        raise InvalidBound(f"{owner}: `epsilon` should be strictly positive, got {epsilon!r}")


def check_gamma(owner: str, gamma: float) -> None:
    """Gymnasium's bound on ``gamma``, with the wrapper named."""
    if not (isinstance(gamma, (int, float)) and 0 <= gamma <= 1):
        raise InvalidBound(f"{owner}: `gamma` should be in the interval [0, 1], got {gamma!r}")


def autoreset_mode(owner: str, env: Any) -> AutoresetMode:
    """The vector env's autoreset mode; a missing entry means NEXT_STEP (as in Gymnasium)."""
    mode = env.metadata.get("autoreset_mode", AutoresetMode.NEXT_STEP)
    if isinstance(mode, str) and not isinstance(mode, AutoresetMode):
        try:
            mode = AutoresetMode(mode)
        except ValueError:
            pass
    if not isinstance(mode, AutoresetMode):
        raise TypeError(
            f"{owner}: expected env.metadata['autoreset_mode'] to be a "
            f"gymnasium.vector.AutoresetMode, got {mode!r}"
        )
    return mode


def reset_mask_of(owner: str, options: dict[str, Any] | None, num_envs: int) -> Any:
    """The checked ``options["reset_mask"]``, or None for a full reset."""
    if options is None or "reset_mask" not in options:
        return None
    mask = options["reset_mask"]
    check_reset_mask(owner, mask, num_envs)
    return mask


def check_reset_mask(owner: str, mask: Any, num_envs: int) -> None:
    """A ``reset_mask`` must be a bool array of shape ``(num_envs,)``."""
    shape = tuple(getattr(mask, "shape", ()))
    try:
        is_bool = bool(axp.namespace(mask).isdtype(mask.dtype, "bool"))
    except Exception:  # not an array at all
        is_bool = False
    if shape != (num_envs,) or not is_bool:
        raise ValueError(
            f"{owner}: expected options['reset_mask'] to be a bool array of shape "
            f"({num_envs},), got {axp.describe(mask)}"
        )
