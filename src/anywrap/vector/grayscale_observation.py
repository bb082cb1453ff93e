"""GrayscaleObservation for vector envs."""

from __future__ import annotations

from typing import Any

from gymnasium.vector import VectorEnv, VectorWrapper

from anywrap.shell.base import Shell
from anywrap.shell.images import grayscale_map, mapped_reset, mapped_step, use_image_map

__all__ = ["GrayscaleObservation"]

_NAME = "anywrap.vector.GrayscaleObservation"


class GrayscaleObservation(Shell, VectorWrapper):
    """Converts a vector env's RGB image observations to grayscale (on any library but TensorFlow).

    Drop-in for :class:`gymnasium.wrappers.vector.GrayscaleObservation` (same
    arguments, spaces and numbers, bit for bit); one batched call instead of
    a loop over the sub-envs, and every autoreset mode (Gymnasium's refuses
    SAME_STEP; here ``info["final_obs"]`` is converted too).

    Example:
        >>> import ale_py, gymnasium as gym
        >>> import anywrap
        >>> gym.register_envs(ale_py)
        >>> envs = gym.make_vec("ALE/Pong-v5", num_envs=2, vectorization_mode="sync")
        >>> envs = anywrap.vector.GrayscaleObservation(envs)
        >>> envs.observation_space
        Box(0, 255, (2, 210, 160), uint8)
        >>> envs.reset(seed=0)[0].shape
        (2, 210, 160)

    Change logs:
     * v0.1.0 - Initially added, matching Gymnasium 1.4.
    """

    def __init__(self, env: VectorEnv, keep_dim: bool = False) -> None:
        """Wrap ``env``, whose single observation space is a uint8 ``(H, W, 3)`` Box (0 to 255).

        Args:
            env: The vector env to wrap.
            keep_dim: Keep a channel axis of size 1.
        """
        image = grayscale_map(_NAME, env.single_observation_space, keep_dim)
        VectorWrapper.__init__(self, env)
        use_image_map(self, image)
        self.keep_dim = keep_dim

    reset = mapped_reset
    step = mapped_step

    def observations(self, observations: Any) -> Any:
        """The batch of observations in grayscale."""
        return self._run("map", observations, observations)
