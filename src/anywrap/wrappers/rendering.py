"""Rendering wrappers for one env: render collection, human rendering, video, image noise."""

from functools import partial
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import logger

from anywrap import xp
from anywrap.shell.checks import check_env_kind, checked_reset
from anywrap.shell.noise import (
    RenderNoise,
    check_obstruction,
    check_white_noise,
    draw_centers,
    draw_noise,
    draw_uniform,
    like,
)
from anywrap.transforms.noise import obstruct, white_noise
from anywrap.wrappers.common import HostView, host_copy


class RecordVideo(gym.wrappers.RecordVideo):
    """:class:`gymnasium.wrappers.RecordVideo`, from frames of any library: a device frame is
    copied to the host once, when it is kept; steps that record nothing render nothing.

    Example:
        >>> import gymnasium as gym, anywrap
        >>> issubclass(anywrap.RecordVideo, gym.wrappers.RecordVideo)
        True
    """

    reset = checked_reset(gym.wrappers.RecordVideo.reset)  # options checked first

    def _capture_frame(self) -> None:
        assert self.recording, "Cannot capture a frame, recording wasn't started."
        frame = self.env.render()
        if isinstance(frame, list):
            if not frame:
                logger.warn("anywrap.RecordVideo: render() gave no frame; none captured")
                return
            self.render_history += [host_copy(f) for f in frame]
            frame = self.render_history[-1]
        frame = host_copy(frame)
        if isinstance(frame, np.ndarray):
            self.recorded_frames.append(frame)
        else:
            self.stop_recording()
            logger.warn(
                f"anywrap.RecordVideo: recording stopped: expected an array, got {type(frame)}"
            )


class RenderCollection(gym.wrappers.RenderCollection):
    """Collects the rendered frames in a list: :class:`gymnasium.wrappers.RenderCollection`.
    Frames stay what the env renders (a tensor frame stays a tensor on its device).

    Example:
        >>> import gymnasium as gym, anywrap
        >>> env = anywrap.RenderCollection(gym.make("CartPole-v1", render_mode="rgb_array"))
        >>> _ = env.reset(seed=0)
        >>> [frame.shape for frame in env.render()]
        [(400, 600, 3)]
    """

    reset = checked_reset(gym.wrappers.RenderCollection.reset)


class HumanRendering(gym.wrappers.HumanRendering):
    """Shows the env's frames in a window: :class:`gymnasium.wrappers.HumanRendering`,
    taking the frames of any library (each shown frame is copied to the host once).

    Example:
        >>> import gymnasium as gym, anywrap
        >>> anywrap.HumanRendering(gym.make("CartPole-v1", render_mode="rgb_array")).render_mode
        'human'
    """

    reset = checked_reset(gym.wrappers.HumanRendering.reset)

    def _render_frame(self) -> None:
        with HostView(self):
            super()._render_frame()


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
        _, gray = check_white_noise(
            "anywrap.AddWhiteNoise", probability_of_noise_per_pixel, is_noise_grayscale
        )
        gym.utils.RecordConstructorArgs.__init__(
            self,
            probability_of_noise_per_pixel=probability_of_noise_per_pixel,
            is_noise_grayscale=is_noise_grayscale,
        )
        check_env_kind(self, env)
        gym.Wrapper.__init__(self, env)
        self.probability_of_noise_per_pixel = probability_of_noise_per_pixel
        self.is_noise_grayscale = gray
        self._map = xp.Compiled(partial(white_noise, p=float(probability_of_noise_per_pixel)))

    def _noisy(self, key: Any, frame: Any) -> tuple[Any, Any]:
        key, noise = draw_noise(key, tuple(frame.shape), gray=self.is_noise_grayscale)
        key, u = draw_uniform(key, tuple(frame.shape[:2]))
        return key, self._map(frame, like(noise, frame), like(u, frame))


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
        gray = check_obstruction(
            "anywrap.ObstructView", obstructed_pixels_ratio, obstruction_width, is_noise_grayscale
        )
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
        self.is_noise_grayscale = gray
        self._map = xp.Compiled(partial(obstruct, width=int(obstruction_width)))

    def _noisy(self, key: Any, frame: Any) -> tuple[Any, Any]:
        pixels = int(frame.shape[0]) * int(frame.shape[1])
        count = int(pixels * self.obstruction_centers_ratio)
        key, centers = draw_centers(key, pixels, (count,))
        key, noise = draw_noise(key, tuple(frame.shape), gray=self.is_noise_grayscale)
        return key, self._map(frame, like(noise, frame), like(centers, frame))
