"""anywrap.xp.random and StickyAction's randomness: reproducible from the seed, drawn on the
data's device without a host sync, and distributed as Gymnasium's StickyAction says."""

from __future__ import annotations

import numpy as np
from array_envs import CounterVectorEnv
from helpers import jax_no_host_sync, make_backend, torch_no_host_sync

import anywrap
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
        assert axp.same_device(axp.device(u), backend.device)
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


# ------------------------------------------------------------ StickyAction
def sent_actions(backend, *, p: float, duration, seed: int, n: int, steps: int) -> np.ndarray:
    """``(steps, n)``: what each sub-env received when asked for action ``t`` at step ``t``."""
    xp = backend.xp
    counter = CounterVectorEnv(xp, ends=(10**6,) * n, device=backend.device)
    env = anywrap.vector.StickyAction(counter, p, duration)
    env.reset(seed=seed)
    for t in range(steps):
        env.step(backend.to_backend(np.full((n, 1), float(t), np.float32)))
    return np.stack([np.asarray(backend.to_numpy(a))[:, 0] for a in counter.received])


def test_sticky_same_seed_same_choices(backend):
    kw = dict(p=0.5, duration=(1, 3), n=16, steps=30)
    a = sent_actions(backend, seed=4, **kw)
    b = sent_actions(backend, seed=4, **kw)
    c = sent_actions(backend, seed=5, **kw)
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(a, c)


def test_sticky_repeat_rate_is_p(backend):
    """With runs of one step, every step after the first repeats with probability p,
    independently: the rate over 2048 envs x 24 steps is p within 5 standard errors."""
    p, n, steps = 0.3, 2048, 25
    sent = sent_actions(backend, p=p, duration=1, seed=0, n=n, steps=steps)
    asked = np.arange(steps, dtype=np.float32)[:, None]
    repeat = sent != asked
    assert not repeat[0].any(), "no previous action on the first step: nothing to repeat"
    rate = repeat[1:].mean()
    se = np.sqrt(p * (1 - p) / repeat[1:].size)
    assert abs(rate - p) < 5 * se, (rate, p)
    # a repeat is the previous action sent
    np.testing.assert_array_equal(sent[1:][repeat[1:]], sent[:-1][repeat[1:]])


def test_sticky_run_lengths_are_uniform(backend):
    """Runs drawn from (2, 4): a run of r < 4 repeats is one series of length r that no
    new series follows at once, so P(r) = (1 - p) / 3 for r = 2, 3, and r = 1 never.
    Only runs that start 12 steps or more before the horizon are counted (every one of
    them, finished or not), so the horizon does not favour short runs."""
    p, n, steps, margin = 0.2, 2048, 40, 12
    sent = sent_actions(backend, p=p, duration=(2, 4), seed=1, n=n, steps=steps)
    repeat = sent != np.arange(steps, dtype=np.float32)[:, None]
    lengths = []
    for i in range(n):
        run, start = 0, 0
        for t in range(1, steps):
            if repeat[t, i]:
                start = t if run == 0 else start
                run += 1
            elif run:
                if start <= steps - margin:
                    lengths.append(run)
                run = 0
        if run and start <= steps - margin:
            lengths.append(run)  # unfinished: at least `margin` long
    lengths = np.array(lengths)
    assert len(lengths) > 5000
    assert (lengths >= 2).all()
    want = (1 - p) / 3
    se = np.sqrt(want * (1 - want) / len(lengths))
    for r in (2, 3):
        freq = (lengths == r).mean()
        assert abs(freq - want) < 5 * se, (r, freq, want)


def test_sticky_state_dict_restores_the_generator(backend):
    """``state_dict`` holds the generator's state: loading it replays the same choices."""
    xp = backend.xp
    counter = CounterVectorEnv(xp, ends=(10**6,) * 8, device=backend.device)
    env = anywrap.vector.StickyAction(counter, 0.5, (1, 3))
    env.reset(seed=2)

    def run(steps: int) -> np.ndarray:
        for t in range(steps):
            env.step(backend.to_backend(np.full((8, 1), float(t), np.float32)))
        return np.stack([np.asarray(backend.to_numpy(a)) for a in counter.received[-steps:]])

    run(5)
    saved = {k: np.array(axp.to_numpy(v), copy=True) for k, v in env.state_dict().items()}
    first = run(12)
    env.load_state_dict(saved)
    np.testing.assert_array_equal(run(12), first)
    assert (first != np.arange(12, dtype=np.float32)[:, None, None]).any()  # some repeats
