"""Moments stay accurate past 2^31 samples in float32 JAX (x64 off).

The count is a double-word float (``count + count_lo``): a plain float32 count
stops growing at 2^24 and an int32 one overflows at 2^31. The stream changes
distribution halfway, so a count that stopped growing would leave the mean
and variance of the first half (checked: the test can fail).
"""

from __future__ import annotations

import pytest

jax = pytest.importorskip("jax")
import jax.numpy as jnp  # noqa: E402

from anywrap.transforms import moments  # noqa: E402

# An odd batch size: float32 cannot add it exactly once the count passes 2^24.
ROWS, UPDATES = 2**20 - 3, 2**11 + 8  # just over 2^31 samples in all


def test_moments_accurate_after_2_pow_31_float32_samples():
    assert not jax.config.read("jax_enable_x64")
    # one standardised batch (exact sample mean 0, variance 1), reused with a
    # shift and scale per update: N(0, 1) for the first half, N(1, 2^2) after
    z = jax.random.normal(jax.random.key(0), (ROWS,), jnp.float32)
    z = (z - jnp.mean(z)) / jnp.std(z)

    def body(m, i):
        second = i >= UPDATES // 2
        x = z * jnp.where(second, 2.0, 1.0) + jnp.where(second, 1.0, 0.0)
        return moments.update_moments(m, x, skip_nonfinite=False), None

    m0 = moments.init_moments((), xp=jnp, dtype=jnp.float32)
    m, _ = jax.jit(lambda m: jax.lax.scan(body, m, jnp.arange(UPDATES)))(m0)
    assert m.count.dtype == jnp.float32
    n = float(m.count) + float(m.count_lo)  # summed on the host in float64
    assert n == pytest.approx(ROWS * UPDATES + 1e-4, rel=1e-12)
    assert ROWS * UPDATES > 2**31
    # mixture: mean 0.5, variance 0.5 * 1 + 0.5 * 4 + 0.25 (spread of the means)
    assert float(m.mean) == pytest.approx(0.5, rel=1e-4)
    assert float(m.var) == pytest.approx(2.75, rel=1e-4)
