"""What the ``StickyAction`` shells share: checks, the first state and the random stream.

Example:
    >>> check_sticky("demo", 0.25, (1, 3))
    StickyParams(p=0.25, low=1, high=3)
"""

from __future__ import annotations

import contextlib
import math
import numbers
from collections.abc import Iterator
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium.error import InvalidBound, InvalidProbability

from anywrap import xp as axp
from anywrap.shell.checks import real_number
from anywrap.shell.compiled import moved
from anywrap.shell.noise import entropy
from anywrap.transforms.sticky_action import StickyKeyed, StickyParams, init_sticky
from anywrap.tree import tree_map
from anywrap.xp import random


def check_sticky(owner: str, probability: Any, duration: Any) -> StickyParams:
    """Gymnasium's checks on the arguments; the state machine's parameters."""
    p = math.nan  # Gymnasium compares the value: NumPy scalars and 0-d arrays pass there too
    with contextlib.suppress(TypeError):
        p = real_number(owner, "repeat_action_probability", probability)
    if not 0 <= p < 1:
        raise InvalidProbability(
            f"{owner}: `repeat_action_probability` should be in [0, 1), got {probability!r}"
        )
    whole = isinstance(duration, numbers.Integral) and not isinstance(duration, bool)
    bounds = (duration, duration) if whole else duration
    if not isinstance(bounds, tuple):
        raise ValueError(
            f"{owner}: `repeat_action_duration` should be an int or a tuple, got {duration!r}"
        )
    if len(bounds) != 2 or not all(
        isinstance(b, numbers.Integral) and not isinstance(b, bool) for b in bounds
    ):
        raise ValueError(
            f"{owner}: `repeat_action_duration` should be a tuple of two ints, got {duration!r}"
        )
    if bounds[0] > bounds[1]:
        raise InvalidBound(f"{owner}: `repeat_action_duration` is not a valid range: {duration!r}")
    if bounds[0] < 1:
        raise ValueError(f"{owner}: `repeat_action_duration` should be >= 1, got {duration!r}")
    return StickyParams(p, int(bounds[0]), int(bounds[1]))


def sample_action(owner: str, space: gym.Space, batch: tuple[int, ...]) -> Any:
    if isinstance(space, gym.spaces.Dict):
        return {k: sample_action(owner, s, batch) for k, s in space.spaces.items()}
    if isinstance(space, gym.spaces.Tuple):
        return tuple(sample_action(owner, s, batch) for s in space.spaces)
    if space.shape is None or space.dtype is None:
        raise TypeError(f"{owner}: expected an action space of arrays, got {space}")
    return np.zeros((*batch, *space.shape), dtype=space.dtype)


def init_keyed(owner: str, space: gym.Space, batch: tuple[int, ...]) -> StickyKeyed:
    """A shell's first state, on NumPy, with a placeholder key (``reset`` seeds it)."""
    machine = init_sticky(sample_action(owner, space, batch), batch_shape=batch, xp=np)
    placeholder = random.key_data(random.new_key(np.zeros(()), entropy()))
    return StickyKeyed(machine, placeholder)


class StickyStream:
    """The wrapper's random stream, apart from the env's: ``reset(seed=s)`` starts
    ``derive_seed(s, "StickyAction")``, ``reset()`` continues it. Saved in the state."""

    def __init__(self, owner: str) -> None:
        self.owner = owner
        self.live: Any = None  # a stateful generator; None where the state's key is one (JAX)
        self.live_for: Any = None  # the state's key that ``live`` was made from or saved into
        self.home: tuple[str, str] | None = None  # its library and device
        self.pure = False  # whether the key is a plain array that the step replaces (JAX)

    def reseed(self, shell: Any, seed: int | None) -> None:
        """After a reset: restart from ``seed``, or continue (unless the state moved)."""
        like = shell._state.machine.has_last
        home = (axp.library_name(like), str(axp.device(like)))
        if seed is None and home == self.home:
            return
        key = random.new_key(
            like, random.derive_seed(entropy() if seed is None else seed, "StickyAction")
        )
        data = random.key_data(key)
        self.pure = data is key
        data = moved(data, like)
        self.live, self.live_for, self.home = None if self.pure else key, data, home
        shell._state = shell._state._replace(key=data)

    def generator(self, state: StickyKeyed) -> Any:
        """What the step draws from: ``None`` (the state's key), or the live generator."""
        if self.home is None:
            raise gym.error.ResetNeeded(f"{self.owner}: call reset() before step()")
        if not self.pure and self.live_for is not state.key:
            self.live = random.key_from_data(random.new_key(state.machine.has_last, 0), state.key)
            self.live_for = state.key
        return self.live


class SavedStream:
    """The StickyAction shells' ``_export`` (the state as saved: the live key's data), and
    their undo of a failed step (the live generator's draws too)."""

    _stream: StickyStream

    def _export(self, state: StickyKeyed) -> StickyKeyed:
        live = self._stream.live
        if live is None or state.key is not self._stream.live_for:
            return state
        return state._replace(key=moved(random.key_data(live), state.machine.has_last))

    @contextlib.contextmanager
    def _undone_on_failure(self) -> Iterator[None]:
        live, saved = self._stream.live, None
        with contextlib.suppress(TypeError):  # a generator with no data to save: as it is
            saved = None if live is None else random.key_data(live)
        with super()._undone_on_failure():  # type: ignore[misc]
            try:
                yield
            except BaseException:
                if saved is not None:
                    self._stream.live = random.key_from_data(live, saved)
                raise


def checked_action(owner: str, space: gym.Space, action: Any, last: Any) -> Any:
    """``action`` as a tree of ``last``'s library and leaf shapes, or an error."""

    def refused(a: Any, expected: str, error: type = TypeError) -> Exception:
        return error(f"{owner}: expected an action of {expected}, got {axp.describe(a)}")

    def leaf(ref: Any, a: Any) -> Any:
        if isinstance(a, int | float | bool | list | tuple | np.generic):
            a = np.asarray(a, dtype=ref.dtype if isinstance(a, list | tuple) else None)
        host = axp.is_host(a)
        if not host and type(a) is not type(ref):
            raise refused(a, f"the env's library ({axp.describe(ref)})")
        if tuple(getattr(a, "shape", ())) != tuple(ref.shape):
            raise refused(a, f"shape {tuple(ref.shape)} (action space {space})", ValueError)
        if not axp.dtype_kind(a):
            raise refused(a, f"real numbers or bools ({space})")
        if host and not axp.is_host(ref):
            return axp.to_library(a, axp.library_name(ref), axp.device(ref))
        return a

    try:
        return tree_map(leaf, last, action)
    except (KeyError, IndexError, TypeError) as e:
        if str(e).startswith(owner):
            raise
        raise ValueError(f"{owner}: the action {action!r} does not fit {space}") from e
