"""ResizeObservation for a single env."""

from __future__ import annotations

import gymnasium as gym

from anywrap.shell.checks import check_env_kind
from anywrap.shell.images import frames_check, resize_map
from anywrap.shell.maps import ObservationMap

__all__ = ["ResizeObservation"]

_NAME = "anywrap.ResizeObservation"


class ResizeObservation(ObservationMap):
    """Resizes image observations to ``shape``, on any array library.

    Drop-in for :class:`gymnasium.wrappers.ResizeObservation` (same
    arguments and spaces). The default filter is Gymnasium's, OpenCV's
    ``INTER_AREA``: on NumPy it is OpenCV itself when OpenCV is installed
    (and OpenCV's arithmetic written out when it is not); on JAX and PyTorch
    the same filter, within 1 of OpenCV's numbers (see
    :mod:`anywrap.xp.images`). Gymnasium needs OpenCV; this wrapper does not.

    ``interpolation="bilinear"`` (an addition) takes each backend's own
    antialiased bilinear resize instead (``jax.image.resize``,
    ``torch.nn.functional.interpolate``): a different filter, up to tens of
    grey levels from Gymnasium's on sharp edges.

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

    def __init__(
        self, env: gym.Env, shape: tuple[int, int], *, interpolation: str = "area"
    ) -> None:
        """Wrap ``env``, whose observation space is a uint8 ``(H, W)`` or ``(H, W, C)``
        Box with bounds 0 to 255.

        Args:
            env: The env to wrap.
            shape: The new ``(height, width)``.
            interpolation: ``"area"`` (Gymnasium's filter) or ``"bilinear"``.
        """
        gym.utils.RecordConstructorArgs.__init__(self, shape=shape, interpolation=interpolation)
        check_env_kind(self, env)
        self._image = resize_map(_NAME, env.observation_space, shape, interpolation)
        gym.ObservationWrapper.__init__(self, env)
        self.observation_space = self._image.space
        self.shape, self.interpolation = self._image.space.shape[:2], interpolation
        self._set_map(_NAME, self._image.fn, frames_check(_NAME, self._image.in_shape))
