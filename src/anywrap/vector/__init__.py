"""Vector-env shells: Gymnasium vector wrappers whose arithmetic is in ``anywrap.transforms``."""

from anywrap.convert.wrappers import CONVERSION_NAMES
from anywrap.vector import convert as _convert
from anywrap.vector.action import ClipAction
from anywrap.vector.episode import RecordEpisodeStatistics
from anywrap.vector.observation import NormalizeObservation, TransformObservation
from anywrap.vector.reward import NormalizeReward, TransformReward

__all__ = [
    *CONVERSION_NAMES,
    "ClipAction",
    "NormalizeObservation",
    "NormalizeReward",
    "RecordEpisodeStatistics",
    "TransformObservation",
    "TransformReward",
]

globals().update({name: getattr(_convert, name) for name in CONVERSION_NAMES})
