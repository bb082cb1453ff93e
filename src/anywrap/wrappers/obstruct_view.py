"""ObstructView for a single env."""

from functools import partial
from typing import Any

import gymnasium as gym

from anywrap import xp
from anywrap.shell.checks import check_env_kind
from anywrap.shell.noise import RenderNoise, check_obstruction, draw_centers, draw_noise, like
from anywrap.transforms.noise import obstruct


class ObstructView(RenderNoise):
    """Covers ``render()``'s frames with squares of white noise (``obstruction_width`` pixels
    wide, about ``obstructed_pixels_ratio`` of the pixels), on the frames' library and
    device: :class:`gymnasium.wrappers.ObstructView` (NumPy frames: Gymnasium's bit for bit).
    With ``is_noise_grayscale`` frames keep their dtype (Gymnasium's: uint64).

    Example:
        >>> import gymnasium as gym, anywrap
        >>> env = anywrap.ObstructView(gym.make("CartPole-v1", render_mode="rgb_array"), 0.5, 50)
        >>> _ = env.reset(seed=123)
        >>> env.render().shape
        (400, 600, 3)
    """

    def __init__(
        self,
        env: gym.Env,
        obstructed_pixels_ratio: float,
        obstruction_width: int,
        is_noise_grayscale: bool = False,
    ) -> None:
        """Wrap ``env``; ``obstructed_pixels_ratio`` in [0, 1), ``obstruction_width`` >= 1."""
        check_obstruction("anywrap.ObstructView", obstructed_pixels_ratio, obstruction_width)
        gym.utils.RecordConstructorArgs.__init__(
            self,
            obstructed_pixels_ratio=obstructed_pixels_ratio,
            obstruction_width=obstruction_width,
            is_noise_grayscale=is_noise_grayscale,
        )
        check_env_kind(self, env)
        gym.Wrapper.__init__(self, env)
        self.obstruction_centers_ratio = obstructed_pixels_ratio / obstruction_width**2
        self.obstruction_width = obstruction_width
        self.is_noise_grayscale = is_noise_grayscale
        self._map = xp.Compiled(partial(obstruct, width=int(obstruction_width)))

    def _noisy(self, key: Any, frame: Any) -> tuple[Any, Any]:
        pixels = int(frame.shape[0]) * int(frame.shape[1])
        count = int(pixels * self.obstruction_centers_ratio)
        key, centers = draw_centers(key, pixels, (count,))
        key, noise = draw_noise(key, tuple(frame.shape), gray=self.is_noise_grayscale)
        return key, self._map(frame, like(noise, frame), like(centers, frame))
