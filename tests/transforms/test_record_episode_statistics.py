"""RecordEpisodeStatistics's transform: Gymnasium's order of recent episodes, and an
episode count that stays exact past 2^24 where the widest float is float32."""

from __future__ import annotations

from collections import deque

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from anywrap.transforms import record_episode_statistics as episodes

finite = st.floats(-1e3, 1e3, allow_nan=False, allow_infinity=False, width=64)


@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_recent_episode_buffer_keeps_gymnasium_order(data):
    """The device buffer holds the same episodes, in the same order, as a deque would.

    The oracle keeps each env's return in plain Python, with Gymnasium's
    NEXT_STEP rule (the step after an end is the reset step: it restarts the
    return at zero and its reward is not counted), and appends finished
    episodes in ascending env order to a ``deque``.
    """
    n, length = data.draw(st.integers(1, 5)), data.draw(st.integers(1, 6))
    state = episodes.init_episodes((n,), xp=np, buffer_length=length)
    oracle: deque = deque(maxlen=length)
    oracle_lengths: deque = deque(maxlen=length)
    running, steps, prev_done = [0.0] * n, [0] * n, [False] * n
    for t in range(data.draw(st.integers(1, 12))):
        reward = np.array(data.draw(st.lists(finite, min_size=n, max_size=n)))
        term = np.array(data.draw(st.lists(st.booleans(), min_size=n, max_size=n)))
        trunc = np.zeros(n, dtype=bool)
        state, out = episodes.step_episodes(state, reward, term, trunc, now=float(t))
        for i in range(n):
            if prev_done[i]:
                running[i], steps[i] = 0.0, 0
            else:
                running[i], steps[i] = running[i] + float(reward[i]), steps[i] + 1
            if term[i]:
                oracle.append(running[i])
                oracle_lengths.append(steps[i])
            prev_done[i] = bool(term[i])
        np.testing.assert_array_equal(out.done, term)
        np.testing.assert_allclose(out.returns[term], [running[i] for i in np.flatnonzero(term)])
    size = int(state.recent_size)
    got = state.recent_returns[:size][::-1]  # newest-first buffer, oldest first
    assert size == len(oracle)
    np.testing.assert_allclose(got, np.array(oracle), rtol=1e-12)
    np.testing.assert_array_equal(state.recent_lengths[:size][::-1], np.array(oracle_lengths))


@pytest.mark.parametrize("buffer_length", [0, 4])
def test_episode_count_is_exact_past_2_24_in_float32(buffer_length: int) -> None:
    jax = pytest.importorskip("jax")
    jnp = pytest.importorskip("jax.numpy")
    state = episodes.init_episodes((4,), xp=jnp, buffer_length=buffer_length)
    assert state.episode_count.dtype == jnp.float32  # JAX's default: x64 off
    start = 2**24  # a float32 count stops growing by odd steps here
    state = state._replace(episode_count=jnp.asarray(start, jnp.float32))
    done = jnp.asarray([True, True, True, False])
    step = jax.jit(episodes.step_episodes, static_argnames=("same_step", "timed"))
    for _ in range(30):
        state, _ = step(state, jnp.ones(4), done, jnp.zeros(4, bool), same_step=True, timed=False)
    expected = start + 30 * 3
    hi, lo = np.asarray(state.episode_count), np.asarray(state.episode_count_lo)
    assert int(hi) + int(lo) == expected
    # a plain float32 count would be off: the reason for the two words
    naive = np.float32(start)
    for _ in range(30):
        naive = np.float32(naive + np.float32(3))
    assert int(naive) != expected
