"""What the ``RecordEpisodeStatistics`` shells share: the clock and Gymnasium's attributes.

Example:
    >>> from anywrap.transforms.record_episode_statistics import init_episodes
    >>> import numpy as np
    >>> class Shell(EpisodeClock):
    ...     buffer_length = 3
    ...     _state = init_episodes((2,), xp=np, buffer_length=3)
    >>> Shell().return_queue
    deque([], maxlen=3)
"""

from __future__ import annotations

import time
from collections import deque

from anywrap.transforms.record_episode_statistics import Episodes, shift_clock
from anywrap.xp import to_numpy


def queue(field: str) -> property:
    """Gymnasium's oldest-first ``deque`` of recent episodes (a host copy: for logging)."""

    def get(self: EpisodeClock) -> deque:
        size = int(to_numpy(self._state.recent_size))
        values = to_numpy(getattr(self._state, f"recent_{field}"))[:size][::-1]
        return deque(values.tolist(), maxlen=self.buffer_length)

    return property(get, doc=f"The {field} of the last ``buffer_length`` episodes, oldest first.")


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
