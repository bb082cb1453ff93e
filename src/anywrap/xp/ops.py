"""What transforms call on arrays: :func:`namespace`, compilation and the routed
operations (standard formulas a backend may register a faster form of)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from anywrap.tree import first_leaf, leaves, tree_map
from anywrap.xp.core import Array, Route, _backend_of_type, _namespaces, device, is_host, jit


def namespace(*arrays: Any) -> Any:
    """The Array API namespace shared by ``arrays`` (``numpy`` itself for NumPy arrays;
    Python scalars and ``None`` do not vote).

    Raises:
        UnknownArrayTypeError: a type that no backend knows.
        TypeError: arrays of different libraries, or no array at all.
    """
    if len(arrays) == 1:  # the hot path: one array of a type met before
        found = _namespaces.get(type(arrays[0]))
        if found is not None:
            return found
    found = None
    for x in arrays:
        if x is None or type(x) in (float, int, bool):
            continue
        xp = _namespaces.get(type(x))
        if xp is None:
            xp = _namespaces[type(x)] = _backend_of_type(type(x), x).module(x)
        if found is None:
            found = xp
        elif xp is not found:
            raise TypeError(
                f"arrays of different libraries are mixed: {found.__name__} and {xp.__name__}"
            )
    if found is None:
        if arrays:  # only Python scalars (and None)
            return np
        raise TypeError("namespace() needs at least one array")
    return found


class Compiled:
    """A pure function, compiled the first time it meets each array type: that of
    positional argument ``dispatch_arg`` (its first leaf), or with ``None``, of the first
    leaf that is not a host value.

    Example:
        >>> double = Compiled(lambda x: 2 * x)
        >>> double(np.arange(3))  # NumPy has no compiler: the function runs as it is
        array([0, 2, 4])
    """

    __slots__ = ("_by_type", "dispatch_arg", "donate", "fn")

    def __init__(
        self, fn: Callable[..., Any], dispatch_arg: int | None = 0, *, donate: bool = False
    ) -> None:
        self.fn, self.dispatch_arg, self.donate = fn, dispatch_arg, donate
        self._by_type: dict[type, Callable[..., Any]] = {}

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if self.dispatch_arg is None:
            like = next((x for x in leaves(args) if x is not None and not is_host(x)), args[0])
        else:
            like = args[self.dispatch_arg]
        f = self._by_type.get(type(like))
        if f is None:
            leaf = first_leaf(like)
            f = self._by_type.get(type(leaf))
            if f is None:
                f = self._by_type[type(leaf)] = jit(leaf, self.fn, donate=self.donate)
        return f(*args, **kwargs)

    def __getstate__(self) -> dict[str, Any]:  # the programs are compiled again, not pickled
        return {"fn": self.fn, "dispatch_arg": self.dispatch_arg, "donate": self.donate}

    def __setstate__(self, state: dict[str, Any]) -> None:
        Compiled.__init__(self, state["fn"], state["dispatch_arg"], donate=state["donate"])


@Route
def cond(pred: Any, true_fn: Callable[..., Any], false_fn: Callable[..., Any], *operands: Any):
    """``true_fn(*operands)`` where the 0-d bool ``pred`` holds, else ``false_fn(*operands)``
    (the generic form computes both and selects: no host sync).

    Example:
        >>> cond(np.True_, lambda x: x, lambda x: x + 1.0, np.float64(5.0))
        np.float64(5.0)
    """
    a, b = true_fn(*operands), false_fn(*operands)
    return tree_map(lambda x, y: namespace(x).where(pred, x, y), a, b)


@cond.register((bool, np.bool_, np.ndarray))
def _cond_host(pred: Any, true_fn: Callable[..., Any], false_fn: Callable[..., Any], *ops: Any):
    return true_fn(*ops) if pred else false_fn(*ops)


@Route
def branches(x: Array) -> bool:
    """Whether :func:`cond` over arrays like ``x`` runs only the branch taken."""
    return cond.dispatch(type(x)) is not cond.dispatch(object)


@Route
def mean_var(x: Array, mask: Array | None = None) -> tuple[Array, Array]:
    """The mean and population variance along axis 0 of the rows of ``x`` where the
    bool ``mask`` (shape ``(batch,)``) holds, of every row without one.

    Example:
        >>> mean_var(np.array([[1.0, 2.0], [3.0, 6.0]]))
        (array([2., 4.]), array([1., 4.]))
    """
    xp = namespace(x)
    if mask is None:
        return xp.mean(x, axis=0), xp.var(x, axis=0)
    rows = xp.reshape(mask, (x.shape[0],) + (1,) * (x.ndim - 1))
    n = xp.astype(xp.maximum(xp.sum(xp.astype(mask, xp.int32)), 1), x.dtype)
    mean = xp.sum(xp.where(rows, x, 0), axis=0) / n
    return mean, xp.sum(xp.where(rows, xp.square(x - mean), 0), axis=0) / n


@mean_var.register(np.ndarray)
def _mean_var_numpy(x: np.ndarray, mask: Any = None) -> tuple[Any, Any]:
    # A row with a NaN or infinity, which the statistics leave out, must not make NumPy warn.
    if mask is not None:
        x = x[np.asarray(mask)]
        if not x.shape[0]:  # nothing selected: a merge of 0 rows ignores the moments
            return np.zeros(x.shape[1:], x.dtype), np.zeros(x.shape[1:], x.dtype)
    with np.errstate(invalid="ignore", over="ignore"):
        if x.dtype.kind != "f" or x.dtype.itemsize < 4 or x.shape[0] > 1 << 24:
            return np.mean(x, axis=0), np.var(x, axis=0)
        # np.var's own ufunc calls in its order, without its Python wrappers (its sum
        # over the count is np.mean's too); the quotient rounds once, as NumPy's does.
        n = x.shape[0]
        mean = np.add.reduce(x, axis=0, keepdims=True) / n
        dev = x - mean
        np.square(dev, out=dev)
        var = np.add.reduce(dev, axis=0) / n
    return mean[0], var


@Route
def row_moments(x: Array, mask: Array | None = None, finite: bool = False) -> tuple[Any, ...]:
    """:func:`mean_var` of the rows of ``x`` that ``mask`` selects and, with ``finite``,
    that hold no NaN or infinity, and their count (``x.shape[0]`` when every row counts).

    Example:
        >>> row_moments(np.array([[1.0, 2.0], [np.nan, 0.0], [3.0, 6.0]]), finite=True)
        (array([2., 4.]), array([1., 4.]), 2)
    """
    if finite:
        ok = finite_rows(x)
        mask = ok if mask is None else namespace(x).logical_and(mask, ok)
    return (*mean_var(x), x.shape[0]) if mask is None else (*mean_var(x, mask), count_true(mask))


@Route
def all_finite(x: Array, *more: Array) -> Any:
    """Whether every entry of every array is finite: a 0-d bool (NumPy: a host bool).

    Example:
        >>> bool(all_finite(np.ones(3), np.array([1.0, np.inf])))
        False
    """
    xp = namespace(x)
    ok = xp.all(xp.isfinite(x))
    for y in more:
        ok = xp.logical_and(ok, xp.all(xp.isfinite(y)))
    return ok


@all_finite.register((np.ndarray, np.generic))
def _all_finite_numpy(x: Any, *more: Any) -> Any:
    # A count of the finite entries: .all() and np.all go through Python wrappers.
    ok = np.count_nonzero(np.isfinite(x)) == x.size
    for y in more:
        ok = ok and np.count_nonzero(np.isfinite(y)) == y.size
    return ok


@Route
def finite_rows(x: Array) -> Array:
    """Bool per row of ``x`` (axis 0): every entry of the row is finite.

    Example:
        >>> finite_rows(np.array([[1.0, 2.0], [np.nan, 0.0]]))
        array([ True, False])
    """
    xp = namespace(x)
    ok = xp.isfinite(x)
    if x.ndim > 1:
        ok = xp.all(xp.reshape(ok, (x.shape[0], -1)), axis=1)
    return ok


_KINDS: dict[Any, str] = {}


@Route
def dtype_kind(x: Any) -> str:
    """``"bool"``, ``"real"`` (integer or real floating) or ``""`` (anything else, or no
    array) for ``x``'s dtype, looked up once per dtype.

    Example:
        >>> [dtype_kind(np.zeros(1, t)) for t in (bool, np.uint8, np.float16, complex, object)]
        ['bool', 'real', 'real', '', '']
    """
    dtype = getattr(x, "dtype", None)
    kind = _KINDS.get(dtype)
    if kind is None:
        try:
            isdtype = namespace(x).isdtype
            real = isdtype(dtype, ("integral", "real floating"))
            kind = "bool" if isdtype(dtype, "bool") else "real" if real else ""
        except Exception:  # no array of a known library
            return ""
        _KINDS[dtype] = kind
    return kind


@Route
def count_true(mask: Array) -> Any:
    """How many entries of the bool ``mask`` are True: a 0-d integer array (NumPy: an int)."""
    xp = namespace(mask)
    return xp.sum(xp.astype(mask, xp.int32))


count_true.register(np.ndarray)(lambda mask: int(np.count_nonzero(mask)))


@Route
def last_true_indices(mask: Array, k: int) -> Array:
    """Indices of the last ``k`` True entries of the 1-D bool ``mask``, last first; shape
    ``(k,)``, where slots past the Trues' count hold valid but meaningless indices.

    Example:
        >>> last_true_indices(np.array([True, False, True, True, False]), 2)
        array([3, 2])
    """
    xp = namespace(mask)
    n = mask.shape[0]
    seen = xp.cumulative_sum(xp.astype(xp.flip(mask, axis=0), xp.int32))
    j = xp.arange(1, k + 1, dtype=seen.dtype, device=device(mask))
    return n - 1 - xp.clip(xp.searchsorted(seen, j), 0, n - 1)


@last_true_indices.register(np.ndarray)
def _last_true_indices_numpy(mask: np.ndarray, k: int) -> np.ndarray:
    found = np.flatnonzero(mask)[::-1][:k]
    return np.concatenate([found, np.zeros(k - found.shape[0], dtype=found.dtype)])


@Route
def push_front(buffer: Any, fresh: Any, k: Any) -> Any:
    """A newest-first ``buffer`` with ``fresh[j]`` in slot ``j < k`` and ``buffer[j - k]``
    elsewhere (``k`` may be a 0-d array). ``buffer`` and ``fresh`` may be tuples of arrays.

    Example:
        >>> push_front(np.array([3, 2, 1]), np.array([5, 4, 0]), 2)
        array([5, 4, 3])
    """
    many = isinstance(buffer, tuple)
    buffers, new = (buffer, fresh) if many else ((buffer,), (fresh,))
    first = buffers[0]
    xp = namespace(first)
    size = first.shape[0]
    j = xp.arange(size, device=device(first))
    older = xp.clip(j - k, 0, size - 1)
    front = j < k
    out = tuple(
        xp.where(front, f if f.dtype == b.dtype else xp.astype(f, b.dtype), take(b, older))
        for b, f in zip(buffers, new)
    )
    return out if many else out[0]


@Route
def push_true(mask: Array, buffers: tuple[Array, ...], values: tuple[Array, ...], count: Any):
    """Newest-first ``buffers`` (1-D, one length) with ``values[i]`` pushed in front for
    each True ``i`` of the 1-D bool ``mask``, the highest ``i`` first; ``count`` is how
    many Trues ``mask`` holds (one route, which a backend may make one kernel).

    Example:
        >>> push_true(np.array([True, False, True]), (np.array([7, 8]),), (np.arange(3),), 2)
        (array([2, 0]),)
    """
    order = last_true_indices(mask, buffers[0].shape[0])
    return push_front(tuple(buffers), tuple(take(v, order) for v in values), count)


@push_true.register(np.ndarray)
def _push_true_numpy(mask: np.ndarray, buffers: Any, values: Any, count: Any) -> Any:
    # The Trues' values, newest first, then the buffer's first slots that stay.
    size = buffers[0].shape[0]
    order = mask.nonzero()[0][::-1][:size]
    kept = size - order.shape[0]
    return tuple(
        np.concatenate((v[order].astype(b.dtype), b[:kept])) for b, v in zip(buffers, values)
    )


@Route
def select(condition: Array, x1: Any, x2: Any) -> Array:
    """``xp.where(condition, x1, x2)``, where an operand may be a :func:`constant`."""
    return namespace(condition).where(condition, x1, x2)


# np.where's scalar type by the operands' types, where those fix it (NumPy scalars and
# Python numbers, the latter weak: NEP 50).
_scalar_results: dict[tuple[type, type], type] = {}


@select.register((np.ndarray, np.generic))
def _select_numpy(condition: Any, x1: Any, x2: Any) -> Any:
    # A 0-d choice of 0-d values (one env): the value chosen, as a NumPy scalar of
    # where's dtype (its arithmetic skips the array machinery).
    kinds = (type(x1), type(x2))
    result = _scalar_results.get(kinds)
    if result is not None and not condition.ndim:
        return result(x1 if condition else x2)
    if getattr(x1, "ndim", 0) or getattr(x2, "ndim", 0) or condition.ndim:
        return np.where(condition, x1, x2)
    result = np.result_type(x1, x2).type
    if np.ndarray not in kinds:
        _scalar_results[kinds] = result
    return result(x1 if condition else x2)


@Route
def round_decimals(x: Array, decimals: int) -> Array:
    """``x`` rounded half to even at ``decimals`` places, as ``np.round`` computes it:
    ``round(x * 10**decimals) / 10**decimals``.

    Example:
        >>> round_decimals(np.array([0.1234565, 2.5e-7]), 6).tolist()
        [0.123456, 0.0]
    """
    scale = constant(x, 10.0**decimals)
    return namespace(x).round(x * scale) / scale


@round_decimals.register((np.ndarray, np.generic))
def _round_decimals_numpy(x: Any, decimals: int) -> Any:
    scale = 10.0**decimals
    return np.rint(x * scale) / scale


@Route
def take(x: Array, indices: Array) -> Array:
    """``xp.take(x, indices, axis=0)`` for ``indices`` known to be in range."""
    return namespace(x).take(x, indices, axis=0)


@Route
def clip(x: Array, low: Any, high: Any) -> Array:
    """``xp.clip(x, low, high)`` (NaN propagates)."""
    return namespace(x).clip(x, low, high)


@clip.register((np.ndarray, np.generic))
def _clip_numpy(x: Any, low: Any, high: Any) -> Any:
    if low is not None:
        x = np.maximum(x, low)
    return x if high is None else np.minimum(x, high)


def constant(like: Array, value: Any) -> Any:
    """``value`` (a Python number, or a tuple of them) as the cheapest operand beside the
    array ``like`` with the number's result: the value itself, or on PyTorch a cached tensor.
    A backend registers with ``constant.register(ArrayType)``.

    Example:
        >>> constant(np.zeros(2, np.float32), 0.5)
        0.5
    """
    return value if type(like) in _HOST_KINDS else _constant(like, value)


# A tuple: TorchDynamo before PyTorch 2.8 traces no frozenset lookup.
_HOST_KINDS = (np.ndarray, np.float64, np.float32, np.int64, np.int32, float, int)


@Route
def _constant(like: Array, value: Any) -> Any:
    return value


constant.register = _constant.register  # type: ignore[attr-defined]


@Route
def stop_gradient(x: Array) -> Array:
    """``x``'s values, cut from the autodiff graph (``detach``); ``x`` itself where there
    is no graph (NumPy, or an array that carries no gradient).

    Example:
        >>> stop_gradient(np.ones(2))
        array([1., 1.])
    """
    # The Route loaded x's backend before it dispatched here, so no route of a graph is due.
    namespace(x)  # an array type that no library knows fails loudly
    return x


# A C function that returns an ndarray itself: the NumPy step pays no Python call.
stop_gradient.register(np.ndarray)(np.asanyarray)
