"""NormalizeReward's transform: ``G <- gamma G (1 - terminated) + r`` per environment, and
the reward divided by ``sqrt(Var[G] + epsilon)`` (the mean is not subtracted).

Gymnasium's quirks are kept: ``G`` resets only on ``terminated``; a vector env skips
the step after a done (NEXT_STEP / DISABLED) or zeroes ``G`` at once (SAME_STEP); the
vector accumulator is float32, the single-env one float64.

Example:
    >>> import numpy as np
    >>> from anywrap.transforms import normalize_reward as T
    >>> s = T.init_returns((2,), xp=np, acc_dtype=np.float64, stats_dtype=np.float64)
    >>> s = T.update_returns(s, np.array([1.0, 2.0]), np.array([False, True]), gamma=0.9)
    >>> s.accumulated
    array([1., 2.])
"""

from __future__ import annotations

from types import ModuleType
from typing import Any, NamedTuple

from anywrap.transforms.moments import Moments, Reduce, init_moments, scale, update_moments
from anywrap.transforms.promotion import promote
from anywrap.transforms.time_limit import zero_rows
from anywrap.tree import tree_map
from anywrap.xp import Array, constant, finite_rows, namespace, select, stop_gradient

__all__ = [
    "Returns",
    "init_returns",
    "normalize_reward",
    "reset_returns",
    "scale_reward",
    "update_returns",
]


class Returns(NamedTuple):
    """``G`` per environment, the running moments of its values, and the last dones."""

    accumulated: Array
    rms: Moments
    prev_done: Array


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
    stats_gradient: bool = False,
) -> Returns:
    """Advance ``G`` by one step and fold it into the moments (non-finite rewards left out).

    Args:
        skip_after_done: Leave out the envs done on the previous step (NEXT_STEP).
        zero_after_done: Zero ``G`` of the envs done now (SAME_STEP).
        update_stats: Whether the moments learn from this step.
        reduce: A sum over the participants of a distributed batch.
        stats_gradient: Compute ``G`` and its moments from ``reward``'s graph.
    """
    xp = namespace(state.accumulated)
    reward, terminated = _array(xp, reward, state.accumulated), _array(xp, terminated, reward)
    if not stats_gradient:
        reward = stop_gradient(reward)
    acc = state.accumulated
    # Gymnasium multiplies in G's dtype, adds in the wider one and stores in G's.
    decayed = select(terminated, constant(acc, 0.0), acc * constant(acc, gamma))
    if reward.dtype != acc.dtype:
        wide = promote(xp, reward.dtype, acc.dtype)
        new_acc = xp.asarray(
            xp.asarray(decayed, dtype=wide) + xp.asarray(reward, dtype=wide), dtype=acc.dtype
        )
    else:
        new_acc = decayed + reward
    active = finite_rows(reward) if reward.ndim == 1 else xp.isfinite(reward)
    if skip_after_done:
        active = select(state.prev_done, constant(active, False), active)
    acc = select(active, new_acc, acc)
    rms = state.rms
    if update_stats:
        one = acc.ndim == 0 and reduce is None  # a single env
        g, keep = acc, active
        if not one and acc.ndim != 1:
            g, keep = xp.reshape(acc, (-1,)), xp.reshape(active, (-1,))
        rms = update_moments(rms, g, keep, batched=not one, skip_nonfinite=False, reduce=reduce)
    done = terminated
    if truncated is not None:
        truncated = _array(xp, truncated, terminated)
        bools = terminated.dtype == truncated.dtype == xp.bool  # then one kernel: `|`
        done = terminated | truncated if bools else xp.logical_or(terminated, truncated)
    if zero_after_done:
        acc = xp.where(done, 0.0, acc)
    return Returns(accumulated=acc, rms=rms, prev_done=done)


def _array(xp: Any, x: Any, like: Array) -> Array:
    """``x`` as an array of ``xp``: as it is where it has ``like``'s type (no call)."""
    return x if type(x) is type(like) else xp.asarray(x)


def scale_reward(state: Returns, reward: Array, epsilon: float) -> Array:
    """``reward / sqrt(Var[G] + epsilon)``, keeping a float reward's dtype."""
    var = state.rms.var
    xp = namespace(var)
    reward = _array(xp, reward, var)
    wide = reward
    if reward.dtype != var.dtype:
        wide = xp.astype(reward, promote(xp, reward.dtype, var.dtype))
    scaled = wide / scale(state.rms, epsilon)
    if scaled.dtype != reward.dtype and xp.isdtype(reward.dtype, "real floating"):
        scaled = xp.astype(scaled, reward.dtype)
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
    stats_gradient: bool = False,
) -> tuple[Returns, Array]:
    """:func:`update_returns`, then :func:`scale_reward` (the state keeps no gradient)."""
    new = update_returns(
        state,
        reward,
        terminated,
        truncated,
        gamma=gamma,
        skip_after_done=skip_after_done,
        zero_after_done=zero_after_done,
        update_stats=update,
        reduce=reduce,
        stats_gradient=stats_gradient,
    )
    scaled = scale_reward(new, reward, epsilon)
    return (tree_map(stop_gradient, new) if stats_gradient else new), scaled


def reset_returns(state: Returns, mask: Array | None = None) -> Returns:
    """Zero ``G`` and forget the previous dones, for the envs in ``mask`` (all if ``None``)."""
    g, done = zero_rows(mask, state.accumulated, state.prev_done)
    return state._replace(accumulated=g, prev_done=done)
