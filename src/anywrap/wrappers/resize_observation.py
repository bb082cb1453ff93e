"""ResizeObservation for a single env, and the constructor both shells share."""

from __future__ import annotations

from typing import Any

from anywrap.shell.images import resize_map
from anywrap.shell.maps import ObservationMap
from anywrap.wrappers._shared import single_space, start
from anywrap.wrappers.grayscale_observation import set_image_map

__all__ = ["ResizeObservation"]


def init_resize_observation(
    self: Any, env: Any, shape: tuple[int, int], *, interpolation: str = "area"
) -> None:
    """Wrap ``env``, whose observation space is a uint8 ``(H, W)`` or ``(H, W, C)``
    Box with bounds 0 to 255.

    Args:
        env: The env to wrap.
        shape: The new ``(height, width)``.
        interpolation: ``"area"`` (Gymnasium's filter) or ``"bilinear"``.
    """
    name, _ = start(self, env, shape=shape, interpolation=interpolation)
    image = resize_map(name, single_space(self, env), shape, interpolation)
    set_image_map(self, env, image)
    self.shape, self.interpolation = image.space.shape[:2], interpolation


class ResizeObservation(ObservationMap):
    """Resizes image observations to ``shape``, on any array library.

    Drop-in for :class:`gymnasium.wrappers.ResizeObservation` (same arguments
    and spaces), without needing OpenCV. The default filter is Gymnasium's,
    OpenCV's ``INTER_AREA``: exact on NumPy, within 1 on JAX and PyTorch (see
    :mod:`anywrap.xp.images`). ``interpolation="bilinear"`` (an addition)
    takes each backend's own antialiased bilinear resize instead.

    Example:
        >>> import ale_py, gymnasium as gym
        >>> import anywrap
        >>> gym.register_envs(ale_py)
        >>> env = anywrap.ResizeObservation(gym.make("ALE/Pong-v5"), (84, 84))
        >>> env.observation_space
        Box(0, 255, (84, 84, 3), uint8)
        >>> obs, _ = env.reset(seed=0)
        >>> obs.shape, obs.dtype
        ((84, 84, 3), dtype('uint8'))

    Change logs:
     * v0.1.0 - Initially added, matching Gymnasium 1.4.
    """

    __init__ = init_resize_observation
