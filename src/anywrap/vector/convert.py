"""The conversion wrappers for vector envs: the family of :mod:`anywrap.convert`
over :class:`gymnasium.vector.VectorWrapper`.

Observations, rewards, terminations, truncations and infos (``final_obs``,
``final_info`` and the ``_key`` masks included) go to the target library;
actions and reset options go back to the env's. Everything stays an array.

Gymnasium's vector reward wrappers write into the reward array in place
(``VectorizeTransformReward.rewards`` assigns ``rewards[i] = ...``), so for a
NumPy target the rewards, terminations and truncations are always writable: a
read-only view (of a JAX or TensorFlow array) is copied, which costs a copy of
``num_envs`` values. Observations stay zero-copy views unless
``writable=True``; Gymnasium's vector ``FlattenObservation`` needs it when
flattening leaves the space unchanged (a 1-D ``Box``), because it then stacks
its result back into the input observation array.

Example:
    >>> import gymnasium as gym
    >>> import anywrap
    >>> envs = anywrap.vector.ToNumpy(gym.make_vec("CartPole-v1", num_envs=2))
    >>> obs, info = envs.reset(seed=0)
    >>> obs.shape
    (2, 4)
"""

from __future__ import annotations

from typing import Any

from gymnasium.vector import VectorWrapper

from anywrap.convert.wrappers import CONVERSION_NAMES, conversion_family

__all__ = [*CONVERSION_NAMES, "VectorArrayConversion"]

globals().update(conversion_family(VectorWrapper, vector=True, module=__name__))
VectorArrayConversion = globals()["ArrayConversion"]
"""Gymnasium's name of the generic vector conversion."""


def __getattr__(name: str) -> Any:
    # The family is defined above, by conversion_family; this only names the error
    # (and tells type checkers that the module has attributes they cannot see).
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
