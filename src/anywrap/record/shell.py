"""What the single and vector RecordHTML wrappers share: the recorder they
drive, the arguments they save, and the attributes RecordVideo users read.

:class:`RecordShell` is a mixin: a wrapper class lists it before
``gym.Wrapper`` or ``VectorWrapper``, calls that class's ``__init__``, then
:meth:`RecordShell._start_recording` with its own ``locals()`` (its
constructor's arguments, written once, in its signature).

Example:
    >>> import gymnasium as gym, tempfile
    >>> from anywrap.record.single import RecordHTML
    >>> env = RecordHTML(gym.make("CartPole-v1"), tempfile.mkdtemp(), report_length=3,
    ...                  frames=False)
    >>> isinstance(env, RecordShell), env.spec.additional_wrappers[-1].kwargs["report_length"]
    (True, 3)
    >>> _ = env.reset(seed=0)
    >>> for _ in range(5):
    ...     _ = env.step(0)
    >>> env.close()
    >>> env.episode_id, env.step_id, env.recording, [p.name for p in env.report_paths]
    (0, 4, False, ['rl-report-episode-0.html'])
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import gymnasium as gym

from anywrap.record.recorder import Recorder

__all__ = ["RecordShell"]


class RecordShell(gym.utils.RecordConstructorArgs):
    """The recorder, saved arguments and RecordVideo-style attributes of a RecordHTML."""

    env: Any
    _recorder: Recorder

    def _start_recording(self, owner: str, options: dict[str, Any], **engine: Any) -> None:
        """Save the constructor's arguments, then start the recorder on ``self.env``.

        ``options`` is the constructor's ``locals()`` taken before anything
        else (``self`` and ``env`` are dropped); ``engine`` adds the arguments
        only the recorder sees (a vector env's size and autoreset mode).
        """
        options = {k: v for k, v in options.items() if k not in ("self", "env", "__class__")}
        # Gymnasium's own record of the arguments, for the spec (RecordShell is this
        # wrapper's one anywrap base: anywrap.shell.base.Shell holds no state here).
        gym.utils.RecordConstructorArgs.__init__(self, _disable_deepcopy=True, **options)
        self._recorder = Recorder(owner, self.env, **options, **engine)
        self.report_folder = str(self._recorder.folder)
        self.name_prefix: str = self._recorder.schedule.prefix
        self.report_length: int = self._recorder.schedule.report_length

    @property
    def episode_trigger(self) -> Callable[[int], bool] | None:
        """The episode trigger in use (the capped cubic schedule by default)."""
        return self._recorder.schedule.episode_trigger

    @property
    def step_trigger(self) -> Callable[[int], bool] | None:
        """The step trigger, if any."""
        return self._recorder.schedule.step_trigger

    @property
    def episode_id(self) -> int:
        """Episodes begun so far, minus one (as in RecordVideo).

        On a vector env, sub-env 0's episodes; in lazy mode (see
        :class:`anywrap.vector.RecordHTML`), as of the last transfer.
        """
        return self._recorder.schedule.episode_id

    @property
    def step_id(self) -> int:
        """Steps taken so far, minus one (as in RecordVideo; lazy mode: as of the last transfer)."""
        return self._recorder.schedule.step_id

    @property
    def recording(self) -> bool:
        """Whether a report is being recorded (lazy mode: as of the last transfer)."""
        return self._recorder.recording

    @property
    def report_paths(self) -> list[Path]:
        """The reports written so far, oldest first."""
        return list(self._recorder.paths)

    def _step_and_record(self, action: Any) -> tuple[Any, Any, Any, Any, dict[str, Any]]:
        """Step the env; record the step if a report is being recorded."""
        obs, reward, terminated, truncated, info = self.env.step(action)
        self._recorder.on_step(obs, action, reward, terminated, truncated, info)
        return obs, reward, terminated, truncated, info

    def close(self, **kwargs: Any) -> None:
        """Write the report being recorded, then close the env."""
        self._recorder.close()
        super().close(**kwargs)  # type: ignore[misc]  # the Wrapper or VectorWrapper after us
