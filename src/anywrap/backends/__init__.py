"""The array libraries anywrap knows beyond NumPy, each registered through the
public extension point, :func:`anywrap.xp.register_backend`, exactly as a
third party would register its own.

* :mod:`~anywrap.backends.jax` and :mod:`~anywrap.backends.torch` (with the
  compiled path, :mod:`~anywrap.backends.torch_compile`) are imported by the xp
  layer the first time one of their arrays, or their name, is met;
* :mod:`~anywrap.backends.tensorflow` is declared as an entry point of the group
  ``anywrap.backends`` in anywrap's ``pyproject.toml``, named after the
  library's top-level module, as an outside package would declare its own::

    [project.entry-points."anywrap.backends"]
    mylib = "mylib.anywrap_backend"   # a module that calls register_backend

Importing :mod:`anywrap.backends` imports no array library.

Example:
    >>> import anywrap.backends
    >>> anywrap.backends.AVAILABLE
    ('jax', 'tensorflow', 'torch')
"""

AVAILABLE = ("jax", "tensorflow", "torch")
"""The backend modules in this package."""

__all__ = ["AVAILABLE"]
