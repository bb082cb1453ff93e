"""Routed operations: a standard formula that a backend may route to a faster kernel.

A :class:`Route` is called like a function and dispatches on the type of its
first argument. Its default is written once against the Array API; a backend
registers a kernel that computes the same formula faster on its arrays
(NumPy skips a Python wrapper, JAX takes an associative scan or a grouped
sum that XLA's CPU backend runs faster). Register a kernel for every array
type of a backend with :meth:`anywrap.xp.Backend.route`, or for one type
with :meth:`Route.register`.

Example:
    >>> import numpy as np
    >>> from anywrap import xp
    >>> xp.sum_rows(np.array([[1.0, 2.0], [3.0, 4.0]]), np.array([[True], [False]]))
    array([1., 2.])
    >>> xp.last_true_indices(np.array([True, False, True, True, False]), 2)
    array([3, 2])
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from anywrap.tree import tree_map
from anywrap.xp import host
from anywrap.xp.host import astype, where
from anywrap.xp.registry import device, namespace

__all__ = [
    "Route",
    "clip",
    "count_true",
    "cumulative_sum",
    "fast_path",
    "last_true_indices",
    "mean_var",
    "push_front",
    "shifted_mean_var",
    "sum_along",
    "sum_rows",
    "take",
]


class Route:
    """An operation with a generic formula and per-type kernels of the same formula.

    Dispatch is one dict lookup per call (a type's kernel is found through its
    MRO once, then cached), cheap enough for the per-step path.
    """

    __slots__ = ("__dict__", "__weakref__", "_cache", "_kernels", "default")

    def __init__(self, default: Callable[..., Any]) -> None:
        self.default = default
        self.__name__ = default.__name__
        self.__doc__ = default.__doc__
        self.__wrapped__ = default
        self._kernels: dict[type, Callable[..., Any]] = {}
        self._cache: dict[type, Callable[..., Any]] = {}

    def register(self, tp: type) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
        """Decorator: the kernel of this operation for arrays of type ``tp``."""

        def deco(fn: Callable[..., Any]) -> Callable[..., Any]:
            self._kernels[tp] = fn
            self._cache.clear()
            return fn

        return deco

    def kernel(self, tp: type) -> Callable[..., Any]:
        """The kernel that runs for arrays of type ``tp``."""
        fn = self._cache.get(tp)
        if fn is None:
            fn = next((self._kernels[b] for b in tp.__mro__ if b in self._kernels), self.default)
            self._cache[tp] = fn
        return fn

    def __call__(self, x: Any, *args: Any, **kwargs: Any) -> Any:
        fn = self._cache.get(type(x))
        if fn is None:
            fn = self.kernel(type(x))
        return fn(x, *args, **kwargs)

    def __repr__(self) -> str:
        return f"<anywrap.xp.Route {self.__name__}>"


@Route
def sum_along(x: Any, axis: int | None = None) -> Any:
    """``xp.sum(x, axis=axis)``."""
    return namespace(x).sum(x, axis=axis)


@sum_along.register(np.ndarray)
def _sum_along_numpy(x: np.ndarray, axis: int | None = None) -> Any:
    return x.sum(axis=axis)  # np.sum's Python wrapper skipped


@Route
def mean_var(x: Any) -> tuple[Any, Any]:
    """The mean and the population variance of ``x`` along axis 0.

    The generic formula takes two passes: the sum, then the sum of squared
    deviations from the mean (NumPy's ``np.mean`` and ``np.var``, to the bit).
    A kernel may read the batch once instead (PyTorch's ``var_mean``, a Welford
    reduction, or :func:`shifted_mean_var` in a compiled program), the same
    moments to the rounding of the dtype.

    Example:
        >>> import numpy as np
        >>> mean_var(np.array([[1.0, 2.0], [3.0, 6.0]]))
        (array([2., 4.]), array([1., 4.]))
    """
    rows = x.shape[0]
    mean = sum_along(x, axis=0) / rows
    return mean, sum_along(namespace(x).square(x - mean), axis=0) / rows


SHIFT_ROWS = 16
"""How many leading rows :func:`shifted_mean_var` averages for its origin."""


def shifted_mean_var(x: Any, total: Callable[[Any], Any] | None = None) -> tuple[Any, Any]:
    """:func:`mean_var` in one read of ``x``: the sums of the deviations from an
    origin and of their squares, taken together.

    The origin is the mean of the first :data:`SHIFT_ROWS` rows, near the batch's
    mean on the scale of its spread, so the difference of the two terms keeps the
    dtype's precision even for data far from zero (the plain sum of squares
    minus the squared sum would lose it). A compiler fuses the two sums into one
    pass over the batch; ``total`` sums along axis 0 (``sum_along`` by default),
    for a backend to lay the reduction out as its compiler likes best. A NaN or
    infinity anywhere in ``x`` reaches the mean, as in the two-pass formula.

    Example:
        >>> import numpy as np
        >>> mean, var = shifted_mean_var(np.array([[1.0, 2.0], [3.0, 6.0]]))
        >>> mean, var
        (array([2., 4.]), array([1., 4.]))
    """
    xp = namespace(x)
    rows = x.shape[0]
    head = min(rows, SHIFT_ROWS)
    origin = sum_along(x[:head, ...], axis=0) / head
    y = x - origin
    sums = total or (lambda a: sum_along(a, axis=0))
    first, second = sums(y), sums(y * y)
    offset = first / rows
    # Rounding can take a constant column's variance a hair below zero.
    return origin + offset, xp.maximum(second / rows - offset * offset, xp.zeros_like(offset))


@Route
def sum_rows(x: Any, rows: Any) -> Any:
    """Sum over axis 0 of the rows of ``x`` where ``rows`` (broadcastable bool) is True:
    ``sum(where(rows, x, 0), axis=0)``."""
    return sum_along(where(rows, x, 0), axis=0)


@sum_rows.register(np.ndarray)
def _sum_rows_numpy(x: np.ndarray, rows: Any) -> Any:
    if type(rows) is not np.ndarray:
        return sum_rows.default(x, rows)
    # The same sum: NumPy skips the unselected rows (adding their zeros changes
    # no bit) without building the zeroed copy.
    return x.sum(axis=0, where=rows)


@Route
def count_true(mask: Any) -> Any:
    """How many entries of the bool ``mask`` are True: a Python int for host
    values (exact and cheap), a 0-d int32 array for device ones."""
    xp = namespace(mask)
    return sum_along(astype(mask, xp.int32))


@count_true.register(np.ndarray)
def _count_true_numpy(mask: np.ndarray) -> int:
    return int(np.count_nonzero(mask))


@Route
def cumulative_sum(x: Any) -> Any:
    """``xp.cumulative_sum(x)`` of a 1-D array."""
    return namespace(x).cumulative_sum(x)


@Route
def last_true_indices(mask: Any, k: int) -> Any:
    """Indices of the last ``k`` True entries of the 1-D bool ``mask``, last first.

    Where ``mask`` has fewer than ``k`` Trues, the remaining slots hold valid
    indices whose values mean nothing (the caller masks them with the count).
    The shape is always ``(k,)``: no boolean indexing, no host sync. The
    formula is a cumulative sum and a binary search, O(n + k log n).
    """
    xp = namespace(mask)
    n = mask.shape[0]
    seen = cumulative_sum(astype(xp.flip(mask, axis=0), xp.int32))
    j = xp.arange(1, k + 1, dtype=seen.dtype, device=device(mask))
    return n - 1 - xp.clip(xp.searchsorted(seen, j), 0, n - 1)


@last_true_indices.register(np.ndarray)
def _last_true_indices_numpy(mask: np.ndarray, k: int) -> np.ndarray:
    # On the host the Trues can be listed: the same indices, at a tenth of the cost.
    found = np.flatnonzero(mask)[::-1][:k]
    if found.shape[0] < k:  # fewer Trues than slots: pad with a valid index
        found = np.concatenate([found, np.zeros(k - found.shape[0], dtype=found.dtype)])
    return found


@Route
def push_front(buffer: Any, fresh: Any, k: Any) -> Any:
    """A newest-first ``buffer`` with the first ``k`` entries of ``fresh`` (newest
    first) pushed in front, and its oldest ``k`` entries dropped: for each slot
    ``j``, ``fresh[j]`` where ``j < k``, else ``buffer[j - k]``. ``k`` may be a
    0-d array (no host sync); ``fresh`` has the buffer's length.

    Example:
        >>> import numpy as np
        >>> push_front(np.array([3, 2, 1]), np.array([5, 4, 0]), 2)
        array([5, 4, 3])
    """
    xp = namespace(buffer)
    size = buffer.shape[0]
    j = xp.arange(size, device=device(buffer))
    older = xp.take(buffer, xp.clip(j - k, 0, size - 1))
    return where(j < k, astype(fresh, buffer.dtype), older)


@push_front.register(np.ndarray)
def _push_front_numpy(buffer: np.ndarray, fresh: Any, k: Any) -> np.ndarray:
    size = buffer.shape[0]
    k = min(int(k), size)  # a host value; more new entries than slots keep the newest
    if k == 0:
        return buffer
    out = np.empty_like(buffer)
    out[:k] = fresh[:k]
    out[k:] = buffer[: size - k]
    return out


clip = Route(host.clip)
"""``xp.clip(x, low, high)`` (NaN propagates); NumPy's kernel skips ``np.clip``'s wrapper
(:func:`anywrap.xp.host.clip`), and PyTorch's takes ``minimum(maximum(x, low), high)``
where the bounds are tensors of ``x``'s dtype (``torch.clamp`` with tensor bounds costs
twice as much)."""


@Route
def take(x: Any, indices: Any) -> Any:
    """``xp.take(x, indices)`` of a 1-D ``x``."""
    return namespace(x).take(x, indices)


@take.register(np.ndarray)
def _take_numpy(x: np.ndarray, indices: Any) -> Any:
    return x[indices]  # np.take's Python wrapper skipped


@Route
def fast_path(pred: Any, fast: Any, safe: Callable[..., Any], *operands: Any) -> Any:
    """``fast`` where the 0-d bool ``pred`` holds, else ``safe(*operands)``.

    ``fast`` (a tree of arrays, computed already) is a cheaper formula that
    the caller knows gives the same result as ``safe`` whenever ``pred``
    holds, e.g. moments without the NaN guard when no sum came out NaN. The
    generic form computes both and selects, with no host sync; NumPy branches
    on its host value and JAX takes ``lax.cond``, so ``safe`` runs only when
    needed.

    Example:
        >>> import numpy as np
        >>> fast_path(np.True_, np.float64(1.0), lambda x: x + 1.0, np.float64(5.0))
        np.float64(1.0)
        >>> fast_path(np.False_, np.float64(1.0), lambda x: x + 1.0, np.float64(5.0))
        np.float64(6.0)
    """
    slow = safe(*operands)
    return tree_map(lambda a, b: where(pred, a, b), fast, slow)


@fast_path.register(np.bool_)
@fast_path.register(np.ndarray)
@fast_path.register(bool)
def _fast_path_host(pred: Any, fast: Any, safe: Callable[..., Any], *operands: Any) -> Any:
    return fast if pred else safe(*operands)
