"""StickyAction's transform (Machado et al., 2018): with probability ``p`` the previous
action is repeated, for a number of steps drawn from ``[low, high]``.

Every step draws ``u`` and ``v`` for every env (Gymnasium only when needed): the same
distribution, other draws.

Example:
    >>> import numpy as np
    >>> from anywrap.transforms.sticky_action import init_sticky, sticky_action
    >>> s = init_sticky(np.zeros(2), batch_shape=(), xp=np)
    >>> s, a = sticky_action(s, np.array([1.0, 1.0]), np.array([0.0, 0.0]), p=0.5, low=1, high=1)
    >>> a  # no previous action: nothing to repeat
    array([1., 1.])
    >>> s, a = sticky_action(s, np.array([2.0, 2.0]), np.array([0.1, 0.0]), p=0.5, low=1, high=1)
    >>> a, bool(s.sticky)  # u = 0.1 < p: the last action again, for one step
    (array([1., 1.]), False)
"""

from __future__ import annotations

from types import ModuleType
from typing import Any, NamedTuple

from anywrap.transforms.time_limit import select_rows, zero_rows
from anywrap.tree import tree_map
from anywrap.xp import Array, device, namespace, stop_gradient

__all__ = [
    "StickyKeyed",
    "StickyParams",
    "StickyState",
    "init_sticky",
    "reset_keyed",
    "reset_sticky",
    "sticky_action",
    "sticky_step",
]


class StickyParams(NamedTuple):
    """The probability that a series of repeats starts, and its length range (inclusive)."""

    p: float
    low: int
    high: int


class StickyState(NamedTuple):
    """Per env: the last action, whether it is this episode's, the series and the last flags."""

    last: Any
    has_last: Array
    sticky: Array
    length: Array
    taken: Array
    prev_terminated: Array
    prev_truncated: Array


def init_sticky(
    action: Any, *, batch_shape: tuple[int, ...], xp: ModuleType, device: Any = None
) -> StickyState:
    """No last action yet; ``action`` (one action batch, a tree) gives the shapes."""
    last = tree_map(lambda a: xp.zeros_like(xp.asarray(a, device=device)), action)
    dtypes = (xp.bool, xp.bool, xp.int32, xp.int32, xp.bool, xp.bool)  # has_last ... prev_truncated
    return StickyState(last, *(xp.zeros(batch_shape, dtype=d, device=device) for d in dtypes))


def _forget(state: StickyState, keep: Array) -> StickyState:
    xp = namespace(state.sticky)
    zero = xp.zeros_like(state.length)
    return state._replace(
        has_last=xp.logical_and(state.has_last, keep),
        sticky=xp.logical_and(state.sticky, keep),
        length=xp.where(keep, state.length, zero),
        taken=xp.where(keep, state.taken, zero),
    )


def reset_sticky(state: StickyState, mask: Array | None = None) -> StickyState:
    """Forget the last action of the environments in ``mask`` (all when ``None``)."""
    if mask is not None:
        mask = namespace(state.sticky).asarray(mask, device=device(state.sticky))
    return StickyState(state.last, *zero_rows(mask, *state[1:]))


def sticky_action(
    state: StickyState, action: Any, draws: Array, *, p: float, low: int, high: int
) -> tuple[StickyState, Any]:
    """One step of the state machine; ``draws`` holds ``(u, v)`` on its last axis."""
    xp, dev = namespace(state.sticky), device(state.sticky)
    length, taken = state.length, state.taken
    zero = xp.zeros_like(length)
    draws = xp.asarray(draws, device=dev)
    u, v = draws[..., 0], draws[..., 1]
    repeat = xp.logical_or(state.sticky, xp.logical_and(state.has_last, u < p))
    drawn = xp.minimum(
        xp.astype(xp.floor(v * (high - low + 1)), length.dtype, copy=False) + low, high + zero
    )
    length = xp.where(xp.logical_and(repeat, length == 0), drawn, length)
    taken = xp.where(repeat, taken + 1, taken)

    action = tree_map(lambda a: xp.asarray(a, device=dev), action)
    last = tree_map(lambda b, a: xp.astype(b, a.dtype, copy=False), state.last, action)
    out = select_rows(repeat, last, action)
    over = xp.logical_and(repeat, taken >= length)  # (==, save for a state no run makes)
    new = state._replace(
        last=tree_map(stop_gradient, out),
        has_last=xp.ones_like(state.has_last),
        sticky=xp.logical_and(repeat, xp.logical_not(over)),
        length=xp.where(over, zero, length),
        taken=xp.where(over, zero, taken),
    )
    return new, out


class StickyKeyed(NamedTuple):
    """The state machine and its generator's state (JAX: the key; else a snapshot)."""

    machine: StickyState
    key: Any


def sticky_step(
    state: StickyKeyed,
    generator: Any,
    action: Any,
    *,
    params: StickyParams,
    autoreset: str = "disabled",
) -> tuple[StickyKeyed, Any]:
    """Draw and take one :func:`sticky_action` step: ``(state, action sent)``; ``generator``
    is a stateful generator, or ``None`` for the state's key (JAX)."""
    from anywrap.xp.random import uniform

    machine = state.machine
    xp = namespace(machine.sticky)
    drawn_from = state.key if generator is None else generator
    key, draws = uniform(drawn_from, (*tuple(machine.sticky.shape), 2))
    if autoreset in ("next_step", "same_step"):  # (disabled: no episode ends here)
        keep = xp.logical_not(xp.logical_or(machine.prev_terminated, machine.prev_truncated))
        machine = _forget(machine, keep)
    machine, out = sticky_action(
        machine, action, draws, p=params.p, low=params.low, high=params.high
    )
    if autoreset == "next_step":
        machine = _forget(machine, keep)
    return StickyKeyed(machine, state.key if generator is not None else key), out


def reset_keyed(state: StickyKeyed, mask: Array | None = None) -> StickyKeyed:
    """:func:`reset_sticky` of a shell's state (its generator's state unchanged)."""
    return state._replace(machine=reset_sticky(state.machine, mask))
