"""Vector-env shells: Gymnasium vector wrappers whose arithmetic is in ``anywrap.transforms``."""

from anywrap.vector.action import ClipAction
from anywrap.vector.arrays import (
    ClipReward,
    DtypeObservation,
    FlattenObservation,
    RescaleAction,
    RescaleObservation,
    ReshapeObservation,
)
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
from anywrap.vector.delay import DelayObservation
from anywrap.vector.episode import RecordEpisodeStatistics
from anywrap.vector.observation import NormalizeObservation, TransformObservation
from anywrap.vector.reward import NormalizeReward, TransformReward
from anywrap.vector.sticky import StickyAction
from anywrap.vector.time import TimeAwareObservation, TimeLimit

__all__ = [
    "ArrayConversion",
    "ClipAction",
    "ClipReward",
    "DelayObservation",
    "DtypeObservation",
    "FlattenObservation",
    "JaxToNumpy",
    "JaxToTorch",
    "NormalizeObservation",
    "NormalizeReward",
    "NumpyToTorch",
    "RecordEpisodeStatistics",
    "RescaleAction",
    "RescaleObservation",
    "ReshapeObservation",
    "StickyAction",
    "TimeAwareObservation",
    "TimeLimit",
    "ToJax",
    "ToNumpy",
    "ToTensorFlow",
    "ToTorch",
    "TransformObservation",
    "TransformReward",
]
