"""Which episodes and steps to record: Gymnasium ``RecordVideo``'s choice.

Example:
    >>> s = Schedule(episode_trigger=None, step_trigger=None, report_length=0, prefix="rl")
    >>> [s.episode_trigger(k) for k in range(9)]
    [True, True, False, False, False, False, False, False, True]
    >>> s.new_episode(), s.recording
    ([('start', 'rl-episode-0')], True)
    >>> s.new_episode()
    [('stop',), ('start', 'rl-episode-1')]
"""

from __future__ import annotations

import os
from collections.abc import Callable

__all__ = ["Event", "Schedule", "capped_cubic_schedule"]

Event = tuple[str, ...]
"""``("stop",)`` or ``("start", report_name)``."""

_CUBES = frozenset(k**3 for k in range(10))


def capped_cubic_schedule(episode_id: int) -> bool:
    """The default episode trigger, RecordVideo's: the cubes below 1000, then every 1000th.

    Example:
        >>> [k for k in range(3001) if capped_cubic_schedule(k)][-5:]
        [512, 729, 1000, 2000, 3000]
    """
    return episode_id in _CUBES if episode_id < 1000 else episode_id % 1000 == 0


class Schedule:
    """Gymnasium ``RecordVideo``'s choice of what to record, on host counters.

    ``new_episode()`` and ``new_step()`` advance the counters and return the
    events to apply in order: ``("stop",)`` ends the report being recorded,
    ``("start", name)`` begins one. ``full(rows)`` says whether a report of
    ``rows`` rows has reached the length limit (more than ``report_length``).
    """

    def __init__(
        self,
        episode_trigger: Callable[[int], bool] | None,
        step_trigger: Callable[[int], bool] | None,
        report_length: int,
        prefix: str,
        owner: str = "Schedule",
    ) -> None:
        for name, fn in (("episode_trigger", episode_trigger), ("step_trigger", step_trigger)):
            if fn is not None and not callable(fn):
                raise TypeError(f"{owner}: {name} must be callable or None, got {fn!r}")
        if (
            isinstance(report_length, bool)
            or not isinstance(report_length, int)
            or report_length < 0
        ):
            raise ValueError(f"{owner}: report_length must be an int >= 0, got {report_length!r}")
        if not isinstance(prefix, str) or not prefix or any(c in prefix for c in "/\x00"):
            raise ValueError(
                f"{owner}: name_prefix must be a non-empty file name prefix, got {prefix!r}"
            )
        if len(os.fsencode(f"{prefix}-episode-{2**64}.html")) > 255:  # a file name's limit
            raise ValueError(
                f"{owner}: name_prefix must leave room for '-episode-<n>.html' in a file name "
                f"of 255 bytes, got {len(os.fsencode(prefix))} bytes ({prefix[:40]!r}...)"
            )
        if episode_trigger is None and step_trigger is None:
            episode_trigger = capped_cubic_schedule
        self.episode_trigger = episode_trigger
        self.unapplied: list[Event] = []
        self.step_trigger = step_trigger
        self.report_length = report_length
        self.prefix = prefix
        self.episode_id = -1
        self.step_id = -1
        self.name: str | None = None

    @property
    def recording(self) -> bool:
        """Whether a report is being recorded."""
        return self.name is not None

    def _start(self, name: str) -> list[Event]:
        events: list[Event] = [("stop",)] if self.recording else []
        self.name = name
        return [*events, ("start", name)]

    def new_episode(self) -> list[Event]:
        """An episode begins (a reset, or an autoreset of the env that counts).

        If the episode trigger raises, the events due before it (the stop of the
        report being recorded) are left in :attr:`unapplied` for the owner to apply."""
        self.episode_id += 1
        events: list[Event] = []
        if self.recording and self.report_length == 0:
            events.append(("stop",))
            self.name = None
        self.unapplied = events
        if self.episode_trigger is not None and self.episode_trigger(self.episode_id):
            events += self._start(f"{self.prefix}-episode-{self.episode_id}")
        self.unapplied = []
        return events

    def new_step(self) -> list[Event]:
        """A step was taken."""
        self.step_id += 1
        if self.step_trigger is not None and self.step_trigger(self.step_id):
            return self._start(f"{self.prefix}-step-{self.step_id}")
        return []

    def full(self, rows: int) -> bool:
        """Whether a report of ``rows`` rows must stop (RecordVideo's ``video_length``)."""
        return self.report_length > 0 and rows > self.report_length

    def stop(self) -> None:
        """The report was stopped by its owner (length limit, close)."""
        self.name = None
