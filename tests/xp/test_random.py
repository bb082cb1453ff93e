"""anywrap.xp.random: each library's own generator, reproducible from the seed, drawn on
the data's device without a host sync, its state saved and restored as a plain array.
(StickyAction's draws: tests/vector/test_sticky_action.py.)"""

from __future__ import annotations

import numpy as np
from helpers import jax_no_host_sync, make_backend, torch_no_host_sync

from anywrap import xp as axp
from anywrap.xp import random


def draws(backend, seed: int, n: int = 3) -> list[np.ndarray]:
    key = random.new_key(backend.to_backend(np.zeros(2)), seed)
    out = []
    for _ in range(n):
        key, u = random.uniform(key, (5, 2))
        out.append(np.asarray(backend.to_numpy(u)) if not isinstance(u, np.ndarray) else u)
    return out


def test_same_seed_same_sequence(backend):
    a, b, c = draws(backend, 7), draws(backend, 7), draws(backend, 8)
    for x, y in zip(a, b):
        np.testing.assert_array_equal(x, y)
    assert not np.array_equal(a[0], a[1]), "consecutive draws repeat"
    assert not np.array_equal(a[0], c[0]), "another seed gives the same draws"
    for x in a:
        assert x.shape == (5, 2) and ((x >= 0) & (x < 1)).all()


def test_draws_live_with_the_data(backend):
    like = backend.to_backend(np.zeros(2))
    key = random.new_key(like, 1)
    _, u = random.uniform(key, (4,))
    if backend.name in ("jax", "torch"):
        assert isinstance(u, backend.array_type)
        assert str(axp.device(u)) == str(backend.device)
        assert str(u.dtype).endswith("float32")
    else:  # NumPy's generator, the default for libraries without their own
        assert isinstance(u, np.ndarray) and u.dtype == np.float64


def test_key_data_round_trip(backend):
    key = random.new_key(backend.to_backend(np.zeros(2)), 3)
    key, _ = random.uniform(key, (3,))
    saved = random.key_data(key)
    _, first = random.uniform(key, (3,))
    restored = random.key_from_data(key, np.array(axp.to_numpy(saved)))
    _, again = random.uniform(restored, (3,))
    np.testing.assert_array_equal(axp.to_numpy(first), axp.to_numpy(again))


def test_derive_seed_separates_streams():
    assert random.derive_seed(0, "a") == random.derive_seed(0, "a")
    assert (
        len({random.derive_seed(0, "a"), random.derive_seed(0, "b"), random.derive_seed(1, "a")})
        == 3
    )
    assert 0 <= random.derive_seed(2**70, "a") < 2**64


def test_jax_draws_without_host_sync_and_inside_jit():
    backend = make_backend("jax")
    import jax

    key = random.new_key(backend.to_backend(np.zeros(2)), 5)
    jitted = jax.jit(lambda k: random.uniform(k, (8,)))
    jitted(key)
    with jax_no_host_sync():
        k1, u1 = random.uniform(key, (8,))
        k2, u2 = jitted(key)
    np.testing.assert_array_equal(np.asarray(u1), np.asarray(u2))
    np.testing.assert_array_equal(np.asarray(k1), np.asarray(k2))


def test_torch_draws_without_host_sync():
    backend = make_backend("torch")
    key = random.new_key(backend.to_backend(np.zeros(2)), 5)
    with torch_no_host_sync():
        for _ in range(3):
            key, u = random.uniform(key, (8,))
    assert u.device == backend.device
