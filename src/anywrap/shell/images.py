"""What the image shells share: Gymnasium's space checks, per-call input checks,
and state that owns its memory (ring buffers written in place).

Every check raises before any state changes, and names the wrapper, what it
expected and what it got.

Example:
    >>> import gymnasium as gym
    >>> import numpy as np
    >>> from anywrap.shell.images import image_space
    >>> image_space("anywrap.GrayscaleObservation", gym.spaces.Box(0, 1, (4, 4, 3)), rgb=True)
    Traceback (most recent call last):
    ...
    ValueError: anywrap.GrayscaleObservation: expected observation bounds 0 to 255 and ...
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np

from anywrap import xp as axp
from anywrap.shell.state import StatefulShell
from anywrap.tree import tree_map

__all__ = [
    "OwnedState",
    "check_frames",
    "check_positive_int",
    "dtype_name",
    "final_rows",
    "image_space",
    "pack_final",
    "resize_shape",
]


def image_space(owner: str, space: gym.Space, *, rgb: bool) -> gym.spaces.Box:
    """``space`` if it is Gymnasium's image space: a uint8 Box with bounds 0 to 255,
    of shape ``(H, W, 3)`` (``rgb``) or ``(H, W)`` / ``(H, W, C)``."""
    if not isinstance(space, gym.spaces.Box):
        raise TypeError(f"{owner}: expected a Box observation space, got {space}")
    shape = tuple(space.shape)
    if rgb and (len(shape) != 3 or shape[-1] != 3):
        raise ValueError(f"{owner}: expected an image with 3 channels (H, W, 3), got shape {shape}")
    if not rgb and len(shape) not in (2, 3):
        raise ValueError(f"{owner}: expected a 2D or 3D image, got shape {shape}")
    if not (np.all(space.low == 0) and np.all(space.high == 255) and space.dtype == np.uint8):
        raise ValueError(
            f"{owner}: expected observation bounds 0 to 255 and dtype uint8, got {space}"
        )
    return space


def resize_shape(owner: str, shape: Any) -> tuple[int, int]:
    """Gymnasium's checks of ``ResizeObservation``'s ``shape``: a tuple of two positive ints."""
    if not isinstance(shape, tuple):
        raise TypeError(f"{owner}: expected `shape` to be a tuple, got {type(shape)}")
    if len(shape) != 2:
        raise ValueError(f"{owner}: expected `shape` to be a tuple of length 2, got {shape}")
    if not all(np.issubdtype(type(s), np.integer) for s in shape):
        raise TypeError(f"{owner}: expected `shape` to hold integers, got {shape}")
    if not all(s > 0 for s in shape):
        raise ValueError(f"{owner}: expected `shape` to hold integers > 0, got {shape}")
    return int(shape[0]), int(shape[1])


def check_positive_int(owner: str, name: str, value: Any, minimum: int) -> int:
    """``value`` if it is an integer of at least ``minimum``; Gymnasium's error types."""
    if not np.issubdtype(type(value), np.integer):
        raise TypeError(f"{owner}: expected `{name}` to be an integer, got {type(value)}")
    if value < minimum:
        raise ValueError(f"{owner}: expected `{name}` to be at least {minimum}, got {value}")
    return int(value)


def dtype_name(x: Any) -> str:
    """``x``'s dtype as a plain name (``'uint8'``) in any library."""
    dtype = getattr(x, "dtype", None)
    name = getattr(dtype, "name", None) or str(dtype)
    return name.rsplit(".", 1)[-1]  # torch.uint8, array_api_strict.uint8 -> uint8


def check_frames(
    owner: str,
    obs: Any,
    shape: tuple[int, ...],
    *,
    dtype: str | None = None,
    what: str = "an observation",
) -> None:
    """``obs`` must be an array of ``shape`` (and ``dtype``, when given): metadata
    only, no value is read."""
    got = getattr(obs, "shape", None)
    if got is None:
        raise TypeError(
            f"{owner}: expected {what} array of shape {shape}, got {type(obs).__name__}"
        )
    try:
        axp.namespace(obs)
    except axp.UnknownArrayTypeError as e:
        raise axp.UnknownArrayTypeError(f"{owner}: {e}") from e
    if tuple(got) != tuple(shape) or (dtype is not None and dtype_name(obs) != dtype):
        want = f"shape {tuple(shape)}" + (f" and dtype {dtype}" if dtype else "")
        raise ValueError(f"{owner}: expected {what} of {want}, got {axp.describe(obs)}")


def final_rows(final: Any, mask: Any, obs: Any) -> Any:
    """A batch of final observations from Gymnasium's host layout (an object
    array with ``None`` where no episode ended), rows of ``obs`` elsewhere;
    any other layout is a batch already."""
    if isinstance(final, np.ndarray) and final.dtype == object:
        rows = [f if m else o for f, m, o in zip(final, np.asarray(mask), obs)]
        return np.stack([np.asarray(r) for r in rows])
    return final


def pack_final(like: Any, values: Any, mask: Any) -> Any:
    """``values`` (a batch) back in the layout of ``like`` (Gymnasium's object array
    where ``like`` is one)."""
    if isinstance(like, np.ndarray) and like.dtype == object:
        out = np.empty(len(like), dtype=object)
        for i, m in enumerate(np.asarray(mask)):
            out[i] = values[i] if m else None
        return out
    return values


def _copy(x: Any) -> Any:
    return axp.namespace(x).asarray(x, copy=True)


class OwnedState(StatefulShell):
    """A :class:`StatefulShell` whose state is written in place by its step (a ring
    buffer): ``state_dict()`` hands out copies and ``load_state_dict`` takes
    copies, so that no array outside the wrapper is ever overwritten."""

    def _export(self, state: Any) -> Any:
        return tree_map(_copy, state)

    def _import(self, state: Any) -> Any:
        return tree_map(_copy, state)
