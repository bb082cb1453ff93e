"""Which info values a report charts (numbers) and shows (strings).

Example:
    >>> from anywrap.record.buffers import Row
    >>> cols = InfoColumns(batch=None, select=None, cap=16)
    >>> row = Row(clock=0.0, step=0, obs=None)
    >>> cols.record(row, {"x_pos": 1.5, "_hidden": 2.0, "stage": "run"})
    >>> cols.labels(cols.numbers), row.info.tolist(), row.text
    (['info.x_pos'], [[1.5]], {0: ['run']})
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from anywrap import xp as axp
from anywrap.record.buffers import Row
from anywrap.record.layout import as_array, is_number, library_of, path_name, pick_rows, shape_of
from anywrap.tree import flatten_with_paths

__all__ = ["InfoColumns"]


class InfoColumns:
    """Which info leaves become charts (numbers) and text (strings), up to ``cap`` each.

    A leaf is a number per (sub-)env: shape ``()`` for one env, ``(N,)`` for
    a vector env. Gymnasium's vector masks (``info["_key"]``) blank the
    sub-envs where a value is absent. Keys that start with ``_``, the
    final observation and info of SAME_STEP, and random seeds (ALE's
    ``info["seeds"]``: identifiers near 2^32, not a time series) are not
    charted.
    """

    SKIP = frozenset(
        {"final_obs", "final_info", "final_observation", "terminal_observation", "seed", "seeds"}
    )

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
            if not is_number(leaf) or shape_of(leaf) != want:
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
                self.skipped.add(path_name("info", path))
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
        xp, dev = library_of(*values, *masks)
        wide = axp.wide_float(xp, dev)
        cols = []
        for v, m in zip(values, masks):
            x = xp.astype(as_array(xp, dev, v), wide, copy=False)
            if m is not None:
                keep = xp.astype(as_array(xp, dev, m), xp.bool, copy=False)
                x = xp.where(keep, x, xp.asarray(math.nan, dtype=wide, device=dev))
            cols.append(xp.reshape(pick_rows(xp, dev, x, self.batch, self.select), (-1,)))
        return xp.stack(cols, axis=-1)

    def labels(self, cols: dict[tuple[Any, ...], int]) -> list[str]:
        """Column labels, in column order."""
        out = [""] * len(cols)
        for path, i in cols.items():
            out[i] = path_name("info", path)
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
