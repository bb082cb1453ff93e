"""Single-env shells: Gymnasium wrappers whose arithmetic lives in ``anywrap.transforms``."""

from anywrap.wrappers.action import ClipAction
from anywrap.wrappers.episode import RecordEpisodeStatistics
from anywrap.wrappers.observation import NormalizeObservation, TransformObservation
from anywrap.wrappers.reward import NormalizeReward, TransformReward

__all__ = [
    "ClipAction",
    "NormalizeObservation",
    "NormalizeReward",
    "RecordEpisodeStatistics",
    "TransformObservation",
    "TransformReward",
]
