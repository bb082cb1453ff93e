"""anywrap.transforms.rescale on every library: Gymnasium's coefficients, and maps in
the dtype NumPy's promotion gives."""

from __future__ import annotations

import gymnasium as gym
import numpy as np

from anywrap.transforms.rescale import affine, affine_inverse, rescale_coefficients


def test_the_maps_invert_each_other_in_numpys_dtype(backend):
    box = gym.spaces.Box(np.array([-2.0, 0.0]), np.array([2.0, 10.0]), dtype=np.float32)
    g, c = rescale_coefficients(box, -1.0, 1.0)
    np.testing.assert_array_equal(
        gym.wrappers.RescaleObservation(_Env(box), -1.0, 1.0).observation(box.high), [1, 1]
    )
    x = np.array([[2.0, 10.0], [-2.0, 5.0]])  # float64 meets the Box's float32
    y = affine(backend.to_backend(x), backend.to_backend(g), backend.to_backend(c))
    wide = "float64" if backend.float_dtype == "float64" else "float32"
    assert backend.to_numpy(y).dtype.name == wide
    np.testing.assert_allclose(backend.to_numpy(y), [[1.0, 1.0], [-1.0, 0.0]], rtol=1e-6, atol=1e-6)
    back = affine_inverse(y, backend.to_backend(g), backend.to_backend(c), dtype="float32")
    assert backend.to_numpy(back).dtype == np.float32
    np.testing.assert_allclose(backend.to_numpy(back), x, rtol=1e-6)


class _Env(gym.Env):
    def __init__(self, box: gym.spaces.Box) -> None:
        self.observation_space, self.action_space = box, box
