"""What the array wrappers' shells share: constants per library, and final observations.

* :class:`LibraryConstants`: NumPy constants of a wrapper (bounds, a
  rescaling's coefficients, a space's zero), converted once per library and
  device of the data that meets them.
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
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium.vector.utils import concatenate, create_empty_array

from anywrap import xp as axp
from anywrap.tree import first_leaf, tree_map

__all__ = ["LibraryConstants", "final_obs_batch", "map_final_obs", "pack_final_obs"]


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
