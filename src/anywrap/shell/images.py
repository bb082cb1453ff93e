"""What the image shells share: Gymnasium's space checks, per-call input checks,
the checked image maps (:func:`grayscale_map`, :func:`resize_map`), and state
that owns its memory (ring buffers written in place).

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

from collections.abc import Callable
from functools import partial
from typing import Any, NamedTuple

import gymnasium as gym
import numpy as np

from anywrap import xp as axp
from anywrap.shell.arrays import ResetsSubEnvs
from anywrap.shell.base import Shell
from anywrap.transforms.images import grayscale, resize
from anywrap.tree import tree_map
from anywrap.xp.images import METHODS

__all__ = [
    "ImageMap",
    "OwnedState",
    "VectorFrames",
    "box_space",
    "check_frames",
    "check_positive_int",
    "dtype_name",
    "final_rows",
    "grayscale_map",
    "image_space",
    "pack_final",
    "padding_of",
    "resize_map",
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


def box_space(owner: str, space: gym.Space) -> gym.spaces.Box:
    """``space`` if it is a Box (the frame stack and max-and-skip take no other)."""
    if not isinstance(space, gym.spaces.Box):
        raise TypeError(f"{owner}: expected a Box observation space, got {space}")
    return space


class ImageMap(NamedTuple):
    """A checked image map: the frames it takes, the space it gives, and its pure
    function of a batch of frames (or of one frame)."""

    in_shape: tuple[int, ...]
    space: gym.spaces.Box
    fn: Callable[[Any], Any]


def grayscale_map(owner: str, space: gym.Space, keep_dim: bool) -> ImageMap:
    """``GrayscaleObservation`` of the image space ``space`` (Gymnasium's checks)."""
    space = image_space(owner, space, rgb=True)
    shape = tuple(space.shape[:2]) + ((1,) if keep_dim else ())
    out = gym.spaces.Box(0, 255, shape, np.uint8)
    return ImageMap(tuple(space.shape), out, partial(grayscale, keep_dim=keep_dim))


def resize_map(owner: str, space: gym.Space, shape: Any, interpolation: str) -> ImageMap:
    """``ResizeObservation`` of the image space ``space`` to ``shape`` (Gymnasium's
    checks, and ``interpolation`` one of :data:`anywrap.xp.images.METHODS`)."""
    space = image_space(owner, space, rgb=False)
    size = resize_shape(owner, shape)
    if interpolation not in METHODS:
        raise ValueError(f"{owner}: expected `interpolation` in {METHODS}, got {interpolation!r}")
    out = gym.spaces.Box(0, 255, size + tuple(space.shape[2:]), np.uint8)
    fn = partial(resize, size=size, channels=len(space.shape) == 3, method=interpolation)
    return ImageMap(tuple(space.shape), out, fn)


def padding_of(owner: str, space: gym.spaces.Box, padding_type: Any) -> tuple[str, Any]:
    """Gymnasium's ``padding_type`` rule: ``("reset" | "zero" | "_custom", frame)``."""
    if isinstance(padding_type, str) and padding_type in ("reset", "zero"):
        return padding_type, np.zeros(space.shape, space.dtype)
    if not isinstance(padding_type, str) and padding_type in space:
        return "_custom", np.asarray(padding_type, dtype=space.dtype)
    raise ValueError(
        f"{owner}: expected `padding_type` to be 'reset', 'zero' or an observation of "
        f"{space}, got {padding_type!r}"
    )


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


class OwnedState(Shell):
    """A :class:`StatefulShell` whose state is written in place by its step (a ring
    buffer): ``state_dict()`` hands out copies and ``load_state_dict`` takes
    copies, so that no array outside the wrapper is ever overwritten."""

    def _export(self, state: Any) -> Any:
        return tree_map(_copy, state)

    def _import(self, state: Any) -> Any:
        return tree_map(_copy, state)


class VectorFrames(OwnedState, ResetsSubEnvs):
    """Mixin of the vector frame stack and max-and-skip: their checks of each batch of
    frames, and the flags and masks they hand their compiled transforms, in the
    state's library and on its device."""

    _NAME: str
    env: Any
    num_envs: int
    _frame_shape: tuple[int, ...]

    def _check_batch(self, obs: Any, what: str = "an observation") -> None:
        check_frames(self._NAME, obs, (self.num_envs, *self._frame_shape), what=what)

    def _like_state(self, x: Any) -> Any:
        return x if type(x) is self._data_type else convert_tree(x, self._xp, self._device)

    def _received(self, obs: Any) -> None:
        """The frames of a reset checked; the state moves to their library and device."""
        self._check_batch(obs)
        self._follow(obs)
