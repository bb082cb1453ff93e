"""Episode counts stay exact past 2^24 episodes where the widest float is float32."""

from __future__ import annotations

import numpy as np
import pytest

jax = pytest.importorskip("jax")
jnp = pytest.importorskip("jax.numpy")

from anywrap.transforms import episodes  # noqa: E402


@pytest.mark.parametrize("buffer_length", [0, 4])
def test_episode_count_is_exact_past_2_24_in_float32(buffer_length: int) -> None:
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
