"""The engine under both RecordHTML wrappers: it follows resets and steps,
keeps the chosen rows on the device, and writes each report when it ends.

Example:
    >>> import gymnasium as gym, tempfile
    >>> env = gym.make("CartPole-v1")
    >>> rec = Recorder("demo", env, tempfile.mkdtemp(), episode_trigger=None, step_trigger=None,
    ...                report_length=5, name_prefix="demo", fps=None, frames=False,
    ...                frame_format="webp", frame_quality=75, max_frame_side=None,
    ...                max_dims=64, max_info=16)
    >>> obs, info = env.reset(seed=0)
    >>> rec.on_reset(obs, info, seed=0, mask=None, counts=True)
    >>> for _ in range(10):
    ...     obs, reward, term, trunc, info = env.step(0)
    ...     rec.on_step(obs, 0, reward, term, trunc, info)
    >>> rec.close()
    >>> [p.name for p in rec.paths], rec.recording
    (['demo-episode-0.html'], False)
"""

from __future__ import annotations

import atexit
import math
import os
import sys
import time
import warnings
import weakref
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from anywrap import xp as axp
from anywrap.record.buffers import HostRows, Report, Row, to_host
from anywrap.record.describe import describe_env
from anywrap.record.frames import FrameCapture, FrameEncoder, check_frame_options
from anywrap.record.info import InfoColumns
from anywrap.record.layout import (
    Flags,
    Layout,
    LayoutChanged,
    first_flag,
    merge_final,
    select_sub_envs,
)
from anywrap.record.report import build_report, check_folder, write_html
from anywrap.record.schedule import Event, Schedule

__all__ = ["Recorder"]


class Recorder:
    """The engine under both RecordHTML wrappers (one env: ``batch=None``): told of each
    ``reset`` and ``step``, it keeps the rows :class:`Schedule` chooses on the env's device
    and brings them to the host in one transfer per field.

    **Lazy mode** (a vector env whose done flags are device arrays, without frames): every
    step's row is kept, and every ``flush_every`` steps (and at each reset and at close)
    the rows come to the host, where the schedule is replayed over them.
    """

    def __init__(
        self,
        owner: str,
        env: Any,
        report_folder: str | os.PathLike[str],
        *,
        episode_trigger: Callable[[int], bool] | None,
        step_trigger: Callable[[int], bool] | None,
        report_length: int,
        name_prefix: str,
        fps: float | None,
        frames: bool,
        frame_format: str,
        frame_quality: int,
        max_frame_side: int | None,
        max_dims: int,
        max_info: int,
        max_frames: int = 2000,
        max_rows: int = 100_000,
        batch: int | None = None,
        sub_envs: int | Sequence[int] | None = None,
        autoreset_mode: Any = None,
        flush_every: int = 1000,
    ) -> None:
        self.select = None if batch is None else select_sub_envs(owner, sub_envs, batch)
        self.schedule = Schedule(episode_trigger, step_trigger, report_length, name_prefix, owner)
        for name, value, low in (
            ("max_dims", max_dims, 1),
            ("max_info", max_info, 0),
            ("flush_every", flush_every, 1),
            ("max_frames", max_frames, 1),
            ("max_rows", max_rows, 1),
        ):
            if isinstance(value, bool) or not isinstance(value, int) or value < low:
                raise ValueError(f"{owner}: {name} must be an int >= {low}, got {value!r}")
        if fps is not None and not (
            isinstance(fps, (int, float)) and not isinstance(fps, bool) and 0 < fps < math.inf
        ):
            raise ValueError(f"{owner}: fps must be None or a finite positive number, got {fps!r}")
        # Checked whether or not the env renders now (it may only later, or never).
        check_frame_options(owner, frame_format, frame_quality, max_frame_side)
        self.owner = owner
        self.env = env
        self.render_mode = getattr(env, "render_mode", None)
        self.frames = bool(frames) and self.render_mode in ("rgb_array", "rgb_array_list")
        self.encoder = (
            FrameEncoder(frame_format, frame_quality, max_frame_side) if self.frames else None
        )
        self.folder = check_folder(owner, report_folder, name_prefix)
        meta = getattr(env, "metadata", None) or {}
        self.fps = float(fps if fps is not None else meta.get("render_fps") or 30)
        self.max_dims = max_dims
        self.batch = batch
        self.k = 1 if batch is None else len(self.select or ())
        self.mode = None if autoreset_mode is None else str(autoreset_mode.value)
        self.flush_every = flush_every
        self.max_frames = max_frames
        self.max_rows = max_rows
        self.env_id, self.wrappers = describe_env(env)
        self.paths: list[Path] = []
        self.info = InfoColumns(batch, self.select, max_info)
        self.flags = Flags(batch, self.select)
        self.total_steps = 0
        self._obs: Layout | None = None
        self._action: Layout | None = None
        self._pending: list[Row] = []
        self._report: Report | None = None
        self._prev: Any = None  # NEXT_STEP: every sub-env's done mask at the previous step
        self._has_autoreset = False
        self._lazy: bool | None = None
        self._unsettled = 0  # lazy mode: steps kept since the last transfer
        self._seed: Any = None
        self._seed_episode = -1
        self._capture = None
        if self.encoder is not None:
            self._capture = FrameCapture(owner, env, self.encoder, self._indices(), batch)
        _OPEN.add(self)

    @property
    def recording(self) -> bool:
        """Whether a report is being recorded (in lazy mode: as of the last transfer)."""
        return self.schedule.recording

    # ----------------------------------------------------------- events
    def on_reset(
        self, obs: Any, info: Any, seed: Any, mask: np.ndarray | None, counts: bool
    ) -> None:
        """After the env's ``reset``; ``counts``: it begins an episode of (sub-)env 0.

        ``mask`` is the host reset mask over all sub-envs (None: all were reset).
        """
        try:
            self._on_reset(obs, info, seed, mask, counts)
        except LayoutChanged as e:
            self._layout_changed(e)

    def on_step(
        self, obs: Any, action: Any, reward: Any, terminated: Any, truncated: Any, info: Any
    ) -> None:
        """After the env's ``step``."""
        try:
            self._on_step(obs, action, reward, terminated, truncated, info)
        except LayoutChanged as e:
            self._layout_changed(e)

    def _layout_changed(self, e: LayoutChanged) -> None:
        """Observations or actions changed shape: the report so far is written."""
        self.settle()
        recording = self.schedule.recording
        if recording:
            self.schedule.stop()
            self._finish()
        self._obs = self._action = None
        warnings.warn(
            f"{self.owner}: {e}; "
            + ("the report so far is written, and " if recording else "")
            + "recording stops until the next report begins",
            RuntimeWarning,
            stacklevel=4,
        )

    def _on_reset(
        self, obs: Any, info: Any, seed: Any, mask: np.ndarray | None, counts: bool
    ) -> None:
        self.settle()
        if seed is not None:
            self._seed = seed
            self._seed_episode = self.schedule.episode_id + (1 if counts else 0)
        if counts:
            self._apply(self._new_episode())
        self._prev = None
        self._has_autoreset = False
        if self.schedule.recording:
            row = self._row(obs, info)
            if mask is not None:
                row.reset_mask = np.asarray(mask, dtype=bool)[self._indices()]
            self._keep(row)

    def _on_step(
        self, obs: Any, action: Any, reward: Any, terminated: Any, truncated: Any, info: Any
    ) -> None:
        self.total_steps += 1
        if self._lazy is None:
            host = axp.is_host(terminated) and axp.is_host(truncated)
            self._lazy = self.batch is not None and not host and not self.frames
        step = (obs, info, action, reward, terminated, truncated)
        if self._lazy:
            self._pending.append(self._row(*step, decided=False))
            self._unsettled += 1
            if self._unsettled >= self.flush_every:
                self.settle()
            return
        done0 = False
        if self.batch is not None:
            # A host read of sub-env 0's flags: free on NumPy. On a device it is
            # the one value this mode reads, as frames must be taken as they come.
            done0 = first_flag(terminated) or first_flag(truncated)
        if self.mode == "SameStep" and done0:
            self._same_step_end(step)
            return
        self._apply(self._episode_events(done0))
        self._apply(self.schedule.new_step())
        if self.schedule.recording:
            self._keep(self._row(*step))
        elif self.mode == "NextStep":
            self._prev = self.flags(reward, terminated, truncated, None)[1]

    def _same_step_end(self, step: tuple[Any, ...]) -> None:
        """Live SAME_STEP step where sub-env 0 ended: the step ends the old report,
        the next episode's first observation opens the new one."""
        row = self._row(*step, frames=False)
        # Read before the row is kept: keeping it may send it to the host, which
        # empties its arrays.
        first_obs = row.obs_next if row.obs_next is not None else row.obs
        flags = row.flags
        if self.schedule.recording:
            self._keep(row)
        before = self._report
        self._apply(self._new_episode())
        self._apply(self.schedule.new_step())
        if self.schedule.recording:
            opening = Row(
                clock=row.clock,
                step=row.step,
                obs=first_obs,
                flags=flags,
                autoreset=True,
            )
            self._frames_for(opening)
            if self._report is before:  # the same report goes on: one step, two rows
                self._pending.append(opening)
            else:
                self._keep(opening)

    def close(self) -> None:
        """Write the report being recorded, if any, and stop the frame encoder."""
        _OPEN.discard(self)
        self.settle()
        if self.schedule.recording:
            self.schedule.stop()
            self._finish()
        if self._capture is not None:
            self._capture.close()

    # ----------------------------------------------------------- decisions
    def _episode_events(self, done0: bool) -> list[Event]:
        """NEXT_STEP, as Gymnasium's vector RecordVideo: the step after sub-env 0's
        done (its reset step) begins an episode."""
        if self.mode == "NextStep":
            events = self._new_episode() if self._has_autoreset else []
            self._has_autoreset = done0
            return events
        return []

    def _new_episode(self) -> list[Event]:
        """The schedule's events for an episode that begins (an episode trigger that raises
        still has the report it ends written first)."""
        try:
            return self.schedule.new_episode()
        except BaseException:
            self._apply(self.schedule.unapplied)
            self.schedule.unapplied = []
            raise

    def _apply(self, events: list[Event]) -> None:
        for event in events:
            if event[0] == "stop":
                self._finish()
                continue
            seed = None
            if self._seed is not None:
                seed = str(self._seed)
                if self._seed_episode != self.schedule.episode_id:
                    seed += f" (given at episode {self._seed_episode})"
            self._report = Report(event[1], seed)

    def _count(self) -> None:
        """One more row in the report; stop it at the length limit or at ``max_rows``."""
        report = self._report
        assert report is not None
        report.rows += 1
        capped = report.rows >= self.max_rows
        if self.schedule.full(report.rows) or capped:
            if capped and not self.schedule.full(report.rows):
                report.notes.append(
                    f"stopped at max_rows={self.max_rows} rows: the episode went on, "
                    "and its later steps are not in this report"
                )
            self.schedule.stop()
            self._finish()

    def _keep(self, row: Row) -> None:
        """A row the schedule chose as it came (live); every ``flush_every`` rows they go to
        the host as compact arrays, so a long report does not hold one array per row."""
        self._pending.append(row)
        if len(self._pending) >= self.flush_every and self._report is not None:
            self.settle()
        self._count()

    def _take(self, host: HostRows, i: int, autoreset: bool = False, count: bool = True) -> None:
        """A row chosen after the transfer (lazy)."""
        if self.schedule.recording and self._report is not None:
            self._report.parts.append((host, i, autoreset))
            if count:
                self._count()

    def settle(self) -> None:
        """Bring the pending rows to the host; in lazy mode, choose which to keep."""
        self._unsettled = 0
        if not self._pending:
            return
        rows, self._pending = self._pending, []
        host = self._to_host(rows)
        for i, row in enumerate(rows):
            if row.decided:
                if self._report is not None:
                    self._report.parts.append((host, i, False))
                continue
            done0 = bool(host.done0[i])
            if self.mode == "SameStep" and done0:
                self._take(host, i)
                before = self._report
                self._apply(self._new_episode())
                self._apply(self.schedule.new_step())
                self._take(host, i, autoreset=True, count=self._report is not before)
                continue
            self._apply(self._episode_events(done0))
            self._apply(self.schedule.new_step())
            self._take(host, i)

    def _to_host(self, rows: list[Row]) -> HostRows:
        d = 0 if self._obs is None else self._obs.width
        a = 0 if self._action is None else self._action.width
        return to_host(rows, self.k, d, a, len(self.info.numbers))

    def _indices(self) -> list[int]:
        return [0] if self.batch is None else list(self.select or ())

    # ----------------------------------------------------------- rows
    def _row(
        self,
        obs: Any,
        info: Any,
        action: Any = None,
        reward: Any = None,
        terminated: Any = None,
        truncated: Any = None,
        *,
        decided: bool = True,
        frames: bool = True,
    ) -> Row:
        if self._obs is None:
            self._obs = Layout("obs", obs, self.batch, self.select, self.max_dims)
        row = Row(clock=time.perf_counter(), step=self.total_steps, obs=None, decided=decided)
        if action is None:
            row.obs = self._obs.row(obs)
        else:
            if self._action is None:
                self._action = Layout("action", action, self.batch, self.select, self.max_dims)
            row.action = self._action.row(action)
            row.flags, done, done0 = self.flags(reward, terminated, truncated, self._prev)
            if self.mode == "NextStep":
                self._prev = done
            if not decided:
                row.done0 = done0
            final = info.get("final_obs") if isinstance(info, dict) else None
            if self.mode != "SameStep" or final is None:
                row.obs = self._obs.row(obs)
            elif isinstance(final, np.ndarray) and final.dtype.kind == "O":  # NumPy vector envs
                row.obs, row.obs_next = self._obs.row(merge_final(obs, final)), self._obs.row(obs)
            else:
                row.obs, row.obs_next = self._obs.row_and_final(obs, final, done)
        self.info.record(row, info)
        if frames:
            self._frames_for(row)
        return row

    def _frames_for(self, row: Row) -> None:
        """Capture ``row``'s frames (at most ``max_frames`` per report)."""
        if self._capture is not None and self._report is not None:
            self._capture.add(self._report, row, self.max_frames)

    # ----------------------------------------------------------- writing
    def _finish(self) -> None:
        """End the report being recorded: rows to the host, then the page."""
        report, pending = self._report, self._pending
        self._report = None
        if pending:
            self._pending = []
            host = self._to_host(pending)
            if report is not None:
                report.parts += [(host, i, False) for i in range(len(pending))]
        if report is None:
            return
        if not report.parts:
            warnings.warn(
                f"{self.owner}: no rows recorded for {report.name}; no report written",
                stacklevel=3,
            )
            return
        try:
            self.paths.append(self._write(report))
        except OSError as e:  # the disk, not the data: say so, and go on recording
            warnings.warn(
                f"{self.owner}: could not write {report.name}.html into {self.folder} "
                f"({type(e).__name__}: {e}); the report is lost, recording goes on",
                RuntimeWarning,
                stacklevel=3,
            )

    def _write(self, report: Report) -> Path:
        d = 0 if self._obs is None else self._obs.width
        a = 0 if self._action is None else self._action.width
        widths = (d, a, len(self.info.numbers), len(self.info.texts))
        tracks, clock, step = report.tracks(self._indices(), widths, self.mode, self.frames)
        notes = list(report.notes)
        if report.stride > 1:
            notes.append(
                f"frames thinned to every {report.stride}th row to stay within "
                f"max_frames={self.max_frames}; the player holds the last frame between them"
            )
        if self.info.skipped:
            notes.append("info keys not charted: " + ", ".join(sorted(self.info.skipped)))
        for lay in (self._obs, self._action):
            if lay is not None and lay.left_out:  # Text and Graph spaces, among others
                notes.append("not charted (not numbers): " + ", ".join(lay.left_out))
        if not self.frames:
            notes.append(
                "no frames: recorded with frames=False"
                if self.render_mode in ("rgb_array", "rgb_array_list")
                else f"no frames: the env's render_mode is {self.render_mode!r}, not 'rgb_array'"
            )
        data = build_report(
            tracks,
            obs_labels=self._obs.labels if self._obs is not None else [],
            action_labels=self._action.labels if self._action is not None else [],
            info_labels=self.info.labels(self.info.numbers),
            text_labels=self.info.labels(self.info.texts),
            title=report.name,
            env_id=self.env_id,
            wrappers=[self.owner, *self.wrappers],
            seed=report.seed,
            kind="single" if self.batch is None else "vector",
            num_envs=self.batch,
            autoreset_mode=self.mode,
            fps=self.fps,
            wall_time=float(clock[-1] - clock[0]),
            first_step=int(step[0]),
            steps=step.tolist(),
            frame_mime=self.encoder.mime if self.encoder is not None else "image/webp",
            notes=notes,
        )
        return write_html(self.folder / f"{report.name}.html", data)


_OPEN: weakref.WeakSet[Recorder] = weakref.WeakSet()  # recorders not closed yet


@atexit.register
def _close_at_exit() -> None:
    """Write the reports recorders still hold at exit (a notebook never calls ``close()``)."""
    for recorder in list(_OPEN):
        if recorder.schedule.recording:
            try:
                recorder.close()
            except Exception as e:  # at exit (no warning filters left): say so, go on
                print(f"{recorder.owner}: the report was not written at exit: {e}", file=sys.stderr)
            else:
                if recorder.paths:
                    print(
                        f"{recorder.owner}: wrote {recorder.paths[-1]} at exit (call close() "
                        "to write a report when it ends)",
                        file=sys.stderr,
                    )
