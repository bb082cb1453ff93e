"""ResizeObservation's transform on every backend, against OpenCV (Gymnasium's resize).

Tolerances: NumPy and array-api-strict are exact; JAX and PyTorch sum the same
float32 terms in another order, within 1 grey level on under 2% of the pixels
(the bound that ``anywrap.xp.images`` documents).
"""

from __future__ import annotations

import numpy as np
import pytest
from helpers import make_backend
from image_helpers import ImageEnv

from anywrap.transforms.resize_observation import resize

cv2 = pytest.importorskip("cv2")

RESIZE_BOUND = (1, 0.02)  # max grey levels off, fraction of pixels off (JAX, PyTorch)

SIZES = [
    ((210, 160), (84, 84)),  # Atari: a ratio that is not whole
    ((96, 96), (64, 64)),
    ((210, 160), (105, 80)),  # a whole-number ratio
    ((120, 90), (40, 30)),
    ((64, 64), (84, 84)),  # growing
]


def assert_images_close(got, want, backend_name, what=""):
    got, want = np.asarray(got).astype(np.int64), np.asarray(want).astype(np.int64)
    assert got.shape == want.shape, (what, got.shape, want.shape)
    if backend_name in ("numpy", "array_api_strict"):
        np.testing.assert_array_equal(got, want, err_msg=what)
        return
    diff = np.abs(got - want)
    bound, fraction = RESIZE_BOUND
    assert diff.max() <= bound, (what, diff.max())
    assert (diff > 0).mean() <= fraction, (what, (diff > 0).mean())


@pytest.mark.parametrize("backend_name", ["numpy", "jax", "torch", "array_api_strict"])
@pytest.mark.parametrize("src, dst", SIZES)
def test_every_backend_is_within_the_bound_of_opencv(backend_name, src, dst):
    b = make_backend(backend_name)
    x = np.random.default_rng(7).integers(0, 256, (4, *src), dtype=np.uint8)
    want = np.stack([cv2.resize(im, dst[::-1], interpolation=cv2.INTER_AREA) for im in x])
    got = resize(b.to_backend(x), dst, channels=False)
    assert isinstance(got, b.array_type)
    assert_images_close(b.to_numpy(got), want, backend_name, f"{src}->{dst}")


@pytest.mark.parametrize("backend_name", ["jax", "torch"])
def test_bilinear_is_the_backends_antialiased_resize(backend_name):
    """``method="bilinear"``: each backend's own filter, which agrees with the triangle
    taps written out (NumPy) to 1 grey level, and is not OpenCV's area filter."""
    b = make_backend(backend_name)
    x = ImageEnv(shape=(210, 160, 3)).reset()[0][None]
    want = resize(x, (84, 84), channels=True, method="bilinear")
    got = b.to_numpy(resize(b.to_backend(x), (84, 84), channels=True, method="bilinear"))
    assert np.abs(got.astype(int) - want).max() <= 1
    area = cv2.resize(x[0], (84, 84), interpolation=cv2.INTER_AREA)
    assert np.abs(got[0].astype(int) - area).max() > 5
