"""The one tree walker: **branches** are mappings (rebuilt with their own type where it
can be built from a dict, else as a ``dict``), lists, tuples and NamedTuples; everything
else is a **leaf**. ``is_leaf`` stops a walk early.

Example:
    >>> t = {"pos": 0.5, "vel": (1, 2)}
    >>> leaves(t), [key_path(p) for p, _ in flatten_with_paths(t)]
    ([0.5, 1, 2], ['pos', 'vel.0', 'vel.1'])
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any

__all__ = [
    "Path",
    "Structure",
    "first_leaf",
    "flatten_with_paths",
    "get_at",
    "is_branch",
    "key_path",
    "leaves",
    "tree_map",
    "unflatten",
    "unzip",
]

Path = tuple[Any, ...]
"""Keys from the root to a node (dict keys, NamedTuple field names, sequence indices)."""

IsLeaf = Callable[[Any], bool] | None

_DICT, _MAPPING, _NAMED, _TUPLE, _LIST, _LEAF = range(1, 7)  # all true: ``get(tp) or``
_kinds: dict[type, int] = {dict: _DICT, list: _LIST, tuple: _TUPLE}


def _kind(tp: type) -> int:
    k = _kinds.get(tp)
    if k is None:
        if issubclass(tp, Mapping):
            k = _MAPPING
        elif issubclass(tp, tuple):
            k = _NAMED if hasattr(tp, "_fields") else _TUPLE
        else:
            k = _LIST if issubclass(tp, list) else _LEAF
        _kinds[tp] = k
    return k


def is_branch(x: Any) -> bool:
    """Whether ``x`` is a branch: a mapping, list, tuple or NamedTuple."""
    return _kind(type(x)) != _LEAF


def _children(node: Any, kind: int) -> Iterator[tuple[Any, Any]]:
    if kind in (_DICT, _MAPPING):
        return iter(node.items())
    return zip(node._fields, node) if kind == _NAMED else enumerate(node)


def tree_map(fn: Callable[..., Any], tree: Any, *rest: Any, is_leaf: IsLeaf = None) -> Any:
    """``fn`` on each leaf of ``tree`` and the matching nodes of ``rest`` (trees of its
    structure, which may go deeper: the matching subtree is passed as it is).

    Example:
        >>> tree_map(lambda a, b: a + b, {"x": 1, "y": (2, 3)}, {"x": 10, "y": (20, 30)})
        {'x': 11, 'y': (22, 33)}
    """
    kind = _kinds.get(type(tree)) or _kind(type(tree))
    if kind == _LEAF or (is_leaf is not None and is_leaf(tree)):
        return fn(tree, *rest)
    if kind == _DICT:
        if not rest:
            return {k: tree_map(fn, v, is_leaf=is_leaf) for k, v in tree.items()}
        return {k: tree_map(fn, v, *(r[k] for r in rest), is_leaf=is_leaf) for k, v in tree.items()}
    items = tree.items() if kind == _MAPPING else enumerate(tree)
    values = [tree_map(fn, v, *(r[k] for r in rest), is_leaf=is_leaf) for k, v in items]
    if kind == _MAPPING:
        built = dict(zip(tree.keys(), values))
        try:
            return type(tree)(built)
        except TypeError:  # a mapping that cannot be built from a dict
            return built
    if kind == _NAMED:
        return type(tree)(*values)
    return values if type(tree) is list else type(tree)(values)  # a tuple, a list or a subclass


def leaves(tree: Any, is_leaf: IsLeaf = None) -> list[Any]:
    """The leaves of ``tree``, depth first, in key order."""
    return [leaf for _, leaf in flatten_with_paths(tree, is_leaf)]


def first_leaf(tree: Any) -> Any:
    """The first leaf of ``tree`` (an empty branch is its own first leaf)."""
    while True:
        kind = _kinds.get(type(tree)) or _kind(type(tree))
        if kind == _LEAF or not tree:
            return tree
        tree = next(iter(tree.values())) if kind in (_DICT, _MAPPING) else tree[0]


def flatten_with_paths(tree: Any, is_leaf: IsLeaf = None) -> list[tuple[Path, Any]]:
    """``(path, leaf)`` for each leaf of ``tree``."""
    kind = _kind(type(tree))
    if kind == _LEAF or (is_leaf is not None and is_leaf(tree)):
        return [((), tree)]
    return [
        ((key, *path), leaf)
        for key, child in _children(tree, kind)
        for path, leaf in flatten_with_paths(child, is_leaf)
    ]


def key_path(path: Path) -> str:
    """A path as a dotted string: ``("obs_stats", "a", 0)`` -> ``"obs_stats.a.0"``."""
    return ".".join(str(p) for p in path)


def unflatten(like: Any, values: Iterable[Any], is_leaf: IsLeaf = None) -> Any:
    """A tree shaped like ``like`` holding ``values`` at its leaves (in :func:`leaves` order);
    a ValueError if their numbers differ."""
    values, size = list(values), len(leaves(like, is_leaf))
    if len(values) != size:
        which = "fewer" if len(values) < size else "more"
        raise ValueError(f"unflatten: {which} values than the tree has leaves")
    it = iter(values)
    return tree_map(lambda _: next(it), like, is_leaf=is_leaf)


def unzip(tree: Any, like: Any, n: int, is_leaf: IsLeaf = None) -> tuple[Any, ...]:
    """Split ``tree``, shaped like ``like`` but with ``n``-tuples at its leaves,
    into ``n`` trees shaped like ``like``.

    Example:
        >>> unzip({"a": (1, 2), "b": (3, 4)}, {"a": 0, "b": 0}, 2)
        ({'a': 1, 'b': 3}, {'a': 2, 'b': 4})
    """
    return tuple(tree_map(lambda _, r, i=i: r[i], like, tree, is_leaf=is_leaf) for i in range(n))


def get_at(tree: Any, path: Path) -> Any:
    """The node of ``tree`` at ``path``."""
    for key in path:
        tree = getattr(tree, key) if _kind(type(tree)) == _NAMED else tree[key]
    return tree


class Structure:
    """One tree's branches as two straight-line functions, for a hot path that meets one
    structure again and again: :meth:`leaves` (``None`` where the branches differ; a dict
    matches by its keys) and :meth:`unflatten`. A mapping not a ``dict``: a TypeError.

    Example:
        >>> s = Structure(({"a": 1, "b": (2, 3)}, None))
        >>> s.leaves(({"b": (20, 30), "a": 10}, "x")), s.leaves(({"a": 1}, None))
        ([10, 20, 30, 'x'], None)
        >>> s.unflatten([4, 5, 6, 7])
        ({'a': 4, 'b': (5, 6)}, 7)
    """

    __slots__ = ("key", "leaves", "size", "unflatten")

    def __init__(self, tree: Any) -> None:
        names: dict[str, Any] = {}
        checks: list[str] = []
        out: list[str] = []

        def constant(value: Any) -> str:
            name = f"_c{len(names)}"
            names[name] = value
            return name

        def walk(node: Any, expr: str) -> str:
            """Code checking the node in ``expr``; returns the expression rebuilding it."""
            kind = _kind(type(node))
            if kind == _LEAF:
                out.append(expr)
                return f"v[{len(out) - 1}]"
            if kind == _MAPPING:
                raise TypeError(f"Structure: a {type(node).__name__} is not a dict")
            if expr != "t":  # a branch below the root: read once, into a variable
                var = f"n{len(checks)}"
                checks.append(f"{var} = {expr}")
                expr = var
            tp = constant(type(node))
            if kind == _NAMED:
                test = f"type({expr}) is not {tp}"
            elif kind == _DICT:
                keys = constant(node.keys() | set())
                test = f"type({expr}) is not dict or {expr}.keys() != {keys}"
            else:
                test = f"type({expr}) is not {tp} or len({expr}) != {len(node)}"
            checks.append(f"if {test}: return None")
            parts = [
                walk(child, f"{expr}[{constant(key) if kind == _DICT else i}]")
                for i, (key, child) in enumerate(_children(node, kind))
            ]
            if kind == _DICT:
                return "{" + ", ".join(f"{constant(k)}: {p}" for k, p in zip(node, parts)) + "}"
            items = ", ".join(parts)
            if kind == _NAMED:
                return f"{tp}({items})"
            seq = f"[{items}]" if kind == _LIST else f"({items}{',' if len(parts) == 1 else ''})"
            return seq if type(node) in (list, tuple) else f"{tp}({seq})"

        build = walk(tree, "t")
        body = "\n    ".join([*checks, f"return [{', '.join(out)}]"])
        source = f"def leaves(t):\n    {body}\ndef unflatten(v):\n    return {build}\n"
        # The structure as hashable data: equal for trees of one structure.
        self.key = (source, tuple(frozenset(v) if type(v) is set else v for v in names.values()))
        exec(compile(source, "<anywrap.tree.Structure>", "exec"), names)
        self.leaves: Callable[[Any], list[Any] | None] = names["leaves"]
        self.unflatten: Callable[[Sequence[Any]], Any] = names["unflatten"]
        self.size = len(out)
