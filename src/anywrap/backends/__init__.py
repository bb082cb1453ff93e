"""The array libraries anywrap knows beyond NumPy, each registered through the public
:func:`anywrap.xp.register_backend`, as a third party would (TensorFlow through an entry
point of the group ``anywrap.backends``). Importing this package imports no array library.

Example:
    >>> import anywrap.backends
    >>> anywrap.backends.AVAILABLE
    ('jax', 'tensorflow', 'torch')
"""

AVAILABLE = ("jax", "tensorflow", "torch")
"""The backend modules in this package."""

__all__ = ["AVAILABLE"]


def _on_host(x: object) -> bool:
    """Whether ``x`` says through DLPack that it lives in host memory."""
    try:
        return bool(x.__dlpack_device__()[0] == 1)  # type: ignore[attr-defined]
    except Exception:
        return False
