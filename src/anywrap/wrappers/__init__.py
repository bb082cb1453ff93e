"""Single-env shells: Gymnasium wrappers whose arithmetic lives in ``anywrap.transforms``."""

from anywrap.wrappers.action import ClipAction
from anywrap.wrappers.episode import RecordEpisodeStatistics
from anywrap.wrappers.images import (
    FrameStackObservation,
    GrayscaleObservation,
    MaxAndSkipObservation,
    ResizeObservation,
)
from anywrap.wrappers.observation import NormalizeObservation, TransformObservation
from anywrap.wrappers.reward import NormalizeReward, TransformReward

__all__ = [
    "ClipAction",
    "FrameStackObservation",
    "GrayscaleObservation",
    "MaxAndSkipObservation",
    "NormalizeObservation",
    "NormalizeReward",
    "RecordEpisodeStatistics",
    "ResizeObservation",
    "TransformObservation",
    "TransformReward",
]
