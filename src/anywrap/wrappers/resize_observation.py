"""ResizeObservation for a single env, and the constructor both shells use."""

from typing import Any

from anywrap.shell.checks import autoreset_mode
from anywrap.shell.images import frames_check, resize_map
from anywrap.shell.maps import ObservationMap


class ResizeObservation(ObservationMap):
    """Resizes image observations to ``shape``, on any array library, without OpenCV:
    :class:`gymnasium.wrappers.ResizeObservation`. The default filter is OpenCV's
    ``INTER_AREA``, as Gymnasium's: exact on NumPy, within 1 on JAX and PyTorch.

    Args:
        env: An env of uint8 ``(H, W)`` or ``(H, W, C)`` images (bounds 0 to 255).
        shape: The new ``(height, width)``.
        interpolation: ``"area"`` (Gymnasium's filter) or ``"bilinear"``.

    Example:
        >>> import ale_py, gymnasium as gym, anywrap
        >>> gym.register_envs(ale_py)
        >>> anywrap.ResizeObservation(gym.make("ALE/Pong-v5"), (84, 84)).observation_space
        Box(0, 255, (84, 84, 3), uint8)
    """

    def __init__(self, env: Any, shape: tuple[int, int], *, interpolation: str = "area") -> None:
        name, batch = self._start(env, shape=shape, interpolation=interpolation)
        image = resize_map(name, self._single_space(env), shape, interpolation)
        self._wrap(env, image.space)
        self._set_map(name, image.fn, frames_check(name, (*batch, *image.in_shape)))
        self.shape, self.interpolation = image.space.shape[:2], interpolation
        if batch:
            autoreset_mode(name, env)
            self._check_entry = frames_check(name, image.in_shape, "final observations")
