"""What the array wrappers' shells share: constants per library, and final observations.

* :class:`LibraryConstants`: NumPy constants of a wrapper (bounds, a
  rescaling's coefficients, a space's zero), converted once per library and
  device of the data that meets them.
* :func:`rescaled_box` and :class:`RescalesBox`: the Rescale wrappers' checks,
  new Box and coefficients.
* :class:`MapsObservations`: ``reset`` and ``step`` of the stateless vector
  observation maps (the array and the image wrappers).
* :class:`ResetsSubEnvs`: the masked ``reset`` of the stateful vector shells.
* :func:`map_final_obs`, :func:`final_obs_batch` and :func:`pack_final_obs`:
  ``info["final_obs"]`` of a SAME_STEP vector env comes either as a batch (a
  device env) or, from Gymnasium's vector envs, as an object array holding
  one observation per finished sub-env and ``None`` elsewhere. A stateless
  wrapper maps it entry by entry; a stateful one works on a full batch (rows
  that did not finish are filled with the current observation) and packs
  the result back into the layout it came in.

Example:
    >>> import numpy as np
    >>> from anywrap.shell.arrays import LibraryConstants
    >>> consts = LibraryConstants("demo", scale=np.array([2.0], dtype=np.float32))
    >>> consts.get(np.zeros(3))["scale"]
    array([2.], dtype=float32)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal

import gymnasium as gym
import numpy as np
from gymnasium.error import InvalidBound
from gymnasium.vector.utils import concatenate, create_empty_array

from anywrap import xp as axp
from anywrap.shell.base import Shell
from anywrap.shell.checks import reset_mask_of, wrapper_name
from anywrap.transforms.rescale import rescale_coefficients
from anywrap.tree import first_leaf, tree_map

__all__ = [
    "LibraryConstants",
    "MapsObservations",
    "RescalesBox",
    "ResetsSubEnvs",
    "final_obs_batch",
    "map_both",
    "map_final_obs",
    "pack_final_obs",
    "rescaled_box",
]


class LibraryConstants:
    """Named NumPy constants, converted to the library and device of an array on demand.

    Values stay NumPy for NumPy data. Elsewhere each array is converted once
    per ``(library, device)`` and kept; a float64 constant becomes float32
    where the library has no float64 (JAX without x64).
    """

    def __init__(self, owner: str, **values: Any) -> None:
        self.owner = owner
        self.values = values
        self._cache: dict[tuple[type, str], dict[str, Any]] = {}

    def get(self, like: Any) -> dict[str, Any]:
        """The constants in the library and on the device of ``like`` (any tree)."""
        leaf = first_leaf(like)
        if axp.is_host(leaf):
            return self.values
        key = (type(leaf), str(axp.device(leaf)))
        hit = self._cache.get(key)
        if hit is None:
            try:
                xp = axp.namespace(leaf)
            except axp.UnknownArrayTypeError as e:
                raise axp.UnknownArrayTypeError(f"{self.owner}: {e}") from e
            dev = axp.device(leaf)

            def convert(v: Any) -> Any:
                if not isinstance(v, np.ndarray | np.generic):
                    return v
                dtype = axp.resolve_dtype(xp, np.dtype(v.dtype).name, dev)
                return xp.asarray(np.asarray(v), dtype=dtype, device=dev)

            hit = self._cache[key] = {k: tree_map(convert, v) for k, v in self.values.items()}
        return hit


def rescaled_box(
    owner: str, space: gym.Space, low: Any, high: Any, kind: Literal["action", "obs"]
) -> tuple[gym.spaces.Box, np.ndarray, np.ndarray]:
    """``(new Box, gradient, intercept)`` of a rescaled ``kind`` space, or an error that
    names ``owner`` and the arguments (``min_action`` / ``max_action`` or ``min_obs`` /
    ``max_obs``). An action rescaling must have an inverse: its bounds may not meet."""
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
    """``bound`` over the space's shape, in its dtype where that is exact (so that the
    Box warns of lost precision only where precision is lost, as Gymnasium's would)."""
    wide = np.broadcast_to(np.asarray(bound), space.shape)
    narrow = wide.astype(space.dtype)
    return narrow if np.array_equal(narrow, wide) else wide


class RescalesBox:
    """Mixin of the single and vector Rescale wrappers: the bounds' checks and
    the affine map's coefficients in the library of the data."""

    _consts: LibraryConstants

    def _rescale(
        self, space: gym.Space, low: Any, high: Any, kind: Literal["action", "obs"]
    ) -> gym.spaces.Box:
        """The rescaled Box of ``space`` for the bounds ``low`` and ``high``."""
        owner = wrapper_name(self)
        box, gradient, intercept = rescaled_box(owner, space, low, high, kind)
        self._consts = LibraryConstants(owner, g=gradient, c=intercept)
        return box

    def _consts_for(self, like: Any) -> tuple[Any, Any]:
        """``(gradient, intercept)`` in the library and on the device of ``like``."""
        k = self._consts.get(like)
        return k["g"], k["c"]


def _is_packed(final: Any) -> bool:
    return isinstance(final, np.ndarray) and final.dtype == object


def map_final_obs(info: dict[str, Any], fn: Callable[[Any], Any]) -> dict[str, Any]:
    """``info`` with ``fn`` (a batch function) applied to ``info["final_obs"]``, if present.

    In Gymnasium's object-array layout each entry goes through ``fn`` as a
    batch of one.
    """
    if "final_obs" not in info:
        return info
    final = info["final_obs"]
    if _is_packed(final):
        out = np.empty(final.shape, dtype=object)
        for i, f in enumerate(final):
            if f is not None:
                out[i] = tree_map(lambda x: x[0], fn(tree_map(lambda x: np.asarray(x)[None], f)))
        final = out
    else:
        final = fn(final)
    return {**info, "final_obs": final}


def final_obs_batch(
    info: dict[str, Any], obs: Any, space: gym.Space, num_envs: int
) -> tuple[Any, bool]:
    """``(batch, packed)``: the final observations as one batch like ``obs``.

    Rows without a final observation hold the current one (their values are
    never used). ``packed`` says the info held Gymnasium's object array.
    """
    final = info["final_obs"]
    if not _is_packed(final):
        return final, False
    rows = [f if f is not None else tree_map(lambda x, i=i: x[i], obs) for i, f in enumerate(final)]
    out: Any = create_empty_array(space, num_envs)
    return concatenate(space, rows, out), True


def pack_final_obs(
    info: dict[str, Any], batch: Any, packed: bool, mask_key: str = "_final_obs"
) -> dict[str, Any]:
    """``info`` with ``info["final_obs"] = batch``, in the layout the env used."""
    if packed:
        mask = info[mask_key]
        out = np.empty(len(mask), dtype=object)
        for i, m in enumerate(mask):
            out[i] = tree_map(lambda x, i=i: x[i], batch) if m else None
        batch = out
    return {**info, "final_obs": batch}


def map_both(fn: Callable[..., Any], obs: Any, final: Any, *consts: Any) -> tuple[Any, Any]:
    """``fn`` applied to two batches, as one function (so one compiled call maps both)."""
    return fn(obs, *consts), fn(final, *consts)


class MapsObservations:
    """Mixin of the stateless vector observation maps: ``reset`` and ``step`` map each
    batch with :meth:`observations`, and in SAME_STEP mode ``info["final_obs"]`` too:
    a batch together with the observations (:meth:`_observations_and_final`, one
    compiled call where the wrapper fuses them), Gymnasium's object array entry by
    entry, each as a batch of one. :meth:`_check` sees every batch and entry first."""

    env: Any
    num_envs: int

    def observations(self, observations: Any) -> Any:
        """The batch mapped."""
        raise NotImplementedError

    def _observations_and_final(self, obs: Any, final: Any) -> tuple[Any, Any]:
        """Both batches mapped."""
        return self.observations(obs), self.observations(final)

    def _check(self, obs: Any, batch: tuple[int, ...], what: str = "an observation") -> None:
        """Refuse ``obs`` (with the batch shape ``batch``) before anything is mapped."""

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Any, dict[str, Any]]:
        """Reset and map the observations."""
        obs, info = self.env.reset(seed=seed, options=options)
        self._check(obs, (self.num_envs,))
        return self.observations(obs), info

    def step(self, actions: Any) -> tuple[Any, Any, Any, Any, dict[str, Any]]:
        """Step and map the observations (and, in SAME_STEP mode, the final ones)."""
        obs, reward, terminated, truncated, info = self.env.step(actions)
        self._check(obs, (self.num_envs,))
        if "final_obs" not in info:
            return self.observations(obs), reward, terminated, truncated, info
        final = info["final_obs"]
        if _is_packed(final):
            for f in final:
                if f is not None:
                    self._check(f, (), "final observations")
            out, info = self.observations(obs), map_final_obs(info, self.observations)
            return out, reward, terminated, truncated, info
        self._check(final, (self.num_envs,), "final observations")
        out, final = self._observations_and_final(obs, final)
        return out, reward, terminated, truncated, {**info, "final_obs": final}


class ResetsSubEnvs(Shell):
    """Mixin of the stateful vector shells: a reset of every sub-env, or of those in
    ``options["reset_mask"]``."""

    env: Any
    num_envs: int

    def _reset_env(
        self, seed: int | None, options: dict[str, Any] | None
    ) -> tuple[Any, dict[str, Any], Any]:
        """Reset the env (its ``reset_mask`` checked first): ``(obs, info, mask)``, the
        mask in the library and on the device of ``obs`` (``None``: every sub-env)."""
        mask = reset_mask_of(wrapper_name(self), options, self.num_envs)
        obs, info = self.env.reset(seed=seed, options=options)
        self._received(obs)
        return obs, info, self._mask_for(mask, obs)

    def _received(self, obs: Any) -> None:
        """Hook: check the observations a reset returned, before anything uses them."""
