"""A function of one env's value, applied to each row of a batch.

Example:
    >>> import numpy as np
    >>> from anywrap.transforms.vectorize import map_rows
    >>> map_rows(lambda r: r.sum(), np.arange(6.0).reshape(3, 2), np.zeros(1, np.float32))
    array([1., 5., 9.], dtype=float32)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from anywrap.transforms.dtype_observation import cast
from anywrap.tree import first_leaf, tree_map
from anywrap.xp import is_host, namespace

__all__ = ["map_rows"]


def _stack(*rows: Any) -> Any:
    if is_host(rows[0]):
        return np.stack([np.asarray(r) for r in rows])
    return namespace(rows[0]).stack(rows)


def _cast_like(x: Any, like: Any) -> Any:
    if is_host(like):
        # NumPy rows as NumPy's copyto takes them (rows of a device library: metadata only)
        if is_host(x) and not np.can_cast(x.dtype, like.dtype, "same_kind"):
            raise TypeError(f"the rows come out as {x.dtype}, not {like.dtype}")
        return cast(x, np.dtype(like.dtype).name)
    return x if x.dtype == like.dtype else namespace(x).astype(x, like.dtype)


def map_rows(fn: Callable[[Any], Any], batch: Any, like: Any) -> Any:
    """``fn`` of each row of the tree ``batch``, stacked, each leaf cast to ``like``'s dtype
    (on the host, a TypeError where NumPy's ``same_kind`` rule refuses the cast)."""
    n = first_leaf(batch).shape[0]
    rows = [fn(tree_map(lambda x, i=i: x[i, ...], batch)) for i in range(n)]
    return tree_map(_cast_like, tree_map(_stack, *rows), like)
