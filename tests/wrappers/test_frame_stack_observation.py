"""anywrap.FrameStackObservation beyond the contract suite: the single-env image
pipeline (max-and-skip, grayscale, resize, frame stack) against Gymnasium's, on NumPy
and on device arrays, and the stack's checks.

Tolerances: NumPy is bit for bit; JAX and PyTorch resize within 1 grey level on
under 2% of the pixels (``anywrap.xp.images``'s bound).
"""

from __future__ import annotations

import contextlib

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.wrappers import FrameStackObservation as GymFrameStack
from gymnasium.wrappers import GrayscaleObservation as GymGray
from gymnasium.wrappers import MaxAndSkipObservation as GymMaxSkip
from gymnasium.wrappers import ResizeObservation as GymResize
from helpers import jax_no_host_sync, make_backend, torch_no_host_sync
from image_helpers import SMALL, DeviceImageEnv, ImageEnv

import anywrap

pytest.importorskip("cv2")  # Gymnasium's ResizeObservation


def gym_pipeline(env, skip=None, padding="reset", size=(84, 84), keep_dim=False):
    if skip:
        env = GymMaxSkip(env, skip)
    env = GymResize(GymGray(env, keep_dim=keep_dim), size)
    return GymFrameStack(env, 4, padding_type=padding)


def our_pipeline(env, skip=None, padding="reset", size=(84, 84), keep_dim=False):
    if skip:
        env = anywrap.MaxAndSkipObservation(env, skip)
    env = anywrap.ResizeObservation(anywrap.GrayscaleObservation(env, keep_dim=keep_dim), size)
    return anywrap.FrameStackObservation(env, 4, padding_type=padding)


@pytest.mark.parametrize("padding", ["reset", "zero", "custom"])
@pytest.mark.parametrize("skip", [None, 3])
def test_the_pipeline_is_gymnasiums_bit_for_bit(padding, skip):
    pad = np.full((84, 84), 200, np.uint8) if padding == "custom" else padding
    ref, ours = gym_pipeline(ImageEnv(0, 5), skip, pad), our_pipeline(ImageEnv(0, 5), skip, pad)
    assert ours.observation_space == ref.observation_space
    np.testing.assert_array_equal(ours.reset(seed=0)[0], ref.reset(seed=0)[0])
    for t in range(14):
        want, got = ref.step(t % 3), ours.step(t % 3)
        np.testing.assert_array_equal(got[0], want[0], err_msg=f"step {t}")
        assert got[1:4] == want[1:4] and type(got[1]) is type(want[1])
        if want[2] or want[3]:
            np.testing.assert_array_equal(ours.reset()[0], ref.reset()[0])


@pytest.mark.parametrize("backend_name", ["jax", "torch", "array_api_strict"])
def test_the_pipeline_on_device_arrays_is_gymnasiums_and_reads_nothing(backend_name):
    """Frames of a library stay in it; rewards and flags stay Python values (the
    single max-and-skip reads them, as Gymnasium's envs give them)."""
    b = make_backend(backend_name)
    kw = {"skip": 2, "padding": "zero", "size": (21, 16), "keep_dim": True}
    ours, ref = (
        our_pipeline(DeviceImageEnv(backend_name), **kw),
        gym_pipeline(ImageEnv(0, 5, SMALL), **kw),
    )
    got, want = [ours.reset(seed=0)[0], ours.step(0)[0]], [ref.reset(seed=0)[0], ref.step(0)[0]]
    guard = {"jax": jax_no_host_sync, "torch": torch_no_host_sync}.get(backend_name)
    with (guard or contextlib.nullcontext)():  # compiled outside, by the first step
        for _ in range(5):
            out = ours.step(0)
            got.append(out[0])
            assert type(out[1]) is float and type(out[2]) is bool
    want += [ref.step(0)[0] for _ in range(5)]
    for t, (g, w) in enumerate(zip(got, want)):
        assert isinstance(g, b.array_type)
        diff = np.abs(b.to_numpy(g).astype(int) - w)
        assert diff.max() <= 1 and (diff > 0).mean() <= 0.02, (t, diff.max())


@pytest.mark.parametrize(
    "args, kwargs, exc, pattern",
    [
        ((0,), {}, ValueError, r"stack_size.*at least 1"),
        ((2.0,), {}, TypeError, r"integer"),
        ((2,), {"padding_type": "bogus"}, ValueError, r"padding_type.*'bogus'"),
        ((2,), {"padding_type": np.zeros((3, 3, 3), np.uint8)}, ValueError, r"padding_type"),
    ],
)
def test_bad_arguments_name_the_wrapper(args, kwargs, exc, pattern):
    with pytest.raises(exc, match="anywrap.FrameStackObservation: .*" + pattern):
        anywrap.FrameStackObservation(ImageEnv(shape=(20, 16, 3)), *args, **kwargs)


def test_a_space_that_is_not_a_box_is_refused():
    with pytest.raises(TypeError, match=r"anywrap\.FrameStackObservation: expected a Box"):
        anywrap.FrameStackObservation(gym.make("FrozenLake-v1"), 2)


def test_the_saved_state_is_a_copy_that_a_step_does_not_overwrite():
    env = anywrap.FrameStackObservation(ImageEnv(0, 5, SMALL), 3)
    env.reset(seed=0)
    saved = env.state_dict()
    kept = {k: np.array(v) for k, v in saved.items()}
    env.step(0)
    for k in kept:
        np.testing.assert_array_equal(saved[k], kept[k], err_msg=k)
    env.load_state_dict(saved)
    env.step(0)  # written in place: a loaded dict is not the wrapper's buffer either
    np.testing.assert_array_equal(saved["frames"], kept["frames"])


@pytest.mark.parametrize("low", [1.0, -3.0])
def test_zero_padding_is_the_spaces_value_nearest_zero_as_in_gymnasium(low):
    """Where 0 lies outside the Box, ``padding_type="zero"`` pads with its bound nearest 0
    (Gymnasium's ``create_zero_array``), single and vector, never an observation the
    space does not hold."""

    def rescaled(env):
        return gym.wrappers.RescaleObservation(env, low, low + 1.0)

    want = GymFrameStack(rescaled(gym.make("Pendulum-v1")), 3, padding_type="zero")
    got = anywrap.FrameStackObservation(rescaled(gym.make("Pendulum-v1")), 3, padding_type="zero")
    envs = gym.make_vec("Pendulum-v1", 2, vectorization_mode="sync", wrappers=[rescaled])
    vec = anywrap.vector.FrameStackObservation(envs, 3, padding_type="zero")
    w, g, v = want.reset(seed=5)[0], got.reset(seed=5)[0], vec.reset(seed=5)[0]
    np.testing.assert_array_equal(g, w)
    np.testing.assert_array_equal(v[0], w)
    assert w[0, 0] == (low if low > 0 else low + 1.0) and w in want.observation_space
    for _ in range(2):
        a = np.zeros(1, np.float32)
        w, g = want.step(a)[0], got.step(a)[0]
        np.testing.assert_array_equal(g, w)
