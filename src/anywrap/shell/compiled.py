"""How a shell's transforms run: compiled by the xp layer, on a state moved to the data.

Example:
    >>> moved({"n": np.int64(3)}, np.zeros(2))["n"]
    np.int64(3)
    >>> with_no_output(lambda s: s + 1)(1)
    (2, None)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from anywrap import xp
from anywrap.transforms.moments import split_count
from anywrap.tree import tree_map


def moved(state: Any, like: Any) -> Any:
    """Every array of ``state`` in ``like``'s library and on its device; a double-word count
    (``x``, ``x_lo``) split again from its total in its dtype there (float64: all in ``x``)."""
    ns, dev = xp.namespace(like), xp.device(like)

    def move(x: Any) -> Any:
        if xp.namespace(x) is ns and str(xp.device(x)) == str(dev):
            return x
        host = xp.to_numpy(x)
        if ns is np:
            return host
        return ns.asarray(host, dtype=xp.resolve_dtype(ns, host.dtype.name, dev), device=dev)

    def pairs(node: Any) -> list[str]:  # a NamedTuple's fields x with a field x_lo beside
        return [f for f in getattr(node, "_fields", ()) if f + "_lo" in node._fields]

    def words(node: Any) -> Any:  # a leaf, or a NamedTuple of double words: moved, split
        if not pairs(node):
            return move(node)
        out = node._replace(**{f: move(v) for f, v in zip(node._fields, node)})
        for f in [f for f in pairs(node) if getattr(out, f) is not getattr(node, f)]:
            hi, lo = (np.float64(xp.to_numpy(getattr(node, k))) for k in (f, f + "_lo"))
            hi, lo = split_count(np.asarray(hi + lo), xp.to_numpy(getattr(out, f)).dtype)
            out = out._replace(**{f: move(hi), f + "_lo": move(lo)})
        return out

    return tree_map(words, state, is_leaf=lambda n: bool(pairs(n)))


def compiled(
    transforms: dict[Any, Callable[..., Any]], donate: tuple[Any, ...] = ()
) -> dict[Any, xp.Compiled]:
    """A shell's transforms compiled; those in ``donate`` may reuse the state's memory."""
    return {k: xp.Compiled(fn, donate=k in donate) for k, fn in transforms.items()}


class with_no_output:
    """A transform ``state -> state`` as ``state -> (state, None)``, named as ``fn``."""

    def __init__(self, fn: Callable[..., Any]) -> None:
        self.fn, self.__name__ = fn, getattr(fn, "__name__", type(fn).__name__)

    def __call__(self, *args: Any, **kwargs: Any) -> tuple[Any, None]:
        return self.fn(*args, **kwargs), None
