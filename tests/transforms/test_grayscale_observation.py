"""GrayscaleObservation's transform: Gymnasium's numbers for every colour, on every backend.

The reference is Gymnasium's own wrapper (a float64 sum, truncated), evaluated
once on all 2^24 colours.
"""

from __future__ import annotations

import functools

import numpy as np
import pytest
from gymnasium.wrappers import GrayscaleObservation as GymGray
from helpers import make_backend, needs_whole_traces
from image_helpers import ImageEnv, torch_compiling

from anywrap import xp
from anywrap.transforms.grayscale_observation import grayscale


def colours(r0: int) -> np.ndarray:
    """The 2^21 colours with red ``r0`` to ``r0 + 31``: ``(32, 256, 256, 3)``."""
    c = np.arange(256, dtype=np.uint8)
    g, b = np.meshgrid(c, c, indexing="ij")
    reds = np.arange(r0, r0 + 32, dtype=np.uint8)[:, None, None]
    return np.stack([np.broadcast_to(x, (32, 256, 256)) for x in (reds, g, b)], axis=-1)


@functools.cache
def gymnasiums(r0: int) -> np.ndarray:
    gray = GymGray(ImageEnv(shape=(256, 256, 3)))
    return np.stack([gray.observation(im) for im in colours(r0)])


@pytest.mark.parametrize("backend_name", ["numpy", "jax", "torch", "array_api_strict"])
def test_every_colour_is_gymnasiums(backend_name):
    b = make_backend(backend_name)
    fn = grayscale
    if backend_name == "jax":
        import jax

        fn = jax.jit(grayscale)
    for r0 in range(0, 256, 32):
        got = b.to_numpy(fn(b.to_backend(colours(r0))))
        np.testing.assert_array_equal(got, gymnasiums(r0), err_msg=f"red {r0}..{r0 + 31}")


@needs_whole_traces
def test_a_compiled_torch_program_is_gymnasiums_on_every_colour():
    """A compiled program takes the integer formula (not the eager lookup)."""
    torch = pytest.importorskip("torch")
    with torch_compiling() as log:
        gray = xp.jit(torch.zeros(1), grayscale)
        for call, r0 in enumerate([0, 0, *range(0, 256, 32)]):  # two calls to compile
            got = gray(torch.from_numpy(colours(r0).copy())).numpy()
            if call >= 2:
                np.testing.assert_array_equal(got, gymnasiums(r0), err_msg=f"red {r0}")
        assert [r.function for r in log() if r.compiled] == ["grayscale"]


def test_keep_dim_and_gymnasiums_grey_43():
    rgb = np.full((2, 2, 3), 43, np.uint8)
    assert GymGray(ImageEnv(shape=(2, 2, 3))).observation(rgb)[0, 0] == 42  # float64 rounding
    out = grayscale(rgb, keep_dim=True)
    assert out.shape == (2, 2, 1) and out.dtype == np.uint8 and out[0, 0, 0] == 42
