"""RecordHTML for a single env."""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

import gymnasium as gym

from anywrap.record.shell import RecordShell
from anywrap.shell.checks import checked_reset

__all__ = ["RecordHTML"]

_NAME = "anywrap.RecordHTML"


class RecordHTML(RecordShell, gym.Wrapper):
    """Records chosen episodes into self-contained, interactive HTML reports.

    Each report is one ``.html`` file in ``report_folder`` that opens offline:
    a frame player (play, pause, scrub, speed), charts of the reward, the
    return, every action and observation dimension and the numeric info
    values (with values on hover and a cursor tied to the frame shown), and
    a summary (return, length, wall time, env id, wrapper stack, seed).

    Episodes are chosen as Gymnasium's ``RecordVideo`` chooses them:
    ``episode_trigger(episode_id)`` is asked at each ``reset``,
    ``step_trigger(step_id)`` at each step (counted over all episodes), and
    with neither, episodes 0, 1, 8, 27, ..., 729, 1000, 2000, ... are
    recorded. A report ends at the next ``reset``, or, with
    ``report_length=n > 0``, after ``n`` steps past its first row (it may then
    span episodes), as RecordVideo's ``video_length`` does. Reports are
    named ``{name_prefix}-episode-{i}.html`` or ``{name_prefix}-step-{i}.html``.

    Frames come from ``env.render()`` when the env was made with
    ``render_mode="rgb_array"``; they are compressed with Pillow (WebP at
    quality 75 by default). Any other render mode, or ``frames=False``, gives
    a report with charts only.

    The observations, actions, rewards and flags of the episode being
    recorded stay on the env's device (NumPy, JAX, PyTorch) and are brought
    to the host in one transfer per field every 1,000 rows and when the
    report is written; no step reads a device value (``render()`` aside). A
    long episode stays in bounded memory: frames are thinned evenly to
    ``max_frames`` and a report stops at ``max_rows``, and the page says so.
    Observation leaves with more than ``max_dims`` values (images) are
    charted as their mean, min and max.

    Example:
        >>> import gymnasium as gym, anywrap, tempfile
        >>> folder = tempfile.mkdtemp()
        >>> env = anywrap.RecordHTML(gym.make("CartPole-v1"), folder, frames=False)
        >>> _ = env.reset(seed=0)
        >>> done = False
        >>> while not done:
        ...     _, _, term, trunc, _ = env.step(env.action_space.sample())
        ...     done = term or trunc
        >>> env.close()
        >>> [p.name for p in env.report_paths]
        ['rl-report-episode-0.html']
    """

    def __init__(
        self,
        env: gym.Env,
        report_folder: str | os.PathLike[str],
        episode_trigger: Callable[[int], bool] | None = None,
        step_trigger: Callable[[int], bool] | None = None,
        report_length: int = 0,
        name_prefix: str = "rl-report",
        fps: float | None = None,
        *,
        frames: bool = True,
        frame_format: str = "webp",
        frame_quality: int = 75,
        max_frame_side: int | None = 512,
        max_dims: int = 64,
        max_info: int = 16,
        max_frames: int = 2000,
        max_rows: int = 100_000,
    ) -> None:
        """Wrap ``env``.

        Args:
            env: The env to record.
            report_folder: Where the ``.html`` reports go (created if needed).
            episode_trigger: ``episode_id -> bool``: record the episode that
                begins. Default (with no ``step_trigger``): episodes that are
                cubes up to 1000, then every 1000th.
            step_trigger: ``step_id -> bool``: start a report at this step.
            report_length: 0 to record whole episodes; ``n > 0`` to stop a
                report ``n`` steps after its first row.
            name_prefix: The start of each report's file name.
            fps: Playback speed at 1x; default the env's
                ``metadata["render_fps"]``, else 30.
            frames: Record ``render()`` frames (when the render mode is
                ``"rgb_array"``). False gives charts only.
            frame_format: ``"webp"`` (default), ``"jpeg"`` or ``"png"``.
            frame_quality: Encoder quality, 1 to 100 (WebP and JPEG).
            max_frame_side: Frames with a longer side are shrunk to it;
                None keeps them as rendered.
            max_dims: An observation or action leaf with more values than
                this is charted as its mean, min and max.
            max_info: At most this many numeric and this many text info keys
                are recorded (the first seen).
            max_frames: At most this many frames per report. A longer episode
                keeps every other frame, then every fourth, and so on, spread
                evenly over it (the page says so): memory stays bounded.
            max_rows: A report stops after this many rows, and says so; the
                bound on a report's memory when episodes never end.
        """
        options = dict(locals())  # the arguments; first, before any other name is bound
        gym.Wrapper.__init__(self, env)
        self._start_recording(_NAME, options)

    @checked_reset
    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> Any:
        """Reset the env; end the report being recorded, and maybe begin one."""
        obs, info = self.env.reset(seed=seed, options=options)
        self._recorder.on_reset(obs, info, seed, None, counts=True)
        return obs, info

    def step(self, action: Any) -> tuple[Any, Any, Any, Any, dict[str, Any]]:
        """Step the env; record the step if a report is being recorded."""
        return self._step_and_record(action)
