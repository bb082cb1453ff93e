"""What the array wrappers' shells share: checks, spaces, constants, ``final_obs`` layouts.

Example:
    >>> LibraryConstants("demo", np.array([2.0], dtype=np.float32)).get(np.zeros(3))
    (array([2.], dtype=float32),)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal

import gymnasium as gym
import numpy as np
from gymnasium.error import InvalidBound
from gymnasium.vector.utils import concatenate, create_empty_array

from anywrap import xp as axp
from anywrap.shell.checks import wrong_type
from anywrap.shell.compiled import moved
from anywrap.shell.spaces import ObservationCheck
from anywrap.transforms.rescale import rescale_coefficients
from anywrap.tree import first_leaf, tree_map


def check_reward_bounds(owner: str, min_reward: Any, max_reward: Any) -> None:
    """Gymnasium's checks on ``ClipReward``'s bounds, with the wrapper named."""
    if min_reward is None and max_reward is None:
        raise InvalidBound(f"{owner}: `min_reward` and `max_reward` cannot both be None")
    for name, bound in (("min_reward", min_reward), ("max_reward", max_reward)):
        if bound is None:
            continue
        host = np.asarray(bound)  # host values: numbers or NumPy arrays, as in Gymnasium
        if host.dtype.kind not in "biuf":
            raise wrong_type(owner, name, "a real number or array", bound)
        if np.isnan(host).any():
            raise InvalidBound(f"{owner}: `{name}` holds NaN: {bound!r}")
    low, high = min_reward, max_reward
    if low is not None and high is not None and np.any(np.asarray(high) - np.asarray(low) < 0):
        raise InvalidBound(
            f"{owner}: `min_reward` ({min_reward}) must be smaller than `max_reward` ({max_reward})"
        )


def reward_bound(value: Any) -> Any:
    """A ``ClipReward`` bound: a Python number stays one (it takes the reward's dtype)."""
    return value if value is None or isinstance(value, float | int) else np.asarray(value)


def dtype_space(owner: str, space: gym.Space, dtype: Any) -> gym.Space:
    """Gymnasium's ``DtypeObservation`` space: ``space`` holding ``dtype`` (of numbers or bools)."""
    try:
        known = np.dtype(dtype).kind in "biufc"
    except TypeError:
        known = False
    if not known:
        what = "a dtype of numbers or bools (e.g. np.float32 or 'float32')"
        raise wrong_type(owner, "dtype", what, dtype)
    if isinstance(space, gym.spaces.Box):
        return gym.spaces.Box(space.low, space.high, space.shape, dtype=dtype)
    if isinstance(space, gym.spaces.Discrete):
        return gym.spaces.Box(space.start, space.start + space.n - 1, (), dtype=dtype)
    if isinstance(space, gym.spaces.MultiDiscrete):
        return gym.spaces.MultiDiscrete(space.nvec, dtype=dtype, start=space.start)
    if isinstance(space, gym.spaces.MultiBinary):
        return gym.spaces.Box(0, 1, space.shape, dtype=dtype)
    raise TypeError(
        f"{owner}: expected a Box, Discrete, MultiDiscrete or MultiBinary observation space, "
        f"got {space}"
    )


def reshape_space(owner: str, space: gym.Space, shape: Any) -> gym.spaces.Box:
    """Gymnasium's ``ReshapeObservation`` checks and space, with the wrapper named."""
    if not isinstance(space, gym.spaces.Box):
        raise TypeError(f"{owner}: expected a Box observation space, got {space}")
    if not isinstance(shape, tuple):
        raise TypeError(f"{owner}: expected `shape` to be a tuple, got {shape!r}")
    if not all(np.issubdtype(type(d), np.integer) for d in shape):
        raise TypeError(f"{owner}: expected the entries of `shape` to be integers, got {shape}")
    if not all(d > 0 or d == -1 for d in shape):
        raise ValueError(f"{owner}: expected the entries of `shape` to be > 0 or -1, got {shape}")
    size, known = int(np.prod(space.shape)), int(np.prod([d for d in shape if d != -1]))
    if shape.count(-1) > 1 or (known != size if -1 not in shape else size % known):
        held = f"{known} values" if -1 not in shape else "no whole number of them with one -1"
        raise ValueError(
            f"{owner}: `shape` {shape} holds {held}, the observation space {space} holds {size}"
        )
    low = np.reshape(np.ravel(space.low), shape)
    high = np.reshape(np.ravel(space.high), shape)
    return gym.spaces.Box(low=low, high=high, shape=low.shape, dtype=space.dtype)


def rescaled_box(
    owner: str, space: gym.Space, low: Any, high: Any, kind: Literal["action", "obs"]
) -> tuple[gym.spaces.Box, np.ndarray, np.ndarray]:
    """``(new Box, gradient, intercept)`` of a rescaled ``kind`` space."""
    names = (f"min_{kind}", f"max_{kind}")
    if not isinstance(space, gym.spaces.Box):
        raise TypeError(f"{owner}: expected a Box space, got {space}")
    try:
        gradient, intercept = rescale_coefficients(space, low, high, names=names)
    except (TypeError, ValueError) as e:
        raise type(e)(f"{owner}: {e}") from e
    box = gym.spaces.Box(
        low=_exact(low, space), high=_exact(high, space), shape=space.shape, dtype=space.dtype
    )
    if kind == "action" and np.any(box.low == box.high):
        raise InvalidBound(
            f"{owner}: `{names[0]}` ({low}) must be strictly smaller than `{names[1]}` "
            f"({high}): where they are equal the rescaling has no inverse"
        )
    return box, gradient, intercept


def _exact(bound: Any, space: gym.spaces.Box) -> np.ndarray:
    """``bound`` in the space's dtype where that is exact (the Box warns otherwise)."""
    wide = np.broadcast_to(np.asarray(bound), space.shape)
    narrow = wide.astype(space.dtype)
    return narrow if np.array_equal(narrow, wide) else wide


def box_check(owner: str, space: gym.Space, batch: int | None = None) -> Any:
    """An ``ObservationCheck`` of a Box space, or ``None`` for other spaces."""
    return ObservationCheck(owner, space, batch) if isinstance(space, gym.spaces.Box) else None


def checked(check: Any, obs: Any) -> Any:
    """``obs``, refused by ``check`` (a :func:`box_check`, or ``None``) if it does not fit."""
    if check is not None and (
        getattr(obs, "shape", None) != check.shape or not axp.dtype_kind(obs)
    ):
        check(obs)
    return obs


class LibraryConstants:
    """A stateless wrapper's NumPy constants, converted once per library and device."""

    def __init__(self, owner: str, *values: Any) -> None:
        self.owner, self.values = owner, values
        self._cache: dict[tuple[type, str], tuple[Any, ...]] = {}

    def get(self, like: Any) -> tuple[Any, ...]:
        """The constants in the library and on the device of ``like`` (any tree)."""
        if type(like) is np.ndarray:  # the host step: the constants as they are
            return self.values
        leaf = first_leaf(like)
        if not self.values or axp.is_host(leaf):
            return self.values
        key = (type(leaf), str(axp.device(leaf)))
        found = self._cache.get(key)
        if found is None:
            try:
                found = tree_map(lambda v: moved(v, leaf) if axp.is_host(v) else v, self.values)
            except axp.UnknownArrayTypeError as e:
                raise axp.UnknownArrayTypeError(f"{self.owner}: {e}") from e
            self._cache[key] = found
        return found


def is_packed(final: Any) -> bool:
    """Whether ``info["final_obs"]`` is Gymnasium's object array (host envs)."""
    return isinstance(final, np.ndarray) and final.dtype == object


def map_final_obs(info: dict[str, Any], fn: Callable[[Any], Any]) -> dict[str, Any]:
    """``info`` with the batch function ``fn`` applied to ``info["final_obs"]``, if any."""
    if "final_obs" not in info:
        return info
    final = info["final_obs"]
    if is_packed(final):
        out = np.empty(final.shape, dtype=object)
        for i, f in enumerate(final):
            if f is not None:
                out[i] = tree_map(lambda x: x[0], fn(tree_map(lambda x: np.asarray(x)[None], f)))
        final = out
    else:
        final = fn(final)
    return {**info, "final_obs": final}


def final_obs_batch(
    owner: str, info: dict[str, Any], obs: Any, space: gym.Space, num_envs: int
) -> tuple[Any, bool]:
    """``(batch, packed)``: the final observations as one batch (rows with none: ``obs``)."""
    final = info["final_obs"]
    if not is_packed(final):
        return final, False
    rows = [f if f is not None else tree_map(lambda x, i=i: x[i], obs) for i, f in enumerate(final)]
    out: Any = create_empty_array(space, num_envs)
    try:
        return concatenate(space, rows, out), True
    except (ValueError, TypeError, KeyError, IndexError) as e:  # Gymnasium's, per leaf
        got = [None if f is None else axp.describe(f) for f in final]
        raise ValueError(
            f"{owner}: expected each row of info['final_obs'] to fit {space}, got {got} ({e})"
        ) from None


def pack_final_obs(info: dict[str, Any], batch: Any, packed: bool) -> dict[str, Any]:
    """``info`` with ``info["final_obs"] = batch``, in the layout the env used."""
    if packed:
        mask = info["_final_obs"]
        out = np.empty(len(mask), dtype=object)
        for i, m in enumerate(mask):
            out[i] = tree_map(lambda x, i=i: x[i], batch) if m else None
        batch = out
    return {**info, "final_obs": batch}
