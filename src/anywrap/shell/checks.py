"""Argument and input checks shared by the shells; every error names the wrapper.

Example:
    >>> check_gamma("anywrap.NormalizeReward", 1.5)
    Traceback (most recent call last):
    ...
    gymnasium.error.InvalidBound: anywrap.NormalizeReward: `gamma` should be in ... got 1.5
"""

from __future__ import annotations

import math
import numbers
from typing import Any

import numpy as np
from gymnasium.error import InvalidBound
from gymnasium.vector import AutoresetMode

from anywrap import xp as axp

__all__ = [
    "autoreset_mode",
    "callable_argument",
    "check_epsilon",
    "check_gamma",
    "check_reset_mask",
    "flag",
    "real_number",
    "reset_mask_of",
    "step_values",
    "wrapper_name",
]


def wrapper_name(obj: Any) -> str:
    """The name of a wrapper for messages: ``anywrap.vector.NormalizeObservation``,
    ``anywrap.functional.NormalizeReward``, or ``mymodule.MyWrapper`` for a
    user's subclass."""
    tp = type(obj)
    parts = tp.__module__.split(".")
    if parts[0] != "anywrap":
        return f"{tp.__module__}.{tp.__qualname__}"
    for family in ("functional", "vector"):
        if family in parts[1:2]:
            return f"anywrap.{family}.{tp.__name__}"
    return f"anywrap.{tp.__name__}"


def flag(owner: str, name: str, value: Any) -> bool:
    """A Python (or NumPy) bool; anything else, a traced value included, is a
    TypeError that names the wrapper and the argument."""
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    raise TypeError(
        f"{owner}: expected `{name}` to be a bool, got {type(value).__name__} {value!r}"
    )


def callable_argument(owner: str, name: str, value: Any) -> Any:
    """``value`` if it can be called, else a TypeError naming the wrapper."""
    if not callable(value):
        raise TypeError(f"{owner}: expected `{name}` to be callable, got {value!r}")
    return value


def real_number(owner: str, name: str, value: Any) -> float:
    """``value`` as a Python float: a Python or NumPy number, or a 0-d array of
    any library (read once, at construction). Anything else is a TypeError
    that names the wrapper and the argument."""
    if isinstance(value, numbers.Real) and not isinstance(value, bool):
        return float(value)
    if not isinstance(value, (str, bytes, bool)) and getattr(value, "shape", None) == ():
        try:
            host = axp.to_numpy(value)
        except Exception:
            host = None
        if host is not None and host.dtype.kind in "fiu":
            return float(host)
    raise TypeError(
        f"{owner}: expected `{name}` to be a real number (a Python or NumPy number, or a 0-d "
        f"array), got {type(value).__name__} {value!r}"
    )


def check_epsilon(owner: str, epsilon: Any) -> float:
    """Gymnasium's bound on ``epsilon``, with the wrapper named; the value as a float."""
    value = real_number(owner, "epsilon", epsilon)
    if not (math.isfinite(value) and value > 0):
        raise InvalidBound(f"{owner}: `epsilon` should be strictly positive, got {epsilon!r}")
    return value


def check_gamma(owner: str, gamma: Any) -> float:
    """Gymnasium's bound on ``gamma``, with the wrapper named; the value as a float."""
    value = real_number(owner, "gamma", gamma)
    if not 0 <= value <= 1:
        raise InvalidBound(f"{owner}: `gamma` should be in the interval [0, 1], got {gamma!r}")
    return value


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


def step_values(
    owner: str, reward: Any, terminated: Any, truncated: Any, num_envs: int | None
) -> Any:
    """Check a step's reward and flags before a wrapper learns from them; return the
    reward as the state takes it.

    A vector env's reward, ``terminated`` and ``truncated`` must each have the
    shape ``(num_envs,)``: a ``(num_envs, 1)`` reward would broadcast the state
    to ``(num_envs, num_envs)``. A single env's reward is a number; an array of
    one element is taken as that number (Gymnasium reads ``float(reward)``),
    reshaped without reading it; any other array is refused.
    """
    if num_envs is None:
        shape = getattr(reward, "shape", ())
        if shape == ():
            return reward
        if math.prod(shape) == 1:
            return axp.namespace(reward).reshape(reward, ())
        raise ValueError(f"{owner}: expected a scalar reward (one env), got {axp.describe(reward)}")
    expected = (num_envs,)
    if type(reward) is type(terminated) is type(truncated) is np.ndarray and (
        reward.shape == terminated.shape == truncated.shape == expected
    ):
        return reward  # the common case on the host, checked at once
    for name, x in (("reward", reward), ("terminated", terminated), ("truncated", truncated)):
        shape = getattr(x, "shape", None)
        if shape != expected and (shape is None or tuple(shape) != expected):
            raise ValueError(
                f"{owner}: expected {name} of shape {expected} (one per sub-env), "
                f"got {axp.describe(x)}"
            )
    return reward
