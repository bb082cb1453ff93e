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
from anywrap.shell.spaces import tree_of
from anywrap.shell.state import StatefulShell, convert_leaf
from anywrap.transforms.moments import Moments, default_stats_dtype, total_count
from anywrap.transforms.observations import init_observation_stats
from anywrap.tree import Path, flatten_with_paths, get_at, replace_at, unflatten

__all__ = ["RunningMeanSwitch", "RunningStats", "observation_stats", "stats_views"]


class RunningMeanSwitch:
    """Gymnasium's ``update_running_mean`` switch (off: statistics frozen, e.g. to evaluate)."""

    _update_running_mean: bool = True

    @property
    def update_running_mean(self) -> bool:
        """Whether the statistics learn from new data (switch off for evaluation)."""
        return self._update_running_mean

    @update_running_mean.setter
    def update_running_mean(self, setting: bool) -> None:
        self._update_running_mean = bool(setting)


def observation_stats(space: gym.Space, stats_dtype: Any, xp: ModuleType, device: Any) -> Any:
    """Fresh moments for each Box leaf of ``space``, in ``stats_dtype`` or Gymnasium's default."""
    shapes = tree_of(space, lambda b: tuple(b.shape))
    dtypes = tree_of(
        space,
        lambda b: axp.resolve_dtype(xp, stats_dtype or default_stats_dtype(b.dtype), device),
    )
    return init_observation_stats(shapes, xp=xp, dtype=dtypes, device=device)


class RunningStats:
    """Gymnasium's ``RunningMeanStd`` look (``mean``, ``var``, ``count``) over a shell's state.

    The values are arrays of the env's library, on its device. Assigning to
    ``mean``, ``var`` or ``count`` writes through to the wrapper.
    """

    def __init__(self, shell: StatefulShell, path: Path) -> None:
        self._shell, self._path = shell, path

    @property
    def _m(self) -> Moments:
        m: Moments = get_at(self._shell._state, self._path)
        return m

    def _put(self, m: Moments) -> None:
        self._shell._state = replace_at(self._shell._state, self._path, m)

    mean = property(
        lambda self: self._m.mean,
        lambda self, value: self._set(mean=value),
        doc="The running mean (an array of the env's library, on its device).",
    )
    var = property(
        lambda self: self._m.var,
        lambda self, value: self._set(var=value),
        doc="The running population variance.",
    )

    @property
    def count(self) -> Any:
        """Samples seen plus Gymnasium's initial 1e-4 (a 0-d array)."""
        return total_count(self._m)

    @count.setter
    def count(self, value: Any) -> None:
        xp, dev = self._shell._xp, self._shell._device
        m = self._m
        self._put(
            m._replace(
                count=xp.asarray(axp.to_numpy(value), dtype=m.count.dtype, device=dev),
                count_lo=xp.zeros_like(m.count_lo),
            )
        )

    def _set(self, **kw: Any) -> None:
        xp, dev = self._shell._xp, self._shell._device
        m = self._m
        new = {
            k: xp.asarray(
                xp.broadcast_to(convert_leaf(v, xp, dev), getattr(m, k).shape),
                dtype=getattr(m, k).dtype,
                copy=True,
            )
            for k, v in kw.items()
        }
        self._put(m._replace(**new))

    def __repr__(self) -> str:
        return f"RunningStats(mean={self.mean!r}, var={self.var!r}, count={self.count!r})"


def _is_moments(x: Any) -> bool:
    return isinstance(x, Moments)


def stats_views(shell: StatefulShell, path: Path = ()) -> Any:
    """A :class:`RunningStats` view over each Moments leaf of the shell's state at ``path``
    (a tree of views for a tree of moments)."""
    root = get_at(shell._state, path)
    found = flatten_with_paths(root, is_leaf=_is_moments)
    views = [RunningStats(shell, (*path, *p)) for p, _ in found]
    return unflatten(root, views, is_leaf=_is_moments)
