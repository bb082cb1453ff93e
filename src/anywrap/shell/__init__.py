"""Machinery the shells share: the single-env wrappers (``anywrap.X``), the
vector ones (``anywrap.vector.X``) and, where it applies, the functional ones.

Shells hold a transform's state and speak Gymnasium; they do no arithmetic
of their own. Start with :mod:`~anywrap.shell.base` (``Shell``, the base of a
stateful wrapper) and :mod:`~anywrap.shell.maps` (the stateless ones' bases);
each other module says what it shares in its first line.
"""
