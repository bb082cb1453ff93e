"""anywrap.transforms.time_limit: the episode clock in each autoreset mode, against the
count written out step by step."""

from __future__ import annotations

import numpy as np
import pytest

from anywrap.transforms.time_limit import init_clock, time_limit

# Sub-env 0 ends by itself at its 2nd step; sub-env 1 never does. The limit is 3.
ENDS = [
    (True, False),
    (False, False),
    (False, False),
    (False, False),
    (True, False),
    (False, False),
]


def counts(autoreset: str) -> list[tuple[list[int], list[bool]]]:
    """``(elapsed, truncated)`` after each step, written out for the limit 3."""
    out, elapsed, prev_done = [], [0, 0], [False, False]
    for term in ENDS:
        step, trunc = [], []
        for i in range(2):
            n = 0 if autoreset == "next_step" and prev_done[i] else elapsed[i] + 1
            over = n >= 3
            done = term[i] or over
            trunc.append(over)
            step.append(0 if autoreset == "same_step" and done else n)
            prev_done[i] = done
        out.append((step, trunc))
        elapsed = step
    return out


@pytest.mark.parametrize("autoreset", ["next_step", "same_step", "disabled"])
def test_the_clock_counts_as_written(backend, autoreset):
    xp = backend.xp
    clock = init_clock((2,), xp=xp, device=backend.device)
    no = backend.to_backend(np.zeros(2, bool))
    for t, (want_elapsed, want_truncated) in enumerate(counts(autoreset)):
        term = backend.to_backend(np.array(ENDS[t]))
        clock, (truncated, _) = time_limit(clock, term, no, max_steps=3, autoreset=autoreset)
        np.testing.assert_array_equal(backend.to_numpy(clock.elapsed), want_elapsed, err_msg=str(t))
        np.testing.assert_array_equal(backend.to_numpy(truncated), want_truncated, err_msg=str(t))
