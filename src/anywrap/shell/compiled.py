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
from anywrap.tree import tree_map


def moved(state: Any, like: Any) -> Any:
    """Every array of ``state`` in ``like``'s library and on its device."""
    ns, dev = xp.namespace(like), xp.device(like)

    def move(x: Any) -> Any:
        if xp.namespace(x) is ns and str(xp.device(x)) == str(dev):
            return x
        host = xp.to_numpy(x)
        if ns is np:
            return host
        return ns.asarray(host, dtype=xp.resolve_dtype(ns, host.dtype.name, dev), device=dev)

    return tree_map(move, state)


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
