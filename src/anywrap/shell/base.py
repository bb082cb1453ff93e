"""``Shell``: state and Gymnasium's plumbing for anywrap's wrappers; the state follows the data.

Example:
    >>> import anywrap
    >>> env = anywrap.NormalizeReward(gym.make("CartPole-v1"), gamma=0.9)
    >>> env.spec.additional_wrappers[-1].kwargs["gamma"], sorted(env.state_dict())[:2]
    (0.9, ['accumulated', 'prev_done'])
"""

from __future__ import annotations

import contextlib
import math
import warnings
from collections.abc import Iterator
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium.vector import VectorWrapper
from gymnasium.vector.utils import batch_space

from anywrap import xp
from anywrap.shell.checks import (
    autoreset_mode_property,
    check_distinct_keys,
    check_env_kind,
    checked_entries,
    checked_reset,
    reset_mask_of,
    wrapper_name,
)
from anywrap.shell.compiled import moved
from anywrap.shell.statistics import (
    WATCH_EVERY,
    RunningMeanStd,
    not_finite_statistic,
    reboxed,
    unboxed,
)
from anywrap.tree import first_leaf, flatten_with_paths, key_path, unflatten

# Host numbers that say nothing of where the state lives (a single env's reward).
_HOST_NUMBERS = frozenset({float, int, bool, np.float64, np.float32, np.bool_, np.int64})


class Shell(gym.utils.RecordConstructorArgs):
    """The base of anywrap's wrappers, listed before Gymnasium's wrapper class: a subclass
    sets ``self._state`` and runs its transforms (state first, ``(state, out)``) with ``_run``."""

    _state: Any = None
    _kind: type = np.ndarray  # the exact array type the state is held in now
    _boxed: bool = False  # whether the state holds RunningMeanStd boxes
    _ranges: dict[str, tuple[int, int]] = {}  # bounds a loaded state's int fields keep
    _unwatched: float = 0  # host updates until the next overflow check

    def __init_subclass__(cls, **kwargs: Any) -> None:
        # Every reset checks its options first, before anything below it changes.
        super().__init_subclass__(**kwargs)
        if "reset" in cls.__dict__ and not getattr(cls.reset, "_checks_options", False):
            cls.reset = checked_reset(cls.reset)  # type: ignore[method-assign]

    autoreset_mode = autoreset_mode_property()

    @checked_reset
    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> Any:
        """Reset the env; ``options`` checked first (a dict, and a valid ``reset_mask``)."""
        return super().reset(seed=seed, options=options)  # type: ignore[misc]

    def _start(self, env: Any, **recorded: Any) -> tuple[str, tuple[int, ...]]:
        """Record the arguments, refuse an env of the other kind; ``(name, batch shape)``."""
        gym.utils.RecordConstructorArgs.__init__(self, **recorded)
        check_env_kind(self, env)
        return wrapper_name(self), (env.num_envs,) if isinstance(self, VectorWrapper) else ()

    def _single_space(self, env: Any, kind: str = "observation") -> Any:
        """One env's ``kind`` space (``"observation"`` or ``"action"``) of ``env``."""
        vector = isinstance(self, VectorWrapper)
        return getattr(env, f"single_{kind}_space" if vector else f"{kind}_space")

    def _wrap(self, env: Any, observation_space: Any = None, action_space: Any = None) -> None:
        """Gymnasium's wrapper ``__init__``, then the new spaces (one env's)."""
        vector = isinstance(self, VectorWrapper)
        (VectorWrapper if vector else gym.Wrapper).__init__(self, env)  # type: ignore[arg-type]
        for kind, space in (("observation", observation_space), ("action", action_space)):
            if space is not None and vector:
                setattr(self, f"single_{kind}_space", space)
                space = batch_space(space, self.num_envs)  # type: ignore[attr-defined]
            if space is not None:
                setattr(self, f"{kind}_space", space)

    def _run(self, fn: xp.Compiled, like: Any, *args: Any, **kwargs: Any) -> Any:
        """``fn(state, *args)`` on the state moved to ``like``'s library and device; the output."""
        state, kind, held = self._state, type(like), self._kind
        if kind is held or (kind in _HOST_NUMBERS and held is np.ndarray):
            f = fn.fn if held is np.ndarray else fn
            if type(state) is RunningMeanStd:
                state.moments, out = f(state.moments, *args, **kwargs)
            elif self._boxed:
                new, out = f(unboxed(state), *args, **kwargs)
                self._state = reboxed(state, new)
            else:
                self._state, out = f(state, *args, **kwargs)
            if self._boxed and held is np.ndarray:  # elsewhere a host read would sync
                self._unwatched -= 1
                if self._unwatched < 0:
                    self._watch()
            return out
        new, out = fn(self._state_for(like), *args, **kwargs)
        self._commit(new, like)
        return out

    def _watch(self) -> None:
        """Warn once if host statistics stopped being finite (a sample overflowed)."""
        self._unwatched = WATCH_EVERY
        bad = not_finite_statistic(self._state)
        if bad is not None:
            self._unwatched = math.inf
            warnings.warn(
                f"{wrapper_name(self)}: the running {bad} is no longer finite (a sample "
                "overflowed); as in Gymnasium, later outputs are 0 or NaN. Clip the data, or "
                "use stats_dtype='float64'. save_state refuses such statistics.",
                RuntimeWarning,
                stacklevel=4,
            )

    def _state_for(self, like: Any) -> Any:
        """The state as transforms take it, in ``like``'s library and on its device."""
        state = unboxed(self._state) if self._boxed else self._state
        leaf = first_leaf(like)
        if type(leaf) is self._kind:
            return state
        try:
            return moved(state, leaf)
        except xp.UnknownArrayTypeError as e:
            raise xp.UnknownArrayTypeError(f"{wrapper_name(self)}: {e}") from None

    def _commit(self, state: Any, like: Any) -> None:  # state: in like's library, on its device
        self._state = reboxed(self._state, state) if self._boxed else state
        self._kind = type(first_leaf(like))

    @contextlib.contextmanager
    def _undone_on_failure(self) -> Iterator[None]:
        """Put the state back if the block fails (not for boxed statistics)."""
        before = self._state, self._kind
        try:
            yield
        except BaseException:
            self._state, self._kind = before
            raise

    def _masked_reset(self, seed: Any, options: dict[str, Any] | None) -> tuple[Any, Any, Any]:
        """A vector env's reset: ``(obs, info, mask)``, the mask like ``obs`` (``None``: all)."""
        mask = reset_mask_of(wrapper_name(self), options, self.num_envs)  # type: ignore[attr-defined]
        obs, info = self.env.reset(seed=seed, options=options)  # type: ignore[attr-defined]
        return obs, info, None if mask is None else self._mask_for(mask, obs)

    def _mask_for(self, mask: Any, like: Any) -> Any:
        leaf = first_leaf(like)
        if type(mask) is type(leaf):
            return mask
        return xp.to_library(mask, xp.library_name(leaf), xp.device(leaf))

    def _export(self, state: Any) -> Any:  # the state as saved (episode clocks: relative to now)
        return state

    _import = _export  # the inverse of _export (the identity here)

    def state_dict(self) -> dict[str, Any]:
        """The state as a flat ``{name: array}`` dict, in the env's array library."""
        if self._state is None:
            return {}
        flat = flatten_with_paths(self._export(unboxed(self._state)))
        # NumPy scalars (what arithmetic on 0-d arrays gives) as the 0-d arrays they are.
        out = {key_path(p): np.asarray(v) if isinstance(v, np.generic) else v for p, v in flat}
        if len(out) != len(flat):
            check_distinct_keys(wrapper_name(self), [key_path(p) for p, _ in flat])
        return out

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        """Restore a state saved by :meth:`state_dict`, checked before anything changes."""
        self._install(self.checked_state(state_dict))

    def _install(self, state: Any) -> None:  # checked_state's result
        self._state = reboxed(self._state, state) if self._boxed else state

    def checked_state(self, state_dict: dict[str, Any]) -> Any:
        """The state that :meth:`load_state_dict` would install, without installing it."""
        own = {
            key: (tuple(mine.shape), np.dtype(xp.to_numpy(mine).dtype))
            for key, mine in self.state_dict().items()
        }
        who = f"{wrapper_name(self)}.load_state_dict"
        values = checked_entries(who, own, state_dict, self._ranges)
        state = unboxed(self._state)
        return self._import(moved(unflatten(state, values), first_leaf(state)))
