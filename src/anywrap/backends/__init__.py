"""Backends registered from outside anywrap's core, the way a third party would.

Each module here teaches anywrap one more array library using only the public
extension points, :func:`anywrap.xp.register_namespace` (and
``anywrap.xp.jit.register`` where compilation helps). Importing
:mod:`anywrap.backends` imports no array library; each backend module is
imported lazily, the first time one of its arrays is seen.

Example:
    >>> import anywrap.backends
    >>> anywrap.backends.AVAILABLE
    ('tensorflow',)
"""

AVAILABLE = ("tensorflow",)
"""The backend modules in this package."""

__all__ = ["AVAILABLE"]
