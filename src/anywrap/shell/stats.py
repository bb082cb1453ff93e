"""Gymnasium's ``RunningMeanStd`` look over a shell's moments, and the switch that freezes them.

Example:
    >>> import gymnasium as gym
    >>> import anywrap
    >>> env = anywrap.NormalizeObservation(gym.make("CartPole-v1"))
    >>> env.obs_rms.mean
    array([0., 0., 0., 0.], dtype=float32)
"""

from __future__ import annotations

from types import ModuleType
from typing import Any

import gymnasium as gym

from anywrap import xp as axp
from anywrap.shell.checks import flag, wrapper_name
from anywrap.shell.spaces import tree_of
from anywrap.shell.state import StatefulShell, convert_leaf
from anywrap.transforms.moments import Moments, default_stats_dtype, total_count
from anywrap.transforms.observations import init_observation_stats
from anywrap.tree import Path, flatten_with_paths, get_at, is_branch, key_path, replace_at, tree_map

__all__ = [
    "HoldsStatistics",
    "ObservationStatistics",
    "RunningMeanSwitch",
    "RunningStats",
    "observation_stats",
]


class RunningMeanSwitch:
    """Gymnasium's ``update_running_mean`` switch (off: statistics frozen, e.g. to evaluate)."""

    _update_running_mean: bool = True

    @property
    def update_running_mean(self) -> bool:
        """Whether the statistics learn from new data (switch off for evaluation)."""
        return self._update_running_mean

    @update_running_mean.setter
    def update_running_mean(self, setting: bool) -> None:
        self._update_running_mean = flag(wrapper_name(self), "update_running_mean", setting)


def observation_stats(space: gym.Space, stats_dtype: Any, xp: ModuleType, device: Any) -> Any:
    """Fresh moments for each Box leaf of ``space``, in ``stats_dtype`` or Gymnasium's default."""
    shapes = tree_of(space, lambda b: tuple(b.shape))
    dtypes = tree_of(
        space,
        lambda b: axp.resolve_dtype(xp, stats_dtype or default_stats_dtype(b.dtype), device),
    )
    return init_observation_stats(shapes, xp=xp, dtype=dtypes, device=device)


class RunningStats:
    """Gymnasium's ``RunningMeanStd`` (``mean``, ``var``, ``count``), holding a
    wrapper's running :class:`~anywrap.transforms.moments.Moments`.

    The values are arrays of the env's library, on its device. Assigning to
    ``mean``, ``var`` or ``count`` changes the statistics the wrapper uses.

    As in Gymnasium, the object is the statistics: ``eval_env.obs_rms =
    train_env.obs_rms`` makes both wrappers use, and see every update of, the
    same statistics (switch ``eval_env.update_running_mean`` off so that only
    the training env updates them). Sharing works between envs of the same
    array library and device.

    Example:
        >>> import numpy as np
        >>> from anywrap.transforms.moments import init_moments
        >>> rms = RunningStats(init_moments((2,), xp=np, dtype=np.float32))
        >>> rms.mean = np.array([1.0, 2.0])
        >>> rms.mean, float(rms.count)
        (array([1., 2.], dtype=float32), 0.0001)
    """

    __slots__ = ("moments",)

    def __init__(self, moments: Moments) -> None:
        self.moments = moments

    mean = property(
        lambda self: self.moments.mean,
        lambda self, value: self._set(mean=value),
        doc="The running mean (an array of the env's library, on its device).",
    )
    var = property(
        lambda self: self.moments.var,
        lambda self, value: self._set(var=value),
        doc="The running population variance.",
    )

    @property
    def count(self) -> Any:
        """Samples seen plus Gymnasium's initial 1e-4 (a 0-d array)."""
        return total_count(self.moments)

    @count.setter
    def count(self, value: Any) -> None:
        m = self.moments
        xp, dev = axp.namespace(m.count), axp.device(m.count)
        self.moments = m._replace(
            count=xp.asarray(axp.to_numpy(value), dtype=m.count.dtype, device=dev),
            count_lo=xp.zeros_like(m.count_lo),
        )

    def _set(self, **kw: Any) -> None:
        m = self.moments
        xp, dev = axp.namespace(m.mean), axp.device(m.mean)
        new = {
            k: xp.asarray(
                xp.broadcast_to(convert_leaf(v, xp, dev), getattr(m, k).shape),
                dtype=getattr(m, k).dtype,
                copy=True,
            )
            for k, v in kw.items()
        }
        self.moments = m._replace(**new)

    def __repr__(self) -> str:
        return f"RunningStats(mean={self.mean!r}, var={self.var!r}, count={self.count!r})"


def _is_holder(x: Any) -> bool:
    return isinstance(x, RunningStats)


def _is_moments(x: Any) -> bool:
    return isinstance(x, Moments)


class HoldsStatistics(StatefulShell):
    """Mixin: the state's running moments are held by :class:`RunningStats`
    objects, which users read, assign and share (``obs_rms``, ``return_rms``).

    ``self._state`` is the plain state tree, as transforms take it; writing it
    writes each Moments into its holder, so a holder shared by two wrappers
    sees the updates of both.
    """

    _held: Any = None

    @property  # type: ignore[override]
    def _state(self) -> Any:
        held = self._held
        if type(held) is RunningStats:  # a Box's statistics: the hot path
            return held.moments
        if _flat_named(held):  # a NamedTuple of arrays and holders (the returns' state)
            return type(held)(*[h.moments if type(h) is RunningStats else h for h in held])
        return tree_map(lambda h: h.moments if _is_holder(h) else h, held, is_leaf=_is_holder)

    @_state.setter
    def _state(self, state: Any) -> None:
        held = self._held
        if held is None:  # the first state: a holder for each Moments
            self._held = tree_map(
                lambda m: RunningStats(m) if _is_moments(m) else m, state, is_leaf=_is_moments
            )
        elif type(held) is RunningStats:
            held.moments = state
        elif type(state) is type(held) and _flat_named(held):
            self._held = type(held)(*[_refill(h, v) for h, v in zip(held, state)])
        else:
            self._held = tree_map(_refill, held, state, is_leaf=_is_holder)

    def _holders(self, path: Path = ()) -> Any:
        """The holders at ``path`` of the state (``obs_rms``, ``return_rms``)."""
        return get_at(self._held, path)

    def _share(self, name: str, value: Any, path: Path = ()) -> None:
        """Make the holders at ``path`` those of ``value`` (``env.obs_rms = other.obs_rms``).

        ``value`` is a :class:`RunningStats` (a tree of them for Dict and
        Tuple spaces) whose moments have this wrapper's shapes; a Gymnasium
        ``RunningMeanStd`` is copied into a new holder (it cannot be shared).
        """
        own = get_at(self._held, path)
        owner = wrapper_name(self)
        try:
            value = tree_map(
                lambda mine, theirs: _holder_like(owner, name, mine, theirs),
                own,
                value,
                is_leaf=_is_holder,
            )
        except (KeyError, IndexError, TypeError) as e:
            if isinstance(e, TypeError) and str(e).startswith(owner):
                raise
            raise TypeError(
                f"{owner}: expected `{name}` to be shaped like this wrapper's statistics "
                f"({_describe_holders(own)}), got {value!r}"
            ) from None
        self._held = replace_at(self._held, path, value)


class ObservationStatistics(HoldsStatistics, RunningMeanSwitch):
    """Mixin of the single and vector ``NormalizeObservation``: Gymnasium's ``obs_rms``."""

    @property
    def obs_rms(self) -> Any:
        """Running statistics: ``mean``, ``var``, ``count`` (a dict / tuple of them for
        Dict / Tuple spaces). Assign another wrapper's ``obs_rms`` to share it."""
        return self._holders()

    @obs_rms.setter
    def obs_rms(self, value: Any) -> None:
        self._share("obs_rms", value)


def _flat_named(held: Any) -> bool:
    """Whether ``held`` is a NamedTuple whose fields are holders or leaves (no
    deeper branch): the two walks over it are then one pass over its fields."""
    return hasattr(held, "_fields") and all(
        type(h) is RunningStats or not is_branch(h) for h in held
    )


def _refill(holder: Any, value: Any) -> Any:
    if _is_holder(holder):
        holder.moments = value
        return holder
    return value


def _describe_holders(tree: Any) -> str:
    return ", ".join(
        f"{key_path(p) or 'mean'}: {tuple(h.mean.shape)}"
        for p, h in flatten_with_paths(tree, is_leaf=_is_holder)
    )


def _holder_like(owner: str, name: str, mine: RunningStats, theirs: Any) -> RunningStats:
    """``theirs`` as a holder this wrapper can use in place of ``mine``."""
    if _is_holder(theirs):
        got = tuple(theirs.mean.shape)
        if got != tuple(mine.mean.shape):
            raise ValueError(
                f"{owner}: expected `{name}` with statistics of shape {tuple(mine.mean.shape)}, "
                f"got shape {got}"
            )
        return theirs  # shared, as Gymnasium shares a RunningMeanStd
    if all(hasattr(theirs, k) for k in ("mean", "var", "count")):  # Gymnasium's, copied
        copy = RunningStats(mine.moments)
        copy.mean, copy.var, copy.count = theirs.mean, theirs.var, theirs.count
        return copy
    raise TypeError(
        f"{owner}: expected `{name}` to be an anywrap RunningStats (another wrapper's "
        f"{name}) or an object with mean, var and count, got {type(theirs).__name__}"
    )
