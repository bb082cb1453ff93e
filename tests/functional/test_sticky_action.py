"""anywrap.functional.StickyAction: reproducible from the reset key, and an episode's first
action is never a repeat."""

from __future__ import annotations

import numpy as np
import pytest
from array_envs import functional_counter

jax = pytest.importorskip("jax")
import jax.numpy as jnp  # noqa: E402

from anywrap import functional as F  # noqa: E402

ENDS = (3, 4, 6, 9)


def sticky_sent(key: int, p: float = 0.5, steps: int = 30):
    """What the counter received at each step, asked for action ``t`` at step ``t``; and
    its ``terminated``."""
    env = F.StickyAction(F.AutoReset(functional_counter(ENDS)), p, (1, 2))
    acts = np.broadcast_to(np.arange(steps, dtype=np.float32)[:, None, None], (steps, len(ENDS), 1))

    def body(state, a):
        s = env.step(state, a)
        sent = s.state.sticky.last[:, 0]  # the action the env was given
        return s.state, (sent, s.terminated)

    @jax.jit
    def run(k):
        _, state = env.reset(k)
        return jax.lax.scan(body, state, jnp.asarray(acts))[1]

    sent, term = run(jax.random.key(key))
    return np.asarray(sent), np.asarray(term)


def test_sticky_is_reproducible_from_the_reset_key():
    a, _ = sticky_sent(1)
    b, _ = sticky_sent(1)
    c, _ = sticky_sent(2)
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(a, c)


def test_sticky_never_repeats_across_an_episode_end():
    sent, term = sticky_sent(3, p=0.9)
    asked = np.arange(len(sent), dtype=np.float32)[:, None]
    repeat = sent != asked
    assert repeat.mean() > 0.5  # p = 0.9 repeats often...
    after_end = np.zeros_like(term)
    after_end[1:] = term[:-1]
    assert not repeat[after_end].any()  # ...but never the old episode's action
    assert not repeat[0].any()
    np.testing.assert_array_equal(sent[1:][repeat[1:]], sent[:-1][repeat[1:]])
