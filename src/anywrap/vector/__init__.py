"""Vector-env shells: Gymnasium vector wrappers whose arithmetic is in ``anywrap.transforms``."""

from __future__ import annotations

import importlib
from typing import Any

from anywrap.convert.wrappers import CONVERSION_NAMES
from anywrap.vector import convert as _convert
from anywrap.vector.action import ClipAction
from anywrap.vector.arrays import (
    ClipReward,
    DtypeObservation,
    FlattenObservation,
    RescaleAction,
    RescaleObservation,
    ReshapeObservation,
)
from anywrap.vector.delay import DelayObservation
from anywrap.vector.episode import RecordEpisodeStatistics
from anywrap.vector.images import (
    FrameStackObservation,
    GrayscaleObservation,
    MaxAndSkipObservation,
    ResizeObservation,
)
from anywrap.vector.observation import NormalizeObservation, TransformObservation
from anywrap.vector.reward import NormalizeReward, TransformReward
from anywrap.vector.sticky import StickyAction
from anywrap.vector.time import TimeAwareObservation, TimeLimit

__all__ = [
    *CONVERSION_NAMES,
    "ClipAction",
    "ClipReward",
    "DelayObservation",
    "DtypeObservation",
    "FlattenObservation",
    "FrameStackObservation",
    "GrayscaleObservation",
    "MaxAndSkipObservation",
    "NormalizeObservation",
    "NormalizeReward",
    "RecordEpisodeStatistics",
    "RecordHTML",
    "RescaleAction",
    "RescaleObservation",
    "ReshapeObservation",
    "ResizeObservation",
    "StickyAction",
    "TimeAwareObservation",
    "TimeLimit",
    "TransformObservation",
    "TransformReward",
]

globals().update({name: getattr(_convert, name) for name in CONVERSION_NAMES})


def __getattr__(name: str) -> Any:
    # RecordHTML loads on first use (it imports its page and Pillow).
    if name == "RecordHTML":
        return importlib.import_module("anywrap.record.vector").RecordHTML
    raise AttributeError(f"module 'anywrap.vector' has no attribute {name!r}")
