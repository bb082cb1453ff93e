"""Vector-env shells: Gymnasium vector wrappers whose arithmetic is in ``anywrap.transforms``."""

import importlib
from typing import Any

from anywrap.vector.clip_action import ClipAction
from anywrap.vector.clip_reward import ClipReward
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
from anywrap.vector.delay_observation import DelayObservation
from anywrap.vector.dict_info_to_list import DictInfoToList
from anywrap.vector.dtype_observation import DtypeObservation
from anywrap.vector.filter_observation import FilterObservation
from anywrap.vector.flatten_observation import FlattenObservation
from anywrap.vector.frame_stack_observation import FrameStackObservation
from anywrap.vector.grayscale_observation import GrayscaleObservation
from anywrap.vector.human_rendering import HumanRendering
from anywrap.vector.max_and_skip_observation import MaxAndSkipObservation
from anywrap.vector.normalize_observation import NormalizeObservation
from anywrap.vector.normalize_reward import NormalizeReward
from anywrap.vector.record_episode_statistics import RecordEpisodeStatistics
from anywrap.vector.record_video import RecordVideo
from anywrap.vector.rescale_action import RescaleAction
from anywrap.vector.rescale_observation import RescaleObservation
from anywrap.vector.reshape_observation import ReshapeObservation
from anywrap.vector.resize_observation import ResizeObservation
from anywrap.vector.sticky_action import StickyAction
from anywrap.vector.time_aware_observation import TimeAwareObservation
from anywrap.vector.time_limit import TimeLimit
from anywrap.vector.transform_action import TransformAction
from anywrap.vector.transform_observation import TransformObservation
from anywrap.vector.transform_reward import TransformReward
from anywrap.vector.vectorize import (
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
