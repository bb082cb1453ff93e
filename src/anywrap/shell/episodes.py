"""What the single and vector ``RecordEpisodeStatistics`` share: the clock, and
Gymnasium's attributes read from the transform's state.

Example:
    >>> import numpy as np
    >>> from anywrap.transforms.record_episode_statistics import init_episodes
    >>> recent_queue(init_episodes((2,), xp=np, buffer_length=3), "returns", 3)
    deque([], maxlen=3)
"""

from __future__ import annotations

import time
from collections import deque
from typing import Any

from anywrap.transforms.record_episode_statistics import Episodes, shift_clock
from anywrap.xp import to_numpy

__all__ = ["clock", "episode_count", "export_clock", "import_clock", "queue", "recent_queue"]


def recent_queue(state: Episodes, field: str, buffer_length: int) -> deque:
    """Gymnasium's oldest-first ``deque`` of recent episodes, read from the state's
    newest-first buffer. Reading copies the buffer to the host: for logging, not
    every step."""
    size = int(to_numpy(state.recent_size))
    values = to_numpy(getattr(state, f"recent_{field}"))[:size][::-1]
    return deque(values.tolist(), maxlen=buffer_length)


def queue(field: str) -> property:
    """``return_queue``, ``length_queue`` or ``time_queue``: the last ``buffer_length``
    episodes' values, oldest first."""
    return property(
        lambda self: recent_queue(self._state, field, self.buffer_length),
        doc=f"The {field} of the last ``buffer_length`` episodes, oldest first.",
    )


def _episode_count(self: Any) -> int:
    hi, lo = to_numpy(self._state.episode_count), to_numpy(self._state.episode_count_lo)
    return int(hi) + int(lo)  # exact: each word holds an integer


episode_count = property(_episode_count, doc="Episodes finished so far (read on the host).")


def clock(self: Any) -> float:
    """Seconds since the wrapper was built (its episodes' clock)."""
    return time.perf_counter() - self._t0  # type: ignore[no-any-return]


def export_clock(self: Any, state: Episodes) -> Episodes:
    """Start times are saved relative to now, so that a restored episode keeps its
    true duration in another process."""
    return shift_clock(state, -clock(self))


def import_clock(self: Any, state: Episodes) -> Episodes:
    """The inverse of :func:`export_clock`."""
    return shift_clock(state, clock(self))
