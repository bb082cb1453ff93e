"""Vector-env shells: Gymnasium vector wrappers whose arithmetic is in ``anywrap.transforms``."""

import importlib
from typing import Any

from anywrap.vector.common import RecordEpisodeStatistics, TimeLimit
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
from anywrap.vector.dict_info_to_list import DictInfoToList
from anywrap.vector.rendering import HumanRendering, RecordVideo
from anywrap.vector.stateful_action import StickyAction
from anywrap.vector.stateful_observation import (
    DelayObservation,
    FrameStackObservation,
    MaxAndSkipObservation,
    NormalizeObservation,
    TimeAwareObservation,
)
from anywrap.vector.stateful_reward import NormalizeReward
from anywrap.vector.vectorize_action import (
    ClipAction,
    RescaleAction,
    TransformAction,
    VectorizeTransformAction,
)
from anywrap.vector.vectorize_observation import (
    DtypeObservation,
    FilterObservation,
    FlattenObservation,
    GrayscaleObservation,
    RescaleObservation,
    ReshapeObservation,
    ResizeObservation,
    TransformObservation,
    VectorizeTransformObservation,
)
from anywrap.vector.vectorize_reward import ClipReward, TransformReward, VectorizeTransformReward

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
