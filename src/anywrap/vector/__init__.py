"""Vector-env shells: Gymnasium vector wrappers whose arithmetic is in ``anywrap.transforms``."""

from __future__ import annotations

import importlib
from typing import Any

from anywrap.convert.wrappers import CONVERSION_NAMES
from anywrap.vector import convert as _convert
from anywrap.vector.action import ClipAction
from anywrap.vector.episode import RecordEpisodeStatistics
from anywrap.vector.images import (
    FrameStackObservation,
    GrayscaleObservation,
    MaxAndSkipObservation,
    ResizeObservation,
)
from anywrap.vector.observation import NormalizeObservation, TransformObservation
from anywrap.vector.reward import NormalizeReward, TransformReward

__all__ = [
    *CONVERSION_NAMES,
    "ClipAction",
    "FrameStackObservation",
    "GrayscaleObservation",
    "MaxAndSkipObservation",
    "NormalizeObservation",
    "NormalizeReward",
    "RecordEpisodeStatistics",
    "RecordHTML",
    "ResizeObservation",
    "TransformObservation",
    "TransformReward",
]

globals().update({name: getattr(_convert, name) for name in CONVERSION_NAMES})


def __getattr__(name: str) -> Any:
    # RecordHTML loads on first use (it imports its page and Pillow).
    if name == "RecordHTML":
        return importlib.import_module("anywrap.record.vector").RecordHTML
    raise AttributeError(f"module 'anywrap.vector' has no attribute {name!r}")
