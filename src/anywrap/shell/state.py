"""State that follows the data: :class:`StatefulShell` and ``state_dict`` round trips.

A stateful shell holds its transform's state, a tree of NamedTuples of arrays.
The state starts as NumPy arrays, so that statistics can be read or loaded
before the first reset, and moves to the library and device of the first
array the env returns.

Example:
    >>> import numpy as np
    >>> from anywrap.shell.state import StatefulShell
    >>> shell = StatefulShell()
    >>> shell._state = {"mean": np.zeros(2)}
    >>> shell.state_dict()
    {'mean': array([0., 0.])}
"""

from __future__ import annotations

from types import ModuleType
from typing import Any

import numpy as np

from anywrap import xp as axp
from anywrap.shell.checks import wrapper_name
from anywrap.tree import first_leaf, flatten_with_paths, key_path, tree_map, unflatten

__all__ = ["StatefulShell", "convert_leaf", "convert_tree", "flatten_state"]


def convert_leaf(x: Any, xp: ModuleType, device: Any) -> Any:
    """``x`` as an array of ``xp`` on ``device`` (itself when it already is one)."""
    if axp.namespace(x) is xp and axp.same_device(axp.device(x), device):
        return x
    host = axp.to_numpy(x)
    if xp is np:
        return host
    dtype = axp.resolve_dtype(xp, host.dtype.name, device)
    return xp.asarray(host, dtype=dtype, device=device)


def convert_tree(tree: Any, xp: ModuleType, device: Any) -> Any:
    """Every array of a state tree moved to ``xp`` on ``device``."""
    return tree_map(lambda x: convert_leaf(x, xp, device), tree)


def flatten_state(tree: Any) -> dict[str, Any]:
    """``{"dotted.key": array}`` of a state tree."""
    return {key_path(path): leaf for path, leaf in flatten_with_paths(tree)}


class StatefulShell:
    """Mixin: holds ``self._state`` and moves it to the data's library and device.

    ``state_dict()`` / ``load_state_dict()`` give and take plain arrays.
    """

    _state: Any
    _xp: ModuleType = np
    _device: Any = "cpu"
    _data_type: type | None = None

    def _state_for(self, like: Any) -> Any:
        """The state in ``like``'s library and on its device: converted if it is
        not there yet, but not committed (see :meth:`_commit`)."""
        if type(like) is self._data_type:  # an array of the state's own kind
            return self._state
        leaf = first_leaf(like)
        if type(leaf) is self._data_type:
            return self._state
        try:
            xp = axp.namespace(leaf)
        except axp.UnknownArrayTypeError as e:
            raise axp.UnknownArrayTypeError(f"{wrapper_name(self)}: {e}") from e
        if not axp.is_host(leaf) or self._xp is not np:
            return convert_tree(self._state, xp, axp.device(leaf))
        return self._state

    def _commit(self, state: Any, like: Any) -> None:
        """Install ``state``, which follows ``like``'s library and device.

        Shells call it only once a step's transform has succeeded, so that a
        failed call leaves the state, its library and its dtypes as they were.
        """
        self._state = state
        if type(like) is self._data_type:
            return
        leaf = first_leaf(like)
        if type(leaf) is not self._data_type:
            self._xp, self._device = axp.namespace(leaf), axp.device(leaf)
            self._data_type = type(leaf)

    def _follow(self, like: Any) -> None:
        """Move the state to ``like``'s library and device if it is not there yet."""
        self._commit(self._state_for(like), like)

    def _mask_for(self, mask: Any, like: Any) -> Any:
        """``mask`` (a ``reset_mask``, often NumPy) in ``like``'s library and device,
        which is where the state goes: following a host mask instead would move
        a device state to the host and back."""
        if mask is None:
            return None
        leaf = first_leaf(like)
        if type(mask) is type(leaf):
            return mask
        return convert_tree(mask, axp.namespace(leaf), axp.device(leaf))

    def _export(self, state: Any) -> Any:
        """The state as saved (a hook: episode clocks are saved relative to now)."""
        return state

    def _import(self, state: Any) -> Any:
        """The inverse of :meth:`_export`."""
        return state

    def state_dict(self) -> dict[str, Any]:
        """The statistics as a flat ``{name: array}`` dict, in the env's array library."""
        return flatten_state(self._export(self._state))

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        """Restore statistics saved by :meth:`state_dict` (any array library).

        Every entry is checked before anything changes: a failed load leaves
        the wrapper as it was.

        Raises:
            KeyError: missing or unexpected entries.
            ValueError: an entry of another shape or kind of dtype than this
                wrapper's (complex, float16 or integer where a float is kept),
                or a variance or count that is negative or not finite.
        """
        self._state = self.checked_state(state_dict)

    def checked_state(self, state_dict: dict[str, Any]) -> Any:
        """The state that :meth:`load_state_dict` would install, without installing it."""
        own = self.state_dict()
        name = wrapper_name(self)
        missing = sorted(set(own) - set(state_dict))
        extra = sorted(set(state_dict) - set(own))
        if missing or extra:
            raise KeyError(
                f"{name}.load_state_dict: expected keys {sorted(own)}, "
                f"missing {missing}, unexpected {extra}"
            )
        values = []
        for k, v in own.items():
            host = axp.to_numpy(state_dict[k])
            if host.shape != tuple(v.shape):
                raise ValueError(
                    f"{name}.load_state_dict: {k!r} has shape {host.shape}, this wrapper "
                    f"expects {tuple(v.shape)} (a stack of another shape?)"
                )
            _check_entry(name, k, host, np.dtype(axp.to_numpy(v).dtype))
            x = convert_leaf(host, self._xp, self._device)
            values.append(x if x.dtype == v.dtype else self._xp.astype(x, v.dtype))
        return self._import(unflatten(self._state, values))


_FLOATS = ("float32", "float64")


def _check_entry(owner: str, key: str, value: np.ndarray, own: np.dtype) -> None:
    """A saved entry must hold the kind of number the wrapper keeps (a float32 or
    float64 where it keeps floats, an integer where it keeps integers, a bool
    where it keeps bools), and a variance or count a finite non-negative number."""
    kind = own.kind
    if kind == "f":
        ok = value.dtype.name in _FLOATS
        expected = " or ".join(_FLOATS)
    elif kind in "iu":
        ok = value.dtype.kind in "iu" and np.can_cast(value.dtype, own, "same_kind")
        expected = f"integers that fit {own.name}"
    else:
        ok = value.dtype == own
        expected = own.name
    if not ok:
        raise ValueError(
            f"{owner}.load_state_dict: {key!r} holds {value.dtype.name} values, this wrapper "
            f"keeps {own.name} (expected {expected})"
        )
    leaf = key.rpartition(".")[2]
    if leaf in ("var", "count") and not bool(np.all(np.isfinite(value) & (value >= 0))):
        raise ValueError(
            f"{owner}.load_state_dict: {key!r} must be finite and non-negative, got "
            f"{np.asarray(value).ravel()[:4].tolist()}"
        )
