"""What the single and vector ``RecordEpisodeStatistics`` share: the clock and
Gymnasium's attributes, read from the transform's state.

Example:
    >>> import numpy as np
    >>> from anywrap.transforms.episodes import init_episodes
    >>> recent_queue(init_episodes((2,), xp=np, buffer_length=3), "returns", 3)
    deque([], maxlen=3)
"""

from __future__ import annotations

import time
from collections import deque
from typing import Any

import numpy as np

from anywrap.shell.state import StatefulShell
from anywrap.transforms.episodes import Episodes, shift_clock
from anywrap.xp import to_numpy

__all__ = ["EpisodeRecords", "recent_queue"]


def _own_buffers(state: Episodes) -> Episodes:
    """``state`` with copies of its recent-episode buffers where they are NumPy arrays."""
    fields = ("recent_returns", "recent_lengths", "recent_times")
    if not all(type(getattr(state, f)) is np.ndarray for f in fields):
        return state
    return state._replace(**{f: getattr(state, f).copy() for f in fields})


def recent_queue(state: Episodes, field: str, buffer_length: int) -> deque:
    """Gymnasium's oldest-first ``deque`` of recent episodes, read from the state buffer.

    Reading it copies the buffer to the host: do it for logging, not every step.
    """
    size = int(to_numpy(state.recent_size))
    values = to_numpy(getattr(state, f"recent_{field}"))[:size][::-1]
    return deque(values.tolist(), maxlen=buffer_length)


class EpisodeRecords(StatefulShell):
    """What the single and vector RecordEpisodeStatistics share: the clock and
    Gymnasium's attributes, read from the transform's state."""

    _t0: float
    buffer_length: int

    def _now(self) -> float:
        return time.perf_counter() - self._t0

    def _export(self, state: Any) -> Any:
        # Start times are saved relative to now, so that a restored episode
        # keeps its true duration in another process. A single env's host
        # buffers are written in place by its steps: hand out copies.
        return _own_buffers(shift_clock(state, -self._now()))

    def _import(self, state: Any) -> Any:
        return _own_buffers(shift_clock(state, self._now()))

    @property
    def episode_returns(self) -> Any:
        """The running return of the current episode (of each sub-env)."""
        return self._state.returns

    @property
    def episode_lengths(self) -> Any:
        """The running length of the current episode (of each sub-env)."""
        return self._state.lengths

    @property
    def episode_count(self) -> int:
        """Episodes finished so far (reading it copies to the host)."""
        hi, lo = to_numpy(self._state.episode_count), to_numpy(self._state.episode_count_lo)
        return int(hi) + int(lo)  # exact: each word holds an integer

    @property
    def return_queue(self) -> deque:
        """Returns of the last ``buffer_length`` episodes, oldest first."""
        return recent_queue(self._state, "returns", self.buffer_length)

    @property
    def length_queue(self) -> deque:
        """Lengths of the last ``buffer_length`` episodes, oldest first."""
        return recent_queue(self._state, "lengths", self.buffer_length)

    @property
    def time_queue(self) -> deque:
        """Wall times of the last ``buffer_length`` episodes, oldest first."""
        return recent_queue(self._state, "times", self.buffer_length)
