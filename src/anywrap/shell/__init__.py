"""Machinery the shells share: the single-env wrappers (``anywrap.X``), the
vector ones (``anywrap.vector.X``) and, where it applies, the functional ones.

Shells hold a transform's state and speak Gymnasium; they do no arithmetic
of their own. One idea per module:

* :mod:`~anywrap.shell.base`: :class:`~anywrap.shell.base.Shell`, the base of
  a stateful wrapper: the state that follows the data's library and device,
  run through the transforms' :class:`anywrap.xp.Compiled`, and ``state_dict``;
  :mod:`~anywrap.shell.compiled` compiles those transforms and moves the state.
* :mod:`~anywrap.shell.maps`: the bases of the stateless wrappers (observation,
  action and reward maps, single and vector), which own ``reset`` and ``step``.
* :mod:`~anywrap.shell.statistics`: :class:`~anywrap.shell.statistics.RunningMeanStd`,
  the statistics box that wrappers share, and the attributes that expose it.
* :mod:`~anywrap.shell.checks`: argument and input checks (the env-kind check
  every wrapper's constructor makes first among them), with errors that name
  the wrapper.
* :mod:`~anywrap.shell.spaces`: how spaces change with the data.
* :mod:`~anywrap.shell.arrays`, :mod:`~anywrap.shell.time`,
  :mod:`~anywrap.shell.images`, :mod:`~anywrap.shell.episodes`,
  :mod:`~anywrap.shell.actions`, :mod:`~anywrap.shell.delay_observation`,
  :mod:`~anywrap.shell.sticky_action`: what a single-env wrapper and its
  vector twin both need (spaces, checks, the episode clock).
"""
