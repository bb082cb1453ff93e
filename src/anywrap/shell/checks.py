"""Argument and input checks shared by the shells; every error names the wrapper.

Example:
    >>> check_gamma("anywrap.NormalizeReward", 1.5)
    Traceback (most recent call last):
    ...
    gymnasium.error.InvalidBound: anywrap.NormalizeReward: `gamma` should be in ... got 1.5
"""

from __future__ import annotations

import contextlib
import functools
import math
import numbers
from collections.abc import Callable
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium.error import InvalidBound
from gymnasium.vector import AutoresetMode

from anywrap import xp as axp
from anywrap.transforms.moments import split_count


def wrapper_name(obj: Any) -> str:
    """A wrapper's name in messages: ``anywrap.vector.X``, or ``mymodule.MyWrapper``."""
    tp = type(obj)
    parts = tp.__module__.split(".")
    if parts[0] != "anywrap":
        return f"{tp.__module__}.{tp.__qualname__}"
    for family in ("functional", "vector"):
        if family in parts[1:]:  # anywrap.vector.X, anywrap.record.vector.RecordHTML
            return f"anywrap.{family}.{tp.__name__}"
    return f"anywrap.{tp.__name__}"


def wrong_type(owner: str, name: str, expected: str, value: Any) -> TypeError:
    """The TypeError for an argument ``name`` that is not ``expected``: its type and value."""
    return TypeError(
        f"{owner}: expected `{name}` to be {expected}, got {type(value).__name__} {value!r}"
    )


def flag(owner: str, name: str, value: Any) -> bool:
    """A Python (or NumPy) bool; anything else (a traced value too) is a TypeError."""
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    raise wrong_type(owner, name, "a bool", value)


def callable_argument(owner: str, name: str, value: Any) -> Any:
    if not callable(value):
        raise TypeError(f"{owner}: expected `{name}` to be callable, got {value!r}")
    return value


def real_number(owner: str, name: str, value: Any) -> float:
    """``value`` (a Python or NumPy number, or a 0-d array) as a float, or a TypeError."""
    if isinstance(value, numbers.Real) and not isinstance(value, bool):
        return float(value)
    if not isinstance(value, (str, bytes, bool)) and getattr(value, "shape", None) == ():
        with contextlib.suppress(Exception):
            host = axp.to_numpy(value)
            if host.dtype.kind in "fiu":
                return float(host)
    what = "a real number (a Python or NumPy number, or a 0-d array)"
    raise wrong_type(owner, name, what, value)


def whole_number(owner: str, name: str, value: Any, least: int) -> int:
    """``value`` (a Python or NumPy integer, not a bool) as an int of at least ``least``."""
    if not isinstance(value, numbers.Integral) or isinstance(value, bool | np.bool_):
        raise wrong_type(owner, name, f"an int >= {least}", value)
    if value < least:
        raise ValueError(f"{owner}: expected `{name}` >= {least}, got {value!r}")
    return int(value)


def check_stats_dtype(owner: str, stats_dtype: Any) -> str | None:
    """``stats_dtype``: None (Gymnasium's default), float32 or float64."""
    if stats_dtype is None:
        return None
    name = None
    with contextlib.suppress(TypeError):
        name = np.dtype(stats_dtype).name
    if name not in ("float32", "float64"):
        raise ValueError(
            f"{owner}: expected `stats_dtype` to be None, 'float32' or 'float64', "
            f"got {stats_dtype!r}"
        )
    return name


def check_stats_key(owner: str, stats_key: Any) -> str:
    if not isinstance(stats_key, str) or not stats_key:
        raise wrong_type(owner, "stats_key", "a non-empty str", stats_key)
    return stats_key


def check_epsilon(owner: str, epsilon: Any) -> float:
    value = real_number(owner, "epsilon", epsilon)
    if not (math.isfinite(value) and value > 0):
        raise InvalidBound(f"{owner}: `epsilon` should be strictly positive, got {epsilon!r}")
    return value


def check_gamma(owner: str, gamma: Any) -> float:
    value = real_number(owner, "gamma", gamma)
    if not 0 <= value <= 1:
        raise InvalidBound(f"{owner}: `gamma` should be in the interval [0, 1], got {gamma!r}")
    return value


def autoreset_mode(owner: str, env: Any) -> AutoresetMode:
    """The vector env's autoreset mode; a missing entry means NEXT_STEP (as in Gymnasium)."""
    mode = env.metadata.get("autoreset_mode", AutoresetMode.NEXT_STEP)
    if isinstance(mode, str) and mode in [m.value for m in AutoresetMode]:
        mode = AutoresetMode(mode)
    if not isinstance(mode, AutoresetMode):
        raise TypeError(
            f"{owner}: expected env.metadata['autoreset_mode'] to be a "
            f"gymnasium.vector.AutoresetMode, got {mode!r}"
        )
    return mode


def autoreset_mode_property() -> property:
    """A vector wrapper's ``autoreset_mode`` (TorchRL reads it): its metadata's mode."""

    def get(self: Any) -> AutoresetMode:
        if not isinstance(self, gym.vector.VectorEnv):
            raise AttributeError(
                f"{type(self).__name__!r} object has no attribute 'autoreset_mode'"
            )
        return autoreset_mode(wrapper_name(self), self)

    return property(get, doc=autoreset_mode_property.__doc__)


def reset_mask_of(owner: str, options: dict[str, Any] | None, num_envs: int) -> Any:
    """``options["reset_mask"]`` (or None), checked: a bool array of shape ``(num_envs,)``."""
    if options is None or "reset_mask" not in options:
        return None
    mask = options["reset_mask"]
    is_bool = False
    with contextlib.suppress(Exception):  # not an array at all: not a bool one
        is_bool = bool(axp.namespace(mask).isdtype(mask.dtype, "bool"))
    if tuple(getattr(mask, "shape", ())) != (num_envs,) or not is_bool:
        raise ValueError(
            f"{owner}: expected options['reset_mask'] to be a bool array of shape "
            f"({num_envs},), got {axp.describe(mask)}"
        )
    if isinstance(mask, np.ndarray) and not mask.any():
        raise ValueError(
            f"{owner}: expected options['reset_mask'] to select at least one sub-env, got "
            f"{mask} (reset() without options resets them all)"
        )
    return mask


def _numpy_env_below(env: Any) -> Any:
    """Gymnasium's Sync/Async vector env under ``env`` (no conversion between), or None."""
    while env is not None:
        if isinstance(env, (gym.vector.SyncVectorEnv, gym.vector.AsyncVectorEnv)):
            return env
        if hasattr(env, "_backward") or not type(env).__module__.startswith("anywrap."):
            return None
        env = getattr(env, "env", None)
    return None


def checked_reset(reset: Callable[..., Any]) -> Callable[..., Any]:
    """``reset`` with its ``options`` (a dict or None, and its ``reset_mask``) checked first."""

    @functools.wraps(reset)
    def checked(self: Any, *, seed: Any = None, options: Any = None) -> Any:
        owner = wrapper_name(self)
        if options is not None and not isinstance(options, dict):
            raise wrong_type(owner, "options", "a dict or None", options)
        vector = isinstance(self, gym.vector.VectorEnv)
        mask = reset_mask_of(owner, options, self.num_envs) if vector else None
        below = None if mask is None else _numpy_env_below(self)
        if below is not None and not isinstance(mask, np.ndarray):
            raise TypeError(
                f"{owner}: expected options['reset_mask'] to be a NumPy array, as the "
                f"{type(below).__name__} below takes, got {axp.describe(mask)} (convert it, or "
                "put a conversion wrapper such as anywrap.vector.ToTorch between)"
            )
        return reset(self, seed=seed, options=options)

    checked._checks_options = True  # type: ignore[attr-defined]
    return checked


def check_value(owner: str, name: str, x: Any, want: str, num_envs: int | None) -> None:
    """A step's reward (``want="real"``) or flag (``"bool"``): ``(num_envs,)`` for a vector
    env, else one value (a Python one, a 0-d array, or a reward of one element: a flag of
    shape ``(1,)`` would turn the state's scalars into arrays)."""
    shape = getattr(x, "shape", None)
    if num_envs is not None and (shape is None or tuple(shape) != (num_envs,)):
        raise ValueError(
            f"{owner}: expected {name} of shape {(num_envs,)} (one per sub-env), "
            f"got {axp.describe(x)}"
        )
    if shape is None:  # one env's Python value
        if isinstance(x, bool) if want == "bool" else isinstance(x, numbers.Real):
            return
    elif axp.dtype_kind(x) in ("bool", want):
        one = tuple(shape) == () or (want != "bool" and math.prod(shape) == 1)
        if num_envs is not None or one:
            return
        raise ValueError(f"{owner}: expected a scalar {name} (one env), got {axp.describe(x)}")
    got = repr(x) if shape is None else axp.describe(x)
    what = "bools" if want == "bool" else "real numbers"
    raise TypeError(f"{owner}: expected {name} to hold {what}, got {got}")


def step_values(
    owner: str, reward: Any, terminated: Any, truncated: Any, num_envs: int | None
) -> Any:
    """A step's reward (as the state takes it), checked with the flags by :func:`check_value`."""
    if (  # the common case, checked at once (traceable: a compiled stack runs it)
        type(reward) is type(terminated) is type(truncated)
        and getattr(reward, "shape", None) == (num_envs,) == terminated.shape == truncated.shape
        and terminated.dtype == truncated.dtype
        and (
            (terminated.dtype == _BOOL and reward.dtype.kind in "biuf")
            if type(reward) is np.ndarray
            else (axp.dtype_kind(terminated) == "bool" and axp.dtype_kind(reward) != "")
        )
    ):
        return reward
    step_flags(owner, terminated, truncated, num_envs)
    check_reward(owner, num_envs, reward)
    if num_envs is None and getattr(reward, "shape", ()) != ():
        return axp.namespace(reward).reshape(reward, ())
    return reward


def check_reward(owner: str, num_envs: int | None, reward: Any, *flags: Any) -> None:
    """A step's reward alone (the flags are not read), as :func:`step_values` takes it."""
    if type(reward) is not float:
        check_value(owner, "reward", reward, "real", num_envs)


def step_info(owner: str, info: Any) -> None:
    """A step's ``info`` must be a dict (every wrapper may read or write it)."""
    if not isinstance(info, dict):
        raise TypeError(f"{owner}: expected `info` to be a dict, got {type(info)}")


def step_flags(owner: str, terminated: Any, truncated: Any, num_envs: int | None) -> None:
    """A step's ``terminated`` and ``truncated``: bools, as :func:`step_values` takes them."""
    for name, x in (("terminated", terminated), ("truncated", truncated)):
        if type(x) is not bool:
            check_value(owner, name, x, "bool", num_envs)


_BOOL = np.dtype(bool)
_FLOATS = ("float32", "float64")
_FINITE = frozenset(
    {"mean", "var", "count", "count_lo", "accumulated", "episode_count", "episode_count_lo"}
    | {"start_time", "recent_times"}
)


def not_finite(key: str, value: np.ndarray) -> bool:
    """Whether a state entry that a wrapper keeps finite holds an inf or NaN."""
    return (
        key.rpartition(".")[2] in _FINITE
        and value.dtype.kind == "f"
        and not bool(np.isfinite(value).all())
    )


_NON_NEGATIVE = frozenset(
    {"var", "count", "lengths", "recent_lengths", "recent_size", "newest", "episode_count"}
    | {"elapsed", "length", "taken"}
)
_COUNTS = frozenset({"count", "episode_count", "lengths", "elapsed", "taken"})


def _next_fits(value: np.ndarray, kept: np.dtype, double_word: bool) -> bool:
    if kept.kind in "iu":
        return bool((value < np.iinfo(kept).max).all())
    mantissa = np.finfo(np.float64 if double_word else kept).nmant + 1
    return bool((value < 2.0**mantissa).all())


def check_distinct_keys(owner: str, keys: list[str]) -> None:
    """A state's flattened keys must be distinct, or a checkpoint would lose one."""
    key = next((k for i, k in enumerate(keys) if k in keys[:i]), None)
    if key is not None:
        raise ValueError(
            f"{owner}: expected the keys of the observation space to stay distinct once "
            f"joined with dots, got {key!r} twice (a key with a dot beside a nested one); "
            "rename one to save or load this state"
        )


def checked_entries(
    who: str,
    own: dict[str, tuple[tuple[int, ...], np.dtype]],
    given: dict[str, Any],
    ranges: dict[str, tuple[int, int]] | None = None,
) -> list[np.ndarray]:
    """A saved state's entries as host arrays in ``own``'s order and dtypes, or a KeyError /
    ValueError for any value a wrapper never holds; a double-word count split again from its
    float64 total in the dtype kept (a float64 count takes it whole)."""
    if not isinstance(given, dict):
        raise TypeError(f"{who}: expected a dict of arrays, got {type(given).__name__}")
    missing, extra = sorted(set(own) - set(given)), sorted(set(given) - set(own))
    if missing or extra:
        raise KeyError(f"{who}: expected keys {sorted(own)}, missing {missing}, unexpected {extra}")
    values, kept = {}, {}
    for key, (shape, dtype) in own.items():
        values[key], kept[key] = axp.to_numpy(given[key]), dtype
        if values[key].shape != tuple(shape):
            raise ValueError(
                f"{who}: {key!r} has shape {values[key].shape}, this wrapper expects "
                f"{tuple(shape)} (a stack of another shape?)"
            )
        _check_kind(who, key, values[key], dtype)
    for key, value in values.items():
        field = key.rpartition(".")[2]
        low, high = (ranges or {}).get(field, (None, None))  # a ring's pointer and fill
        if low is not None and value.size and not (low <= value.min() and value.max() <= high):
            _refuse(who, key, value, f"must be in [{low}, {high}] for this wrapper")
        if not_finite(key, value):
            _refuse(who, key, value, "must be finite")
        if value.dtype.kind == "f" and kept[key].kind == "f" and kept[key] != value.dtype:
            with np.errstate(over="ignore"):
                overflows = np.isfinite(value) & ~np.isfinite(value.astype(kept[key]))
            if overflows.any():
                _refuse(who, key, value[overflows], f"must fit {kept[key].name}, the dtype kept")
        if field in _NON_NEGATIVE and not (value >= 0).all():
            _refuse(who, key, value, "must be non-negative")
        if field in _COUNTS and not _next_fits(value, kept[key], key + "_lo" in values):
            _refuse(who, key, value, f"must be a count that {kept[key].name} can still add 1 to")
        buffer = values.get(key[: -len("size")] + "returns") if field == "recent_size" else None
        if buffer is not None and int(value) > buffer.shape[0]:
            _refuse(who, key, value, f"must be at most the buffer's {buffer.shape[0]}")
    out = dict(values)
    for key in [k for k in values if k.endswith("_lo") and k[:-3] in values]:
        hi = key[:-3]
        total = values[hi].astype(np.float64) + values[key].astype(np.float64)
        if not (total >= 0).all():
            _refuse(who, key, total, f"and {hi!r} must total a non-negative count")
        if not _next_fits(total, kept[hi], True):
            _refuse(who, key, total, f"and {hi!r} must total a count below 2**53")
        out[hi], out[key] = split_count(total, kept[hi])
    return [out[key].astype(kept[key], copy=False) for key in values]


def _check_kind(who: str, key: str, value: np.ndarray, own: np.dtype) -> None:
    if own.kind == "f":
        ok, expected = value.dtype.name in _FLOATS, " or ".join(_FLOATS)
    elif own.kind in "iu":
        ok = value.dtype.kind in "iu"
        if ok and value.size:
            info = np.iinfo(own)
            ok = info.min <= int(value.min()) and int(value.max()) <= info.max
        expected = f"integers that fit {own.name}"
    else:
        ok, expected = value.dtype == own, own.name
    if not ok:
        raise ValueError(
            f"{who}: {key!r} holds {value.dtype.name} values "
            f"{np.asarray(value).ravel()[:4].tolist()}, this wrapper keeps {own.name} "
            f"(expected {expected})"
        )


def _refuse(who: str, key: str, value: Any, what: str) -> None:
    raise ValueError(
        f"{who}: {key!r} {what}, got "
        f"{np.asarray(value).ravel()[:4].tolist()} (a damaged or foreign checkpoint); "
        "nothing was loaded"
    )


def check_env_kind(wrapper: Any, env: Any) -> None:
    """A vector wrapper over one env, or the reverse, refused with the other family named."""
    name = type(wrapper).__name__
    if isinstance(wrapper, gym.vector.VectorWrapper):
        # Duck-typed: a simulator's batched env (IsaacLab's) need not subclass VectorEnv.
        parts = ("num_envs", "single_observation_space", "single_action_space")
        if not all(hasattr(env, a) for a in parts):
            raise TypeError(
                f"{wrapper_name(wrapper)}: expected a vector env (a gymnasium VectorEnv, with "
                f"num_envs and single spaces), got {type(env).__name__}; for one env use "
                f"anywrap.{name}"
            )
    elif isinstance(env, gym.vector.VectorEnv):
        raise TypeError(
            f"{wrapper_name(wrapper)}: expected one env (a gymnasium Env), got the vector env "
            f"{type(env).__name__}; for a vector env use anywrap.vector.{name}"
        )
