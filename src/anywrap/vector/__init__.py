"""Vector-env shells: Gymnasium ``VectorWrapper``s whose arithmetic lives in ``anywrap.transforms``."""

from anywrap.vector.action import ClipAction
from anywrap.vector.episode import RecordEpisodeStatistics
from anywrap.vector.observation import NormalizeObservation, TransformObservation
from anywrap.vector.reward import NormalizeReward, TransformReward

__all__ = [
    "ClipAction",
    "NormalizeObservation",
    "NormalizeReward",
    "RecordEpisodeStatistics",
    "TransformObservation",
    "TransformReward",
]
