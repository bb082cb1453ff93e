"""Vector-env shells: Gymnasium vector wrappers whose arithmetic is in ``anywrap.transforms``."""

from __future__ import annotations

import importlib
from typing import Any

from anywrap.vector.action import ClipAction
from anywrap.vector.convert import (
    ArrayConversion,
    JaxToNumpy,
    JaxToTorch,
    NumpyToTorch,
    ToJax,
    ToNumpy,
    ToTensorFlow,
    ToTorch,
)
from anywrap.vector.episode import RecordEpisodeStatistics
from anywrap.vector.observation import NormalizeObservation, TransformObservation
from anywrap.vector.reward import NormalizeReward, TransformReward

__all__ = [
    "ArrayConversion",
    "ClipAction",
    "JaxToNumpy",
    "JaxToTorch",
    "NormalizeObservation",
    "NormalizeReward",
    "NumpyToTorch",
    "RecordEpisodeStatistics",
    "RecordHTML",
    "ToJax",
    "ToNumpy",
    "ToTensorFlow",
    "ToTorch",
    "TransformObservation",
    "TransformReward",
]


def __getattr__(name: str) -> Any:
    # RecordHTML loads on first use, like the conversions of ``anywrap``.
    if name == "RecordHTML":
        return importlib.import_module("anywrap.record.vector").RecordHTML
    raise AttributeError(f"module 'anywrap.vector' has no attribute {name!r}")
