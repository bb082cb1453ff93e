"""ResizeObservation for vector envs."""

from __future__ import annotations

from typing import Any

from gymnasium.vector import VectorEnv, VectorWrapper

from anywrap.shell.base import Shell
from anywrap.shell.images import mapped_reset, mapped_step, resize_map, use_image_map

__all__ = ["ResizeObservation"]

_NAME = "anywrap.vector.ResizeObservation"


class ResizeObservation(Shell, VectorWrapper):
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
        image = resize_map(_NAME, env.single_observation_space, shape, interpolation)
        VectorWrapper.__init__(self, env)
        use_image_map(self, image)
        self.shape, self.interpolation = image.space.shape[:2], interpolation

    reset = mapped_reset
    step = mapped_step

    def observations(self, observations: Any) -> Any:
        """The batch of observations resized."""
        return self._run("map", observations, observations)
