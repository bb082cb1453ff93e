"""Running mean and variance: the parallel (Chan et al.) merge of moments.

State is a :class:`Moments` NamedTuple of arrays (a JAX pytree for free). The
update follows Gymnasium's ``RunningMeanStd`` operation for operation, so on
NumPy the numbers are Gymnasium's:

.. math::

    \\delta = \\bar x_B - \\mu,\\quad n = n_A + n_B,\\quad
    \\mu' = \\mu + \\delta n_B / n,\\quad
    \\sigma'^2 = (\\sigma^2 n_A + \\sigma_B^2 n_B + \\delta^2 n_A n_B / n) / n

with the count starting at ``1e-4`` and the population variance (no Bessel
correction).

The count is held as a double-word float ``count + count_lo`` in the widest
float the backend has (float64, or float32 for JAX without x64): each update
adds the batch size with an error-free two-sum, so the count stays exact to
about 2^48 samples even in float32 (a plain float32 count stops growing at
2^24, and an int32 one overflows at 2^31).

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

import numpy as np

from anywrap.xp import (
    Array,
    all_true,
    astype,
    count_true,
    device,
    fast_path,
    is_floating,
    mean_var,
    namespace,
    result_dtype,
    sum_along,
    sum_rows,
    where,
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
    "total_count",
    "update_moments",
    "update_moments_one",
]

COUNT_EPSILON = 1e-4
"""Gymnasium's initial count: keeps the first merge away from 0 / 0."""


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
    """The statistics dtype Gymnasium ends up with for samples of ``sample_dtype``.

    Gymnasium keeps float32 statistics for float16/float32 samples, but its
    ``np.mean`` promotes float64 and integer samples to float64.
    """
    import numpy as np

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


def add_count(hi: Array, lo: Array, n: Array | int) -> tuple[Array, Array, Array]:
    """Double-word ``(hi, lo) + n`` with Knuth's two-sum; exact for integer ``n``.

    Returns the new words and the new total as one number, to weigh a merge.

    A float64 count is exact to 2^53 samples on its own: it is added plainly,
    which is also Gymnasium's sequence of counts to the bit. In float32 the
    total is ``(hi + n) + lo``, within one rounding of the exact words' sum,
    and taken before the two-sum's chain of dependent scalar operations: a
    compiled merge need not wait for that chain (four kernels on XLA's CPU
    backend) to compute the new mean and variance.
    """
    s = hi + n
    if hi.dtype == _float64_of(hi):
        return s, lo, s + lo
    b = s - hi
    err = (hi - (s - b)) + (n - b)
    lo2 = lo + err
    hi2 = s + lo2
    return hi2, lo2 - (hi2 - s), s + lo


def _float64_of(x: Array) -> Any:
    return namespace(x).float64


def merge_moments(m: Moments, batch_mean: Array, batch_var: Array, batch_count: Any) -> Moments:
    """Merge a batch's mean, population variance and size into ``m`` (Chan's formula).

    ``batch_count`` may be a Python int or a 0-d array; an array count of
    zero leaves ``m`` unchanged.
    """
    if isinstance(batch_count, int) and batch_count == 0:  # a host count: nothing selected
        return m
    xp = namespace(m.mean)
    dtype = m.mean.dtype
    count = astype(total_count(m), dtype)
    if isinstance(batch_count, int):
        n = n_count = batch_count
    else:
        n, n_count = astype(batch_count, dtype), astype(batch_count, m.count.dtype)
    hi, lo, new_total = add_count(m.count, m.count_lo, n_count)
    tot = astype(new_total, dtype)
    # Widening the batch mean first is exact, and is what NumPy's promotion does;
    # doing it explicitly keeps strict Array API libraries happy. The batch's
    # sum of squares stays in the batch's dtype until it meets the statistics,
    # as it does in Gymnasium (a float32 product for a float32 batch).
    if not isinstance(batch_mean, float) and batch_mean.dtype != dtype:
        batch_mean = astype(batch_mean, dtype)
    # The order of operations is Gymnasium's, so that NumPy results agree to the
    # bit. Multiplying by a count of exactly 1 and adding an exact 0.0 change
    # nothing, so those operations are skipped (they are most of a single env's).
    one = isinstance(batch_count, int) and batch_count == 1
    delta = batch_mean - m.mean
    mean = m.mean + (delta if one else delta * n) / tot
    m2 = m.var * count
    if not (isinstance(batch_var, float) and batch_var == 0.0):
        if isinstance(batch_var, float) or batch_var.dtype == dtype:
            m2 = m2 + batch_var * n
        else:
            n_b = (
                batch_count
                if isinstance(batch_count, int)
                else astype(batch_count, batch_var.dtype)
            )
            m2 = m2 + astype(batch_var * n_b, dtype)
    sq = xp.square(delta) * count
    m2 = m2 + (sq if one else sq * n) / tot
    var = m2 / tot
    if not isinstance(batch_count, int):
        # An empty batch moves the mean and count by exactly nothing, but
        # var * n / n can round: keep the old variance to the bit.
        var = where(batch_count > 0, var, m.var)
    return Moments(mean=mean, var=var, count=hi, count_lo=lo)


Reduce = Callable[[Array], Array]
"""Sums an array over every participant of a distributed batch (devices or processes)."""


Batch = Any
"""One batch (an array, rows on axis 0), or a tuple of arrays: parts of one batch."""


def batch_moments(
    x: Batch, mask: Any = None, reduce: Reduce | None = None
) -> tuple[Array, Array, Any]:
    """Mean, population variance and size of the batch ``x`` along axis 0.

    With ``mask`` (bool, shape ``(batch,)``) only the selected rows count. The
    mask never indexes (that would make the shape data-dependent): unselected
    rows are zeroed and the sums divided by the selected count.

    ``x`` may be a tuple of arrays, the parts of one batch (e.g. a vector env's
    observations and its final observations), with ``mask`` a tuple of masks
    (``None`` for all rows): the moments are those of their concatenation,
    computed without building it.

    With ``reduce`` (e.g. ``lambda a: jax.lax.psum(a, "i")``), ``x`` is this
    participant's shard of a larger batch, and the result is the moments of
    the whole batch, the same on every participant: the count and the sum are
    reduced first, then the squared deviations from the global mean.
    """
    if mask is None and reduce is None and not isinstance(x, tuple):
        # One whole batch: the mean_var route (on NumPy, np.mean's and np.var's
        # numbers, so Gymnasium's to the bit), before any tree handling.
        mean, var = mean_var(x)
        return mean, var, x.shape[0]
    parts = x if isinstance(x, tuple) else (x,)
    masks = mask if isinstance(mask, tuple) else (mask,)
    first = parts[0]
    xp = namespace(first)
    if len(parts) == 1 and masks[0] is None and reduce is None:
        mean, var = mean_var(first)
        return mean, var, first.shape[0]
    rows = [
        None if mk is None else xp.reshape(mk, (p.shape[0],) + (1,) * (p.ndim - 1))
        for p, mk in zip(parts, masks)
    ]

    def plus(acc: Any, value: Any) -> Any:
        return value if acc is None else acc + value

    n: Any = None
    total: Any = None
    for p, mk, r in zip(parts, masks, rows):
        if mk is None:
            n = plus(n, p.shape[0])
            total = plus(total, sum_along(p, axis=0))
        else:
            n = plus(n, count_true(mk))
            total = plus(total, sum_rows(p, r))
    if reduce is not None:
        if isinstance(n, int):
            n = xp.asarray(n, dtype=xp.int32, device=device(first))
        n, total = reduce(n), reduce(total)
    denom = astype(xp.maximum(n, 1), first.dtype) if not isinstance(n, int) else max(n, 1)
    mean = total / denom
    sq: Any = None
    for p, r in zip(parts, rows):
        dev = xp.square(p - mean)
        sq = plus(sq, sum_along(dev, axis=0) if r is None else sum_rows(dev, r))
    if reduce is not None:
        sq = reduce(sq)
    return mean, sq / denom, n


def update_moments(
    m: Moments,
    x: Batch,
    mask: Any = None,
    *,
    skip_nonfinite: bool = True,
    reduce: Reduce | None = None,
) -> Moments:
    """Update ``m`` with the batch ``x`` (rows along axis 0), optionally masked.

    Rows with a NaN or infinity are left out when ``skip_nonfinite`` (the
    default): one bad observation must not poison the statistics for the rest
    of training. An update with no selected row leaves ``m`` unchanged.
    ``x`` and ``mask`` may be tuples: the parts of one batch (see
    :func:`batch_moments`). ``reduce`` makes ``x`` one shard of a distributed
    batch.
    """
    if isinstance(x, tuple):
        masks = mask if isinstance(mask, tuple) else (mask,) * len(x)
        xp = namespace(m.mean, x[0])
        parts, kept = [], []
        for p, mk in zip(x, masks):
            p = _widened(xp, p, m.mean.dtype)
            if skip_nonfinite:
                ok = finite_rows(p)
                mk = ok if mk is None else xp.logical_and(mk, ok)
            parts.append(p)
            kept.append(mk)
        return merge_moments(m, *batch_moments(tuple(parts), tuple(kept), reduce))
    xp = namespace(m.mean, x)
    # Like NumPy (and so Gymnasium), the batch's own moments are taken in its
    # own float dtype; only the merge is in the statistics dtype. Integer and
    # half-precision batches are widened first (NumPy also sums float16 in
    # float32: a float16 sum of a few hundred observations overflows).
    x = _widened(xp, x, m.mean.dtype)
    if x.shape[0] == 1 and reduce is None:
        keep = None if mask is None else mask[0]
        return update_moments_one(m, x[0, ...], keep, skip_nonfinite=skip_nonfinite)
    if xp is np and reduce is None:
        merge = _merge_batch_on_host if m.count.dtype == np.float64 else merge_moments
        if mask is None and x.shape[0] and (not skip_nonfinite or np.isfinite(x).all()):
            return merge(m, *batch_moments(x))  # the common update: every row counts
        # Host values: the rows left out are dropped, as Gymnasium drops them
        # (the same moments, with its own arithmetic; no shape to keep static).
        keep = mask
        if skip_nonfinite:
            ok = finite_rows(x)
            keep = ok if keep is None else np.logical_and(keep, ok)
        if keep is not None and not keep.all():
            x = x[keep]
        if not x.shape[0]:
            return m
        return merge(m, *batch_moments(x))
    if mask is None and reduce is None:
        # The NaN guard's masked passes (a row mask, selects) run only where a
        # moment came out non-finite (see fast_path): the common update reads
        # the batch for its two sums and writes nothing.
        merged = merge_moments(m, *batch_moments(x))
        if not skip_nonfinite:
            return merged
        pred = xp.logical_and(all_true(xp.isfinite(merged.mean)), all_true(xp.isfinite(merged.var)))
        return fast_path(pred, merged, _guarded_update, m, x)
    if skip_nonfinite:
        ok = finite_rows(x)
        mask = ok if mask is None else xp.logical_and(mask, ok)
    return merge_moments(m, *batch_moments(x, mask, reduce))


def _guarded_update(m: Moments, x: Array) -> Moments:
    """``m`` updated with the finite rows of ``x`` only (the two-pass masked moments)."""
    return merge_moments(m, *batch_moments(x, finite_rows(x)))


_wide_enough: dict[tuple[int, Any], bool] = {}


def _widened(xp: ModuleType, x: Array, stats_dtype: Any) -> Array:
    """``x`` in the statistics dtype if it is not a float of at least 32 bits."""
    key = (id(xp), x.dtype)
    ok = _wide_enough.get(key)
    if ok is None:
        ok = _wide_enough[key] = is_floating(xp, x.dtype) and xp.finfo(x.dtype).bits >= 32
    return x if ok else astype(x, stats_dtype)


def update_moments_one(
    m: Moments, sample: Array, keep: Array | None = None, *, skip_nonfinite: bool = True
) -> Moments:
    """Update ``m`` with one unbatched sample: its own mean, zero variance.

    ``keep`` (a 0-d bool) leaves the sample out when False, as do non-finite
    entries when ``skip_nonfinite``. Same numbers as :func:`update_moments` on
    a batch of one, with fewer operations (it runs every step of a single env).
    """
    xp = namespace(m.mean, sample)
    if not is_floating(xp, sample.dtype):
        sample = astype(sample, m.mean.dtype)
    if xp is np:  # host values: leave the sample out with a branch, not four selects
        if skip_nonfinite and not np.isfinite(sample).all():
            return m
        if keep is not None and not keep:
            return m
        if m.count.dtype == np.float64:  # the host's count, added plainly
            return _merge_one_on_host(m, sample)
        return merge_moments(m, sample, 0.0, 1)
    if skip_nonfinite:
        ok = xp.isfinite(sample)
        if sample.ndim:
            ok = all_true(ok)
        keep = ok if keep is None else xp.logical_and(keep, ok)
    new = merge_moments(m, sample, 0.0, 1)
    if keep is None:
        return new
    return Moments(*(where(keep, a, b) for a, b in zip(new, m)))  # left out: unchanged


def _merge_one_on_host(m: Moments, sample: Any) -> Moments:
    """``merge_moments(m, sample, 0.0, 1)`` on host values, operation for operation
    (the same roundings, so Gymnasium's numbers to the bit), without the generic
    path's dispatch: it runs at every step of a single env."""
    dtype = m.mean.dtype
    cast = dtype.type
    c, lo = _host_count(m)
    hi = c + 1.0
    count, tot = cast(c + lo), cast(hi + lo)
    if sample.dtype != dtype:
        sample = sample.astype(dtype)
    delta = sample - m.mean
    mean = m.mean + delta / tot
    var = (m.var * count + np.square(delta) * count / tot) / tot
    return Moments(mean=mean, var=var, count=np.float64(hi), count_lo=m.count_lo)


def _host_count(m: Moments) -> tuple[float, float]:
    """The two words of a float64 host count as Python floats: the same IEEE doubles
    (so the same sums, to the bit), added without NumPy's per-call cost."""
    return float(m.count), float(m.count_lo)


def _merge_batch_on_host(m: Moments, batch_mean: Any, batch_var: Any, n: int) -> Moments:
    """``merge_moments(m, batch_mean, batch_var, n)`` on host values with a host count
    (the float64 count of the host: added plainly), operation for operation, without
    the generic path's dispatch: it runs at every step of a vector env."""
    dtype = m.mean.dtype
    cast = dtype.type
    c, lo = _host_count(m)
    hi = c + n
    count, tot = cast(c + lo), cast(hi + lo)
    if batch_mean.dtype != dtype:
        batch_mean = batch_mean.astype(dtype)
    delta = batch_mean - m.mean
    mean = m.mean + delta * n / tot
    m2 = m.var * count
    if batch_var.dtype == dtype:
        m2 = m2 + batch_var * n
    else:
        m2 = m2 + (batch_var * n).astype(dtype)
    m2 = m2 + np.square(delta) * count * n / tot
    return Moments(mean=mean, var=m2 / tot, count=np.float64(hi), count_lo=m.count_lo)


def normalize(m: Moments, x: Array, epsilon: float) -> Array:
    """``(x - mean) / sqrt(var + epsilon)``, in the wider of the two dtypes."""
    xp = namespace(m.mean, x)
    if x.dtype != m.mean.dtype:
        x = astype(x, result_dtype(xp, x.dtype, m.mean.dtype))
    return (x - m.mean) / xp.sqrt(m.var + epsilon)


def finite_rows(x: Array) -> Array:
    """Bool per row of ``x`` (axis 0): every entry of the row is finite."""
    xp = namespace(x)
    ok = xp.isfinite(x)
    if x.ndim > 1:
        ok = all_true(ok if x.ndim == 2 else xp.reshape(ok, (x.shape[0], -1)), axis=1)
    return ok
