"""ResizeObservation for vector envs."""

from __future__ import annotations

import gymnasium as gym
from gymnasium.vector import VectorEnv, VectorWrapper
from gymnasium.vector.utils import batch_space

from anywrap.shell.checks import autoreset_mode, check_env_kind
from anywrap.shell.images import frames_check, resize_map
from anywrap.shell.maps import VectorObservationMap

__all__ = ["ResizeObservation"]

_NAME = "anywrap.vector.ResizeObservation"


class ResizeObservation(VectorObservationMap):
    """Resizes a vector env's image observations, on any array library.

    Drop-in for :class:`gymnasium.wrappers.vector.ResizeObservation` (same
    arguments and spaces), resizing the whole batch in one call. The default
    filter is Gymnasium's (OpenCV's ``INTER_AREA``; exact on NumPy, within 1
    on JAX and PyTorch); ``interpolation="bilinear"`` takes each backend's own
    antialiased resize instead. Every autoreset mode works.

    Example:
        >>> import ale_py, gymnasium as gym
        >>> import anywrap
        >>> gym.register_envs(ale_py)
        >>> envs = gym.make_vec("ALE/Pong-v5", num_envs=2, vectorization_mode="sync")
        >>> envs = anywrap.vector.ResizeObservation(envs, (84, 84))
        >>> envs.reset(seed=0)[0].shape
        (2, 84, 84, 3)

    Change logs:
     * v0.1.0 - Initially added, matching Gymnasium 1.4.
    """

    def __init__(
        self, env: VectorEnv, shape: tuple[int, int], *, interpolation: str = "area"
    ) -> None:
        """Wrap ``env``, whose single observation space is a uint8 image Box (0 to 255);
        ``shape`` and ``interpolation`` as for :class:`anywrap.ResizeObservation`."""
        gym.utils.RecordConstructorArgs.__init__(self, shape=shape, interpolation=interpolation)
        check_env_kind(self, env)
        image = resize_map(_NAME, env.single_observation_space, shape, interpolation)
        VectorWrapper.__init__(self, env)
        autoreset_mode(_NAME, env)
        self.single_observation_space = image.space
        self.observation_space = batch_space(image.space, self.num_envs)
        check = frames_check(_NAME, (self.num_envs, *image.in_shape))
        self._set_map(_NAME, image.fn, check)
        self._check_entry = frames_check(_NAME, image.in_shape, "final observations")
        self.shape, self.interpolation = image.space.shape[:2], interpolation
