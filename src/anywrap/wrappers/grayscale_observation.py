"""GrayscaleObservation for a single env, and the constructor both shells use."""

from typing import Any

from anywrap.shell.checks import autoreset_mode
from anywrap.shell.images import frames_check, grayscale_map
from anywrap.shell.maps import ObservationMap


class GrayscaleObservation(ObservationMap):
    """Converts RGB image observations to grayscale (on any library but TensorFlow):
    :class:`gymnasium.wrappers.GrayscaleObservation`, bit for bit on every backend.

    .. math:: y = \\lfloor 0.2125 r + 0.7154 g + 0.0721 b \\rfloor

    Args:
        env: An env of uint8 ``(H, W, 3)`` image observations (bounds 0 to 255).
        keep_dim: Keep a channel axis of size 1 (``(H, W, 1)``).

    Example:
        >>> import ale_py, gymnasium as gym, numpy as np, anywrap
        >>> gym.register_envs(ale_py)
        >>> env = anywrap.GrayscaleObservation(gym.make("ALE/Pong-v5"))
        >>> env.observation(np.full((210, 160, 3), 43, np.uint8))[0, :3]  # Gymnasium's 42
        array([42, 42, 42], dtype=uint8)
    """

    def __init__(self, env: Any, keep_dim: bool = False) -> None:
        name, batch = self._start(env, keep_dim=keep_dim)
        image = grayscale_map(name, self._single_space(env), keep_dim)
        self._wrap(env, image.space)
        self._set_map(name, image.fn, frames_check(name, (*batch, *image.in_shape)))
        self.keep_dim = keep_dim
        if batch:
            autoreset_mode(name, env)
            self._check_entry = frames_check(name, image.in_shape, "final observations")
