"""Machinery shared by the stateful shells: state that follows the data's
library and device, ``state_dict`` round trips, input checks and errors.

Shells hold a transform's state (a tree of NamedTuples of arrays) and speak
Gymnasium; they do no arithmetic of their own.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from types import ModuleType
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium.error import InvalidBound
from gymnasium.vector import AutoresetMode

from anywrap import xp as axp
from anywrap.transforms.moments import Moments, total_count
from anywrap.transforms.tree import first_leaf

__all__ = [
    "RunningStats",
    "StatefulShell",
    "autoreset_mode",
    "check_epsilon",
    "check_gamma",
    "flatten_state",
    "resolve_dtype",
    "to_numpy",
]


def wrapper_name(obj: Any) -> str:
    """``anywrap.vector.NormalizeObservation`` style name for messages."""
    mod = type(obj).__module__
    prefix = "anywrap.vector." if ".vector" in mod else "anywrap."
    return prefix + type(obj).__name__


def check_epsilon(owner: str, epsilon: float) -> None:
    """Gymnasium's bound on ``epsilon``, with the wrapper named."""
    if not (isinstance(epsilon, (int, float)) and math.isfinite(epsilon) and epsilon > 0):
        raise InvalidBound(f"{owner}: `epsilon` should be strictly positive, got {epsilon!r}")


def check_gamma(owner: str, gamma: float) -> None:
    """Gymnasium's bound on ``gamma``, with the wrapper named."""
    if not (isinstance(gamma, (int, float)) and 0 <= gamma <= 1):
        raise InvalidBound(f"{owner}: `gamma` should be in the interval [0, 1], got {gamma!r}")


def resolve_dtype(xp: ModuleType, name: Any, device: Any = None) -> Any:
    """``xp``'s dtype called ``name``; float64 falls back to float32 where absent."""
    name = np.dtype(name).name if not isinstance(name, str) else name
    if name in ("float64", "int64") and not axp.has_float64(xp, device):
        name = name.replace("64", "32")  # JAX without x64 holds neither
    return getattr(xp, name)


def autoreset_mode(owner: str, env: Any) -> AutoresetMode:
    """The vector env's autoreset mode; a missing entry means NEXT_STEP (as in Gymnasium)."""
    mode = env.metadata.get("autoreset_mode", AutoresetMode.NEXT_STEP)
    if isinstance(mode, str) and not isinstance(mode, AutoresetMode):
        try:
            mode = AutoresetMode(mode)
        except ValueError:
            pass
    if not isinstance(mode, AutoresetMode):
        raise TypeError(
            f"{owner}: expected env.metadata['autoreset_mode'] to be a "
            f"gymnasium.vector.AutoresetMode, got {mode!r}"
        )
    return mode


# ------------------------------------------------------------------ conversion
def to_numpy(x: Any) -> np.ndarray:
    """A host copy (or view) of any array, for checkpoints and display only."""
    if isinstance(x, np.ndarray):
        return x
    if hasattr(x, "detach"):  # torch, without importing it
        return x.detach().cpu().numpy()
    return np.asarray(x)


def _convert_leaf(x: Any, xp: ModuleType, device: Any) -> Any:
    if axp.namespace(x) is xp and axp.same_device(axp.device(x), device):
        return x
    host = to_numpy(x)
    if xp is np:
        return host
    dtype = resolve_dtype(xp, host.dtype.name, device)
    return xp.asarray(host, dtype=dtype, device=device)


def convert_tree(tree: Any, xp: ModuleType, device: Any) -> Any:
    """Every array of a state tree moved to ``xp`` on ``device``."""
    if isinstance(tree, dict):
        return {k: convert_tree(v, xp, device) for k, v in tree.items()}
    if isinstance(tree, tuple) and hasattr(tree, "_fields"):
        return type(tree)(*(convert_tree(v, xp, device) for v in tree))
    if isinstance(tree, (tuple, list)):
        return type(tree)(convert_tree(v, xp, device) for v in tree)
    return _convert_leaf(tree, xp, device)


def flatten_state(tree: Any, prefix: str = "") -> Iterator[tuple[str, Any]]:
    """``(dotted.key, array)`` pairs of a state tree."""
    if isinstance(tree, dict):
        items: Any = tree.items()
    elif isinstance(tree, tuple) and hasattr(tree, "_fields"):
        items = zip(tree._fields, tree)
    elif isinstance(tree, (tuple, list)):
        items = ((str(i), v) for i, v in enumerate(tree))
    else:
        yield prefix, tree
        return
    for k, v in items:
        yield from flatten_state(v, f"{prefix}.{k}" if prefix else str(k))


def unflatten_like(tree: Any, flat: dict[str, Any], prefix: str = "") -> Any:
    """Rebuild ``tree``'s structure from ``flat`` (as made by :func:`flatten_state`)."""
    if isinstance(tree, dict):
        return {
            k: unflatten_like(v, flat, f"{prefix}.{k}" if prefix else str(k))
            for k, v in tree.items()
        }
    if isinstance(tree, tuple) and hasattr(tree, "_fields"):
        return type(tree)(
            *(
                unflatten_like(v, flat, f"{prefix}.{k}" if prefix else k)
                for k, v in zip(tree._fields, tree)
            )
        )
    if isinstance(tree, (tuple, list)):
        return type(tree)(
            unflatten_like(v, flat, f"{prefix}.{i}" if prefix else str(i))
            for i, v in enumerate(tree)
        )
    return flat[prefix]


# ---------------------------------------------------------------- state holder
class StatefulShell:
    """Mixin: holds ``self._state`` and moves it to the data's library and device.

    The state starts as NumPy arrays (so statistics can be read or loaded
    before the first reset) and follows the first array the env returns.
    ``state_dict()`` / ``load_state_dict()`` give and take plain arrays.
    """

    _state: Any
    _xp: ModuleType = np
    _device: Any = "cpu"
    _data_type: type | None = None

    def _follow(self, like: Any) -> None:
        """Move the state to ``like``'s library and device if it is not there yet."""
        leaf = first_leaf(like)
        if type(leaf) is self._data_type:
            return
        try:
            xp = axp.namespace(leaf)
        except axp.UnknownArrayTypeError as e:
            raise axp.UnknownArrayTypeError(f"{wrapper_name(self)}: {e}") from e
        dev = axp.device(leaf)
        if not axp.is_host(leaf) or self._xp is not np:
            self._state = convert_tree(self._state, xp, dev)
        self._xp, self._device = xp, dev
        self._data_type = type(leaf)

    def _reset_mask_like_state(self, mask: Any, obs: Any) -> Any:
        """``mask`` (a ``reset_mask``, often NumPy) in the state's library and device.

        The state follows the env's arrays, never the mask: following a host
        mask would move a device state to the host and back. Before the
        first array has been seen, the state follows ``obs``.
        """
        if self._data_type is None:
            self._follow(obs)
        if mask is None or type(mask) is self._data_type:
            return mask
        return convert_tree(mask, self._xp, self._device)

    def _export(self, state: Any) -> Any:
        """The state as saved (a hook: episode clocks are saved relative to now)."""
        return state

    def _import(self, state: Any) -> Any:
        """The inverse of :meth:`_export`."""
        return state

    def state_dict(self) -> dict[str, Any]:
        """The statistics as a flat ``{name: array}`` dict, in the env's array library."""
        return dict(flatten_state(self._export(self._state)))

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        """Restore statistics saved by :meth:`state_dict` (any array library).

        Raises:
            KeyError: missing or unexpected entries.
            ValueError: an entry of another shape than this wrapper's.
        """
        own = self.state_dict()
        name = wrapper_name(self)
        missing = sorted(set(own) - set(state_dict))
        extra = sorted(set(state_dict) - set(own))
        if missing or extra:
            raise KeyError(
                f"{name}.load_state_dict: expected keys {sorted(own)}, "
                f"missing {missing}, unexpected {extra}"
            )
        for k, v in own.items():
            got = tuple(getattr(state_dict[k], "shape", np.shape(state_dict[k])))
            if got != tuple(v.shape):
                raise ValueError(
                    f"{name}.load_state_dict: {k!r} has shape {got}, this wrapper "
                    f"expects {tuple(v.shape)} (a stack of another shape?)"
                )
        flat = {k: _convert_leaf(state_dict[k], self._xp, self._device) for k in own}
        flat = {
            k: (v if v.dtype == own[k].dtype else self._xp.astype(v, own[k].dtype))
            for k, v in flat.items()
        }
        self._state = self._import(unflatten_like(self._state, flat))


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
    from anywrap.transforms.moments import default_stats_dtype
    from anywrap.transforms.observations import init_observation_stats

    shapes = tree_of(space, lambda b: tuple(b.shape))
    dtypes = tree_of(
        space, lambda b: resolve_dtype(xp, stats_dtype or default_stats_dtype(b.dtype), device)
    )
    return init_observation_stats(shapes, xp=xp, dtype=dtypes, device=device)


def reset_mask_of(owner: str, options: dict[str, Any] | None, num_envs: int) -> Any:
    """The checked ``options["reset_mask"]``, or None for a full reset."""
    if options is None or "reset_mask" not in options:
        return None
    mask = options["reset_mask"]
    check_reset_mask(owner, mask, num_envs)
    return mask


class RunningStats:
    """Gymnasium's ``RunningMeanStd`` look (``mean``, ``var``, ``count``) over a shell's state.

    The values are arrays of the env's library, on its device. Assigning to
    ``mean``, ``var`` or ``count`` writes through to the wrapper.
    """

    def __init__(self, shell: StatefulShell, get: Any, put: Any) -> None:
        self._shell, self._get, self._put = shell, get, put

    @property
    def _m(self) -> Moments:
        m: Moments = self._get(self._shell._state)
        return m

    @property
    def mean(self) -> Any:
        return self._m.mean

    @mean.setter
    def mean(self, value: Any) -> None:
        self._set(mean=value)

    @property
    def var(self) -> Any:
        return self._m.var

    @var.setter
    def var(self, value: Any) -> None:
        self._set(var=value)

    @property
    def count(self) -> Any:
        """Samples seen plus Gymnasium's initial 1e-4 (a 0-d array)."""
        return total_count(self._m)

    @count.setter
    def count(self, value: Any) -> None:
        xp = self._shell._xp
        m = self._m
        self._shell._state = self._put(
            self._shell._state,
            m._replace(
                count=xp.asarray(to_numpy(value), dtype=m.count.dtype, device=self._shell._device),
                count_lo=xp.zeros_like(m.count_lo),
            ),
        )

    def _set(self, **kw: Any) -> None:
        xp, dev = self._shell._xp, self._shell._device
        m = self._m
        new = {
            k: xp.asarray(
                xp.broadcast_to(_convert_leaf(v, xp, dev), getattr(m, k).shape),
                dtype=getattr(m, k).dtype,
                copy=True,
            )
            for k, v in kw.items()
        }
        self._shell._state = self._put(self._shell._state, m._replace(**new))

    def __repr__(self) -> str:
        return f"RunningStats(mean={self.mean!r}, var={self.var!r}, count={self.count!r})"


def _put_at(tree: Any, path: tuple[Any, ...], value: Any) -> Any:
    if not path:
        return value
    t = dict(tree) if isinstance(tree, dict) else list(tree)
    t[path[0]] = _put_at(t[path[0]], path[1:], value)
    return t if isinstance(t, dict) else tuple(t)


def _get_at(tree: Any, path: tuple[Any, ...]) -> Any:
    for p in path:
        tree = tree[p]
    return tree


def stats_views(shell: StatefulShell, state: Any, path: tuple[Any, ...] = ()) -> Any:
    """A :class:`RunningStats` view over each Moments leaf of ``state`` (a tree of them)."""
    if isinstance(state, dict):
        return {k: stats_views(shell, v, (*path, k)) for k, v in state.items()}
    if isinstance(state, tuple) and not hasattr(state, "_fields"):
        return tuple(stats_views(shell, v, (*path, i)) for i, v in enumerate(state))
    return RunningStats(shell, lambda s: _get_at(s, path), lambda s, v: _put_at(s, path, v))


# ----------------------------------------------------------------- spaces
def leaf_boxes(owner: str, space: gym.Space) -> Any:
    """The tree of Box leaves of a Box / Dict / Tuple space, or a clear error."""
    if isinstance(space, gym.spaces.Box):
        return space
    if isinstance(space, gym.spaces.Dict):
        return {k: leaf_boxes(owner, s) for k, s in space.spaces.items()}
    if isinstance(space, gym.spaces.Tuple):
        return tuple(leaf_boxes(owner, s) for s in space.spaces)
    raise TypeError(
        f"{owner}: expected a Box observation space, or a Dict or Tuple of Box spaces, got {space}"
    )


def map_space(fn: Any, space: gym.Space) -> gym.Space:
    """Apply ``fn`` to each Box leaf of a Box / Dict / Tuple space."""
    if isinstance(space, gym.spaces.Dict):
        return gym.spaces.Dict({k: map_space(fn, s) for k, s in space.spaces.items()})
    if isinstance(space, gym.spaces.Tuple):
        return gym.spaces.Tuple(tuple(map_space(fn, s) for s in space.spaces))
    return fn(space)


def tree_of(space: gym.Space, fn: Any) -> Any:
    """A dict / tuple tree with ``fn(box)`` at each Box leaf."""
    if isinstance(space, gym.spaces.Dict):
        return {k: tree_of(s, fn) for k, s in space.spaces.items()}
    if isinstance(space, gym.spaces.Tuple):
        return tuple(tree_of(s, fn) for s in space.spaces)
    return fn(space)


def check_reset_mask(owner: str, mask: Any, num_envs: int) -> None:
    """A ``reset_mask`` must be a bool array of shape ``(num_envs,)``."""
    shape = tuple(getattr(mask, "shape", ()))
    try:
        is_bool = bool(axp.namespace(mask).isdtype(mask.dtype, "bool"))
    except Exception:  # not an array at all
        is_bool = False
    if shape != (num_envs,) or not is_bool:
        raise ValueError(
            f"{owner}: expected options['reset_mask'] to be a bool array of shape "
            f"({num_envs},), got {axp.describe(mask)}"
        )
