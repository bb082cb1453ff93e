"""anywrap.transforms.delay_observation on every library: the observation of ``delay``
steps ago, the zero before there is one, and masked resets of some environments."""

from __future__ import annotations

import numpy as np

from anywrap.transforms.delay_observation import delay_observation, init_delay, reset_delay


def test_each_observation_comes_delay_steps_late(backend):
    zero = np.full(2, -1.0, np.float32)  # a Box's value closest to zero need not be 0
    state = init_delay(zero, delay=2, batch_shape=(3,), xp=backend.xp, device=backend.device)
    z = backend.to_backend(zero)
    obs = [np.full((3, 2), float(t), np.float32) for t in range(6)]
    state, out = reset_delay(state, backend.to_backend(obs[0]), z)
    outs = [out]
    for o in obs[1:4]:
        state, out = delay_observation(state, backend.to_backend(o), z)
        outs.append(out)
    want = [zero, zero, obs[0][0], obs[1][0]]
    for t, (got, w) in enumerate(zip(outs, want)):
        np.testing.assert_array_equal(backend.to_numpy(got), np.broadcast_to(w, (3, 2)), str(t))
    # Sub-env 1 restarts: it shows the zero, the others their last output again.
    mask = backend.to_backend(np.array([False, True, False]))
    state, out = reset_delay(state, backend.to_backend(obs[4]), z, mask)
    np.testing.assert_array_equal(backend.to_numpy(out)[:, 0], [1.0, -1.0, 1.0])
    state, out = delay_observation(state, backend.to_backend(obs[5]), z)
    np.testing.assert_array_equal(backend.to_numpy(out)[:, 0], [2.0, -1.0, 2.0])
    state, out = delay_observation(state, backend.to_backend(obs[5]), z)
    np.testing.assert_array_equal(backend.to_numpy(out)[:, 0], [3.0, 4.0, 3.0])
