"""GrayscaleObservation for vector envs."""

from __future__ import annotations

import gymnasium as gym
from gymnasium.vector import VectorEnv, VectorWrapper
from gymnasium.vector.utils import batch_space

from anywrap.shell.checks import autoreset_mode, check_env_kind
from anywrap.shell.images import frames_check, grayscale_map
from anywrap.shell.maps import VectorObservationMap

__all__ = ["GrayscaleObservation"]

_NAME = "anywrap.vector.GrayscaleObservation"


class GrayscaleObservation(VectorObservationMap):
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
        gym.utils.RecordConstructorArgs.__init__(self, keep_dim=keep_dim)
        check_env_kind(self, env)
        image = grayscale_map(_NAME, env.single_observation_space, keep_dim)
        VectorWrapper.__init__(self, env)
        autoreset_mode(_NAME, env)
        self.single_observation_space = image.space
        self.observation_space = batch_space(image.space, self.num_envs)
        check = frames_check(_NAME, (self.num_envs, *image.in_shape))
        self._set_map(_NAME, image.fn, check)
        self._check_entry = frames_check(_NAME, image.in_shape, "final observations")
        self.keep_dim = keep_dim
