"""anywrap.transforms.sticky_action on every library: the state machine on given draws."""

from __future__ import annotations

import numpy as np

from anywrap.transforms.sticky_action import init_sticky, reset_sticky, sticky_action


def test_the_state_machine_on_given_draws(backend):
    """u < p starts a run (of 1 + floor(v * 3) steps, from (1, 3)); a run repeats the
    last action sent; there is nothing to repeat on the first step, nor after a reset."""
    to = backend.to_backend
    state = init_sticky(
        to(np.zeros((2, 1), np.float32)), batch_shape=(2,), xp=backend.xp, device=backend.device
    )

    def step(t: float, u: list[float], v: list[float]) -> np.ndarray:
        nonlocal state
        draws = to(np.stack([u, v], axis=-1))
        state, out = sticky_action(
            state, to(np.full((2, 1), t, np.float32)), draws, p=0.5, low=1, high=3
        )
        return backend.to_numpy(out)[:, 0]

    np.testing.assert_array_equal(step(1, [0.0, 0.0], [0.0, 0.0]), [1, 1])  # nothing to repeat
    np.testing.assert_array_equal(step(2, [0.1, 0.9], [0.5, 0.0]), [1, 2])  # env 0: a run of 2
    np.testing.assert_array_equal(step(3, [0.9, 0.9], [0.0, 0.0]), [1, 3])  # still running
    np.testing.assert_array_equal(step(4, [0.9, 0.9], [0.0, 0.0]), [4, 4])  # over
    state = reset_sticky(state, to(np.array([True, False])))
    np.testing.assert_array_equal(step(5, [0.0, 0.0], [0.0, 0.0]), [5, 4])  # env 0 forgot
