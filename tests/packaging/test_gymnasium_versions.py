"""anywrap gives Gymnasium 1.4's numbers whichever supported Gymnasium is installed.

The reference is ``tests/data/gymnasium_1_4_cleanrl.npz``: the outputs of
Gymnasium 1.4's own wrappers (see ``tests/gymnasium_reference.py``). Where 1.4 is
installed, its wrappers are run again to check that the file is still theirs;
on an older Gymnasium that test is expected to fail (its wrappers give other
numbers: see ``OLDER_GYMNASIUM`` in ``tests/conftest.py`` and the docs'
Differences page), and anywrap must still give the file's numbers.
"""

from __future__ import annotations

import gymnasium as gym
import numpy as np
from gymnasium_reference import FILE, record

import anywrap


def reference() -> dict[str, np.ndarray]:
    with np.load(FILE, allow_pickle=False) as data:
        return dict(data)


def compare(got: dict[str, np.ndarray], want: dict[str, np.ndarray]) -> None:
    assert sorted(got) == sorted(want)
    for name, expected in want.items():
        # Observations and flags to the bit; rewards and returns to float rounding of
        # the float32 vector accumulator (Gymnasium's own), well inside 1e-6.
        np.testing.assert_allclose(got[name], expected, rtol=1e-6, atol=0, err_msg=name)
        if "obs" in name or "done" in name or name.endswith("_l"):
            np.testing.assert_array_equal(got[name], expected, err_msg=name)


def test_anywrap_gives_gymnasium_1_4s_numbers():
    """The CleanRL stacks, single CartPole and vector Pendulum, 500 steps each."""
    compare(record(anywrap, anywrap.vector), reference())


def test_the_reference_is_gymnasium_1_4s_own():
    """Run Gymnasium's wrappers again: with 1.4 installed they give the file, bit for
    bit, so the file is not anywrap's and not stale."""
    got = record(gym.wrappers, gym.wrappers.vector)
    want = reference()
    assert sorted(got) == sorted(want)
    for name, expected in want.items():
        np.testing.assert_array_equal(got[name], expected, err_msg=name)
