"""Running mean and variance: Gymnasium's ``RunningMeanStd`` merge (Chan et al.), on any
library; on NumPy its numbers, to the bit. The count starts at ``1e-4`` and is held as a
double-word float ``count + count_lo`` (exact to about 2^48 samples even in float32).

Example:
    >>> import numpy as np
    >>> from anywrap.transforms import moments
    >>> m = moments.init_moments((2,), xp=np, dtype=np.float64)
    >>> m = moments.update_moments(m, np.array([[1.0, 2.0], [3.0, 6.0]]))
    >>> m.mean.round(3), m.var.round(3)  # the 1e-4 initial count weighs in a little
    (array([2., 4.]), array([1.   , 4.001]))
"""

from __future__ import annotations

from collections.abc import Callable
from types import ModuleType
from typing import Any, NamedTuple

from anywrap.transforms.promotion import promote
from anywrap.xp import (
    Array,
    all_finite,
    branches,
    cond,
    constant,
    count_true,
    device,
    finite_rows,
    mean_var,
    namespace,
    row_moments,
    wide_float,
)

__all__ = [
    "Batch",
    "Moments",
    "Reduce",
    "add_count",
    "batch_moments",
    "default_stats_dtype",
    "init_moments",
    "merge_moments",
    "normalize",
    "scale",
    "split_count",
    "total_count",
    "update_moments",
]

COUNT_EPSILON = 1e-4
"""Gymnasium's initial count: keeps the first merge away from 0 / 0."""

Reduce = Callable[[Array], Array]
"""Sums an array over every participant of a distributed batch (devices or processes)."""

Batch = Any
"""One batch (an array, rows on axis 0), or a tuple of arrays: parts of one batch."""


class Moments(NamedTuple):
    """Running mean and population variance (statistics dtype), and the sample count as
    two 0-d words of the backend's widest float (in float64, the low word is 0)."""

    mean: Array
    var: Array
    count: Array
    count_lo: Array


def default_stats_dtype(sample_dtype: Any) -> str:
    """Gymnasium's statistics dtype for samples of ``sample_dtype`` (float32 for 16- and
    32-bit floats, else float64, as ``np.mean`` promotes)."""
    import numpy as np  # a dtype of any library, read by name

    dt = np.dtype(sample_dtype)
    return "float64" if dt == np.float64 or not np.issubdtype(dt, np.floating) else "float32"


def init_moments(
    shape: tuple[int, ...],
    *,
    xp: ModuleType,
    dtype: Any,
    device: Any = None,
    epsilon: float = COUNT_EPSILON,
) -> Moments:
    """Fresh moments: mean 0, variance 1, count ``epsilon`` (Gymnasium's start)."""
    count = xp.asarray(epsilon, dtype=wide_float(xp, device), device=device)
    return Moments(
        mean=xp.zeros(shape, dtype=dtype, device=device),
        var=xp.ones(shape, dtype=dtype, device=device),
        count=count,
        count_lo=count - count,  # 0 as arithmetic gives it: on NumPy a scalar, cheap to add
    )


def total_count(m: Moments) -> Array:
    """The sample count (plus the initial ``epsilon``) as one 0-d array (float64: ``count``)."""
    return m.count if m.count.dtype == namespace(m.count).float64 else m.count + m.count_lo


def split_count(total: Any, dtype: Any) -> tuple[Any, Any]:
    """A wider count ``total`` as double words ``(hi, lo)`` in ``dtype``: ``hi + lo`` is
    ``total`` (how a float64 count enters JAX without x64).

    Example:
        >>> import numpy as np
        >>> hi, lo = split_count(np.float64(2**31 - 3), np.float32)
        >>> float(hi), float(lo), float(hi) + float(lo) == 2**31 - 3
        (2147483648.0, -3.0, True)
    """
    xp = namespace(total)
    hi = xp.astype(total, dtype)
    return hi, xp.astype(total - xp.astype(hi, total.dtype), dtype)


def add_count(hi: Array, lo: Array, n: Array | int) -> tuple[Array, Array, Array]:
    """Double-word ``(hi, lo) + n`` (Knuth's two-sum; float64 adds plainly, as Gymnasium
    does, its ``lo`` staying 0): the new words and the new total."""
    s = hi + n
    if hi.dtype == namespace(hi).float64:
        return s, lo, s
    b = s - hi
    err = (hi - (s - b)) + (n - b)
    lo2 = lo + err
    hi2 = s + lo2
    return hi2, lo2 - (hi2 - s), s + lo


def merge_moments(m: Moments, batch_mean: Array, batch_var: Any, batch_count: Any) -> Moments:
    """Merge a batch's mean, population variance and size (a Python int or a 0-d array;
    zero leaves ``m`` unchanged) into ``m``; ``batch_var`` may be ``0.0`` (one sample)."""
    xp = namespace(m.mean)
    dtype = m.mean.dtype
    if not isinstance(batch_count, int):  # by the old and new shares (no rows: 0 and 1, no select)
        n = xp.asarray(batch_count, dtype=m.count.dtype)
        hi, lo, tot = add_count(m.count, m.count_lo, n)
        old, new = _in(xp, total_count(m) / tot, dtype), _in(xp, n / tot, dtype)
        delta = _in(xp, batch_mean, dtype) - m.mean
        step = delta * new
        if batch_var.dtype == dtype:
            spread = batch_var * new
        else:  # Gymnasium's var_b * n_b in a narrower batch's dtype
            n_b = xp.asarray(batch_count, dtype=batch_var.dtype)
            spread = xp.asarray(batch_var * n_b, dtype=dtype) / _in(xp, tot, dtype)
        var = (m.var + delta * step) * old + spread
        return Moments(mean=m.mean + step, var=var, count=hi, count_lo=lo)
    if batch_count == 0:  # nothing selected
        return m
    # Gymnasium's operations in its order (NumPy's bits); ones by an exact 1 or 0.0 left out.
    count = _in(xp, total_count(m), dtype)
    n = constant(m.mean, batch_count)
    hi, lo, tot = add_count(m.count, m.count_lo, constant(m.count, batch_count))
    tot, batch_mean = _in(xp, tot, dtype), _in(xp, batch_mean, dtype)
    one = batch_count == 1 and isinstance(batch_var, float)
    delta = batch_mean - m.mean
    mean = m.mean + (delta if one else delta * n) / tot
    m2 = m.var * count
    if not one:  # a narrower batch's var * n stays in its dtype, as in Gymnasium
        if batch_var.dtype == dtype:
            m2 = m2 + batch_var * n
        else:
            m2 = m2 + xp.asarray(batch_var * batch_count, dtype=dtype)
    sq = delta * delta * count  # np.square's bits, one ATen call
    var = (m2 + (sq if one else sq * n) / tot) / tot
    return Moments(mean=mean, var=var, count=hi, count_lo=lo)


def _in(xp: ModuleType, x: Array, dtype: Any) -> Array:
    return x if x.dtype == dtype else xp.asarray(x, dtype=dtype)


def batch_moments(x: Batch, mask: Any = None, reduce: Reduce | None = None) -> tuple[Any, Any, Any]:
    """Mean, population variance and size along axis 0 of the rows of ``x`` that the bool
    ``mask`` ``(batch,)`` selects (all without one); ``x`` and ``mask`` may be tuples: the
    parts of one batch, never concatenated. With ``reduce`` (a sum over participants, e.g.
    ``jax.lax.psum``), ``x`` is one shard and the moments are the whole batch's."""
    parts = x if isinstance(x, tuple) else (x,)
    masks = mask if isinstance(mask, tuple) else (mask,) * len(parts)
    first = parts[0]
    if len(parts) == 1 and reduce is None:
        return row_moments(first, masks[0])
    xp = namespace(first)
    rows = [
        None if mk is None else xp.reshape(mk, (p.shape[0],) + (1,) * (p.ndim - 1))
        for p, mk in zip(parts, masks)
    ]
    n: Any = 0
    total: Any = 0
    for p, mk, r in zip(parts, masks, rows):
        n = n + (p.shape[0] if mk is None else count_true(mk))
        total = total + xp.sum(p if r is None else xp.where(r, p, 0), axis=0)
    if reduce is not None:
        if isinstance(n, int):
            n = xp.asarray(n, dtype=xp.int32, device=device(first))
        n, total = reduce(n), reduce(total)
    # clip, not maximum: torch.compile traces it
    denom = max(n, 1) if isinstance(n, int) else xp.astype(xp.clip(n, 1, None), first.dtype)
    mean = total / denom
    sq: Any = 0
    for p, r in zip(parts, rows):
        dev = xp.square(p - mean)
        sq = sq + xp.sum(dev if r is None else xp.where(r, dev, 0), axis=0)
    if reduce is not None:
        sq = reduce(sq)
    return mean, sq / denom, n


def _first(a: Any, *rest: Any) -> Any:
    return a


def _second(a: Any, b: Any, *rest: Any) -> Any:
    return b


def _finite_only(merged: Moments, m: Moments, x: Array) -> Moments:
    return merge_moments(m, *row_moments(x, None, True))


# Whether cond runs only the branch taken, by array type.
_branches: dict[type, bool] = {}


def update_moments(
    m: Moments,
    x: Batch,
    mask: Any = None,
    *,
    batched: bool = True,
    skip_nonfinite: bool = True,
    reduce: Reduce | None = None,
) -> Moments:
    """Update ``m`` with the rows of ``x`` (axis 0, or one sample unless ``batched``; a
    tuple: the parts of one batch) that the bool ``mask`` ``(batch,)`` selects (a tuple with
    parts, 0-d unbatched), rows with a NaN or infinity left out if ``skip_nonfinite``;
    ``reduce``: a sum over the participants of a distributed batch."""
    if isinstance(x, tuple):  # the parts of one batch
        xp = namespace(x[0])
        parts = tuple(p if p.dtype == m.mean.dtype else _widened(xp, p, m) for p in x)
        return _update_parts(xp, m, parts, mask, skip_nonfinite, reduce)
    if x.dtype != m.mean.dtype:
        x = _widened(namespace(x), x, m)
    if not batched:
        keep = mask
        if skip_nonfinite:
            ok = all_finite(x)
            keep = ok if keep is None else namespace(x).logical_and(keep, ok)
        new = merge_moments(m, x, 0.0, 1)
        return new if keep is None else cond(keep, _first, _second, new, m)
    if mask is None and reduce is None:  # the common update: no namespace needed here
        if not skip_nonfinite:
            mean, var = mean_var(x)
            return merge_moments(m, mean, var, x.shape[0])
        lazy = _branches.get(type(x))
        if lazy is None:
            lazy = _branches[type(x)] = branches(x)
        if not lazy:  # a cond computing both: the finite rows at once
            return merge_moments(m, *row_moments(x, None, True))
        mean, var = mean_var(x)
        merged = merge_moments(m, mean, var, x.shape[0])
        return cond(all_finite(merged.mean, merged.var), _first, _finite_only, merged, m, x)
    return _update_parts(namespace(x), m, (x,), (mask,), skip_nonfinite, reduce)


def _update_parts(
    xp: ModuleType, m: Moments, parts: tuple[Array, ...], mask: Any, skip: bool, reduce: Any
) -> Moments:
    masks = mask if isinstance(mask, tuple) else (mask,) * len(parts)
    if len(parts) == 1 and reduce is None:  # the selection computed once, by the route
        return merge_moments(m, *row_moments(parts[0], masks[0], skip))
    if skip:
        masks = tuple(
            finite_rows(p) if mk is None else xp.logical_and(mk, finite_rows(p))
            for p, mk in zip(parts, masks)
        )
    return merge_moments(m, *batch_moments(parts, masks, reduce))


# By array type, then dtype: a trace reads only its own library's dtypes.
_wide_enough: dict[type, dict[Any, bool]] = {}


def _widened(xp: ModuleType, x: Array, m: Moments) -> Array:
    """``x`` in the statistics dtype unless a float of 32 bits or more (as NumPy sums)."""
    known = _wide_enough.get(type(x))
    ok = None if known is None else known.get(x.dtype)
    if ok is None:
        ok = bool(xp.isdtype(x.dtype, "real floating")) and xp.finfo(x.dtype).bits >= 32
        _wide_enough[type(x)] = {**(known or {}), x.dtype: ok}
    return x if ok else xp.astype(x, m.mean.dtype)


def scale(m: Moments, epsilon: float) -> Array:
    """``sqrt(var + epsilon)``: what :func:`normalize` divides by (Brax's ``std``)."""
    return namespace(m.var).sqrt(m.var + constant(m.var, epsilon))


def normalize(m: Moments, x: Array, epsilon: float, dtype: str | None = None) -> Array:
    """``(x - mean) / sqrt(var + epsilon)`` in NumPy's promoted dtype, or in ``dtype``."""
    xp = namespace(x)
    if x.dtype != m.mean.dtype:
        x = xp.asarray(x, dtype=promote(xp, x.dtype, m.mean.dtype))
    y = (x - m.mean) / scale(m, epsilon)
    return y if dtype is None or y.dtype == getattr(xp, dtype) else xp.astype(y, getattr(xp, dtype))
