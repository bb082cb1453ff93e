"""Running statistics that two wrappers may share (``eval_env.obs_rms = train_env.obs_rms``):
a state may hold :class:`RunningMeanStd` boxes, which :func:`unboxed` and :func:`reboxed`
take out for the transforms and put back."""

from __future__ import annotations

from functools import partial
from operator import attrgetter
from typing import Any

import numpy as np

from anywrap import xp
from anywrap.shell.checks import flag, wrapper_name
from anywrap.transforms.moments import Moments, split_count
from anywrap.tree import leaves, tree_map


def _moment(field: str, doc: str) -> property:
    """A ``RunningMeanStd`` field; a value assigned takes its shape, dtype, library, device."""

    def assign(self: RunningMeanStd, value: Any) -> None:
        old = getattr(self.moments, field)
        host = np.array(np.broadcast_to(xp.to_numpy(value), tuple(old.shape)))
        new = xp.namespace(old).asarray(host, dtype=old.dtype, device=xp.device(old))
        self.moments = self.moments._replace(**{field: new})

    return property(lambda self: getattr(self.moments, field), assign, doc=doc)


class RunningMeanStd:
    """Gymnasium's ``RunningMeanStd`` (``mean``, ``var``, ``count``: assignable arrays of
    the env's library) over one ``Moments``; wrappers that share it see every update.

    Example:
        >>> from anywrap.transforms.moments import init_moments
        >>> rms = RunningMeanStd(init_moments((2,), xp=np, dtype=np.float32))
        >>> rms.mean = np.array([1.0, 2.0])
        >>> rms.mean, float(rms.count)
        (array([1., 2.], dtype=float32), 0.0001)
    """

    __slots__ = ("moments",)

    def __init__(self, moments: Moments) -> None:
        self.moments = moments

    mean = _moment("mean", "The running mean (an array of the env's library, on its device).")
    var = _moment("var", "The running population variance.")

    @property
    def count(self) -> Any:
        """Samples seen plus Gymnasium's initial 1e-4 (a 0-d array)."""
        return self.moments.count + self.moments.count_lo

    @count.setter
    def count(self, value: Any) -> None:
        m = self.moments
        ns = xp.namespace(m.count)
        new = ns.asarray(xp.to_numpy(value), dtype=m.count.dtype, device=xp.device(m.count))
        self.moments = m._replace(count=new, count_lo=ns.zeros_like(m.count_lo))

    def __repr__(self) -> str:
        return f"RunningMeanStd(mean={self.mean!r}, var={self.var!r}, count={self.count!r})"


# Host statistics are checked for an overflow once in this many updates (on a device the
# check would be a host sync: there save_state refuses them).
WATCH_EVERY = 1024


def not_finite_statistic(state: Any) -> str | None:
    """The first host box's ``"mean"`` or ``"var"`` (with its dtype) not finite, else None."""
    for box in leaves(state, _is_box):
        for field in ("mean", "var") if _is_box(box) else ():
            value = getattr(box.moments, field)
            if not np.isfinite(value).all():
                return f"{field} ({value.dtype})"
    return None


def _is_box(x: Any) -> bool:
    return type(x) is RunningMeanStd


def unboxed(tree: Any) -> Any:
    """The state as transforms take it: each box replaced by its moments."""
    tp = type(tree)
    if tp is RunningMeanStd:
        return tree.moments
    if hasattr(tp, "_fields"):
        return tp(*[v.moments if type(v) is RunningMeanStd else v for v in tree])
    return tree_map(lambda b: b.moments if _is_box(b) else b, tree, is_leaf=_is_box)


def _put(box: Any, value: Any) -> Any:
    if type(box) is not RunningMeanStd:
        return value
    box.moments = value
    return box


def reboxed(held: Any, state: Any) -> Any:
    """``state`` with the boxes of ``held`` back in place, holding its moments."""
    tp = type(held)
    if tp is RunningMeanStd:
        return _put(held, state)
    if hasattr(tp, "_fields"):
        return tp(*[_put(b, v) for b, v in zip(held, state)])
    return tree_map(_put, held, state, is_leaf=_is_box)


def statistics_property(name: str, field: str | None = None) -> property:
    """The ``obs_rms`` / ``return_rms`` box(es) at ``field`` of the state; assigning another
    wrapper's shares it (copied if on another library or device), Gymnasium's is copied in."""

    def get(self: Any) -> Any:
        return self._state if field is None else getattr(self._state, field)

    def set(self: Any, value: Any) -> None:
        owner = wrapper_name(self)
        try:
            shared = tree_map(partial(_box_like, owner, name), get(self), value, is_leaf=_is_box)
        except (KeyError, IndexError, TypeError) as e:
            if isinstance(e, TypeError) and str(e).startswith(owner):
                raise
            raise TypeError(
                f"{owner}: expected `{name}` to be shaped like this wrapper's statistics, "
                f"got {value!r}"
            ) from None
        self._state = shared if field is None else self._state._replace(**{field: shared})

    return property(get, set, doc=f"Running statistics (``mean``, ``var``, ``count``): ``{name}``.")


def _box_like(owner: str, name: str, mine: RunningMeanStd, theirs: Any) -> RunningMeanStd:
    """``theirs`` as a box this wrapper can use in place of ``mine``."""
    if _is_box(theirs):
        if tuple(theirs.mean.shape) != tuple(mine.mean.shape):
            raise ValueError(
                f"{owner}: expected `{name}` with statistics of shape {tuple(mine.mean.shape)}, "
                f"got shape {tuple(theirs.mean.shape)}"
            )
        m, t = mine.moments, theirs.moments
        here, there, where = xp.library_name(m.mean), xp.library_name(t.mean), xp.device(m.mean)
        if here == there and str(where) == str(xp.device(t.mean)):
            return theirs  # shared, as in Gymnasium
        try:  # a copy in this wrapper's library, device and dtypes
            ns = xp.namespace(m.mean)
            mean, var = (
                ns.asarray(xp.to_numpy(a), dtype=b.dtype, device=where)
                for a, b in ((t.mean, m.mean), (t.var, m.var))
            )
            total = np.float64(xp.to_numpy(t.count)) + np.float64(xp.to_numpy(t.count_lo))
            hi, lo = split_count(np.asarray(total), xp.to_numpy(m.count).dtype)
            count, count_lo = (ns.asarray(w, dtype=m.count.dtype, device=where) for w in (hi, lo))
        except Exception as e:
            raise TypeError(
                f"{owner}: `{name}` of {there} (on {xp.device(t.mean)}) cannot be moved to "
                f"this wrapper's {here} (on {where}): {e}"
            ) from e
        return RunningMeanStd(type(m)(mean, var, count, count_lo))
    if all(hasattr(theirs, k) for k in ("mean", "var", "count")):  # Gymnasium's: copied
        copy = RunningMeanStd(mine.moments)
        try:  # (values as they are: Gymnasium's own checks none either)
            copy.mean, copy.var, copy.count = theirs.mean, theirs.var, theirs.count
        except ValueError:
            shapes = tuple(np.shape(getattr(theirs, k)) for k in ("mean", "var", "count"))
            raise ValueError(
                f"{owner}: expected `{name}` with a mean and a var of shape "
                f"{tuple(mine.mean.shape)} and one count, got shapes {shapes}"
            ) from None
        return copy
    raise TypeError(
        f"{owner}: expected `{name}` to be another wrapper's {name} (an anywrap "
        f"RunningMeanStd) or an object with mean, var and count, got {type(theirs).__name__}"
    )


def switch_property() -> property:
    """Gymnasium's ``update_running_mean`` switch (off: statistics frozen, to evaluate)."""

    def set(self: Any, setting: bool) -> None:
        self._update_running_mean = flag(wrapper_name(self), "update_running_mean", setting)

    get = attrgetter("_update_running_mean")
    return property(get, set, doc="Whether the statistics learn from new data.")
