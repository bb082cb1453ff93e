"""JAX's image operations: registered with :mod:`anywrap.xp._jax`.

* ``resize_images``: the area filter is the generic one (OpenCV's taps, fused
  into one loop by ``jax.jit``); the antialiased bilinear one is
  ``jax.image.resize(..., "linear", antialias=True)``.
* ``write_rows``: ``buffer.at[index].set(rows)``, in place inside a program
  compiled with ``donate_argnums`` (``anywrap.xp.Compiled(fn, donate=True)``).

Each is registered with ``JAX.route``, so for ``jax.Array`` and for tracers:
it also fires inside ``jax.jit``.

Example:
    >>> import jax.numpy as jnp
    >>> from anywrap.xp.images import write_rows
    >>> write_rows(jnp.zeros((4, 2), jnp.uint8), jnp.array([1, 3]), jnp.ones((2, 2), jnp.uint8))
    Array([[0, 0],
           [1, 1],
           [0, 0],
           [1, 1]], dtype=uint8)
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp

from anywrap.xp import _jax
from anywrap.xp import images as _images


@_jax.JAX.route(_images.resize_images)
def _resize_jax(images: Any, size: tuple[int, int], method: str = "area") -> Any:
    if method != "bilinear":
        return _images.resize_separable(images, size, method)
    b, _, _, c = images.shape
    out = jax.image.resize(
        images.astype(jnp.float32), (b, size[0], size[1], c), "linear", antialias=True
    )
    return jnp.clip(jnp.round(out), 0, 255).astype(jnp.uint8)


@_jax.JAX.route(_images.write_rows)
def _write_rows_jax(buffer: Any, index: Any, rows: Any) -> Any:
    return buffer.at[index].set(
        rows.astype(buffer.dtype), unique_indices=True, indices_are_sorted=True
    )
