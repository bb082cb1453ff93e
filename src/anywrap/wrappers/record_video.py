"""RecordVideo for a single env: Gymnasium's, taking frames of any library."""

from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import logger

from anywrap import xp
from anywrap.shell.checks import checked_reset


def host_frame(frame: Any) -> Any:
    """A rendered frame as a NumPy array (one copy from a device); anything else as it is."""
    if isinstance(frame, np.ndarray) or not hasattr(frame, "shape"):
        return frame
    return xp.to_numpy(frame)


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
            self.render_history += [host_frame(f) for f in frame]
            frame = self.render_history[-1]
        frame = host_frame(frame)
        if isinstance(frame, np.ndarray):
            self.recorded_frames.append(frame)
        else:
            self.stop_recording()
            logger.warn(
                f"anywrap.RecordVideo: recording stopped: expected an array, got {type(frame)}"
            )
