"""Machinery the shells share: the single-env wrappers (``anywrap.X``), the
vector ones (``anywrap.vector.X``) and, where it applies, the functional ones.

Shells hold a transform's state and speak Gymnasium; they do no arithmetic
of their own. One idea per module:

* :mod:`~anywrap.shell.checks`: argument and input checks, with errors that
  name the wrapper.
* :mod:`~anywrap.shell.spaces`: how spaces change with the data.
* :mod:`~anywrap.shell.state`: :class:`~anywrap.shell.state.StatefulShell`,
  state that follows the data's library and device, and ``state_dict``.
* :mod:`~anywrap.shell.stats`: Gymnasium's ``RunningMeanStd`` look over a
  shell's moments, and the ``update_running_mean`` switch.
* :mod:`~anywrap.shell.actions`, :mod:`~anywrap.shell.episodes`: the mixins
  that a single-env wrapper and its vector twin both use.
"""
