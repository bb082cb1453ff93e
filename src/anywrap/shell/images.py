"""What the image shells share: Gymnasium's space checks, per-call input checks,
the checked image maps (:func:`grayscale_map`, :func:`resize_map`), the
``reset`` and ``step`` of the vector image maps (:func:`mapped_reset`,
:func:`mapped_step`), and the copies that a state written in place (a ring
buffer) is saved and loaded as (:func:`copied`).

Every check raises before any state changes, and names the wrapper, what it
expected and what it got.

Example:
    >>> import gymnasium as gym
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
from gymnasium.vector.utils import batch_space

from anywrap import xp as axp
from anywrap.shell.arrays import map_transforms
from anywrap.shell.checks import autoreset_mode, reset_mask_of, wrapper_name
from anywrap.transforms.grayscale_observation import grayscale
from anywrap.transforms.resize_observation import resize
from anywrap.tree import tree_map
from anywrap.xp.images import METHODS

__all__ = [
    "ImageMap",
    "box_space",
    "check_frames",
    "check_positive_int",
    "copied",
    "final_rows",
    "grayscale_map",
    "image_space",
    "mapped_reset",
    "mapped_step",
    "pack_final",
    "padding_of",
    "reset_frames",
    "resize_map",
    "resize_shape",
    "use_image_map",
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


def _dtype_name(x: Any) -> str:
    """``x``'s dtype as a plain name (``'uint8'``) in any library."""
    dtype = getattr(x, "dtype", None)
    name = getattr(dtype, "name", None) or str(dtype)
    return name.rsplit(".", 1)[-1]  # torch.uint8, array_api_strict.uint8 -> uint8


def check_frames(
    owner: Any,
    obs: Any,
    shape: tuple[int, ...],
    *,
    dtype: str | None = None,
    what: str = "an observation",
) -> None:
    """``obs`` must be an array of ``shape`` (and ``dtype``, when given): metadata
    only, no value is read. ``owner`` is the wrapper or its name (for the message)."""
    got = getattr(obs, "shape", None)
    try:
        if got is not None and axp.namespace(obs) is not None and tuple(got) == shape:
            if dtype is None or _dtype_name(obs) == dtype:
                return
    except axp.UnknownArrayTypeError as e:
        name = owner if isinstance(owner, str) else wrapper_name(owner)
        raise axp.UnknownArrayTypeError(f"{name}: {e}") from e
    name = owner if isinstance(owner, str) else wrapper_name(owner)
    if got is None:
        raise TypeError(f"{name}: expected {what} array of shape {shape}, got {type(obs).__name__}")
    want = f"shape {shape}" + (f" and dtype {dtype}" if dtype else "")
    raise ValueError(f"{name}: expected {what} of {want}, got {axp.describe(obs)}")


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


def copied(self: Any, state: Any) -> Any:
    """A copy of every array of ``state``: the ``_export`` and ``_import`` of a shell whose
    state its step writes in place (``_export = _import = copied``), so that
    ``state_dict()`` hands out, and ``load_state_dict`` takes, arrays that no step
    overwrites (nor donates, on JAX)."""
    return tree_map(_copy, state)


def reset_frames(
    self: Any, seed: int | None, options: dict[str, Any] | None
) -> tuple[Any, Any, Any]:
    """A stateful vector image shell's reset: ``(obs, info, mask)``, its ``reset_mask``
    checked before the env resets, the observations after (against ``self._batch``),
    and the mask in their library and on their device (``None``: every sub-env)."""
    mask = reset_mask_of(wrapper_name(self), options, self.num_envs)
    obs, info = self.env.reset(seed=seed, options=options)
    check_frames(self, obs, self._batch)
    return obs, info, None if mask is None else self._mask_for(mask, obs)


def use_image_map(self: Any, image: ImageMap) -> None:
    """Set up a vector image map (a shell whose ``reset`` and ``step`` are
    :func:`mapped_reset` and :func:`mapped_step`): its autoreset mode checked, its
    spaces, the batch shape it checks, and ``image``'s function as the transforms
    ``"map"`` and ``"both"`` of an empty state (:func:`~anywrap.shell.arrays.map_transforms`)."""
    autoreset_mode(wrapper_name(self), self.env)
    self.single_observation_space = image.space
    self.observation_space = batch_space(image.space, self.num_envs)
    self._batch = (self.num_envs, *image.in_shape)
    self._state = ()
    self._use(map_transforms(image.fn))


def mapped_reset(
    self: Any, *, seed: int | None = None, options: dict[str, Any] | None = None
) -> tuple[Any, dict[str, Any]]:
    """The ``reset`` of a vector image map (``reset = mapped_reset``): the batch of
    observations checked against ``self._batch``, then mapped."""
    obs, info = self.env.reset(seed=seed, options=options)
    check_frames(self, obs, self._batch, dtype="uint8")
    return self._run("map", obs, obs), info


def mapped_step(self: Any, actions: Any) -> tuple[Any, Any, Any, Any, dict[str, Any]]:
    """The ``step`` of a vector image map (``step = mapped_step``): the observations
    mapped, and ``info["final_obs"]`` too (SAME_STEP): a batch in the same compiled
    call, Gymnasium's object array entry by entry. Every batch and entry is checked
    before anything is mapped."""
    obs, reward, terminated, truncated, info = self.env.step(actions)
    check_frames(self, obs, self._batch, dtype="uint8")
    final = info.get("final_obs")
    if final is None:
        return self._run("map", obs, obs), reward, terminated, truncated, info
    if isinstance(final, np.ndarray) and final.dtype == object:
        frame = self._batch[1:]
        for f in final:
            if f is not None:
                check_frames(self, f, frame, dtype="uint8", what="final observations")
        mapped = np.empty(final.shape, dtype=object)
        for i, f in enumerate(final):
            mapped[i] = None if f is None else self._run("map", f, f)
        info = {**info, "final_obs": mapped}
        return self._run("map", obs, obs), reward, terminated, truncated, info
    check_frames(self, final, self._batch, dtype="uint8", what="final observations")
    obs, final = self._run("both", obs, obs, final)
    return obs, reward, terminated, truncated, {**info, "final_obs": final}
