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


def jit(like: Any, fn: Callable[..., Any], *, donate: bool = False) -> Callable[..., Any]:
    """``fn`` compiled by the backend of the array ``like`` (see :attr:`Backend.jit`).

    ``donate=True`` lets the compiled program reuse the memory of ``fn``'s
    first argument (:attr:`Backend.jit_donating`): the caller gives that
    argument up and must hold no other reference to its arrays.
    """
    b = backend_of(like)
    if donate and b.jit_donating is not None:
        return b.jit_donating(fn)
    return b.jit(fn)


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

    ``donate=True`` is for a step whose first argument is a state that owns
    its memory (a ring buffer of frames): the program may overwrite it
    (``jax.jit`` with ``donate_argnums=0``), so the caller passes the state
    and keeps only what the step returns.
    """

    __slots__ = ("_by_type", "dispatch_arg", "donate", "fn")

    def __init__(
        self, fn: Callable[..., Any], dispatch_arg: int | None = 0, *, donate: bool = False
    ) -> None:
        self.fn = fn
        self.dispatch_arg = dispatch_arg
        self.donate = donate
        self._by_type: dict[type, Callable[..., Any]] = {}

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if self.dispatch_arg is None:
            like = next(
                (x for x in leaves(args) if x is not None and not is_host(x)),
                first_leaf(args),
            )
        else:
            like = args[self.dispatch_arg]
            f = self._by_type.get(type(like))  # an array met before: no tree to walk
            if f is not None:
                return f(*args, **kwargs)
            like = first_leaf(like)
        f = self._by_type.get(type(like))
        if f is None:
            f = self._by_type[type(like)] = jit(like, self.fn, donate=self.donate)
        return f(*args, **kwargs)
