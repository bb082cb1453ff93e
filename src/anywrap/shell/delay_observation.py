"""What the ``DelayObservation`` shells share: checks, the space's zero, the ring's turn.

Example:
    >>> zero_observation("demo", gym.spaces.Box(1.0, 2.0, (2,)))
    array([1., 1.], dtype=float32)
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium.spaces import Box, Discrete, MultiBinary, MultiDiscrete
from gymnasium.wrappers.utils import create_zero_array

from anywrap.shell.base import Shell
from anywrap.shell.checks import whole_number
from anywrap.shell.spaces import tree_of
from anywrap.transforms.delay_observation import advance, release_inputs
from anywrap.tree import leaves, tree_map


def check_delay(owner: str, delay: Any) -> int:
    return whole_number(owner, "delay", delay, 0)


def zero_observation(owner: str, space: gym.Space) -> Any:
    """Gymnasium's ``create_zero_array`` of ``space`` as NumPy arrays (of arrays only)."""
    for part in leaves(tree_of(space, lambda s: s)):
        if not isinstance(part, (Box, Discrete, MultiDiscrete, MultiBinary)):
            raise TypeError(
                f"{owner}: expected an observation space of arrays (Box, Discrete, "
                f"MultiDiscrete, MultiBinary, or a Dict / Tuple of them), got {space}; "
                "gymnasium.wrappers.DelayObservation delays other observations on the host"
            )
    try:
        zero = create_zero_array(space)
    except Exception as e:
        raise TypeError(f"{owner}: no zero observation for the space {space}: {e}") from e
    return tree_map(lambda z: np.asarray(z), zero)


class DelayRing(Shell):
    """The DelayObservation shells' ring, turned outside the compiled call."""

    _transforms: dict[str, Any]

    def _turn_ring(self, key: str, obs: Any, *args: Any) -> Any:
        """Run the compiled transform ``key``, then turn the ring outside it (no copy)."""
        state = self._state_for(obs)
        counts, out = self._transforms[key](*release_inputs(state), *args)
        released = out[0] if key == "final" else out
        self._commit(advance(state, counts, obs, released), obs)
        return out


def host_scalars(tree: Any) -> Any:
    """``tree`` with 0-d NumPy arrays as scalars (Gymnasium's zero Discrete observation)."""
    return tree_map(lambda x: x[()] if type(x) is np.ndarray and x.ndim == 0 else x, tree)
