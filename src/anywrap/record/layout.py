"""How one step becomes device rows: a float row per recorded (sub-)env.

:class:`Layout` flattens an observation or action (any tree of arrays, of any
library) into columns; :class:`Flags` packs the reward and done flags. On JAX
each is one compiled call, and the rows stay on the env's device.

Example:
    >>> obs = Layout("obs", np.zeros((3, 2)), batch=3, select=[0, 2], max_dims=64)
    >>> obs.labels, obs.row(np.arange(6.0).reshape(3, 2)).tolist()
    (['obs[0]', 'obs[1]'], [[0.0, 1.0], [4.0, 5.0]])
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
from gymnasium.spaces import GraphInstance

from anywrap import xp as axp
from anywrap.tree import flatten_with_paths, tree_map

__all__ = [
    "Flags",
    "Layout",
    "as_array",
    "is_number",
    "library_of",
    "path_name",
    "pick_rows",
    "select_sub_envs",
    "shape_of",
]


def is_number(x: Any) -> bool:
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


def _whole(node: Any) -> bool:
    """A value charted whole or not at all: a Graph space's (its shapes change each step)."""
    return isinstance(node, GraphInstance)


def shape_of(x: Any) -> tuple[int, ...]:
    return tuple(int(s) for s in getattr(x, "shape", ()))


def path_name(prefix: str, path: tuple[Any, ...]) -> str:
    return prefix + "".join(f".{k}" for k in path)


class LayoutChanged(ValueError):
    """Observations or actions whose shapes differ from those a recorder first saw."""


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
        self.left_out: list[str] = []
        """The leaves not charted: text (a Text space), graphs, anything not numbers."""
        self._parts: list[tuple[bool, int, bool]] = []  # (used, size, summarised)
        self.prefix = prefix
        self.shapes = [shape_of(leaf) for _, leaf in flatten_with_paths(sample, _whole)]
        for path, leaf in flatten_with_paths(sample, _whole):
            shape = shape_of(leaf)
            if not is_number(leaf) or (batch is not None and shape[:1] != (batch,)):
                self._parts.append((False, 0, False))
                self.left_out.append(path_name(prefix, path))
                continue
            per = shape[1:] if batch is not None else shape
            size = math.prod(per)
            name = path_name(prefix, path)
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

    def check(self, tree: Any) -> None:
        """``tree`` must have the leaves' shapes of the first one (a :class:`LayoutChanged`)."""
        shapes = [shape_of(leaf) for _, leaf in flatten_with_paths(tree, _whole)]
        if shapes != self.shapes:
            raise LayoutChanged(
                f"expected {self.prefix} of the shapes {self.shapes} as before, got {shapes}"
            )

    def row(self, tree: Any) -> Any:
        """The ``(rows, width)`` float row of ``tree``, in its library, on its device."""
        self.check(tree)
        return self._compiled(tree, None, None)[0]

    def row_and_final(self, tree: Any, final: Any, done: Any) -> tuple[Any, Any]:
        """``(row of tree with final's leaves where done, row of tree)``, one call.

        For SAME_STEP: ``final`` is ``info["final_obs"]``, the observation the
        action led to, where ``tree`` already holds the next episode's first.
        """
        self.check(tree)
        return self._compiled(tree, final, done)

    def _row(self, tree: Any, final: Any, done: Any) -> tuple[Any, Any]:
        parts = [p for p in self._parts if p[0]]

        def used(t: Any) -> list[Any]:  # text and graphs left out before any array is made
            return [v for (_, v), p in zip(flatten_with_paths(t, _whole), self._parts) if p[0]]

        leaves = used(tree)
        finals = used(final) if final is not None else None
        xp, dev = library_of(*leaves, done)
        wide = axp.wide_float(xp, dev)

        def flat(values: list[Any]) -> Any:
            cols = []
            for x, (_, size, summarised) in zip(values, parts):
                x = self._pick(xp, dev, x)
                x = xp.reshape(xp.astype(x, wide, copy=False), (self.rows, size))
                if summarised:
                    x = xp.stack([xp.mean(x, axis=1), xp.min(x, axis=1), xp.max(x, axis=1)], axis=1)
                cols.append(x)
            if not cols:
                return xp.zeros((self.rows, 0), dtype=wide, device=dev)
            return xp.concat(cols, axis=1)

        xs = [as_array(xp, dev, x) for x in leaves]
        if finals is None:
            return flat(xs), None
        d = as_array(xp, dev, done)
        merged = []
        for x, f in zip(xs, finals):
            mask = xp.reshape(d, (self.batch or 1,) + (1,) * (x.ndim - 1)) if x.ndim else d
            merged.append(xp.where(mask, as_array(xp, dev, f), x))
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


def select_sub_envs(owner: str, sub_envs: int | Sequence[int] | None, num_envs: int) -> list[int]:
    """The sorted, checked sub-env indices a report holds: ``sub_envs`` is a count
    ``k`` (the first ``k``), a sequence or 1-D array of indices, or None (the
    first four).

    Example:
        >>> select_sub_envs("demo", None, 8), select_sub_envs("demo", 2, 8)
        ([0, 1, 2, 3], [0, 1])
        >>> select_sub_envs("demo", [5, 1], 8), select_sub_envs("demo", np.array([6, 3]), 8)
        ([1, 5], [3, 6])
        >>> select_sub_envs("demo", [8], 8)
        Traceback (most recent call last):
        ...
        ValueError: demo: sub_envs must be distinct indices in [0, 8), got [8]
    """
    if sub_envs is None:
        return list(range(min(4, num_envs)))
    if getattr(sub_envs, "ndim", None) == 1:  # an index array, of any library
        sub_envs = np.asarray(axp.to_numpy(sub_envs)).tolist()
    if isinstance(sub_envs, (int, np.integer)) and not isinstance(sub_envs, bool):
        if not 1 <= sub_envs <= num_envs:
            raise ValueError(
                f"{owner}: sub_envs must be between 1 and num_envs={num_envs}, got {sub_envs}"
            )
        return list(range(int(sub_envs)))
    if isinstance(sub_envs, bool) or not isinstance(sub_envs, Sequence):
        raise TypeError(
            f"{owner}: sub_envs must be None, an int or a sequence of ints, got {sub_envs!r}"
        )
    if isinstance(sub_envs, str) or not all(
        isinstance(i, (int, np.integer)) and not isinstance(i, (bool, np.bool_)) for i in sub_envs
    ):
        raise TypeError(f"{owner}: sub_envs must be ints, got {list(sub_envs)!r}")
    picked = [int(i) for i in sub_envs]
    if not picked or len(set(picked)) != len(picked) or not all(0 <= i < num_envs for i in picked):
        raise ValueError(
            f"{owner}: sub_envs must be distinct indices in [0, {num_envs}), got {list(sub_envs)}"
        )
    return sorted(picked)


def library_of(*values: Any) -> tuple[Any, Any]:
    """The namespace and device of the first value that is not on the host."""
    for v in values:
        if v is not None and not axp.is_host(v):
            return axp.namespace(v), axp.device(v)
    return np, "cpu"


def as_array(xp: Any, dev: Any, x: Any) -> Any:
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
        xp, dev = library_of(reward, terminated, truncated, prev)
        wide = axp.wide_float(xp, dev)
        r = as_array(xp, dev, reward)
        t = as_array(xp, dev, terminated)
        u = as_array(xp, dev, truncated)
        done = xp.logical_or(xp.astype(t, xp.bool, copy=False), xp.astype(u, xp.bool, copy=False))
        p = xp.zeros_like(done) if prev is None else as_array(xp, dev, prev)
        cols = [
            xp.astype(pick_rows(xp, dev, v, self.batch, self.select), wide, copy=False)
            for v in (r, t, u, p)
        ]
        return xp.reshape(xp.stack(cols, axis=-1), (-1, 4)), done, xp.reshape(done, (-1,))[:1]


def first_flag(flag: Any) -> bool:
    """The host value of sub-env 0's flag (a device read where the flags live on a device)."""
    return bool(np.asarray(axp.to_numpy(flag)).reshape(-1)[0])


def merge_final(obs: Any, final: np.ndarray) -> Any:
    """SAME_STEP on NumPy: ``obs`` with the rows of ``info["final_obs"]``, an object array
    holding the last observation of each sub-env that ended (None elsewhere)."""
    out = tree_map(lambda x: np.array(x, copy=True), obs)
    for i, f in enumerate(final):
        if f is None:
            continue
        for (_, dst), (_, src) in zip(flatten_with_paths(out), flatten_with_paths(f)):
            dst[i] = src
    return out
