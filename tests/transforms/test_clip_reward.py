"""anywrap.transforms.clip_reward on every library: np.clip's numbers and dtypes."""

from __future__ import annotations

import numpy as np

from anywrap.transforms.clip_reward import clip_reward

REWARDS = np.array([-3.0, -0.5, 0.25, 2.0, np.nan], dtype=np.float32)


def test_number_bounds_keep_the_dtype(backend):
    out = clip_reward(backend.to_backend(REWARDS), -1.0, 1.0)
    got = backend.to_numpy(out)
    np.testing.assert_array_equal(got, np.clip(REWARDS, -1.0, 1.0))  # NaN stays NaN
    assert got.dtype == np.float32


def test_array_bounds_promote_as_np_clip_does(backend):
    high = np.array(0.5, dtype=np.float64)
    out = clip_reward(backend.to_backend(REWARDS), None, backend.to_backend(high))
    want = np.clip(REWARDS, None, high)
    got = backend.to_numpy(out)
    assert got.dtype.name == want.dtype.name.replace(
        "64", "32" if backend.float_dtype == "float32" else "64"
    )
    np.testing.assert_array_equal(got, want.astype(got.dtype))
    kept = backend.to_numpy(
        clip_reward(backend.to_backend(REWARDS), None, backend.to_backend(high), True)
    )
    assert kept.dtype == np.float32  # the vector wrapper's quirk: the reward array's dtype
