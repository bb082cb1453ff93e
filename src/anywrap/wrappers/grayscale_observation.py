"""GrayscaleObservation for a single env, and what both image maps share."""

from __future__ import annotations

from typing import Any

from anywrap.shell.checks import autoreset_mode, wrapper_name
from anywrap.shell.images import ImageMap, frames_check, grayscale_map
from anywrap.shell.maps import ObservationMap
from anywrap.wrappers._shared import batch_shape, single_space, start, wrap

__all__ = ["GrayscaleObservation"]


def set_image_map(self: Any, env: Any, image: ImageMap) -> None:
    """Wrap ``env`` with the checked image map ``image`` (Grayscale or Resize, single or
    vector; a vector one checks each of Gymnasium's final observations too)."""
    name, batch = wrapper_name(self), batch_shape(self, env)
    wrap(self, env, image.space)
    self._image = image
    self._set_map(name, image.fn, frames_check(name, (*batch, *image.in_shape)))
    if batch:
        autoreset_mode(name, env)
        self._check_entry = frames_check(name, image.in_shape, "final observations")


def init_grayscale_observation(self: Any, env: Any, keep_dim: bool = False) -> None:
    """Wrap ``env``, whose observation space is a uint8 ``(H, W, 3)`` Box with bounds 0 to 255.

    Args:
        env: The env to wrap.
        keep_dim: Keep a channel axis of size 1 (``(H, W, 1)``).
    """
    name, _ = start(self, env, keep_dim=keep_dim)
    set_image_map(self, env, grayscale_map(name, single_space(self, env), keep_dim))
    self.keep_dim = keep_dim


class GrayscaleObservation(ObservationMap):
    """Converts RGB image observations to grayscale (on any library but TensorFlow).

    .. math:: y = \\lfloor 0.2125 r + 0.7154 g + 0.0721 b \\rfloor

    Drop-in for :class:`gymnasium.wrappers.GrayscaleObservation`: same
    arguments, spaces and numbers, bit for bit on every backend (see
    :mod:`anywrap.transforms.grayscale_observation`).

    Example:
        >>> import ale_py, gymnasium as gym
        >>> import numpy as np
        >>> import anywrap
        >>> gym.register_envs(ale_py)
        >>> env = anywrap.GrayscaleObservation(gym.make("ALE/Pong-v5"))
        >>> env.observation_space
        Box(0, 255, (210, 160), uint8)
        >>> env.observation(np.full((210, 160, 3), 43, np.uint8))[0, :3]  # Gymnasium's 42
        array([42, 42, 42], dtype=uint8)

    Change logs:
     * v0.1.0 - Initially added, matching Gymnasium 1.4.
    """

    __init__ = init_grayscale_observation
