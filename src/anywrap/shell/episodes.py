"""What the ``RecordEpisodeStatistics`` shells share: the clock and Gymnasium's attributes.

Example:
    >>> import numpy as np
    >>> from anywrap.transforms.record_episode_statistics import init_episodes
    >>> recent_queue(init_episodes((2,), xp=np, buffer_length=3), "returns", 3)
    deque([], maxlen=3)
"""

from __future__ import annotations

import time
from collections import deque

from anywrap.transforms.record_episode_statistics import Episodes, shift_clock
from anywrap.xp import to_numpy


def recent_queue(state: Episodes, field: str, buffer_length: int) -> deque:
    """Gymnasium's oldest-first ``deque`` of recent episodes (a host copy: for logging)."""
    size = int(to_numpy(state.recent_size))
    values = to_numpy(getattr(state, f"recent_{field}"))[:size][::-1]
    return deque(values.tolist(), maxlen=buffer_length)


def queue(field: str) -> property:
    return property(
        lambda self: recent_queue(self._state, field, self.buffer_length),
        doc=f"The {field} of the last ``buffer_length`` episodes, oldest first.",
    )


class EpisodeClock:
    """The episodes' clock (start times saved relative to now) and Gymnasium's attributes."""

    _t0: float
    _state: Episodes
    buffer_length: int

    def _now(self) -> float:
        return time.perf_counter() - self._t0

    def _export(self, state: Episodes) -> Episodes:
        return shift_clock(state, -self._now())

    def _import(self, state: Episodes) -> Episodes:
        return shift_clock(state, self._now())

    @property
    def episode_count(self) -> int:
        """Episodes finished so far (read on the host)."""
        hi, lo = to_numpy(self._state.episode_count), to_numpy(self._state.episode_count_lo)
        return int(hi) + int(lo)  # exact: each word holds an integer

    return_queue = queue("returns")
    length_queue = queue("lengths")
    time_queue = queue("times")
