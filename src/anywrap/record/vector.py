"""RecordHTML for vector envs."""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from gymnasium.vector import VectorEnv, VectorWrapper

from anywrap import xp as axp
from anywrap.record.shell import RecordShell
from anywrap.shell.checks import (
    autoreset_mode,
    autoreset_mode_property,
    checked_reset,
    reset_mask_of,
)

__all__ = ["RecordHTML"]

_NAME = "anywrap.vector.RecordHTML"


class RecordHTML(RecordShell, VectorWrapper):
    """Records a vector env into self-contained, interactive HTML reports, one
    file per report, every recorded sub-env selectable in the page.

    **What a report is.** Episodes are counted on sub-env 0, as Gymnasium's
    vector ``RecordVideo`` counts them (a reset that restarts sub-env 0, and
    sub-env 0's autoresets in NEXT_STEP and SAME_STEP mode).
    ``episode_trigger(episode_id)`` chooses which episodes of sub-env 0 to
    record, ``step_trigger(step_id)`` at which vector steps to start, and
    ``report_length=n > 0`` stops a report ``n`` steps after its first row.
    A report covers those steps for every sub-env in ``sub_envs`` (default:
    the first four): the others' episodes are cut where the window cuts
    them, and the page marks where each sub-env's episodes end and restart.

    **Autoreset.** NEXT_STEP (the default): the step after a sub-env's done is
    its reset step; its observation starts the next episode, and its action
    and reward (ignored by the env) are not charted. SAME_STEP: the step that
    ends an episode is charted with ``info["final_obs"]``, the observation
    the action led to (its frame, as in RecordVideo, already shows the next
    episode). DISABLED: ``reset(options={"reset_mask": m})`` restarts the
    masked sub-envs; the others wait.

    **Device arrays.** Rows stay on the env's device. With frames, the
    recorder reads sub-env 0's done flag at each step to know whether to
    render (free for NumPy flags; one bool on a device, where ``render()``
    reads the device anyway while recording). Without frames (a non-rendering
    env, or ``frames=False``) and with device flags, no step reads a device
    value: every step's row is kept on the device and brought to the host in
    one transfer every ``flush_every`` steps, at each ``reset`` and at
    ``close``, where the choice of rows is made. Reports are then written at
    those moments, not at the step that ends them.

    Example:
        >>> import gymnasium as gym, anywrap, tempfile
        >>> folder = tempfile.mkdtemp()
        >>> envs = gym.make_vec("CartPole-v1", num_envs=3, vectorization_mode="sync")
        >>> envs = anywrap.vector.RecordHTML(envs, folder, step_trigger=lambda t: t == 0,
        ...                                  report_length=20, frames=False)
        >>> _ = envs.reset(seed=0)
        >>> for _ in range(30):
        ...     _ = envs.step(envs.action_space.sample())
        >>> envs.close()
        >>> envs.sub_envs, envs.step_id, [p.name for p in envs.report_paths]
        ([0, 1, 2], 29, ['rl-report-step-0.html'])
    """

    def __init__(
        self,
        env: VectorEnv,
        report_folder: str | os.PathLike[str],
        episode_trigger: Callable[[int], bool] | None = None,
        step_trigger: Callable[[int], bool] | None = None,
        report_length: int = 0,
        name_prefix: str = "rl-report",
        fps: float | None = None,
        *,
        sub_envs: int | Sequence[int] | None = None,
        frames: bool = True,
        frame_format: str = "webp",
        frame_quality: int = 75,
        max_frame_side: int | None = 512,
        max_dims: int = 64,
        max_info: int = 16,
        max_frames: int = 2000,
        max_rows: int = 100_000,
        flush_every: int = 1000,
    ) -> None:
        """Wrap the vector env ``env``.

        Args:
            env: The vector env to record.
            report_folder: Where the ``.html`` reports go (created if needed).
            episode_trigger: ``episode_id -> bool`` over sub-env 0's episodes.
            step_trigger: ``step_id -> bool``: start a report at this step.
            report_length: 0 to record whole episodes of sub-env 0; ``n > 0``
                to stop a report ``n`` steps after its first row.
            name_prefix: The start of each report's file name.
            fps: Playback speed at 1x; default ``metadata["render_fps"]``, else 30.
            sub_envs: Which sub-envs a report holds: a count ``k`` (the first
                ``k``) or a sequence of indices. Default: the first four.
            frames: Record ``render()`` frames when the render mode is
                ``"rgb_array"``. False gives charts only.
            frame_format: ``"webp"`` (default), ``"jpeg"`` or ``"png"``.
            frame_quality: Encoder quality, 1 to 100.
            max_frame_side: Frames with a longer side are shrunk to it.
            max_dims: A leaf with more values per sub-env than this is charted
                as its mean, min and max.
            max_info: At most this many numeric and this many text info keys.
            max_frames: At most this many frames per report. A longer episode
                keeps every other frame, then every fourth, and so on, spread
                evenly over it (the page says so): memory stays bounded.
            max_rows: A report stops after this many rows, and says so; the
                bound on a report's memory when episodes never end.
            flush_every: Without frames, on device arrays: steps between two
                transfers of the rows to the host.
        """
        options = dict(locals())  # the arguments; first, before any other name is bound
        VectorWrapper.__init__(self, env)
        mode = autoreset_mode(_NAME, env)
        self._start_recording(_NAME, options, batch=self.num_envs, autoreset_mode=mode)
        self.sub_envs = list(self._recorder.select or ())

    autoreset_mode = autoreset_mode_property()

    @checked_reset
    def reset(
        self, *, seed: int | list[int] | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Any, dict[str, Any]]:
        """Reset; a reset that restarts sub-env 0 begins an episode."""
        mask = reset_mask_of(_NAME, options, self.num_envs)
        obs, info = self.env.reset(seed=seed, options=options)  # type: ignore[arg-type]
        host_mask = None if mask is None else np.asarray(axp.to_numpy(mask), dtype=bool)
        counts = host_mask is None or bool(host_mask[0])
        self._recorder.on_reset(obs, info, seed, host_mask, counts=counts)
        return obs, info

    def step(self, actions: Any) -> tuple[Any, Any, Any, Any, dict[str, Any]]:
        """Step the sub-envs; record the step if a report is being recorded."""
        return self._step_and_record(actions)
