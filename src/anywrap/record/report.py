"""The report itself: host arrays in, one self-contained HTML file out.

Everything here runs on the host, on NumPy arrays, once per report. The
recorders (:class:`anywrap.RecordHTML`, :class:`anywrap.vector.RecordHTML`,
:func:`anywrap.functional.write_report`) fill :class:`Track` objects and call
:func:`write_html`.

The page is one file: the template, uPlot's script and style (vendored, with
its licence), and the data as JSON in a ``<script type="application/json">``
element. Nothing is loaded from anywhere else; a Content-Security-Policy in
the page forbids it, and lets only the page's own scripts (by their SHA-256)
run. Every string that comes from an env (its id, info strings, labels) is
inside that JSON, with ``<``, ``>`` and ``&`` written as ``\\u003c``-style
escapes, and the page shows it with ``textContent``, never as markup.

Example:
    >>> import numpy as np

from anywrap.record.frames import FrameEncoder, check_frame, to_uint8
    >>> track = Track.from_steps(
    ...     index=0,
    ...     obs=np.array([[0.0], [1.0], [3.0]]),
    ...     action=np.array([[np.nan], [0.5], [-0.5]]),
    ...     reward=np.array([np.nan, 1.0, 2.0]),
    ...     terminated=np.array([False, False, True]),
    ...     truncated=np.zeros(3, bool),
    ...     kind=np.array([RESET, STEP, STEP]),
    ... )
    >>> track.returns().tolist(), track.episodes()
    ([0.0, 1.0, 3.0], [{'first': 0, 'last': 2, 'return': 3.0, 'length': 2, 'end': 'terminated'}])
"""

from __future__ import annotations

import base64
import datetime as _dt
import glob
import hashlib
import html
import json
import math
import os
import re
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

__all__ = [
    "HOLD",
    "RESET",
    "STEP",
    "Track",
    "build_report",
    "check_folder",
    "render_html",
    "split_tracks",
    "write_html",
]

FORMAT_VERSION = 1

STEP, RESET, HOLD = 0, 1, 2
"""Row kinds. STEP: the env stepped (action, reward, the obs it led to).
RESET: the (sub-)env started an episode here (an obs, no action or reward; in
NEXT_STEP autoreset this is the step after a done, whose action the env
ignores). HOLD: another sub-env was reset and this one waited (obs only)."""


# ------------------------------------------------------------------ tracks
@dataclass
class Track:
    """What one env (or one sub-env) did over a report's rows, on the host.

    Row ``r`` is one call of ``reset`` or ``step``: ``kind[r]`` is
    :data:`STEP`, :data:`RESET` or :data:`HOLD`. ``obs[r]`` is the observation
    the row ended in (for a step that ended an episode under SAME_STEP
    autoreset, the final observation, not the next episode's first).
    ``action[r]`` and ``reward[r]`` are NaN on rows that are not steps.
    """

    index: int
    kind: np.ndarray
    obs: np.ndarray
    action: np.ndarray
    reward: np.ndarray
    terminated: np.ndarray
    truncated: np.ndarray
    info: np.ndarray = field(default_factory=lambda: np.zeros((0, 0)))
    text: list[list[str | None]] = field(default_factory=list)
    frames: list[bytes | None] | None = None

    @classmethod
    def from_steps(cls, index: int, **arrays: Any) -> Track:
        """A track from arrays with a leading row axis (``obs`` and ``action`` 2-D)."""
        kind = np.asarray(arrays.pop("kind"), dtype=np.int8)
        rows = kind.shape[0]
        obs = np.asarray(arrays.pop("obs"), dtype=np.float64).reshape(rows, -1)
        action = np.asarray(arrays.pop("action"), dtype=np.float64).reshape(rows, -1)
        reward = np.asarray(arrays.pop("reward"), dtype=np.float64).reshape(rows)
        term = np.asarray(arrays.pop("terminated"), dtype=bool).reshape(rows)
        trunc = np.asarray(arrays.pop("truncated"), dtype=bool).reshape(rows)
        info = np.asarray(arrays.pop("info", np.zeros((rows, 0))), dtype=np.float64)
        return cls(index, kind, obs, action, reward, term, trunc, info.reshape(rows, -1), **arrays)

    @property
    def rows(self) -> int:
        """How many rows (reset and step calls) the track holds."""
        return int(self.kind.shape[0])

    def _starts(self) -> np.ndarray:
        """Rows where a new episode's return starts from zero."""
        done = self.terminated | self.truncated
        after_done = np.concatenate([[False], done[:-1] & (self.kind[:-1] == STEP)])
        return (self.kind == RESET) | (after_done & (self.kind == STEP))

    def returns(self) -> np.ndarray:
        """The running return at each row: the sum of rewards since the episode began.

        A report that starts inside an episode counts from its first row.
        """
        # A NaN reward adds nothing; an infinite one stays infinite (the page shows
        # a gap), where nan_to_num would make it 1.8e308.
        reward = np.where((self.kind == STEP) & ~np.isnan(self.reward), self.reward, 0.0)
        out = np.empty(self.rows)
        acc = 0.0
        starts = self._starts()
        with np.errstate(over="ignore", invalid="ignore"):  # inf + -inf: NaN, a gap
            for r in range(self.rows):
                acc = (0.0 if starts[r] else acc) + reward[r]
                out[r] = acc
        return out

    def episodes(self) -> list[dict[str, Any]]:
        """The episodes (or parts of episodes) in the track, in order.

        ``end`` names how each ended: ``"terminated"``, ``"truncated"``, or
        ``"running"`` for one still going when the report stopped.
        """
        out: list[dict[str, Any]] = []
        starts = self._starts()
        ret = self.returns()
        begin: int | None = None
        length = 0
        for r in range(self.rows):
            if starts[r] or begin is None:
                if begin is not None and length:
                    out.append(_episode(begin, r - 1, ret[r - 1], length, "running"))
                begin, length = r, 0
            if self.kind[r] == STEP:
                length += 1
                if self.terminated[r] or self.truncated[r]:
                    end = "terminated" if self.terminated[r] else "truncated"
                    out.append(_episode(begin, r, ret[r], length, end))
                    begin, length = None, 0
        if begin is not None and (length or self.rows - begin > 0):
            out.append(_episode(begin, self.rows - 1, ret[-1], length, "running"))
        return out


def _episode(start: int, end: int, ret: float, length: int, how: str) -> dict[str, Any]:
    return {"first": start, "last": end, "return": float(ret), "length": length, "end": how}


def split_tracks(
    indices: Sequence[int],
    kind: np.ndarray,
    obs: np.ndarray,
    action: np.ndarray,
    reward: np.ndarray,
    terminated: np.ndarray,
    truncated: np.ndarray,
    info: np.ndarray,
    text: Sequence[list[list[str | None]]] | None = None,
    frames: Sequence[list[bytes | None]] | None = None,
) -> list[Track]:
    """One :class:`Track` per (sub-)env from host arrays laid out ``(rows, k, ...)``.

    ``kind``, ``reward``, ``terminated`` and ``truncated`` are ``(rows, k)``
    (a flag is set where it is above zero; NaN is unset), ``obs``, ``action``
    and ``info`` are ``(rows, k, columns)``. ``text`` and ``frames``, if
    given, hold one list per (sub-)env; ``indices`` names the (sub-)envs.

    Example:
        >>> nan = float("nan")
        >>> a, b = split_tracks(
        ...     [0, 2], kind=np.array([[RESET, RESET], [STEP, STEP]]),
        ...     obs=np.zeros((2, 2, 1)), action=np.full((2, 2, 0), nan),
        ...     reward=np.array([[nan, nan], [1.0, 2.0]]),
        ...     terminated=np.array([[nan, nan], [0.0, 1.0]]),
        ...     truncated=np.zeros((2, 2)), info=np.zeros((2, 2, 0)))
        >>> b.index, b.reward.tolist(), b.terminated.tolist(), b.episodes()[0]["end"]
        (2, [nan, 2.0], [False, True], 'terminated')
    """
    return [
        Track(
            index=int(index),
            kind=kind[:, j],
            obs=obs[:, j],
            action=action[:, j],
            reward=reward[:, j],
            terminated=np.nan_to_num(terminated[:, j]) > 0,
            truncated=np.nan_to_num(truncated[:, j]) > 0,
            info=info[:, j],
            text=[] if text is None else text[j],
            frames=None if frames is None else frames[j],
        )
        for j, index in enumerate(indices)
    ]


# ------------------------------------------------------------------ JSON
def _numbers(a: np.ndarray) -> list[float | None]:
    """Floats with 7 significant digits (what a chart shows), None where not finite."""
    a = np.asarray(a, dtype=np.float64)
    out: list[float | None] = []
    for v in a.tolist():
        if v is None or not math.isfinite(v):
            out.append(None)
        else:
            out.append(float(f"{v:.7g}"))
    return out


def _text(x: Any) -> str:
    """Any label or value as a string, for the JSON (escaped at serialisation)."""
    return x if isinstance(x, str) else str(x)


def build_report(
    tracks: Sequence[Track],
    *,
    obs_labels: Sequence[str],
    action_labels: Sequence[str],
    info_labels: Sequence[str] = (),
    text_labels: Sequence[str] = (),
    title: str,
    env_id: str,
    wrappers: Sequence[str] = (),
    seed: Any = None,
    kind: str = "single",
    num_envs: int | None = None,
    autoreset_mode: str | None = None,
    fps: float = 30.0,
    wall_time: float | None = None,
    first_step: int | None = None,
    steps: Sequence[int] | None = None,
    frame_mime: str = "image/webp",
    notes: Sequence[str] = (),
) -> dict[str, Any]:
    """The report as a JSON-ready dict (the page's only input)."""
    from anywrap import __version__

    envs = []
    for t in tracks:
        if t.obs.shape[1] != len(obs_labels) or t.action.shape[1] != len(action_labels):
            raise ValueError(
                f"build_report: track {t.index} has {t.obs.shape[1]} obs and "
                f"{t.action.shape[1]} action columns, but {len(obs_labels)} and "
                f"{len(action_labels)} labels"
            )
        reward = np.where(t.kind == STEP, t.reward, np.nan)
        entry: dict[str, Any] = {
            "index": int(t.index),
            "rows": t.rows,
            "kind": t.kind.astype(int).tolist(),
            "terminated": t.terminated.astype(int).tolist(),
            "truncated": t.truncated.astype(int).tolist(),
            "reward": _numbers(reward),
            "return": _numbers(t.returns()),
            "action": [
                _numbers(np.where(t.kind == STEP, t.action[:, j], np.nan))
                for j in range(t.action.shape[1])
            ],
            "obs": [_numbers(t.obs[:, j]) for j in range(t.obs.shape[1])],
            "info": [_numbers(t.info[:, j]) for j in range(len(info_labels))],
            "text": [[None if s is None else _text(s) for s in col] for col in t.text],
            "episodes": t.episodes(),
            "frames": None
            if t.frames is None
            else [None if f is None else base64.b64encode(f).decode("ascii") for f in t.frames],
        }
        envs.append(entry)
    return {
        "format": "anywrap-report",
        "version": FORMAT_VERSION,
        "title": _text(title),
        "env_id": _text(env_id),
        "wrappers": [_text(w) for w in wrappers],
        "seed": None if seed is None else _text(seed),
        "kind": kind,
        "num_envs": num_envs,
        "autoreset_mode": autoreset_mode,
        "fps": float(fps),
        "wall_time": None if wall_time is None or not math.isfinite(wall_time) else wall_time,
        "first_step": first_step,
        "steps": None if steps is None else [int(s) for s in steps],
        "created": _dt.datetime.now().astimezone().isoformat(timespec="seconds"),
        "anywrap_version": __version__,
        "frame_mime": frame_mime,
        "labels": {
            "obs": [_text(s) for s in obs_labels],
            "action": [_text(s) for s in action_labels],
            "info": [_text(s) for s in info_labels],
            "text": [_text(s) for s in text_labels],
        },
        "notes": [_text(s) for s in notes],
        "envs": envs,
    }


_JSON_ESCAPES = {
    "<": "\\u003c",
    ">": "\\u003e",
    "&": "\\u0026",
    "\u2028": "\\u2028",
    "\u2029": "\\u2029",
}
_JSON_UNSAFE = re.compile("[<>&\u2028\u2029]")


def json_for_html(data: Any) -> str:
    """JSON that is inert inside an HTML ``<script>`` element.

    ``<``, ``>`` and ``&`` (and the two JavaScript line separators) are
    written as ``\\uXXXX`` escapes, so no string can close the element or
    open a comment; ``JSON.parse`` turns them back into the same characters.

    Example:
        >>> json_for_html({"id": "</script><script>alert(1)</script>"})
        '{"id":"\\\\u003c/script\\\\u003e\\\\u003cscript\\\\u003ealert(1)\\\\u003c/script\\\\u003e"}'
    """
    # ASCII only: a lone surrogate (what os.fsdecode gives for a bad file name) is
    # written as its \\u escape instead of failing the UTF-8 write. A number that is
    # not finite (two infinite rewards make an infinite return) is a gap (null).
    text = json.dumps(_finite(data), ensure_ascii=True, allow_nan=False, separators=(",", ":"))
    return _JSON_UNSAFE.sub(lambda m: _JSON_ESCAPES[m.group(0)], text)


def _finite(data: Any) -> Any:
    """``data`` with every float that is not finite replaced by None."""
    if isinstance(data, float):
        return data if math.isfinite(data) else None
    if isinstance(data, dict):
        return {k: _finite(v) for k, v in data.items()}
    if isinstance(data, (list, tuple)):
        return [_finite(v) for v in data]
    return data


# ------------------------------------------------------------------ HTML
_SCRIPT_END = re.compile(r"</script|<!--", re.IGNORECASE)


def _asset(name: str) -> str:
    return resources.files("anywrap.record").joinpath(name).read_text(encoding="utf-8")


def _sha256(text: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode()).digest()).decode() + "'"


def render_html(report: dict[str, Any]) -> str:
    """The whole page for ``report`` (from :func:`build_report`), as one string."""
    template = _asset("template.html")
    uplot_js = _asset("vendor/uPlot.iife.min.js")
    licence = _asset("vendor/LICENSE-uPlot.txt")
    if "*/" in licence or any(_SCRIPT_END.search(s) for s in (uplot_js, licence)):
        raise RuntimeError("the vendored uPlot files cannot be inlined safely")
    app_js = _asset("report.js")
    css = _asset("vendor/uPlot.min.css") + "\n" + _asset("report.css")
    scripts = [f"/*!\n{licence}*/\n{uplot_js}", app_js]
    csp = (
        "default-src 'none'; img-src data:; "
        f"style-src {_sha256(css)}; script-src {' '.join(_sha256(s) for s in scripts)}; "
        "base-uri 'none'; form-action 'none'"
    )
    report = {**report, "uplot_version": _asset("vendor/UPLOT_VERSION").strip()}
    parts = {
        "TITLE": html.escape(f"{report['title']} · {report['env_id']}", quote=True),
        "CSP": html.escape(csp, quote=True),
        "STYLE": css,
        "UPLOT": scripts[0],
        "APP": scripts[1],
        "DATA": json_for_html(report),
    }
    # One pass over the template's own markers: no inserted text is searched again.
    return re.sub(r"@@(TITLE|CSP|STYLE|UPLOT|APP|DATA)@@", lambda m: parts[m.group(1)], template)


def write_html(path: str | os.PathLike[str], report: dict[str, Any]) -> Path:
    """Write the page atomically (a temporary file, then a rename); return its path."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp")
    try:
        tmp.write_text(render_html(report), encoding="utf-8")
        os.replace(tmp, path)
    except BaseException:  # a full disk, a read-only folder: no half file stays behind
        tmp.unlink(missing_ok=True)
        raise
    return path


def check_folder(owner: str, folder: str | os.PathLike[str], prefix: str) -> Path:
    """The reports' folder, absolute; as RecordVideo, an error at once if it is a file, and a
    warning if it holds reports named ``prefix-*.html`` that would be overwritten."""
    if not isinstance(folder, (str, os.PathLike)):
        raise TypeError(
            f"{owner}: expected `report_folder` as a str or os.PathLike, got {folder!r}"
        )
    path = Path(folder).absolute()
    # the path itself, or the nearest part of it that exists (the rest is made at the write)
    there = next((p for p in (path, *path.parents) if p.exists()), path)
    if there.exists() and not there.is_dir():
        raise NotADirectoryError(
            f"{owner}: expected a folder for the reports, got {str(path)!r}, where "
            f"{str(there)!r} is a file"
        )
    if path.is_dir() and any(path.glob(f"{glob.escape(prefix)}-*.html")):
        warnings.warn(
            f"{owner}: overwriting the existing reports in {path} named "
            f"{prefix}-*.html (give another report_folder or name_prefix if this is "
            "not wanted)",
            UserWarning,
            stacklevel=5,
        )
    return path
