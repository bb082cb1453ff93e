"""Machinery the shells share: the single-env wrappers (``anywrap.X``), the
vector ones (``anywrap.vector.X``) and, where it applies, the functional ones.

Shells hold a transform's state and speak Gymnasium; they do no arithmetic
of their own. One idea per module:

* :mod:`~anywrap.shell.base`: :class:`~anywrap.shell.base.Shell`, the one
  anywrap base between a wrapper and Gymnasium's: the state that follows the
  data's library and device, the compiled transforms it runs, ``state_dict``,
  and :class:`~anywrap.shell.base.RunningMeanStd`, the shared statistics box.
* :mod:`~anywrap.shell.checks`: argument and input checks, with errors that
  name the wrapper.
* :mod:`~anywrap.shell.spaces`: how spaces change with the data.
* :mod:`~anywrap.shell.arrays`, :mod:`~anywrap.shell.time`,
  :mod:`~anywrap.shell.images`, :mod:`~anywrap.shell.episodes`,
  :mod:`~anywrap.shell.actions`, :mod:`~anywrap.shell.delay_observation`,
  :mod:`~anywrap.shell.sticky_action`: what a single-env wrapper and its
  vector twin both need (spaces, checks, the episode clock).
"""
