"""Compilation: a pure transform, compiled once per backend that runs it.

Example:
    >>> import numpy as np
    >>> from anywrap.xp import Compiled
    >>> double = Compiled(lambda x: 2 * x)
    >>> double(np.arange(3))  # NumPy has no compiler: the function runs as it is
    array([0, 2, 4])
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from anywrap.tree import first_leaf, leaves
from anywrap.xp.policy import is_host
from anywrap.xp.registry import backend_of

__all__ = ["Compiled", "jit"]


def jit(like: Any, fn: Callable[..., Any]) -> Callable[..., Any]:
    """``fn`` compiled by the backend of the array ``like`` (see :attr:`Backend.jit`)."""
    return backend_of(like).jit(fn)


class Compiled:
    """A pure function, compiled once per array type the first time it meets it.

    ``Compiled(fn, dispatch_arg=i)`` dispatches on the type of the first leaf
    of positional argument ``i``. Stateful shells hold one per transform, so
    that a JAX step through a wrapper is a single dispatch of one compiled
    program (``jax.jit``); backends without a compiler run ``fn`` eagerly.

    ``dispatch_arg=None`` dispatches on the first leaf of any positional
    argument that is not a host value, for functions whose inputs mix a
    device array with Python or NumPy numbers (a JAX observation and a float
    reward): the host values then go in as inputs of the compiled program.
    """

    __slots__ = ("_by_type", "dispatch_arg", "fn")

    def __init__(self, fn: Callable[..., Any], dispatch_arg: int | None = 0) -> None:
        self.fn = fn
        self.dispatch_arg = dispatch_arg
        self._by_type: dict[type, Callable[..., Any]] = {}

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if self.dispatch_arg is None:
            like = next(
                (x for x in leaves(args) if x is not None and not is_host(x)),
                first_leaf(args),
            )
        else:
            like = first_leaf(args[self.dispatch_arg])
        f = self._by_type.get(type(like))
        if f is None:
            f = self._by_type[type(like)] = jit(like, self.fn)
        return f(*args, **kwargs)
