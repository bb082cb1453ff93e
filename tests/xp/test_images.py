"""anywrap.xp.images: NumPy's image routes are their generic formulas, to the bit.

The generic form of a route (``route.dispatch(object)``) is what a library without
a kernel of its own runs (array-api-strict, CuPy, ...), and what JAX runs under
``jax.jit``. NumPy's routes call OpenCV (the resize) or look each colour up in a
table of Gymnasium's results (the grayscale). The references: OpenCV itself, and
the generic formulas run on the same NumPy values.
"""

from __future__ import annotations

import numpy as np
import pytest

from anywrap.xp.images import resize_images, rgb_to_gray, write_rows

cv2 = pytest.importorskip("cv2")

SIZES = [
    ((210, 160), (84, 84)),  # Atari: a ratio that is not whole
    ((96, 96), (64, 64)),
    ((210, 160), (105, 80)),  # whole-number ratios: OpenCV's integer shortcut
    ((120, 90), (40, 30)),
    ((64, 64), (84, 84)),  # growing: OpenCV's fixed-point bilinear
    ((50, 60), (49, 61)),  # one side grows
    ((84, 84), (84, 84)),
]


def generic(route):
    return route.dispatch(object)


@pytest.mark.parametrize("src, dst", SIZES)
@pytest.mark.parametrize("channels", [1, 3])
def test_the_numpy_resize_is_opencv_and_the_generic_formula(src, dst, channels):
    """OpenCV's ``INTER_AREA`` written out (every backend's formula), on NumPy, gives
    OpenCV's numbers, which NumPy's route takes from OpenCV itself."""
    rng = np.random.default_rng(hash((src, dst, channels)) % 2**32)
    x = rng.integers(0, 256, (3, *src, channels), dtype=np.uint8)
    want = np.stack([cv2.resize(im, dst[::-1], interpolation=cv2.INTER_AREA) for im in x])
    want = want.reshape(3, *dst, channels)
    np.testing.assert_array_equal(generic(resize_images)(x, dst), want)
    np.testing.assert_array_equal(resize_images(x, dst), want)


def test_the_numpy_grayscale_lookup_is_the_generic_formula_on_every_colour():
    c = np.arange(256, dtype=np.uint8)
    g, b = (np.broadcast_to(a, (32, 256, 256)) for a in np.meshgrid(c, c, indexing="ij"))
    for r0 in range(0, 256, 32):
        r = np.broadcast_to(np.arange(r0, r0 + 32, dtype=np.uint8)[:, None, None], g.shape)
        img = np.stack([r, g, b], axis=-1)
        np.testing.assert_array_equal(rgb_to_gray(img), generic(rgb_to_gray)(img), f"red {r0}")


def test_the_numpy_ring_write_is_the_generic_one_in_place():
    rng = np.random.default_rng(0)
    buffer = rng.integers(0, 255, (13, 4, 3), dtype=np.uint8)
    index = np.sort(rng.choice(13, 5, replace=False)).astype(np.int32)
    rows = rng.integers(0, 255, (5, 4, 3), dtype=np.uint8)
    want = generic(write_rows)(buffer, index, rows)
    assert want is not buffer
    out = write_rows(buffer, index, rows)
    assert out is buffer  # NumPy writes into the buffer it is given
    np.testing.assert_array_equal(out, want)
