"""Running mean and variance: the parallel (Chan et al.) merge of moments.

State is a :class:`Moments` NamedTuple of arrays (a JAX pytree for free). The
merge follows Gymnasium's ``RunningMeanStd`` operation for operation, so on
NumPy the numbers are Gymnasium's:

.. math::

    \\delta = \\bar x_B - \\mu,\\quad n = n_A + n_B,\\quad
    \\mu' = \\mu + \\delta n_B / n,\\quad
    \\sigma'^2 = (\\sigma^2 n_A + \\sigma_B^2 n_B + \\delta^2 n_A n_B / n) / n

with the count starting at ``1e-4`` and the population variance (no Bessel
correction). This module holds the one implementation of that merge; every
shell, on every library, runs it.

The count is held as a double-word float ``count + count_lo`` in the widest
float the backend has (float64, or float32 for JAX without x64): each update
adds the batch size with an error-free two-sum, so the count stays exact to
about 2^48 samples even in float32 (a plain float32 count stops at 2^24).

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
    """Running moments of a stream of samples of one shape."""

    mean: Array
    """Running mean, in the statistics dtype."""
    var: Array
    """Running population variance, in the statistics dtype."""
    count: Array
    """High word of the sample count (0-d, widest float of the backend)."""
    count_lo: Array
    """Low word of the sample count: ``count + count_lo`` is exact."""


def default_stats_dtype(sample_dtype: Any) -> str:
    """The statistics dtype Gymnasium ends up with for samples of ``sample_dtype``:
    float32 for float16/float32 samples; ``np.mean`` promotes float64 and integer
    samples to float64."""
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
    count_dtype = wide_float(xp, device)
    return Moments(
        mean=xp.zeros(shape, dtype=dtype, device=device),
        var=xp.ones(shape, dtype=dtype, device=device),
        count=xp.asarray(epsilon, dtype=count_dtype, device=device),
        count_lo=xp.zeros((), dtype=count_dtype, device=device),
    )


def total_count(m: Moments) -> Array:
    """The sample count (plus the initial ``epsilon``) as one 0-d array."""
    return m.count + m.count_lo


def split_count(total: Any, dtype: Any) -> tuple[Any, Any]:
    """The double-word form ``(hi, lo)`` in ``dtype`` of a count ``total`` held in a
    wider float: ``hi`` is ``total`` rounded, ``lo`` what the rounding left out, so
    that ``hi + lo`` is ``total`` (exact for whole counts to about 2^48 in float32,
    within 2^-46 of it otherwise). How a float64
    count enters a backend without float64 (JAX without x64).

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
    """Double-word ``(hi, lo) + n`` with Knuth's two-sum; exact for integer ``n``.

    Returns the new words and the new total as one number, to weigh a merge.
    A float64 count is exact to 2^53 on its own and is added plainly (also
    Gymnasium's sequence of counts, to the bit). In float32 the total is
    ``(hi + n) + lo``, within one rounding of the exact sum, taken before the
    two-sum's chain of dependent scalar operations, which a compiled merge then
    need not wait for.
    """
    s = hi + n
    if hi.dtype == namespace(hi).float64:
        return s, lo, s + lo
    b = s - hi
    err = (hi - (s - b)) + (n - b)
    lo2 = lo + err
    hi2 = s + lo2
    return hi2, lo2 - (hi2 - s), s + lo


def merge_moments(m: Moments, batch_mean: Array, batch_var: Any, batch_count: Any) -> Moments:
    """Merge a batch's mean, population variance and size into ``m`` (Chan's formula).

    ``batch_count`` is a Python int or a 0-d array (a count of zero leaves ``m``
    unchanged); ``batch_var`` may be the Python float ``0.0`` (one sample).
    """
    if not isinstance(batch_count, int):
        return _merge_counted(m, batch_mean, batch_var, batch_count)
    if batch_count == 0:  # nothing selected
        return m
    xp = namespace(m.mean)
    dtype = m.mean.dtype
    # Python numbers meet the statistics as NumPy's weak scalars do: cast to their dtype
    # (a NumPy scalar kept as one computes faster than a 0-d array). The order of the
    # operations is Gymnasium's, so that NumPy's results agree to the bit; operations
    # by an exact 1, or additions of an exact 0.0, change no bit and are left out.
    count = m.count + m.count_lo
    if count.dtype != dtype:
        count = xp.asarray(count, dtype=dtype)
    n = constant(m.mean, batch_count)
    hi, lo, tot = add_count(m.count, m.count_lo, constant(m.count, batch_count))
    if tot.dtype != dtype:
        tot = xp.asarray(tot, dtype=dtype)
    if batch_mean.dtype != dtype:  # exact, and what NumPy's promotion does
        batch_mean = xp.asarray(batch_mean, dtype=dtype)
    one = batch_count == 1 and isinstance(batch_var, float)
    delta = batch_mean - m.mean
    mean = m.mean + (delta if one else delta * n) / tot
    m2 = m.var * count
    if not one:  # a float32 batch's product stays float32 until it meets the statistics
        if batch_var.dtype == dtype:
            m2 = m2 + batch_var * n
        else:
            m2 = m2 + xp.asarray(batch_var * batch_count, dtype=dtype)
    sq = delta * delta * count  # np.square's value, to the bit; one ATen call, not four
    var = (m2 + (sq if one else sq * n) / tot) / tot
    return Moments(mean=mean, var=var, count=hi, count_lo=lo)


def _merge_counted(m: Moments, batch_mean: Array, batch_var: Array, batch_count: Array) -> Moments:
    """:func:`merge_moments` for a count held in an array (a masked or distributed batch):
    weighted by the old and new shares of the count, computed in the count's dtype and
    cast once each. A batch of zero rows weighs exactly 0 (the old share exactly 1), so
    that it leaves the statistics as they were without a select."""
    xp = namespace(m.mean)
    dtype = m.mean.dtype
    n = xp.asarray(batch_count, dtype=m.count.dtype)
    hi, lo, tot = add_count(m.count, m.count_lo, n)
    old, new = (m.count + m.count_lo) / tot, n / tot
    if old.dtype != dtype:
        old, new = xp.asarray(old, dtype=dtype), xp.asarray(new, dtype=dtype)
    if batch_mean.dtype != dtype:
        batch_mean = xp.asarray(batch_mean, dtype=dtype)
    delta = batch_mean - m.mean
    step = delta * new
    # Chan's merge over the new count: var_a n_a / n + var_b n_b / n + delta^2 n_a n_b / n^2
    if batch_var.dtype == dtype:
        spread = batch_var * new
    else:  # Gymnasium's var_b * n_b, in a narrower batch's dtype, then widened
        n_b = xp.asarray(batch_count, dtype=batch_var.dtype)
        spread = xp.asarray(batch_var * n_b, dtype=dtype)
        spread = spread / (tot if tot.dtype == dtype else xp.asarray(tot, dtype=dtype))
    var = (m.var + delta * step) * old + spread
    return Moments(mean=m.mean + step, var=var, count=hi, count_lo=lo)


def batch_moments(x: Batch, mask: Any = None, reduce: Reduce | None = None) -> tuple[Any, Any, Any]:
    """Mean, population variance and size of the batch ``x`` along axis 0.

    With ``mask`` (bool, shape ``(batch,)``) only the selected rows count. The
    mask never indexes (the shape would depend on the data): unselected rows
    are zeroed and the sums divided by the selected count.

    ``x`` may be a tuple of arrays, the parts of one batch (a vector env's
    observations and its final observations), with ``mask`` a tuple of masks
    (``None`` for all rows): the moments are those of their concatenation,
    computed without building it.

    With ``reduce`` (e.g. ``lambda a: jax.lax.psum(a, "i")``), ``x`` is this
    participant's shard of a larger batch, and the result is the moments of the
    whole batch, the same on every participant: the count and the sum are
    reduced first, then the squared deviations from the global mean.
    """
    parts = x if isinstance(x, tuple) else (x,)
    masks = mask if isinstance(mask, tuple) else (mask,) * len(parts)
    first = parts[0]
    if len(parts) == 1 and reduce is None:
        mk = masks[0]
        return (*mean_var(first, mk), first.shape[0] if mk is None else count_true(mk))
    xp = namespace(first)
    rows = [
        None if mk is None else xp.reshape(mk, (p.shape[0],) + (1,) * (p.ndim - 1))
        for p, mk in zip(parts, masks)
    ]
    n: Any = 0
    total: Any = 0
    for p, mk, r in zip(parts, masks, rows):
        if mk is None:
            n, total = n + p.shape[0], total + xp.sum(p, axis=0)
        else:
            n, total = n + count_true(mk), total + xp.sum(xp.where(r, p, 0), axis=0)
    if reduce is not None:
        if isinstance(n, int):
            n = xp.asarray(n, dtype=xp.int32, device=device(first))
        n, total = reduce(n), reduce(total)
    # clip, not maximum: array-api-compat's maximum asks torch.result_type of the
    # Python 1, which torch.compile cannot trace
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
    """``m`` updated with the finite rows of ``x`` only (the masked moments)."""
    return merge_moments(m, *batch_moments(x, finite_rows(x)))


# Caches keyed by strings: TorchDynamo, tracing a lookup, compares the keys already
# there, and cannot hash NumPy's dtypes.
_branches: dict[str, bool] = {}


def update_moments(
    m: Moments,
    x: Batch,
    mask: Any = None,
    *,
    batched: bool = True,
    skip_nonfinite: bool = True,
    reduce: Reduce | None = None,
) -> Moments:
    """Update ``m`` with the batch ``x`` (rows along axis 0), optionally masked.

    Rows with a NaN or infinity are left out when ``skip_nonfinite`` (the
    default): one bad observation must not poison the statistics for the rest
    of training. An update with no selected row leaves ``m`` unchanged. ``x``
    and ``mask`` may be tuples, the parts of one batch (see
    :func:`batch_moments`); ``reduce`` makes ``x`` one shard of a distributed
    batch. ``batched=False`` takes ``x`` as one sample, ``mask`` as a 0-d bool.

    The common update (no mask, no reduce) merges the batch's moments at once
    and looks at the result: only where it came out non-finite are the moments
    taken again over the finite rows (:func:`anywrap.xp.cond`: JAX runs that
    branch only when needed, NumPy branches on the host value). A backend whose
    ``cond`` would compute both (PyTorch eagerly) takes the finite rows' moments
    at once: one formula instead of two.
    """
    if isinstance(x, tuple):  # the parts of one batch
        xp = namespace(x[0])
        parts = tuple(_widened(xp, p, m) for p in x)
        return _update_parts(xp, m, parts, mask, skip_nonfinite, reduce)
    if not _wide_enough.get(str(x.dtype), False):
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
        kind = f"{type(x).__module__}.{type(x).__qualname__}"
        lazy = _branches.get(kind)
        if lazy is None:  # once per array type: NumPy's step route is kept short
            lazy = _branches[kind] = branches(x)
        if not lazy:
            return merge_moments(m, *batch_moments(x, finite_rows(x)))
        mean, var = mean_var(x)
        merged = merge_moments(m, mean, var, x.shape[0])
        return cond(all_finite(merged.mean, merged.var), _first, _finite_only, merged, m, x)
    return _update_parts(namespace(x), m, (x,), (mask,), skip_nonfinite, reduce)


def _update_parts(
    xp: ModuleType, m: Moments, parts: tuple[Array, ...], mask: Any, skip: bool, reduce: Any
) -> Moments:
    masks = mask if isinstance(mask, tuple) else (mask,) * len(parts)
    if skip:
        masks = tuple(
            finite_rows(p) if mk is None else xp.logical_and(mk, finite_rows(p))
            for p, mk in zip(parts, masks)
        )
    return merge_moments(m, *batch_moments(parts, masks, reduce))


_wide_enough: dict[str, bool] = {}


def _widened(xp: ModuleType, x: Array, m: Moments) -> Array:
    """``x`` in the statistics dtype if it is not a float of at least 32 bits (NumPy,
    and so Gymnasium, also sums float16 in float32: a float16 sum overflows)."""
    ok = _wide_enough.get(str(x.dtype))
    if ok is None:
        ok = bool(xp.isdtype(x.dtype, "real floating")) and xp.finfo(x.dtype).bits >= 32
        _wide_enough[str(x.dtype)] = ok
    return x if ok else xp.astype(x, m.mean.dtype)


def scale(m: Moments, epsilon: float) -> Array:
    """``sqrt(var + epsilon)``: what :func:`normalize` divides by (Brax's ``std``)."""
    return namespace(m.var).sqrt(m.var + constant(m.var, epsilon))


def normalize(m: Moments, x: Array, epsilon: float, dtype: str | None = None) -> Array:
    """``(x - mean) / sqrt(var + epsilon)``, in the wider of the two dtypes, or cast to
    the dtype named ``dtype``."""
    xp = namespace(x)
    if x.dtype != m.mean.dtype:  # NumPy's promotion, from a host table (no trace breaks)
        x = xp.asarray(x, dtype=promote(xp, x.dtype, m.mean.dtype))
    # scale(m, epsilon), written out: two calls fewer on the NumPy step, whose route is
    # kept short (tests/vector/test_normalize_observation.py counts its calls).
    y = (x - m.mean) / xp.sqrt(m.var + constant(m.var, epsilon))
    if dtype is None or y.dtype == getattr(xp, dtype):
        return y
    return xp.astype(y, getattr(xp, dtype))
