"""JAX's random ops for :mod:`anywrap.xp.random`: the key is raw ``threefry2x32`` key data.

A raw key (two ``uint32`` words) is a plain array: a jitted step takes it and
returns the next one, ``state_dict`` saves it as it is, and it lives on the
device of the arrays it was made for. Each draw splits the key, so a
sequence is reproducible from the seed alone.

Example:
    >>> import jax.numpy as jnp
    >>> from anywrap.xp import random
    >>> key = random.new_key(jnp.zeros(3), 2**40 + 7)
    >>> key.dtype, key.shape
    (dtype('uint32'), (2,))
    >>> key, u = random.uniform(key, (4,))
    >>> u.dtype, bool(((u >= 0) & (u < 1)).all())
    (dtype('float32'), True)
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp

from anywrap.xp import _jax
from anywrap.xp import random as _random

_IMPL = "threefry2x32"


def _new_key_jax(like: Any, seed: int) -> Any:
    words = jnp.asarray([(seed >> 32) & 0xFFFFFFFF, seed & 0xFFFFFFFF], dtype=jnp.uint32)
    if isinstance(like, jax.core.Tracer):
        return words
    return jax.device_put(words, like.sharding)


def _uniform_jax(key: Any, shape: tuple[int, ...]) -> tuple[Any, Any]:
    key, sub = jax.random.split(jax.random.wrap_key_data(key, impl=_IMPL))
    return jax.random.key_data(key), jax.random.uniform(sub, shape, dtype=jnp.float32)


def _key_data_jax(key: Any) -> Any:
    return key


def _key_from_data_jax(key: Any, data: Any) -> Any:
    words = jnp.asarray(data, dtype=jnp.uint32)
    if isinstance(key, jax.core.Tracer):
        return words
    return jax.device_put(words, key.sharding)


for _op, _kernel in (
    (_random._new_key, _new_key_jax),
    (_random.uniform, _uniform_jax),
    (_random.key_data, _key_data_jax),
    (_random.key_from_data, _key_from_data_jax),
):
    _jax.JAX.route(_op)(_kernel)
