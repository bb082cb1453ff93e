"""Single-env shells: Gymnasium wrappers whose arithmetic lives in ``anywrap.transforms``."""

from anywrap.wrappers.action import ClipAction
from anywrap.wrappers.arrays import (
    ClipReward,
    DtypeObservation,
    FlattenObservation,
    ReshapeObservation,
)
from anywrap.wrappers.delay import DelayObservation
from anywrap.wrappers.episode import RecordEpisodeStatistics
from anywrap.wrappers.images import (
    FrameStackObservation,
    GrayscaleObservation,
    MaxAndSkipObservation,
    ResizeObservation,
)
from anywrap.wrappers.observation import NormalizeObservation, TransformObservation
from anywrap.wrappers.rescale import RescaleAction, RescaleObservation
from anywrap.wrappers.reward import NormalizeReward, TransformReward
from anywrap.wrappers.sticky import StickyAction
from anywrap.wrappers.time import TimeAwareObservation, TimeLimit

__all__ = [
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
