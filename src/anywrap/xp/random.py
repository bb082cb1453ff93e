"""Random numbers from each library's own generator, without a trip to the host.

A *key* is whatever a library draws from: a :class:`numpy.random.Generator`
(the default, for NumPy and any library that registers nothing), a JAX key
(raw ``uint32`` key data, so that it is a plain array that a jitted step
takes and returns), or a :class:`torch.Generator` on the tensors' device.
Four ``functools.singledispatch`` functions cover what a wrapper needs:

* :func:`new_key` ``(like, seed)``: a key for ``like``'s library and device;
* :func:`uniform` ``(key, shape)``: ``(key, values in [0, 1))``. Pure on
  JAX (a new key comes back); a stateful generator advances and comes back
  itself. The values are float64 from NumPy, float32 from JAX and PyTorch,
  on the key's device;
* :func:`key_data` / :func:`key_from_data`: the key as a plain array (for
  ``state_dict`` and safetensors files) and back.

A library registers its own with ``new_key.register(ArrayType)`` and
``uniform.register(KeyType)`` (and the two ``key_*``); JAX and PyTorch do so
in :mod:`anywrap.backends.jax` and :mod:`anywrap.backends.torch`.

:func:`derive_seed` turns a user's seed and a stream name into the 64-bit
seed of an independent stream, so that a wrapper seeded with the same integer
as the env never repeats the env's own draws.

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

from anywrap.xp.core import Route

__all__ = ["derive_seed", "key_data", "key_from_data", "new_key", "uniform"]

Key = Any


def derive_seed(seed: int, stream: str) -> int:
    """A 64-bit seed for the stream ``stream`` of the user's ``seed``."""
    words = np.random.SeedSequence([int(seed) % 2**128, zlib.crc32(stream.encode())])
    hi, lo = (int(w) for w in words.generate_state(2, np.uint32))
    return (hi << 32) | lo


def _load_backend(x: Any) -> bool:
    """Load the backend of ``x``'s library if it is not loaded yet (it registers
    its random ops); whether it was loaded now."""
    from anywrap.xp.core import _load

    return _load(type(x).__module__.split(".", 1)[0])


@Route
def new_key(like: Any, seed: int) -> Key:
    """A key for ``like``'s library and device, seeded with the 64-bit ``seed``."""
    if _load_backend(like):
        return new_key(like, seed)
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
    """The key's state as a plain array (NumPy: PCG64's 128-bit state and increment
    and its buffered 32 bits, as six ``uint64`` words)."""
    raise TypeError(f"anywrap.xp.random.key_data: unknown key type {type(key).__qualname__}")


_MASK = (1 << 64) - 1


@key_data.register(np.random.Generator)
def _key_data_numpy(key: np.random.Generator) -> Any:
    s = key.bit_generator.state
    if s["bit_generator"] != "PCG64":
        raise TypeError(f"anywrap.xp.random.key_data: expected PCG64, got {s['bit_generator']}")
    state, inc = s["state"]["state"], s["state"]["inc"]
    words = [state >> 64, state & _MASK, inc >> 64, inc & _MASK, s["has_uint32"], s["uinteger"]]
    return np.array(words, dtype=np.uint64)


@Route
def key_from_data(key: Key, data: Any) -> Key:
    """A key like ``key`` (library, device) whose state is ``data`` (from :func:`key_data`)."""
    raise TypeError(f"anywrap.xp.random.key_from_data: unknown key type {type(key).__qualname__}")


@key_from_data.register(np.random.Generator)
def _key_from_data_numpy(key: np.random.Generator, data: Any) -> Key:
    from anywrap.xp import to_numpy

    w = [int(v) for v in to_numpy(data).astype(np.uint64)]
    bits = np.random.PCG64()
    bits.state = {
        "bit_generator": "PCG64",
        "state": {"state": (w[0] << 64) | w[1], "inc": (w[2] << 64) | w[3]},
        "has_uint32": w[4],
        "uinteger": w[5],
    }
    return np.random.Generator(bits)
