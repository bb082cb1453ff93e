"""The one class between an anywrap wrapper and Gymnasium's ``Wrapper`` / ``VectorWrapper``.

:class:`Shell` does two things for every wrapper:

* It records every constructor argument for the wrapper's spec through
  :class:`gymnasium.utils.RecordConstructorArgs` (so ``gym.make(env.spec)``
  rebuilds the stack), read from the constructor's signature so that none is
  forgotten.
* A stateful wrapper keeps its transform's state in one place, ``self._state``:
  a tree (NamedTuples) of arrays, which starts in NumPy, so that statistics can
  be read or loaded before the first reset, and moves to the library and device
  of the first array the env returns. Statistics users may share
  (``obs_rms``, ``return_rms``) sit in that tree as :class:`RunningMeanStd`
  boxes: two wrappers that hold the same box use, and update, the same moments.
  ``state_dict()`` / ``load_state_dict()`` give and take plain arrays.

Example:
    >>> import gymnasium as gym
    >>> import anywrap
    >>> env = anywrap.NormalizeReward(gym.make("CartPole-v1"), gamma=0.9)
    >>> env.spec.additional_wrappers[-1].kwargs["gamma"], sorted(env.state_dict())[:2]
    (0.9, ['accumulated', 'prev_done'])
"""

from __future__ import annotations

import contextlib
import functools
import inspect
from collections.abc import Callable, Iterator
from typing import Any

import gymnasium as gym
import numpy as np

from anywrap import xp
from anywrap.shell.checks import (
    autoreset_mode_property,
    check_distinct_keys,
    checked_entries,
    checked_reset,
    flag,
    wrapper_name,
)
from anywrap.transforms.moments import Moments
from anywrap.tree import first_leaf, flatten_with_paths, key_path, tree_map, unflatten

__all__ = [
    "RunningMeanStd",
    "Shell",
    "statistics_property",
    "switch_property",
    "with_no_output",
]


class RunningMeanStd:
    """Gymnasium's ``RunningMeanStd`` look (``mean``, ``var``, ``count``) over one
    :class:`~anywrap.transforms.moments.Moments`: the box that wrappers share.

    The values are arrays of the env's library, on its device. Assigning to
    ``mean``, ``var`` or ``count`` changes the statistics the wrapper uses. As in
    Gymnasium, the object is the statistics: ``eval_env.obs_rms = train_env.obs_rms``
    makes both wrappers use, and see every update of, the same statistics.

    Example:
        >>> import numpy as np
        >>> from anywrap.transforms.moments import init_moments
        >>> rms = RunningMeanStd(init_moments((2,), xp=np, dtype=np.float32))
        >>> rms.mean = np.array([1.0, 2.0])
        >>> rms.mean, float(rms.count)
        (array([1., 2.], dtype=float32), 0.0001)
    """

    __slots__ = ("moments",)

    def __init__(self, moments: Moments) -> None:
        self.moments = moments

    mean = property(
        lambda self: self.moments.mean,
        lambda self, value: self._set("mean", value),
        doc="The running mean (an array of the env's library, on its device).",
    )
    var = property(
        lambda self: self.moments.var,
        lambda self, value: self._set("var", value),
        doc="The running population variance.",
    )

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

    def _set(self, field: str, value: Any) -> None:
        old = getattr(self.moments, field)
        host = np.array(np.broadcast_to(xp.to_numpy(value), tuple(old.shape)))
        new = xp.namespace(old).asarray(host, dtype=old.dtype, device=xp.device(old))
        self.moments = self.moments._replace(**{field: new})

    def __repr__(self) -> str:
        return f"RunningMeanStd(mean={self.mean!r}, var={self.var!r}, count={self.count!r})"


_HOST_NUMBERS = frozenset({float, int, bool, np.float64, np.float32, np.bool_, np.int64})
"""Host numbers that say nothing of where the state lives (a single env's reward)."""


def _is_box(x: Any) -> bool:
    return type(x) is RunningMeanStd


def unboxed(tree: Any) -> Any:
    """The state as transforms take it: each box replaced by its moments.

    Boxes are the state itself, the fields of a NamedTuple state (NormalizeReward's
    ``rms``), or the leaves of a dict / tuple (a Dict or Tuple observation space).
    """
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


def moved(state: Any, like: Any) -> Any:
    """Every array of ``state`` in the library of the array ``like``, on its device.

    64-bit values that the target cannot hold (JAX without x64) become 32 bits.
    """
    ns, dev = xp.namespace(like), xp.device(like)

    def move(x: Any) -> Any:
        if xp.namespace(x) is ns and str(xp.device(x)) == str(dev):
            return x
        host = xp.to_numpy(x)
        if ns is np:
            return host
        return ns.asarray(host, dtype=xp.resolve_dtype(ns, host.dtype.name, dev), device=dev)

    return tree_map(move, state)


class _NoOutput:
    """``fn`` returning ``(state, None)``: named as ``fn`` (the compile log, a profile)
    and picklable where ``fn`` is."""

    def __init__(self, fn: Callable[..., Any]) -> None:
        self.fn = fn
        functools.update_wrapper(self, fn)

    def __call__(self, *args: Any, **kwargs: Any) -> tuple[Any, None]:
        return self.fn(*args, **kwargs), None


def with_no_output(fn: Callable[..., Any]) -> Callable[..., tuple[Any, None]]:
    """A transform ``state -> state`` (a reset) as :meth:`Shell._run` takes it:
    ``state -> (state, None)``."""
    return _NoOutput(fn)


_VECTOR_PARTS = ("num_envs", "single_observation_space", "single_action_space")


def _check_env_kind(wrapper: Any, env: Any) -> None:
    """A vector wrapper over one env, or the reverse, refused with the wrapper named
    and the other family pointed to (not an AttributeError from deep inside)."""
    name = type(wrapper).__name__
    if isinstance(wrapper, gym.vector.VectorWrapper):
        # Duck-typed: a simulator's batched env (IsaacLab's) need not subclass VectorEnv.
        if env is not None and not all(hasattr(env, a) for a in _VECTOR_PARTS):
            raise TypeError(
                f"{wrapper_name(wrapper)}: expected a vector env (a gymnasium VectorEnv, with "
                f"num_envs and single spaces), got {type(env).__name__}; for one env use "
                f"anywrap.{name}"
            )
    elif isinstance(wrapper, gym.Wrapper) and isinstance(env, gym.vector.VectorEnv):
        raise TypeError(
            f"{wrapper_name(wrapper)}: expected one env (a gymnasium Env), got the vector env "
            f"{type(env).__name__}; for a vector env use anywrap.vector.{name}"
        )


def _record_arguments(init: Callable[..., None]) -> Callable[..., None]:
    signature = inspect.signature(init)

    @functools.wraps(init)
    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        if not hasattr(self, "_saved_kwargs"):  # the first (most derived) recording wins
            try:
                bound = signature.bind(self, *args, **kwargs)
            except TypeError:
                pass  # the call itself is wrong: the constructor says how
            else:
                _check_env_kind(self, bound.arguments.get("env"))
                bound.apply_defaults()
                recorded: dict[str, Any] = {}
                for name, value in bound.arguments.items():
                    kind = signature.parameters[name].kind
                    if name in ("self", "env"):
                        continue
                    if kind is inspect.Parameter.VAR_KEYWORD:
                        recorded.update(value)
                    elif kind is not inspect.Parameter.VAR_POSITIONAL:
                        recorded[name] = value
                # Not deep-copied: a process group or a callable cannot be copied.
                gym.utils.RecordConstructorArgs.__init__(self, _disable_deepcopy=True, **recorded)
        init(self, *args, **kwargs)

    __init__._records_arguments = True  # type: ignore[attr-defined]
    return __init__


class Shell(gym.utils.RecordConstructorArgs):
    """The base of anywrap's wrappers, listed before Gymnasium's wrapper class.

    A subclass's constructor arguments are recorded for its spec. A stateful
    subclass sets ``self._state`` in its constructor and, at each step, takes
    the state for the data with :meth:`_state_for`, runs its compiled transform
    and installs the result with :meth:`_commit` (only once the transform has
    succeeded: a failed call leaves the state as it was).
    """

    _state: Any = None
    _kind: type = np.ndarray
    """The exact array type the state is held in now."""
    _boxed: bool = False
    """Whether the state holds :class:`RunningMeanStd` boxes."""
    _transforms: dict[Any, Callable[..., Any]] = {}
    _compiled: dict[Any, Callable[..., Any]] = {}
    _donate: frozenset[Any] = frozenset()
    _ranges: dict[str, tuple[int, int]] = {}
    """Bounds that a loaded state's integer fields must keep, by field name."""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if not getattr(cls.__init__, "_records_arguments", False):
            cls.__init__ = _record_arguments(cls.__init__)  # type: ignore[method-assign]
        if "reset" in cls.__dict__ and not getattr(cls.reset, "_checks_options", False):
            cls.reset = checked_reset(cls.reset)  # type: ignore[method-assign]

    autoreset_mode = autoreset_mode_property()

    @checked_reset
    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> Any:
        """Reset the env; ``options`` checked first (a dict, and a valid ``reset_mask``)."""
        return super().reset(seed=seed, options=options)  # type: ignore[misc]

    def _use(self, transforms: dict[Any, Callable[..., Any]], donate: tuple[Any, ...] = ()) -> None:
        """The pure transforms this shell runs with :meth:`_run`, by key: each takes the
        state first and returns ``(state, output)``. ``donate`` names those whose
        program may reuse the state's memory (a ring buffer of frames)."""
        self._transforms, self._donate = dict(transforms), frozenset(donate)
        self._by_kind: dict[type, dict[Any, Callable[..., Any]]] = {}
        self._compiled = self._compiled_for(first_leaf(unboxed(self._state)))

    def _compiled_for(self, leaf: Any) -> dict[Any, Callable[..., Any]]:
        """The transforms compiled for arrays of ``leaf``'s type (once per type)."""
        found = self._by_kind.get(type(leaf))
        if found is None:
            found = self._by_kind[type(leaf)] = {
                key: xp.jit(leaf, fn, donate=key in self._donate)
                for key, fn in self._transforms.items()
            }
        return found

    def _run(self, key: Any, like: Any, *args: Any, **kwargs: Any) -> Any:
        """Run the transform ``key`` on the state for the data ``like`` (an array, or a
        tree of them) and ``args``; install the new state and return the output.

        The common step (``like`` of the state's own array type) is one compiled
        call; otherwise the state is moved to ``like``'s library and device first.
        """
        state = self._state
        kind = type(like)
        # The common step: data of the state's own array type, or a host number
        # (a single env's reward) beside a NumPy state, which has nowhere to move.
        if kind is self._kind or (kind in _HOST_NUMBERS and self._kind is np.ndarray):
            fn = self._compiled[key]
            if type(state) is RunningMeanStd:
                state.moments, out = fn(state.moments, *args, **kwargs)
            elif self._boxed:
                new, out = fn(unboxed(state), *args, **kwargs)
                self._state = reboxed(state, new)
            else:
                self._state, out = fn(state, *args, **kwargs)
            return out
        fn = self._compiled_for(first_leaf(like))[key]
        state, out = fn(self._state_for(like), *args, **kwargs)
        self._commit(state, like)
        return out

    def _state_for(self, like: Any) -> Any:
        """The state as transforms take it, in ``like``'s library and on its device
        (converted, not installed, when it is not there yet)."""
        state = self._state
        if type(state) is RunningMeanStd:
            state = state.moments
        elif self._boxed:
            state = unboxed(state)
        if type(like) is self._kind:
            return state
        leaf = first_leaf(like)
        if type(leaf) is self._kind:
            return state
        try:
            return moved(state, leaf)
        except xp.UnknownArrayTypeError as e:
            raise xp.UnknownArrayTypeError(f"{wrapper_name(self)}: {e}") from None

    @contextlib.contextmanager
    def _undone_on_failure(self) -> Iterator[None]:
        """Put the state back as it was if the block fails: for a shell whose state
        changes before the env has taken the data (StickyAction's last action, sent to
        an env that refuses it). Not for boxed statistics, which change in place."""
        before = self._state, self._kind, self._compiled
        try:
            yield
        except BaseException:
            self._state, self._kind, self._compiled = before
            raise

    def _commit(self, state: Any, like: Any) -> None:
        """Install ``state``, which is in ``like``'s library and on its device; only once
        the transform has succeeded, so that a failed call leaves the state as it was."""
        held = self._state
        if type(held) is RunningMeanStd:
            held.moments = state
        else:
            self._state = reboxed(held, state) if self._boxed else state
        leaf = first_leaf(like)
        if type(leaf) is not self._kind:
            self._kind = type(leaf)
            if self._transforms:
                self._compiled = self._compiled_for(leaf)

    def __getstate__(self) -> dict[str, Any]:
        # Compiled programs are not pickled (nor deep-copied): they are made again.
        return {k: v for k, v in self.__dict__.items() if k not in ("_by_kind", "_compiled")}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        if self._transforms:
            self._by_kind = {}
            self._compiled = self._compiled_for(first_leaf(unboxed(self._state)))

    def _mask_for(self, mask: Any, like: Any) -> Any:
        """``mask`` (a ``reset_mask``, often NumPy) in ``like``'s library and on its
        device, where the state goes: following a host mask instead would move a
        device state to the host and back."""
        leaf = first_leaf(like)
        if type(mask) is type(leaf):
            return mask
        return xp.to_library(mask, xp.library_name(leaf), xp.device(leaf))

    def _export(self, state: Any) -> Any:
        """The state as saved (a hook: episode clocks are saved relative to now)."""
        return state

    def _import(self, state: Any) -> Any:
        """The inverse of :meth:`_export`."""
        return state

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
        """Restore a state saved by :meth:`state_dict` (arrays of any library).

        Every entry is checked before anything changes: a failed load leaves the
        wrapper as it was.

        Raises:
            KeyError: missing or unexpected entries.
            ValueError: an entry of another shape or kind of dtype than this
                wrapper's, or a value the wrapper can never hold (see
                :func:`anywrap.shell.checks.loaded_values`).
        """
        self._install(self.checked_state(state_dict))

    def _install(self, state: Any) -> None:
        self._state = reboxed(self._state, state) if self._boxed else state

    def checked_state(self, state_dict: dict[str, Any]) -> Any:
        """The state that :meth:`load_state_dict` would install, without installing it."""
        own = {
            key: (tuple(mine.shape), np.dtype(xp.to_numpy(mine).dtype))
            for key, mine in self.state_dict().items()
        }
        who = f"{wrapper_name(self)}.load_state_dict"
        values = checked_entries(who, own, state_dict, self._ranges)
        like = first_leaf(unboxed(self._state))
        return self._import(moved(unflatten(unboxed(self._state), values), like))


def statistics_property(name: str, field: str | None = None) -> property:
    """The ``obs_rms`` / ``return_rms`` attribute: the :class:`RunningMeanStd` box (a
    dict / tuple of them for Dict / Tuple spaces) at ``field`` of the state.
    Assigning another wrapper's makes both share it; a Gymnasium ``RunningMeanStd``
    (or any object with ``mean``, ``var`` and ``count``) is copied in."""

    def get(self: Shell) -> Any:
        return self._state if field is None else getattr(self._state, field)

    def set(self: Shell, value: Any) -> None:
        own = get(self)
        owner = wrapper_name(self)
        try:
            shared = tree_map(
                lambda mine, theirs: _box_like(owner, name, mine, theirs),
                own,
                value,
                is_leaf=_is_box,
            )
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
        return theirs  # shared, as Gymnasium shares a RunningMeanStd
    if all(hasattr(theirs, k) for k in ("mean", "var", "count")):  # Gymnasium's: copied
        copy = RunningMeanStd(mine.moments)
        copy.mean, copy.var, copy.count = theirs.mean, theirs.var, theirs.count
        return copy
    raise TypeError(
        f"{owner}: expected `{name}` to be another wrapper's {name} (an anywrap "
        f"RunningMeanStd) or an object with mean, var and count, got {type(theirs).__name__}"
    )


def switch_property() -> property:
    """Gymnasium's ``update_running_mean`` switch (off: statistics frozen, to evaluate)."""

    def get(self: Any) -> bool:
        return self._update_running_mean  # type: ignore[no-any-return]

    def set(self: Any, setting: bool) -> None:
        self._update_running_mean = flag(wrapper_name(self), "update_running_mean", setting)

    return property(get, set, doc="Whether the statistics learn from new data.")
