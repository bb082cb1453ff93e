"""Random numbers from each library's own generator, without a trip to the host.

A *key* is a NumPy ``Generator``, raw JAX key data, a ``torch.Generator`` or a
``tf.random.Generator``; a library registers its own with ``new_key.register``.

Example:
    >>> import numpy as np
    >>> from anywrap.xp import random
    >>> key = random.new_key(np.zeros(3), random.derive_seed(0, "demo"))
    >>> key, u = random.uniform(key, (2,))
    >>> u.shape, u.dtype, bool(((0 <= u) & (u < 1)).all())
    ((2,), dtype('float64'), True)
    >>> again = random.new_key(np.zeros(3), random.derive_seed(0, "demo"))
    >>> bool((random.uniform(again, (2,))[1] == u).all())
    True
"""

from __future__ import annotations

import zlib
from typing import Any

import numpy as np

from anywrap.xp.core import Route, to_numpy

Key = Any


def derive_seed(seed: int, stream: str) -> int:
    """A 64-bit seed for the stream ``stream`` of the user's ``seed``."""
    words = np.random.SeedSequence([int(seed) % 2**128, zlib.crc32(stream.encode())])
    hi, lo = (int(w) for w in words.generate_state(2, np.uint32))
    return (hi << 32) | lo


@Route
def new_key(like: Any, seed: int) -> Key:
    """A key for ``like``'s library and device, seeded with the 64-bit ``seed``."""
    return np.random.Generator(np.random.PCG64(seed))


@Route
def uniform(key: Key, shape: tuple[int, ...]) -> tuple[Key, Any]:
    """``(key, values)``: uniform values in [0, 1) of ``shape`` drawn from ``key``."""
    raise TypeError(
        f"anywrap.xp.random.uniform: no generator registered for {type(key).__qualname__}; "
        "register one with `anywrap.xp.random.uniform.register(KeyType)`"
    )


@uniform.register(np.random.Generator)
def _uniform_numpy(key: np.random.Generator, shape: tuple[int, ...]) -> tuple[Key, Any]:
    return key, key.random(shape)


@Route
def key_data(key: Key) -> Any:
    """The key's state as a plain array (NumPy: PCG64's state, as six ``uint64`` words)."""
    raise TypeError(f"anywrap.xp.random.key_data: unknown key type {type(key).__qualname__}")


@key_data.register(np.random.Generator)
def _key_data_numpy(key: np.random.Generator) -> Any:
    s = key.bit_generator.state
    if s["bit_generator"] != "PCG64":
        raise TypeError(f"anywrap.xp.random.key_data: expected PCG64, got {s['bit_generator']}")
    state, inc = divmod(s["state"]["state"], 1 << 64), divmod(s["state"]["inc"], 1 << 64)
    return np.array([*state, *inc, s["has_uint32"], s["uinteger"]], dtype=np.uint64)


@Route
def key_from_data(key: Key, data: Any) -> Key:
    """A key like ``key`` (library, device) whose state is ``data`` (from :func:`key_data`)."""
    raise TypeError(f"anywrap.xp.random.key_from_data: unknown key type {type(key).__qualname__}")


@key_from_data.register(np.random.Generator)
def _key_from_data_numpy(key: np.random.Generator, data: Any) -> Key:
    w = [int(v) for v in to_numpy(data).astype(np.uint64)]
    if w[4] > 1 or w[5] >> 32:  # NumPy would take them, then fail at the first draw
        raise ValueError(
            f"PCG64's has_uint32 is 0 or 1 and its uinteger below 2**32, got {w[4]} and {w[5]}"
        )
    bits = np.random.PCG64()
    bits.state = {
        "bit_generator": "PCG64",
        "state": {"state": (w[0] << 64) | w[1], "inc": (w[2] << 64) | w[3]},
        "has_uint32": w[4],
        "uinteger": w[5],
    }
    return np.random.Generator(bits)
