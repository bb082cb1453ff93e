"""Single-env shells: Gymnasium wrappers whose arithmetic lives in ``anywrap.transforms``."""

from anywrap.wrappers.atari_preprocessing import AtariPreprocessing
from anywrap.wrappers.common import (
    Autoreset,
    OrderEnforcing,
    PassiveEnvChecker,
    RecordEpisodeStatistics,
    TimeLimit,
)
from anywrap.wrappers.rendering import (
    AddWhiteNoise,
    HumanRendering,
    ObstructView,
    RecordVideo,
    RenderCollection,
)
from anywrap.wrappers.stateful_action import RepeatAction, StickyAction
from anywrap.wrappers.stateful_observation import (
    DelayObservation,
    FrameStackObservation,
    MaxAndSkipObservation,
    NormalizeObservation,
    TimeAwareObservation,
)
from anywrap.wrappers.stateful_reward import NormalizeReward
from anywrap.wrappers.transform_action import (
    ClipAction,
    DiscretizeAction,
    RescaleAction,
    TransformAction,
)
from anywrap.wrappers.transform_observation import (
    AddRenderObservation,
    DiscretizeObservation,
    DtypeObservation,
    FilterObservation,
    FlattenObservation,
    GrayscaleObservation,
    RescaleObservation,
    ReshapeObservation,
    ResizeObservation,
    TransformObservation,
)
from anywrap.wrappers.transform_reward import ClipReward, TransformReward

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
