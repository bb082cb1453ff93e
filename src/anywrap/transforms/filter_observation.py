"""The entries of a Dict or Tuple observation that a filter keeps.

Example:
    >>> import numpy as np
    >>> from anywrap.transforms.filter_observation import filter_observation
    >>> filter_observation({"a": np.zeros(2), "b": np.ones(1)}, ("b",))
    {'b': array([1.])}
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

__all__ = ["filter_observation"]


def filter_observation(observation: Any, keys: Sequence[Any]) -> Any:
    """The entries ``keys`` of a dict (a dict) or a tuple (a tuple), in ``keys``' order."""
    if isinstance(observation, dict):
        return {k: observation[k] for k in keys}
    return tuple(observation[k] for k in keys)
