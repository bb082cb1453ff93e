"""What the single and vector RecordHTML share: which steps to record, and the buffers.

* :class:`Schedule` chooses the episodes and steps to record exactly as
  Gymnasium's ``RecordVideo`` chooses them (``episode_trigger``,
  ``step_trigger``, a length limit, the capped cubic default).
* :class:`Layout` turns an observation, action or info (any tree of arrays,
  of any library) into one float row per recorded (sub-)env. On JAX it is
  one compiled call; the row stays on the env's device.
* :class:`Recorder` keeps the rows of the report being recorded on the
  device, brings them to the host in one transfer when the report ends, and
  writes the page (:mod:`anywrap.record.report`).

Example:
    >>> s = Schedule(episode_trigger=None, step_trigger=None, report_length=0, prefix="rl")
    >>> [s.episode_trigger(k) for k in range(9)]
    [True, True, False, False, False, False, False, False, True]
    >>> s.new_episode(), s.recording
    ([('start', 'rl-episode-0')], True)
    >>> s.new_episode()
    [('stop',), ('start', 'rl-episode-1')]
"""

from __future__ import annotations

import math
import os
import time
import warnings
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from anywrap import xp as axp
from anywrap.record.report import (
    HOLD,
    RESET,
    STEP,
    FrameEncoder,
    Track,
    build_report,
    write_html,
)
from anywrap.tree import flatten_with_paths

__all__ = ["Layout", "Recorder", "Schedule", "capped_cubic_schedule", "describe_env"]

Event = tuple[str, ...]


# ------------------------------------------------------------------ schedule
_CUBES = frozenset(k**3 for k in range(10))


def capped_cubic_schedule(episode_id: int) -> bool:
    """The default episode trigger, RecordVideo's: the cubes below 1000, then every 1000th.

    Example:
        >>> [k for k in range(3001) if capped_cubic_schedule(k)][-5:]
        [512, 729, 1000, 2000, 3000]
    """
    return episode_id in _CUBES if episode_id < 1000 else episode_id % 1000 == 0


class Schedule:
    """Gymnasium ``RecordVideo``'s choice of what to record, on host counters.

    ``new_episode()`` and ``new_step()`` advance the counters and return the
    events to apply in order: ``("stop",)`` ends the report being recorded,
    ``("start", name)`` begins one. ``full(rows)`` says whether a report of
    ``rows`` rows has reached the length limit (more than ``report_length``).
    """

    def __init__(
        self,
        episode_trigger: Callable[[int], bool] | None,
        step_trigger: Callable[[int], bool] | None,
        report_length: int,
        prefix: str,
    ) -> None:
        if episode_trigger is None and step_trigger is None:
            episode_trigger = capped_cubic_schedule
        self.episode_trigger = episode_trigger
        self.step_trigger = step_trigger
        self.report_length = report_length
        self.prefix = prefix
        self.episode_id = -1
        self.step_id = -1
        self.name: str | None = None

    @property
    def recording(self) -> bool:
        """Whether a report is being recorded."""
        return self.name is not None

    def _start(self, name: str) -> list[Event]:
        events: list[Event] = [("stop",)] if self.recording else []
        self.name = name
        return [*events, ("start", name)]

    def new_episode(self) -> list[Event]:
        """An episode begins (a reset, or an autoreset of the env that counts)."""
        self.episode_id += 1
        events: list[Event] = []
        if self.recording and self.report_length == 0:
            events.append(("stop",))
            self.name = None
        if self.episode_trigger is not None and self.episode_trigger(self.episode_id):
            events += self._start(f"{self.prefix}-episode-{self.episode_id}")
        return events

    def new_step(self) -> list[Event]:
        """A step was taken."""
        self.step_id += 1
        if self.step_trigger is not None and self.step_trigger(self.step_id):
            return self._start(f"{self.prefix}-step-{self.step_id}")
        return []

    def full(self, rows: int) -> bool:
        """Whether a report of ``rows`` rows must stop (RecordVideo's ``video_length``)."""
        return self.report_length > 0 and rows > self.report_length

    def stop(self) -> None:
        """The report was stopped by its owner (length limit, close)."""
        self.name = None


# ------------------------------------------------------------------ layout
def _is_number(x: Any) -> bool:
    """A real number, or an array of bools, integers or real floats (of any library)."""
    if isinstance(x, (bool, int, float)):
        return True
    if isinstance(x, (np.ndarray, np.generic)):
        return x.dtype.kind in "biuf"
    if getattr(x, "dtype", None) is None or not hasattr(x, "shape"):
        return False
    try:
        xp = axp.namespace(x)
        return bool(xp.isdtype(x.dtype, ("bool", "integral", "real floating")))
    except Exception:  # an array type the registry does not know
        return False


def _shape(x: Any) -> tuple[int, ...]:
    return tuple(int(s) for s in getattr(x, "shape", ()))


def _path_name(prefix: str, path: tuple[Any, ...]) -> str:
    return prefix + "".join(f".{k}" for k in path)


class Layout:
    """Flattens a tree of arrays into one float row per recorded (sub-)env.

    ``batch`` is None for one env, else the number of sub-envs ``N``: leaves
    then have a leading axis of N, and the rows of ``select`` are kept. A leaf
    with at most ``max_dims`` values per env gives one column per value;
    a larger one (an image) gives three: its mean, min and max.

    Example:
        >>> lay = Layout("obs", {"pos": np.zeros(2), "img": np.zeros((8, 8))}, None, None, 16)
        >>> lay.labels
        ['obs.pos[0]', 'obs.pos[1]', 'obs.img mean', 'obs.img min', 'obs.img max']
        >>> lay.row({"pos": np.array([1.0, 2.0]), "img": np.ones((8, 8))}).tolist()
        [[1.0, 2.0, 1.0, 1.0, 1.0]]
    """

    def __init__(
        self,
        prefix: str,
        sample: Any,
        batch: int | None,
        select: Sequence[int] | None,
        max_dims: int,
    ) -> None:
        self.batch = batch
        self.select = None if select is None else list(select)
        self.labels: list[str] = []
        self._parts: list[tuple[bool, int, bool]] = []  # (used, size, summarised)
        for path, leaf in flatten_with_paths(sample):
            shape = _shape(leaf)
            if not _is_number(leaf) or (batch is not None and shape[:1] != (batch,)):
                self._parts.append((False, 0, False))
                continue
            per = shape[1:] if batch is not None else shape
            size = math.prod(per)
            name = _path_name(prefix, path)
            if size <= max_dims:
                self._parts.append((True, size, False))
                if per == ():
                    self.labels.append(name)
                else:
                    for idx in np.ndindex(*per):
                        self.labels.append(f"{name}[{','.join(map(str, idx))}]")
            else:
                self._parts.append((True, size, True))
                self.labels += [f"{name} mean", f"{name} min", f"{name} max"]
        self.rows = 1 if batch is None else len(self.select or ())
        self._compiled = axp.Compiled(self._row, None)

    @property
    def width(self) -> int:
        """How many columns a row has."""
        return len(self.labels)

    def row(self, tree: Any) -> Any:
        """The ``(rows, width)`` float row of ``tree``, in its library, on its device."""
        return self._compiled(tree, None, None)[0]

    def row_and_final(self, tree: Any, final: Any, done: Any) -> tuple[Any, Any]:
        """``(row of tree with final's leaves where done, row of tree)``, one call.

        For SAME_STEP: ``final`` is ``info["final_obs"]``, the observation the
        action led to, where ``tree`` already holds the next episode's first.
        """
        return self._compiled(tree, final, done)

    def _row(self, tree: Any, final: Any, done: Any) -> tuple[Any, Any]:
        leaves = [leaf for _, leaf in flatten_with_paths(tree)]
        finals = [leaf for _, leaf in flatten_with_paths(final)] if final is not None else None
        xp, dev = _library(*leaves, done)
        wide = axp.wide_float(xp, dev)

        def flat(values: list[Any]) -> Any:
            cols = []
            for x, (used, size, summarised) in zip(values, self._parts):
                if not used:
                    continue
                x = self._pick(xp, dev, x)
                x = xp.reshape(axp.astype(x, wide), (self.rows, size))
                if summarised:
                    x = xp.stack([xp.mean(x, axis=1), xp.min(x, axis=1), xp.max(x, axis=1)], axis=1)
                cols.append(x)
            if not cols:
                return xp.zeros((self.rows, 0), dtype=wide, device=dev)
            return xp.concat(cols, axis=1)

        xs = [_as(xp, dev, x) for x in leaves]
        if finals is None:
            return flat(xs), None
        d = _as(xp, dev, done)
        merged = []
        for x, f in zip(xs, finals):
            mask = xp.reshape(d, (self.batch or 1,) + (1,) * (x.ndim - 1)) if x.ndim else d
            merged.append(xp.where(mask, _as(xp, dev, f), x))
        return flat(merged), flat(xs)

    def _pick(self, xp: Any, dev: Any, x: Any) -> Any:
        return pick_rows(xp, dev, x, self.batch, self.select)


def pick_rows(xp: Any, dev: Any, x: Any, batch: int | None, select: list[int] | None) -> Any:
    """The rows ``select`` of a batched leaf (the leaf itself for one env)."""
    if batch is None or select is None:
        return x
    if select == list(range(len(select))):
        return x[: len(select), ...]
    return xp.take(x, xp.asarray(np.asarray(select), device=dev), axis=0)


def _library(*values: Any) -> tuple[Any, Any]:
    """The namespace and device of the first value that is not on the host."""
    for v in values:
        if v is not None and not axp.is_host(v):
            return axp.namespace(v), axp.device(v)
    return np, "cpu"


def _as(xp: Any, dev: Any, x: Any) -> Any:
    """``x`` as an array of ``xp`` (host values are moved there; no device value is read)."""
    if xp is np:
        return np.asarray(x)
    if axp.is_host(x):
        return xp.asarray(np.asarray(x), device=dev)
    return x


class Flags:
    """Reward and done flags of one step, as one ``(rows, 4)`` float array:
    reward, terminated, truncated, and whether the (sub-)env was done on the
    previous step (NEXT_STEP's reset steps). One compiled call on JAX.

    Example:
        >>> packed, done, done0 = Flags(3, [0, 2])(
        ...     np.array([1.0, 2.0, 3.0]), np.array([True, False, False]),
        ...     np.array([False, False, True]), None)
        >>> packed.tolist(), done.tolist(), done0.tolist()
        ([[1.0, 1.0, 0.0, 0.0], [3.0, 0.0, 1.0, 0.0]], [True, False, True], [True])
    """

    def __init__(self, batch: int | None, select: Sequence[int] | None) -> None:
        self.batch = batch
        self.select = None if select is None else list(select)
        self._compiled = axp.Compiled(self._pack, None)

    def __call__(self, reward: Any, terminated: Any, truncated: Any, prev: Any) -> Any:
        """``(packed, done of every (sub-)env, done of (sub-)env 0 as a 1-element array)``."""
        return self._compiled(reward, terminated, truncated, prev)

    def _pack(self, reward: Any, terminated: Any, truncated: Any, prev: Any) -> Any:
        xp, dev = _library(reward, terminated, truncated, prev)
        wide = axp.wide_float(xp, dev)
        r = _as(xp, dev, reward)
        t = _as(xp, dev, terminated)
        u = _as(xp, dev, truncated)
        done = xp.logical_or(axp.astype(t, xp.bool), axp.astype(u, xp.bool))
        p = xp.zeros_like(done) if prev is None else _as(xp, dev, prev)
        cols = [
            axp.astype(pick_rows(xp, dev, v, self.batch, self.select), wide) for v in (r, t, u, p)
        ]
        return xp.reshape(xp.stack(cols, axis=-1), (-1, 4)), done, xp.reshape(done, (-1,))[:1]


# ------------------------------------------------------------------ env description
def _name(obj: Any) -> str:
    if type(obj).__module__.startswith("anywrap"):
        from anywrap.shell.checks import wrapper_name

        return wrapper_name(obj)
    return type(obj).__name__


def describe_env(env: Any) -> tuple[str, list[str]]:
    """``(env id, the wrapper stack from outside in)`` of a single or vector env."""
    spec = getattr(env, "spec", None)
    env_id = getattr(spec, "id", None)
    if env_id is None:
        base = env
        for _ in range(64):  # the innermost env
            inner = getattr(base, "env", None)
            if inner is None or inner is base:
                break
            base = inner
        subs = getattr(base, "envs", None)
        name = getattr(base, "name", None)  # gymnax envs name themselves
        if isinstance(subs, (list, tuple)) and subs:  # a vector env made by hand
            env_id = describe_env(subs[0])[0]
        elif isinstance(name, str) and name:
            env_id = name
        else:
            env_id = type(base).__name__
    stack: list[str] = []
    e = env
    for _ in range(64):
        subs = getattr(e, "envs", None)
        if isinstance(subs, (list, tuple)) and subs and not hasattr(e, "env"):
            inner = describe_env(subs[0])[1]
            stack.append(f"{_name(e)}({len(subs)} x [{', '.join(inner)}])")
            break
        stack.append(_name(e))
        nxt = getattr(e, "env", None)
        if nxt is None or nxt is e:
            break
        e = nxt
    return str(env_id), stack


# ------------------------------------------------------------------ buffers
@dataclass
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
    rows: list[Row]


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
    return HostRows(
        clock=np.array([row.clock for row in rows], dtype=np.float64),
        step=np.array([row.step for row in rows], dtype=np.int64),
        obs=gather("obs", d),
        obs_next=gather("obs_next", d),
        flags=gather("flags", 4),
        action=gather("action", a),
        info=info,
        done0=done0,
        rows=rows,
    )


@dataclass
class _Report:
    """The host side of the report being recorded: ``(rows, index, as_autoreset)`` parts."""

    name: str
    seed: str | None
    parts: list[tuple[HostRows, int, bool]] = field(default_factory=list)
    rows: int = 0


class InfoColumns:
    """Which info leaves become charts (numbers) and text (strings), up to ``cap`` each.

    A leaf is a number per (sub-)env: shape ``()`` for one env, ``(N,)`` for
    a vector env. Gymnasium's vector masks (``info["_key"]``) blank the
    sub-envs where a value is absent. Keys that start with ``_`` and the
    final observation and info of SAME_STEP are not charted.
    """

    SKIP = frozenset({"final_obs", "final_info", "final_observation", "terminal_observation"})

    def __init__(self, batch: int | None, select: Sequence[int] | None, cap: int) -> None:
        self.batch = batch
        self.select = None if select is None else list(select)
        self.cap = cap
        self.numbers: dict[tuple[Any, ...], int] = {}
        self.texts: dict[tuple[Any, ...], int] = {}
        self.skipped: set[str] = set()
        self._compiled = axp.Compiled(self._rows, None)

    def record(self, row: Row, info: Any) -> None:
        """Put the numbers (on their device) and strings of ``info`` into ``row``."""
        if not isinstance(info, dict) or not info:
            return
        values, masks, cols = [], [], []
        want = () if self.batch is None else (self.batch,)
        for path, leaf in flatten_with_paths(info):
            if any(str(k).startswith("_") or str(k) in self.SKIP for k in path):
                continue
            if isinstance(leaf, str) or (
                self.batch is not None
                and isinstance(leaf, np.ndarray)
                and leaf.dtype.kind in "OUS"
                and leaf.shape == want
            ):
                col = self._column(self.texts, path)
                if col is not None:
                    row.text[col] = self._strings(leaf)
                continue
            if not _is_number(leaf) or _shape(leaf) != want:
                continue
            col = self._column(self.numbers, path)
            if col is not None:
                values.append(leaf)
                masks.append(_mask_of(info, path))
                cols.append(col)
        if values:
            row.info = self._compiled(tuple(values), tuple(masks))
            row.info_cols = tuple(cols)

    def _column(self, cols: dict[tuple[Any, ...], int], path: tuple[Any, ...]) -> int | None:
        col = cols.get(path)
        if col is None:
            if len(cols) >= self.cap:
                self.skipped.add(_path_name("info", path))
                return None
            col = cols[path] = len(cols)
        return col

    def _strings(self, leaf: Any) -> list[str | None]:
        if isinstance(leaf, str):
            return [leaf]
        values = list(np.asarray(leaf, dtype=object).reshape(-1))
        picks = self.select if self.select is not None else range(len(values))
        return [None if values[i] is None else str(values[i]) for i in picks]

    def _rows(self, values: tuple[Any, ...], masks: tuple[Any, ...]) -> Any:
        xp, dev = _library(*values, *masks)
        wide = axp.wide_float(xp, dev)
        cols = []
        for v, m in zip(values, masks):
            x = axp.astype(_as(xp, dev, v), wide)
            if m is not None:
                keep = axp.astype(_as(xp, dev, m), xp.bool)
                x = xp.where(keep, x, xp.asarray(math.nan, dtype=wide, device=dev))
            cols.append(xp.reshape(pick_rows(xp, dev, x, self.batch, self.select), (-1,)))
        return xp.stack(cols, axis=-1)

    def labels(self, cols: dict[tuple[Any, ...], int]) -> list[str]:
        """Column labels, in column order."""
        out = [""] * len(cols)
        for path, i in cols.items():
            out[i] = _path_name("info", path)
        return out


def _mask_of(info: dict[str, Any], path: tuple[Any, ...]) -> Any:
    """Gymnasium's vector info mask of a leaf: ``info["_key"]`` beside it or beside a parent."""
    node: Any = info
    mask = None
    for key in path:
        if not isinstance(node, dict):
            break
        if f"_{key}" in node:
            mask = node[f"_{key}"]
        node = node.get(key)
    return mask


# ------------------------------------------------------------------ recorder
class Recorder:
    """The engine under both RecordHTML wrappers (one env: ``batch=None``).

    The wrapper tells it about each ``reset`` and ``step``. It decides with
    :class:`Schedule` what to keep, keeps the rows on the env's device, and
    writes each report when it ends: the rows come to the host then, in one
    transfer per field.

    **Lazy mode** (a vector env whose done flags are device arrays, without
    frames): following sub-env 0's episodes would mean reading a device
    value every step. Instead every step's row is kept on the device, and
    every ``flush_every`` steps (and at each reset and at close) the rows come
    to the host in one transfer; there the schedule is replayed over them, and
    the rows it does not choose are dropped.
    """

    def __init__(
        self,
        owner: str,
        env: Any,
        folder: str | os.PathLike[str],
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
        batch: int | None = None,
        select: Sequence[int] | None = None,
        autoreset_mode: Any = None,
        flush_every: int = 1000,
    ) -> None:
        for name, fn in (("episode_trigger", episode_trigger), ("step_trigger", step_trigger)):
            if fn is not None and not callable(fn):
                raise TypeError(f"{owner}: {name} must be callable or None, got {fn!r}")
        for name, value, low in (
            ("report_length", report_length, 0),
            ("max_dims", max_dims, 1),
            ("max_info", max_info, 0),
            ("flush_every", flush_every, 1),
        ):
            if isinstance(value, bool) or not isinstance(value, int) or value < low:
                raise ValueError(f"{owner}: {name} must be an int >= {low}, got {value!r}")
        if fps is not None and not (
            isinstance(fps, (int, float)) and not isinstance(fps, bool) and fps > 0
        ):
            raise ValueError(f"{owner}: fps must be None or a positive number, got {fps!r}")
        if not isinstance(name_prefix, str) or not name_prefix or "/" in name_prefix:
            raise ValueError(
                f"{owner}: name_prefix must be a non-empty file name prefix, got {name_prefix!r}"
            )
        self.owner = owner
        self.env = env
        self.render_mode = getattr(env, "render_mode", None)
        self.frames = bool(frames) and self.render_mode in ("rgb_array", "rgb_array_list")
        self.encoder = (
            FrameEncoder(frame_format, frame_quality, max_frame_side) if self.frames else None
        )
        self.folder = Path(folder).absolute()
        self.schedule = Schedule(episode_trigger, step_trigger, report_length, name_prefix)
        meta = getattr(env, "metadata", None) or {}
        self.fps = float(fps if fps is not None else meta.get("render_fps") or 30)
        self.max_dims = max_dims
        self.batch = batch
        self.select = None if select is None else list(select)
        self.k = 1 if batch is None else len(self.select or ())
        self.mode = None if autoreset_mode is None else str(autoreset_mode.value)
        self.flush_every = flush_every
        self.env_id, self.wrappers = describe_env(env)
        self.paths: list[Path] = []
        self.info = InfoColumns(batch, self.select, max_info)
        self.flags = Flags(batch, self.select)
        self.total_steps = 0
        self._obs: Layout | None = None
        self._action: Layout | None = None
        self._pending: list[Row] = []
        self._report: _Report | None = None
        self._prev: Any = None  # NEXT_STEP: every sub-env's done mask at the previous step
        self._has_autoreset = False
        self._lazy: bool | None = None
        self._unsettled = 0  # lazy mode: steps kept since the last transfer
        self._seed: Any = None
        self._seed_episode = -1
        self._pool: ThreadPoolExecutor | None = None

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
        self.settle()
        if seed is not None:
            self._seed = seed
            self._seed_episode = self.schedule.episode_id + (1 if counts else 0)
        if counts:
            self._apply(self.schedule.new_episode())
        self._prev = None
        self._has_autoreset = False
        if self.schedule.recording:
            row = self._row(obs, info)
            if mask is not None:
                row.reset_mask = np.asarray(mask, dtype=bool)[self._indices()]
            self._keep(row)

    def on_step(
        self, obs: Any, action: Any, reward: Any, terminated: Any, truncated: Any, info: Any
    ) -> None:
        """After the env's ``step``."""
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
            done0 = _first(terminated) or _first(truncated)
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
        if self.schedule.recording:
            self._keep(row)
        before = self._report
        self._apply(self.schedule.new_episode())
        self._apply(self.schedule.new_step())
        if self.schedule.recording:
            opening = Row(
                clock=row.clock,
                step=row.step,
                obs=row.obs_next if row.obs_next is not None else row.obs,
                flags=row.flags,
                autoreset=True,
            )
            if self.frames:
                opening.frames = self._capture()
            if self._report is before:  # the same report goes on: one step, two rows
                self._pending.append(opening)
            else:
                self._keep(opening)

    def close(self) -> None:
        """Write the report being recorded, if any, and stop the frame encoder."""
        self.settle()
        if self.schedule.recording:
            self.schedule.stop()
            self._finish()
        if self._pool is not None:
            self._pool.shutdown(wait=True)
            self._pool = None

    # ----------------------------------------------------------- decisions
    def _episode_events(self, done0: bool) -> list[Event]:
        """NEXT_STEP, as Gymnasium's vector RecordVideo: the step after sub-env 0's
        done (its reset step) begins an episode."""
        if self.mode == "NextStep":
            events = self.schedule.new_episode() if self._has_autoreset else []
            self._has_autoreset = done0
            return events
        return []

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
            self._report = _Report(event[1], seed)

    def _count(self) -> None:
        """One more row in the report; stop it at the length limit."""
        assert self._report is not None
        self._report.rows += 1
        if self.schedule.full(self._report.rows):
            self.schedule.stop()
            self._finish()

    def _keep(self, row: Row) -> None:
        """A row the schedule chose as it came (live)."""
        self._pending.append(row)
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
                self._apply(self.schedule.new_episode())
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
                row.obs, row.obs_next = self._obs.row(_merge_final(obs, final)), self._obs.row(obs)
            else:
                row.obs, row.obs_next = self._obs.row_and_final(obs, final, done)
        self.info.record(row, info)
        if self.frames and frames:
            row.frames = self._capture()
        return row

    # ----------------------------------------------------------- frames
    def _capture(self) -> list[Future | None]:
        out = self.env.render()
        if isinstance(out, list) and self.batch is None:  # rgb_array_list
            out = out[-1] if out else None
        if out is None:
            frames: list[Any] = [None] * self.k
        elif self.batch is None:
            frames = [out]
        elif isinstance(out, (list, tuple)) or (
            len(_shape(out)) == 4 and _shape(out)[0] == self.batch
        ):
            frames = [out[i] for i in self._indices()]
        else:  # one picture of the whole batch
            frames = [out] * self.k
        if self._pool is None:
            self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="anywrap-frames")
        encode = self.encoder.encode if self.encoder is not None else None
        assert encode is not None
        # A copy: an env may draw its next frame into the same buffer.
        return [
            None if f is None else self._pool.submit(encode, np.array(axp.to_numpy(f)))
            for f in frames
        ]

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
        self.paths.append(self._write(report))

    def _write(self, report: _Report) -> Path:
        d = 0 if self._obs is None else self._obs.width
        a = 0 if self._action is None else self._action.width
        n_info, n_text, k = len(self.info.numbers), len(self.info.texts), self.k
        n = len(report.parts)
        kind = np.full((n, k), STEP, np.int8)
        obs = np.full((n, k, d), np.nan)
        flags = np.full((n, k, 4), np.nan)
        action = np.full((n, k, a), np.nan)
        info = np.full((n, k, n_info), np.nan)
        clock, step = np.zeros(n), np.zeros(n, np.int64)
        text: list[list[list[str | None]]] = [[[None] * n for _ in range(n_text)] for _ in range(k)]
        frames: list[list[bytes | None]] = [[None] * n for _ in range(k)]
        for r, (h, i, as_autoreset) in enumerate(report.parts):
            row = h.rows[i]
            clock[r], step[r] = h.clock[i], h.step[i]
            if as_autoreset or row.autoreset:
                source = h.obs_next[i] if as_autoreset and row.obs_next is not None else h.obs[i]
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
                if row.flags is None:  # a reset
                    m = row.reset_mask
                    kind[r] = RESET if m is None else np.where(m, RESET, HOLD)
                elif self.mode == "NextStep":
                    kind[r] = np.where(h.flags[i, :, 3] > 0, RESET, STEP)
                for c, values in row.text.items():
                    for j in range(k):
                        text[j][c][r] = values[j]
            if row.frames is not None and not as_autoreset:
                for j in range(k):
                    f = row.frames[j]
                    frames[j][r] = None if f is None else f.result()
        tracks = [
            Track(
                index=self._indices()[j],
                kind=kind[:, j],
                obs=obs[:, j],
                action=action[:, j],
                reward=flags[:, j, 0],
                terminated=np.nan_to_num(flags[:, j, 1]) > 0,
                truncated=np.nan_to_num(flags[:, j, 2]) > 0,
                info=info[:, j],
                text=text[j],
                frames=frames[j] if self.frames else None,
            )
            for j in range(k)
        ]
        notes = []
        if self.info.skipped:
            notes.append("info keys not charted: " + ", ".join(sorted(self.info.skipped)))
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


def _first(flag: Any) -> bool:
    """The host value of sub-env 0's flag (a device read where the flags live on a device)."""
    return bool(np.asarray(axp.to_numpy(flag)).reshape(-1)[0])


def _merge_final(obs: Any, final: np.ndarray) -> Any:
    """SAME_STEP on NumPy: ``info["final_obs"]`` is an object array holding the
    last observation of each sub-env that ended (None elsewhere)."""
    from anywrap.tree import tree_map

    out = tree_map(lambda x: np.array(x, copy=True), obs)
    for i, f in enumerate(final):
        if f is None:
            continue
        for (_, dst), (_, src) in zip(flatten_with_paths(out), flatten_with_paths(f)):
            dst[i] = src
    return out
