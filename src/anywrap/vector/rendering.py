"""Rendering vector wrappers: HumanRendering, RecordVideo."""

from typing import Any

import gymnasium as gym

from anywrap import xp
from anywrap.shell.checks import checked_reset
from anywrap.transforms.tile_frames import tile_frames
from anywrap.wrappers.common import HostView
from anywrap.wrappers.rendering import host_frame


class _Missing(gym.vector.VectorWrapper):
    """Where Gymnasium has no vector RecordVideo (before 1.3), constructing one says so."""

    def __init__(self, env: Any, *args: Any, **kwargs: Any) -> None:
        raise ImportError(
            "anywrap.vector.RecordVideo: expected Gymnasium with "
            f"gymnasium.wrappers.vector.RecordVideo (1.3 or newer), got Gymnasium {gym.__version__}"
        )


_Base: Any = getattr(gym.wrappers.vector, "RecordVideo", None) or _Missing


class RecordVideo(_Base):  # type: ignore[misc]
    """:class:`gymnasium.wrappers.vector.RecordVideo`, from frames of any library (a sequence
    or one ``(num_envs, H, W, C)`` batch), tiled where they are and copied to the host once.

    Example:
        >>> import gymnasium as gym, anywrap
        >>> issubclass(anywrap.vector.RecordVideo, gym.wrappers.vector.RecordVideo)
        True
    """

    reset = checked_reset(_Base.reset)  # options checked first

    def step(self, actions: Any) -> tuple[Any, Any, Any, Any, dict[str, Any]]:
        if self.episode_trigger is not None:
            return super().step(actions)
        obs, rewards, terminations, truncations, info = self.env.step(actions)
        self.step_id += 1
        if self.step_trigger and self.step_trigger(self.step_id):
            self.start_recording(f"{self.name_prefix}-step-{self.step_id}")
        if self.recording:
            self._capture_frame()
            if len(self.recorded_frames) > self.video_length:
                self.stop_recording()
        return obs, rewards, terminations, truncations, info

    def _capture_frame(self) -> None:
        assert self.recording, "Cannot capture a frame, recording wasn't started."
        frames: Any = self.env.render()
        if not hasattr(frames, "shape"):  # Gymnasium's sequence, one frame per sub-env
            if len(frames) != self.num_envs:
                raise ValueError(
                    f"anywrap.vector.RecordVideo: expected {self.num_envs} frames from "
                    f"render(), got {len(frames)}"
                )
            frames = xp.namespace(frames[0]).stack(list(frames))
        if self.record_first_only:
            frames = frames[:1]
        n, h, w, _ = frames.shape
        if self.frame_cols == -1 or self.frame_rows == -1:
            self._get_concat_frame_shape(n, h, w)
        tiled = tile_frames(frames, rows=self.frame_rows, cols=self.frame_cols)
        self.recorded_frames.append(host_frame(tiled))


class HumanRendering(gym.wrappers.vector.HumanRendering):
    """:class:`gymnasium.wrappers.vector.HumanRendering`, taking the frames of any library
    (each shown frame is copied to the host once).

    Example:
        >>> import gymnasium as gym, anywrap
        >>> envs = gym.make_vec("CartPole-v1", 2, render_mode="rgb_array")
        >>> anywrap.vector.HumanRendering(envs).render_mode
        'human'
    """

    reset = checked_reset(gym.wrappers.vector.HumanRendering.reset)

    def _render_frame(self) -> None:
        with HostView(self):
            super()._render_frame()
