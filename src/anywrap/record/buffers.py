"""The rows of a report on the device, and their one transfer to the host.

:class:`Row` holds one reset or step as the device arrays the layouts made;
:func:`to_host` brings many rows to the host with one transfer per field
(never one per row), as :class:`HostRows`.

Example:
    >>> rows = [Row(clock=0.0, step=0, obs=np.zeros((1, 2))),
    ...         Row(clock=0.1, step=1, obs=np.ones((1, 2)), flags=np.array([[1.0, 0, 0, 0]]),
    ...             action=np.array([[0.5]]))]
    >>> host = to_host(rows, k=1, d=2, a=1, n_info=0)
    >>> host.obs.tolist(), host.action[:, 0, 0].tolist()
    ([[[0.0, 0.0]], [[1.0, 1.0]]], [nan, 0.5])
"""

from __future__ import annotations

from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from anywrap import xp as axp
from anywrap.record.report import HOLD, RESET, STEP, Track, split_tracks

__all__ = ["HostRows", "Report", "Row", "to_host"]


@dataclass(slots=True)
class Row:
    """One reset or step as recorded: device arrays until the report ends.

    A step row holds ``flags`` (see :class:`Flags`) and ``action``; a reset row
    has neither and holds ``reset_mask``, which of the recorded sub-envs the
    reset restarted (None: all). An ``autoreset`` row opens a report, or
    follows the step, where sub-env 0 ended under SAME_STEP: it holds the
    first observation of the next episodes, with the step's ``flags`` telling
    which sub-envs restarted.
    """

    clock: float
    step: int
    obs: Any
    obs_next: Any = None  # SAME_STEP: the obs the env returned (obs holds the final one)
    flags: Any = None
    action: Any = None
    reset_mask: np.ndarray | None = None
    done0: Any = None  # sub-env 0's done flag, for decisions made later (lazy mode)
    info: Any = None  # (rows, columns) of info numbers, or None
    info_cols: tuple[int, ...] = ()
    text: dict[int, list[str | None]] = field(default_factory=dict)
    frames: list[Future | None] | None = None
    decided: bool = True
    autoreset: bool = False


def _stack_to_host(values: list[Any]) -> np.ndarray:
    """Stack same-shaped arrays of one library on their device; one copy to the host."""
    if all(axp.is_host(v) for v in values):
        return np.stack([np.asarray(v) for v in values])
    xp = axp.namespace(values[0])
    return np.asarray(axp.to_numpy(xp.stack(values)))


@dataclass
class HostRows:
    """Rows brought to the host: NumPy arrays with a leading row axis."""

    clock: np.ndarray  # (R,)
    step: np.ndarray  # (R,)
    obs: np.ndarray  # (R, K, D)
    obs_next: np.ndarray  # (R, K, D), NaN where the row has none
    flags: np.ndarray  # (R, K, 4), NaN on reset rows
    action: np.ndarray  # (R, K, A), NaN on reset rows
    info: np.ndarray  # (R, K, I), NaN where absent
    done0: np.ndarray  # (R,) bool
    stepped: np.ndarray  # (R,) bool: a step row (a reset row has no flags)
    has_next: np.ndarray  # (R,) bool: the row holds obs_next
    rows: list[Row]  # what stays on the host side: clock, text, frames, masks


def to_host(rows: list[Row], k: int, d: int, a: int, n_info: int) -> HostRows:
    """All ``rows`` on the host, with one transfer per field (never one per row)."""
    r = len(rows)

    def gather(attr: str, width: int) -> np.ndarray:
        out = np.full((r, k, width), np.nan)
        have = [i for i, row in enumerate(rows) if getattr(row, attr) is not None]
        if have and width:
            values = _stack_to_host([getattr(rows[i], attr) for i in have])
            out[have] = values.reshape(len(have), k, width)
        return out

    info = np.full((r, k, n_info), np.nan)
    groups: dict[tuple[int, ...], list[int]] = {}  # rows with the same info keys stack together
    for i, row in enumerate(rows):
        if row.info is not None:
            groups.setdefault(row.info_cols, []).append(i)
    for cols, have in groups.items():
        values = _stack_to_host([rows[i].info for i in have]).reshape(len(have), k, len(cols))
        info[np.ix_(have, range(k), cols)] = values
    done0 = np.zeros(r, bool)
    lazy = [i for i, row in enumerate(rows) if row.done0 is not None]
    if lazy:
        done0[lazy] = _stack_to_host([rows[i].done0 for i in lazy]).reshape(-1).astype(bool)
    host = HostRows(
        clock=np.array([row.clock for row in rows], dtype=np.float64),
        step=np.array([row.step for row in rows], dtype=np.int64),
        obs=gather("obs", d),
        obs_next=gather("obs_next", d),
        flags=gather("flags", 4),
        action=gather("action", a),
        info=info,
        done0=done0,
        stepped=np.array([row.flags is not None for row in rows], dtype=bool),
        has_next=np.array([row.obs_next is not None for row in rows], dtype=bool),
        rows=rows,
    )
    for row in rows:  # the arrays now live in ``host``: a long report keeps one copy
        row.obs = row.obs_next = row.flags = row.action = row.info = row.done0 = None
    return host


@dataclass
class Report:
    """The report being recorded, on the host: its name, its seed and its rows.

    Each part is ``(host rows, index, as_autoreset)``: one row brought to the
    host, and whether it stands for the opening row of the next episodes
    (the row after a SAME_STEP step where sub-env 0 ended). ``rows`` counts
    the rows for the length limit.
    """

    name: str
    seed: str | None
    parts: list[tuple[HostRows, int, bool]] = field(default_factory=list)
    rows: int = 0
    notes: list[str] = field(default_factory=list)  # said on the page (caps reached)
    stride: int = 1  # frames are captured on every stride-th row (see Recorder)
    framed: list[tuple[int, Row]] = field(default_factory=list)  # rows holding frames

    def tracks(
        self, indices: list[int], widths: tuple[int, int, int, int], mode: str | None, frames: bool
    ) -> tuple[list[Track], np.ndarray, np.ndarray]:
        """``(one Track per recorded (sub-)env, each row's clock, each row's step)``.

        ``widths`` are the obs, action, info-number and info-text column
        counts; ``mode`` the autoreset mode's value (None for one env).
        """
        d, a, n_info, n_text = widths
        k, n = len(indices), len(self.parts)
        kind = np.full((n, k), STEP, np.int8)
        obs = np.full((n, k, d), np.nan)
        flags = np.full((n, k, 4), np.nan)
        action = np.full((n, k, a), np.nan)
        info = np.full((n, k, n_info), np.nan)
        clock, step = np.zeros(n), np.zeros(n, np.int64)
        text: list[list[list[str | None]]] = [[[None] * n for _ in range(n_text)] for _ in range(k)]
        shots: list[list[bytes | None]] = [[None] * n for _ in range(k)]
        for r, (h, i, as_autoreset) in enumerate(self.parts):
            row = h.rows[i]
            clock[r], step[r] = h.clock[i], h.step[i]
            if as_autoreset or row.autoreset:
                source = h.obs_next[i] if as_autoreset and h.has_next[i] else h.obs[i]
                obs[r, :, : source.shape[-1]] = source
                restarted = (np.nan_to_num(h.flags[i, :, 1]) > 0) | (
                    np.nan_to_num(h.flags[i, :, 2]) > 0
                )
                kind[r] = np.where(restarted, RESET, HOLD)
            else:
                obs[r, :, : h.obs.shape[-1]] = h.obs[i]
                flags[r] = h.flags[i]
                action[r, :, : h.action.shape[-1]] = h.action[i]
                info[r, :, : h.info.shape[-1]] = h.info[i]
                if not h.stepped[i]:  # a reset
                    m = row.reset_mask
                    kind[r] = RESET if m is None else np.where(m, RESET, HOLD)
                elif mode == "NextStep":
                    kind[r] = np.where(h.flags[i, :, 3] > 0, RESET, STEP)
                for c, values in row.text.items():
                    for j in range(k):
                        text[j][c][r] = values[j]
            if row.frames is not None and not as_autoreset:
                for j in range(k):
                    f = row.frames[j]
                    shots[j][r] = None if f is None else f.result()
        tracks = split_tracks(
            indices,
            kind=kind,
            obs=obs,
            action=action,
            reward=flags[..., 0],
            terminated=flags[..., 1],
            truncated=flags[..., 2],
            info=info,
            text=text,
            frames=shots if frames else None,
        )
        return tracks, clock, step
