"""Single-env shells: Gymnasium wrappers whose arithmetic lives in ``anywrap.transforms``."""

from anywrap.wrappers.add_render_observation import AddRenderObservation
from anywrap.wrappers.add_white_noise import AddWhiteNoise
from anywrap.wrappers.atari_preprocessing import AtariPreprocessing
from anywrap.wrappers.clip_action import ClipAction
from anywrap.wrappers.clip_reward import ClipReward
from anywrap.wrappers.common import (
    Autoreset,
    HumanRendering,
    OrderEnforcing,
    PassiveEnvChecker,
    RenderCollection,
)
from anywrap.wrappers.delay_observation import DelayObservation
from anywrap.wrappers.discretize import DiscretizeAction, DiscretizeObservation
from anywrap.wrappers.dtype_observation import DtypeObservation
from anywrap.wrappers.filter_observation import FilterObservation
from anywrap.wrappers.flatten_observation import FlattenObservation
from anywrap.wrappers.frame_stack_observation import FrameStackObservation
from anywrap.wrappers.grayscale_observation import GrayscaleObservation
from anywrap.wrappers.max_and_skip_observation import MaxAndSkipObservation
from anywrap.wrappers.normalize_observation import NormalizeObservation
from anywrap.wrappers.normalize_reward import NormalizeReward
from anywrap.wrappers.obstruct_view import ObstructView
from anywrap.wrappers.record_episode_statistics import RecordEpisodeStatistics
from anywrap.wrappers.record_video import RecordVideo
from anywrap.wrappers.repeat_action import RepeatAction
from anywrap.wrappers.rescale_action import RescaleAction
from anywrap.wrappers.rescale_observation import RescaleObservation
from anywrap.wrappers.reshape_observation import ReshapeObservation
from anywrap.wrappers.resize_observation import ResizeObservation
from anywrap.wrappers.sticky_action import StickyAction
from anywrap.wrappers.time_aware_observation import TimeAwareObservation
from anywrap.wrappers.time_limit import TimeLimit
from anywrap.wrappers.transform_action import TransformAction
from anywrap.wrappers.transform_observation import TransformObservation
from anywrap.wrappers.transform_reward import TransformReward

__all__ = [
    "AddRenderObservation",
    "AddWhiteNoise",
    "AtariPreprocessing",
    "Autoreset",
    "ClipAction",
    "ClipReward",
    "DelayObservation",
    "DiscretizeAction",
    "DiscretizeObservation",
    "DtypeObservation",
    "FilterObservation",
    "FlattenObservation",
    "FrameStackObservation",
    "GrayscaleObservation",
    "HumanRendering",
    "MaxAndSkipObservation",
    "NormalizeObservation",
    "NormalizeReward",
    "ObstructView",
    "OrderEnforcing",
    "PassiveEnvChecker",
    "RecordEpisodeStatistics",
    "RecordVideo",
    "RenderCollection",
    "RepeatAction",
    "RescaleAction",
    "RescaleObservation",
    "ReshapeObservation",
    "ResizeObservation",
    "StickyAction",
    "TimeAwareObservation",
    "TimeLimit",
    "TransformAction",
    "TransformObservation",
    "TransformReward",
]
