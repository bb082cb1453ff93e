"""Vector-env shells: Gymnasium vector wrappers whose arithmetic is in ``anywrap.transforms``."""

import importlib
from typing import Any

from anywrap.vector.common import (
    DictInfoToList,
    HumanRendering,
    RecordEpisodeStatistics,
    RecordVideo,
    TimeLimit,
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
from anywrap.vector.stateful import (
    DelayObservation,
    FrameStackObservation,
    MaxAndSkipObservation,
    NormalizeObservation,
    NormalizeReward,
    StickyAction,
    TimeAwareObservation,
)
from anywrap.vector.vectorize import (
    ClipAction,
    ClipReward,
    DtypeObservation,
    FilterObservation,
    FlattenObservation,
    GrayscaleObservation,
    RescaleAction,
    RescaleObservation,
    ReshapeObservation,
    ResizeObservation,
    TransformAction,
    TransformObservation,
    TransformReward,
    VectorizeTransformAction,
    VectorizeTransformObservation,
    VectorizeTransformReward,
)

__all__ = [
    "ArrayConversion",
    "ClipAction",
    "ClipReward",
    "DelayObservation",
    "DictInfoToList",
    "DtypeObservation",
    "FilterObservation",
    "FlattenObservation",
    "FrameStackObservation",
    "GrayscaleObservation",
    "HumanRendering",
    "JaxToNumpy",
    "JaxToTorch",
    "MaxAndSkipObservation",
    "NormalizeObservation",
    "NormalizeReward",
    "NumpyToTorch",
    "RecordEpisodeStatistics",
    "RecordHTML",
    "RecordVideo",
    "RescaleAction",
    "RescaleObservation",
    "ReshapeObservation",
    "ResizeObservation",
    "StickyAction",
    "TimeAwareObservation",
    "TimeLimit",
    "ToJax",
    "ToNumpy",
    "ToTensorFlow",
    "ToTorch",
    "TransformAction",
    "TransformObservation",
    "TransformReward",
    "VectorizeTransformAction",
    "VectorizeTransformObservation",
    "VectorizeTransformReward",
]


def __getattr__(name: str) -> Any:
    # RecordHTML loads on first use (it imports its page and Pillow).
    if name == "RecordHTML":
        return importlib.import_module("anywrap.record.vector").RecordHTML
    raise AttributeError(f"module 'anywrap.vector' has no attribute {name!r}")
