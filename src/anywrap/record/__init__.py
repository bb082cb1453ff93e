"""RecordHTML: self-contained, interactive HTML reports of episodes.

:class:`RecordHTML` (one env) and :class:`VectorRecordHTML` (exported as
``anywrap.vector.RecordHTML``) record the episodes a trigger chooses, as
Gymnasium's ``RecordVideo`` does, and write each as one ``.html`` file that
opens offline: a frame player, charts of reward, return, actions,
observations and info values, and an episode summary.
:func:`anywrap.functional.write_report` writes the same page from a
trajectory collected inside ``jax.lax.scan``.

The page inlines uPlot (MIT licence, vendored in ``vendor/`` with its
version and licence; ``vendor/refresh.sh`` refreshes it from the npm
registry). Nothing is loaded over the network.

The modules, one idea each:

* :mod:`~anywrap.record.single`, :mod:`~anywrap.record.vector`: the wrappers.
* :mod:`~anywrap.record.recorder`: the engine under both; it follows resets
  and steps, decides what to keep and writes each report when it ends.
* :mod:`~anywrap.record.schedule`: which episodes and steps to record
  (RecordVideo's triggers and length limit).
* :mod:`~anywrap.record.layout`: observations, actions, rewards and flags
  as float rows on the env's device.
* :mod:`~anywrap.record.info`: which info values become charts and text.
* :mod:`~anywrap.record.buffers`: the rows kept on the device and their one
  transfer to the host.
* :mod:`~anywrap.record.describe`: the env id and wrapper stack a report shows.
* :mod:`~anywrap.record.report`: host arrays in, one self-contained HTML file out.

Example:
    >>> import gymnasium as gym, tempfile
    >>> from anywrap.record import RecordHTML
    >>> env = RecordHTML(gym.make("Pendulum-v1"), tempfile.mkdtemp(), frames=False)
    >>> _ = env.reset(seed=1)
    >>> for _ in range(200):
    ...     _ = env.step(env.action_space.sample())
    >>> env.close()
    >>> env.report_paths[0].name, env.report_paths[0].stat().st_size < 200_000
    ('rl-report-episode-0.html', True)
"""

from anywrap.record.frames import FrameEncoder
from anywrap.record.report import Track, build_report, render_html, write_html
from anywrap.record.single import RecordHTML
from anywrap.record.vector import RecordHTML as VectorRecordHTML

__all__ = [
    "FrameEncoder",
    "RecordHTML",
    "Track",
    "VectorRecordHTML",
    "build_report",
    "render_html",
    "write_html",
]
