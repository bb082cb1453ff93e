"""What the image shells share: space, argument and frame checks, and the image maps.

Example:
    >>> image_space("anywrap.GrayscaleObservation", gym.spaces.Box(0, 1, (4, 4, 3)), rgb=True)
    Traceback (most recent call last):
    ...
    ValueError: anywrap.GrayscaleObservation: expected observation bounds 0 to 255 and ...
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache, partial
from typing import Any, NamedTuple

import gymnasium as gym
import numpy as np
from gymnasium.wrappers.utils import create_zero_array

from anywrap import xp as axp
from anywrap.shell.checks import flag, wrapper_name
from anywrap.transforms.grayscale_observation import grayscale
from anywrap.transforms.promotion import dtype_name
from anywrap.transforms.resize_observation import resize
from anywrap.tree import tree_map
from anywrap.xp.images import METHODS


def image_space(owner: str, space: gym.Space, *, rgb: bool) -> gym.spaces.Box:
    """``space`` if it is a uint8 Box 0 to 255 of shape (H, W, 3) (``rgb``) or (H, W[, C])."""
    space = box_space(owner, space)
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
    if not isinstance(space, gym.spaces.Box):
        raise TypeError(f"{owner}: expected a Box observation space, got {space}")
    return space


class ImageMap(NamedTuple):
    """The frames an image map takes, the space it gives, its function."""

    in_shape: tuple[int, ...]
    space: gym.spaces.Box
    fn: Callable[[Any], Any]


def grayscale_map(owner: str, space: gym.Space, keep_dim: bool) -> ImageMap:
    """``GrayscaleObservation`` of the image space ``space`` (Gymnasium's checks)."""
    keep_dim = flag(owner, "keep_dim", keep_dim)
    space = image_space(owner, space, rgb=True)
    shape = tuple(space.shape[:2]) + ((1,) if keep_dim else ())
    out = gym.spaces.Box(0, 255, shape, np.uint8)
    return ImageMap(tuple(space.shape), out, partial(grayscale, keep_dim=keep_dim))


def resize_map(owner: str, space: gym.Space, shape: Any, interpolation: str) -> ImageMap:
    """``ResizeObservation`` of the image space ``space`` to ``shape`` (Gymnasium's checks)."""
    space = image_space(owner, space, rgb=False)
    if not isinstance(shape, tuple):
        raise TypeError(f"{owner}: expected `shape` to be a tuple, got {type(shape)}")
    if len(shape) != 2:
        raise ValueError(f"{owner}: expected `shape` to be a tuple of length 2, got {shape}")
    if not all(np.issubdtype(type(s), np.integer) for s in shape):
        raise TypeError(f"{owner}: expected `shape` to hold integers, got {shape}")
    if not all(s > 0 for s in shape):
        raise ValueError(f"{owner}: expected `shape` to hold integers > 0, got {shape}")
    size = int(shape[0]), int(shape[1])
    if interpolation not in METHODS:
        raise ValueError(f"{owner}: expected `interpolation` in {METHODS}, got {interpolation!r}")
    out = gym.spaces.Box(0, 255, size + tuple(space.shape[2:]), np.uint8)
    fn = partial(resize, size=size, channels=len(space.shape) == 3, method=interpolation)
    return ImageMap(tuple(space.shape), out, fn)


def padding_of(owner: str, space: gym.spaces.Box, padding_type: Any) -> tuple[str, Any]:
    """Gymnasium's ``padding_type`` rule: ``("reset" | "zero" | "_custom", frame)``."""
    if isinstance(padding_type, str) and padding_type in ("reset", "zero"):
        # Gymnasium's zero: the space's value nearest 0 (its low where that is above 0)
        return padding_type, create_zero_array(space)
    if not isinstance(padding_type, str) and padding_type in space:
        return "_custom", np.asarray(padding_type, dtype=space.dtype)
    raise ValueError(
        f"{owner}: expected `padding_type` to be 'reset', 'zero' or an observation of "
        f"{space}, got {padding_type!r}"
    )


def check_positive_int(owner: str, name: str, value: Any, minimum: int) -> int:
    if not np.issubdtype(type(value), np.integer):
        raise TypeError(f"{owner}: expected `{name}` to be an integer, got {type(value)}")
    if value < minimum:
        raise ValueError(f"{owner}: expected `{name}` to be at least {minimum}, got {value}")
    return int(value)


def check_frames(
    owner: Any,
    obs: Any,
    shape: tuple[int, ...],
    *,
    dtype: str | None = None,
    into: Any = None,
    what: str = "an observation",
) -> None:
    """``obs`` must be an array of ``shape`` and ``dtype``, else of real numbers or bools that
    cast ``into`` a dtype by NumPy's ``same_kind`` rule (Gymnasium's stacking): metadata only."""
    got = getattr(obs, "shape", None)
    try:
        if got is not None and axp.namespace(obs) is not None and tuple(got) == shape:
            if dtype_name(obs.dtype) == dtype or (
                dtype is None and axp.dtype_kind(obs) and (into is None or _casts(obs.dtype, into))
            ):
                return
    except axp.UnknownArrayTypeError as e:
        name = owner if isinstance(owner, str) else wrapper_name(owner)
        raise axp.UnknownArrayTypeError(f"{name}: {e}") from e
    name = owner if isinstance(owner, str) else wrapper_name(owner)
    if got is None:
        raise TypeError(f"{name}: expected {what} array of shape {shape}, got {type(obs).__name__}")
    kinds = "real numbers or bools" + (f" that cast to {into} by kind" if into else "")
    want = f"shape {shape}" + (f" and dtype {dtype}" if dtype else f" ({kinds})")
    exc = TypeError if dtype is None and tuple(got) == shape else ValueError
    raise exc(f"{name}: expected {what} of {want}, got {axp.describe(obs)}")


@cache
def _casts(dtype: Any, into: np.dtype) -> bool:
    try:
        return bool(np.can_cast(np.dtype(dtype_name(dtype)), into, "same_kind"))
    except TypeError:  # a dtype NumPy lacks (bfloat16): a float
        return into.kind == "f"


class InPlaceState:
    """``_export`` and ``_import`` as copies, for a shell whose step writes its state in place."""

    def _export(self, state: Any) -> Any:
        return tree_map(lambda x: axp.namespace(x).asarray(x, copy=True), state)

    _import = _export


def frames_check(owner: str, shape: tuple[int, ...], what: str = "an observation") -> Any:
    return partial(check_frames, owner, shape=shape, dtype="uint8", what=what)
