"""Vector-env shells: Gymnasium vector wrappers whose arithmetic is in ``anywrap.transforms``."""

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
from anywrap.vector.images import (
    FrameStackObservation,
    GrayscaleObservation,
    MaxAndSkipObservation,
    ResizeObservation,
)
from anywrap.vector.observation import NormalizeObservation, TransformObservation
from anywrap.vector.reward import NormalizeReward, TransformReward

__all__ = [
    "ArrayConversion",
    "ClipAction",
    "FrameStackObservation",
    "GrayscaleObservation",
    "JaxToNumpy",
    "JaxToTorch",
    "MaxAndSkipObservation",
    "NormalizeObservation",
    "NormalizeReward",
    "NumpyToTorch",
    "RecordEpisodeStatistics",
    "ResizeObservation",
    "ToJax",
    "ToNumpy",
    "ToTensorFlow",
    "ToTorch",
    "TransformObservation",
    "TransformReward",
]
