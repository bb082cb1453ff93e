"""NormalizeReward's transform: the discounted return, Gymnasium's quirks included."""

from __future__ import annotations

import numpy as np

from anywrap.transforms import normalize_reward as returns


def test_return_accumulator_resets_on_termination_only():
    s = returns.init_returns((2,), xp=np, acc_dtype=np.float64, stats_dtype=np.float64)
    s = returns.update_returns(s, np.array([1.0, 1.0]), np.array([False, False]), gamma=0.5)
    s = returns.update_returns(
        s, np.array([1.0, 1.0]), np.array([True, False]), np.array([False, True]), gamma=0.5
    )
    # env 0 terminated: its old return is dropped; env 1 was truncated: kept.
    np.testing.assert_array_equal(s.accumulated, [1.0, 1.5])
