"""AddWhiteNoise for a single env."""

from functools import partial
from typing import Any

import gymnasium as gym
from gymnasium.error import InvalidProbability

from anywrap import xp
from anywrap.shell.checks import check_env_kind
from anywrap.shell.noise import RenderNoise, draw_noise, draw_uniform, like
from anywrap.transforms.noise import white_noise


class AddWhiteNoise(RenderNoise):
    """Replaces each pixel of ``render()``'s frames by white noise with probability
    ``probability_of_noise_per_pixel``: :class:`gymnasium.wrappers.AddWhiteNoise`, on the
    frames' device (NumPy frames: Gymnasium's noise bit for bit; others: their library's
    generator). With ``is_noise_grayscale`` frames keep their dtype (Gymnasium's: uint64).

    Example:
        >>> import gymnasium as gym, anywrap
        >>> env = anywrap.AddWhiteNoise(gym.make("CartPole-v1", render_mode="rgb_array"), 0.5)
        >>> _ = env.reset(seed=123)
        >>> frame = env.render()
        >>> frame.shape, 0.3 < float((frame != env.unwrapped.render()).any(-1).mean()) < 0.7
        ((400, 600, 3), True)
    """

    def __init__(
        self, env: gym.Env, probability_of_noise_per_pixel: float, is_noise_grayscale: bool = False
    ) -> None:
        """Wrap ``env``; ``probability_of_noise_per_pixel`` in [0, 1), ``is_noise_grayscale``:
        gray noise on the three channels."""
        if not 0 <= probability_of_noise_per_pixel < 1:
            raise InvalidProbability(
                f"anywrap.AddWhiteNoise: expected `probability_of_noise_per_pixel` in [0, 1), got "
                f"{probability_of_noise_per_pixel!r}"
            )
        gym.utils.RecordConstructorArgs.__init__(
            self,
            probability_of_noise_per_pixel=probability_of_noise_per_pixel,
            is_noise_grayscale=is_noise_grayscale,
        )
        check_env_kind(self, env)
        gym.Wrapper.__init__(self, env)
        self.probability_of_noise_per_pixel = probability_of_noise_per_pixel
        self.is_noise_grayscale = is_noise_grayscale
        self._map = xp.Compiled(partial(white_noise, p=float(probability_of_noise_per_pixel)))

    def _noisy(self, key: Any, frame: Any) -> tuple[Any, Any]:
        key, noise = draw_noise(key, tuple(frame.shape), gray=self.is_noise_grayscale)
        key, u = draw_uniform(key, tuple(frame.shape[:2]))
        return key, self._map(frame, like(noise, frame), like(u, frame))
