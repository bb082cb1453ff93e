"""Structure helpers: apply a leaf function across nested dicts and tuples.

Observations of Dict and Tuple spaces arrive as dicts and tuples of arrays.
A NamedTuple (a transform's state) is a leaf, never a branch.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

__all__ = ["first_leaf", "is_branch", "leaves", "tree_map", "unzip"]


def is_branch(x: Any) -> bool:
    """Dicts, lists and plain tuples are branches; NamedTuples and arrays are leaves."""
    return isinstance(x, (dict, list)) or (isinstance(x, tuple) and not hasattr(x, "_fields"))


def tree_map(fn: Callable[..., Any], tree: Any, *rest: Any) -> Any:
    """``fn`` on each leaf of ``tree`` and the matching leaves of ``rest``."""
    if isinstance(tree, dict):
        return {k: tree_map(fn, v, *(r[k] for r in rest)) for k, v in tree.items()}
    if is_branch(tree):
        return type(tree)(tree_map(fn, v, *(r[i] for r in rest)) for i, v in enumerate(tree))
    return fn(tree, *rest)


def leaves(tree: Any) -> list[Any]:
    """The leaves of ``tree``, depth first, in key order."""
    if isinstance(tree, dict):
        return [leaf for v in tree.values() for leaf in leaves(v)]
    if is_branch(tree):
        return [leaf for v in tree for leaf in leaves(v)]
    return [tree]


def first_leaf(tree: Any) -> Any:
    """The first leaf of ``tree`` (cheaper than ``leaves(tree)[0]``)."""
    while is_branch(tree):
        tree = next(iter(tree.values())) if isinstance(tree, dict) else tree[0]
    return tree


def unzip(tree: Any, like: Any, n: int) -> tuple[Any, ...]:
    """Split ``tree``, shaped like ``like`` but with ``n``-tuples at the leaves,
    into ``n`` trees shaped like ``like``."""
    if isinstance(like, dict):
        parts = {k: unzip(tree[k], v, n) for k, v in like.items()}
        return tuple({k: p[i] for k, p in parts.items()} for i in range(n))
    if is_branch(like):
        seq = [unzip(t, v, n) for t, v in zip(tree, like)]
        return tuple(type(like)(p[i] for p in seq) for i in range(n))
    return tuple(tree)
