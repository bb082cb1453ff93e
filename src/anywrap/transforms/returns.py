"""Reward scaling by the running variance of the discounted return.

Each step, per environment,

.. math::

    G \\leftarrow \\gamma G (1 - \\text{terminated}) + r, \\qquad
    \\tilde r = r / \\sqrt{\\operatorname{Var}[G] + \\epsilon}

where :math:`\\operatorname{Var}[G]` is the running variance of every ``G``
seen so far (see :mod:`anywrap.transforms.moments`). The mean is not
subtracted: that would change the sign of rewards (OpenAI baselines #538).

Gymnasium's quirks are kept, since they change the numbers:

* ``G`` is reset only by ``terminated``, never by ``truncated``.
* A vector env in NEXT_STEP or DISABLED autoreset mode skips the step that
  follows a done (it is the reset step), and SAME_STEP zeroes ``G`` after a done.
* The vector accumulator is float32 in Gymnasium, the single-env one float64.

Example:
    >>> import numpy as np
    >>> from anywrap.transforms import returns
    >>> s = returns.init_returns((2,), xp=np, acc_dtype=np.float64, stats_dtype=np.float64)
    >>> s = returns.update_returns(s, np.array([1.0, 2.0]), np.array([False, True]), gamma=0.9)
    >>> s.accumulated
    array([1., 2.])
"""

from __future__ import annotations

import math
from types import ModuleType
from typing import Any, NamedTuple

import numpy as np

from anywrap.transforms.moments import (
    Moments,
    Reduce,
    init_moments,
    update_moments,
    update_moments_one,
)
from anywrap.xp import Array, astype, flat, is_floating, namespace, result_dtype, where

__all__ = [
    "Returns",
    "init_returns",
    "normalize_reward",
    "normalize_reward_on_host",
    "reset_returns",
    "scale_reward",
    "update_returns",
]


class Returns(NamedTuple):
    """Discounted-return accumulator and the running moments of its values."""

    accumulated: Array
    """``G`` per environment (shape ``batch_shape``)."""
    rms: Moments
    """Running moments of ``G`` (scalar statistics)."""
    prev_done: Array
    """Whether each environment ended on the previous step (bool)."""


def init_returns(
    batch_shape: tuple[int, ...],
    *,
    xp: ModuleType,
    acc_dtype: Any,
    stats_dtype: Any,
    device: Any = None,
) -> Returns:
    """Zero accumulators, fresh moments, no env done."""
    return Returns(
        accumulated=xp.zeros(batch_shape, dtype=acc_dtype, device=device),
        rms=init_moments((), xp=xp, dtype=stats_dtype, device=device),
        prev_done=xp.zeros(batch_shape, dtype=xp.bool, device=device),
    )


def update_returns(
    state: Returns,
    reward: Array,
    terminated: Array,
    truncated: Array | None = None,
    *,
    gamma: float,
    skip_after_done: bool = False,
    zero_after_done: bool = False,
    update_stats: bool = True,
    reduce: Reduce | None = None,
) -> Returns:
    """Advance ``G`` by one step and fold it into the running moments.

    Args:
        state: The current state.
        reward, terminated, truncated: This step's arrays, shaped like ``G``.
        gamma: The discount factor.
        skip_after_done: Leave out the environments that were done on the
            previous step (the reset step of NEXT_STEP / DISABLED autoreset).
        zero_after_done: Zero ``G`` of the environments done on this step
            (SAME_STEP autoreset: they have already been reset).
        update_stats: Whether the moments learn from this step.
        reduce: Sums over the participants of a distributed batch (devices
            or processes), so that every shard learns the global statistics.

    Non-finite rewards are left out of ``G`` and of the statistics.
    """
    xp = namespace(state.accumulated, reward)
    reward = xp.asarray(reward)
    acc = state.accumulated
    terminated = xp.asarray(terminated)
    # Gymnasium multiplies in the accumulator's dtype, adds in the reward's, and
    # stores in the accumulator's: kept for bit-level parity.
    decayed = where(terminated, 0.0, acc * gamma)
    if reward.dtype != acc.dtype:  # add in the wider dtype (exact casts, as NumPy would)
        wide = result_dtype(xp, reward.dtype, acc.dtype)
        decayed, reward_w = astype(decayed, wide), astype(reward, wide)
        new_acc = astype(decayed + reward_w, acc.dtype)
    else:
        new_acc = decayed + reward
    active = xp.isfinite(reward)
    if skip_after_done:
        active = xp.logical_and(active, xp.logical_not(state.prev_done))
    acc = where(active, new_acc, acc)
    rms = state.rms
    if update_stats and acc.ndim == 0 and reduce is None:  # a single env
        rms = update_moments_one(rms, acc, active, skip_nonfinite=False)
    elif update_stats:
        rms = update_moments(
            rms,
            flat(acc),
            flat(active),
            skip_nonfinite=False,  # `active` already leaves non-finite rewards out
            reduce=reduce,
        )
    done = terminated
    if truncated is not None:
        done = xp.logical_or(done, xp.asarray(truncated))
    if zero_after_done:
        acc = where(done, 0.0, acc)
    return Returns(accumulated=acc, rms=rms, prev_done=done)


def scale_reward(state: Returns, reward: Array, epsilon: float) -> Array:
    """``reward / sqrt(Var[G] + epsilon)``, keeping a float reward's dtype."""
    xp = namespace(state.rms.var, reward)
    reward = xp.asarray(reward)
    var = state.rms.var
    wide = (
        reward
        if reward.dtype == var.dtype
        else astype(reward, result_dtype(xp, reward.dtype, var.dtype))
    )
    scaled = wide / xp.sqrt(var + epsilon)
    if scaled.dtype != reward.dtype and is_floating(xp, reward.dtype):
        scaled = astype(scaled, reward.dtype)
    return scaled


def normalize_reward(
    state: Returns,
    reward: Array,
    terminated: Array,
    truncated: Array | None,
    *,
    gamma: float,
    epsilon: float,
    update: bool = True,
    skip_after_done: bool = False,
    zero_after_done: bool = False,
    reduce: Reduce | None = None,
) -> tuple[Returns, Array]:
    """One step of reward normalisation: :func:`update_returns`, then :func:`scale_reward`."""
    state = update_returns(
        state,
        reward,
        terminated,
        truncated,
        gamma=gamma,
        skip_after_done=skip_after_done,
        zero_after_done=zero_after_done,
        update_stats=update,
        reduce=reduce,
    )
    return state, scale_reward(state, reward, epsilon)


_F64 = np.dtype(np.float64)


def normalize_reward_on_host(
    state: Returns,
    reward: float | np.float64,
    terminated: bool | np.bool_,
    *,
    gamma: float,
    epsilon: float,
    update: bool = True,
) -> tuple[Returns, Any] | None:
    """:func:`normalize_reward` for one env whose state and step are host values,
    in Python floats; ``None`` where the state is not one env's float64 NumPy state.

    A single env on NumPy pays for every array operation in Python's own time
    (about 1 us each, some twenty a step). This takes the same steps in the
    same order on Python floats, which are the same IEEE doubles: the same
    numbers to the bit, at the cost of a few scalar operations. It keeps the
    generic path's types (NumPy float64 scalars, a 0-d ``bool`` array for the
    done flag) and leaves ``count_lo`` as it is (a float64 count is added
    plainly). The caller gives a Python or NumPy float reward and a Python or
    NumPy bool; the test suite runs the generic path over the same steps and
    compares them to the bit.

    Example:
        >>> import numpy as np
        >>> s = init_returns((), xp=np, acc_dtype=np.float64, stats_dtype=np.float64)
        >>> s, scaled = normalize_reward_on_host(s, 2.0, False, gamma=0.9, epsilon=1e-8)
        >>> float(s.accumulated), float(s.rms.mean), round(float(scaled), 6)
        (2.0, 1.9998000199980002, 89.449874)
    """
    acc, m = state.accumulated, state.rms
    if not (  # NumPy values first: nothing below reads a device array
        type(acc) in _HOST_SCALARS
        and type(m.mean) in _HOST_SCALARS
        and type(m.var) in _HOST_SCALARS
        and type(m.count) in _HOST_SCALARS
        and type(m.count_lo) in _HOST_SCALARS
        and acc.dtype == m.mean.dtype == m.var.dtype == m.count.dtype == _F64
        and acc.shape == m.mean.shape == m.var.shape == ()
    ):
        return None
    g = float(acc)
    r = float(reward)
    new = (0.0 if terminated else g * gamma) + r
    active = math.isfinite(r)
    if active:
        g = new
    mean, var = float(m.mean), float(m.var)
    if update and active:  # update_moments_one's merge of one sample, step for step
        c, lo = float(m.count), float(m.count_lo)
        hi = c + 1.0
        count, tot = c + lo, hi + lo
        delta = g - mean
        mean = mean + delta / tot
        var = (var * count + delta * delta * count / tot) / tot
        m = Moments(
            mean=np.float64(mean), var=np.float64(var), count=np.float64(hi), count_lo=m.count_lo
        )
    new_state = Returns(accumulated=np.float64(g), rms=m, prev_done=np.asarray(bool(terminated)))
    d = var + epsilon  # below zero (or NaN) only if a user set such a variance: NumPy's answer
    return new_state, np.float64(r) / (math.sqrt(d) if d >= 0.0 else np.sqrt(np.float64(d)))


_HOST_SCALARS = (np.float64, np.ndarray)


def reset_returns(state: Returns, mask: Array | None = None) -> Returns:
    """Zero ``G`` and forget the previous dones, for the envs in ``mask`` (all if ``None``)."""
    xp = namespace(state.accumulated)
    if mask is None:
        return state._replace(
            accumulated=xp.zeros_like(state.accumulated), prev_done=xp.zeros_like(state.prev_done)
        )
    return state._replace(
        accumulated=where(mask, 0.0, state.accumulated),
        prev_done=where(mask, False, state.prev_done),
    )
