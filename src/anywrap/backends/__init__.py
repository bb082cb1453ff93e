"""Backends registered from outside anywrap's core, the way a third party would.

Each module here teaches anywrap one more array library using only the public
extension point, :func:`anywrap.xp.register_backend`, and is declared as an
entry point of the group ``anywrap.backends`` in ``pyproject.toml``, named
after the library's top-level module. An outside package does the same in its
own ``pyproject.toml``::

    [project.entry-points."anywrap.backends"]
    mylib = "mylib.anywrap_backend"   # a module that calls register_backend

Importing :mod:`anywrap.backends` imports no array library; each backend
module is imported the first time one of its arrays is met.

Example:
    >>> import anywrap.backends
    >>> anywrap.backends.AVAILABLE
    ('tensorflow',)
"""

AVAILABLE = ("tensorflow",)
"""The backend modules in this package."""

__all__ = ["AVAILABLE"]
