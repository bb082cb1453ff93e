"""AddWhiteNoise, ObstructView and RepeatAction (single and functional) beyond the contract
suite: Gymnasium's frames on NumPy, the frames' library and device kept elsewhere with
no host read, the squares against a loop written here, and the errors."""

from __future__ import annotations

import contextlib

import gymnasium as gym
import numpy as np
import pytest
import render_envs
from gymnasium.error import InvalidProbability
from helpers import jax_no_host_sync, make_backend, torch_no_host_sync

import anywrap
from anywrap.transforms.noise import obstruct

NOISE = [
    ("AddWhiteNoise", {"probability_of_noise_per_pixel": 0.3}),
    ("AddWhiteNoise", {"probability_of_noise_per_pixel": 0.6, "is_noise_grayscale": True}),
    ("ObstructView", {"obstructed_pixels_ratio": 0.3, "obstruction_width": 5}),
    (
        "ObstructView",
        {"obstructed_pixels_ratio": 0.5, "obstruction_width": 4, "is_noise_grayscale": True},
    ),
]


@pytest.mark.parametrize(("name", "kwargs"), NOISE)
def test_numpy_frames_are_gymnasiums(name, kwargs):
    """The env's np_random, Gymnasium's draws in Gymnasium's order: the same frames,
    through steps and seeded resets (grayscale: the same values, Gymnasium's in uint64)."""
    ours = getattr(anywrap, name)(render_envs.make(shape=(60, 50, 3)), **kwargs)
    theirs = getattr(gym.wrappers, name)(render_envs.make(shape=(60, 50, 3)), **kwargs)
    for seed in (0, 7):
        ours.reset(seed=seed), theirs.reset(seed=seed)
        for t in range(6):
            got, want = ours.render(), theirs.render()
            assert got.dtype == np.uint8 and got.shape == want.shape
            np.testing.assert_array_equal(got, want.astype(np.uint8), err_msg=f"{seed} {t}")
            assert not np.array_equal(got, ours.unwrapped.render())
            ours.step(1), theirs.step(1)


def _loop_mask(centers, shape, width):
    """Gymnasium's loop, written here: a square per centre, clipped at the borders."""
    mask = np.zeros(shape, bool)
    low, high = width // 2, width - width // 2
    for x, y in zip(*np.unravel_index(centers, shape)):
        mask[
            max(x - low, 0) : min(x + high, shape[0]), max(y - low, 0) : min(y + high, shape[1])
        ] = True
    return mask


@pytest.mark.parametrize("library", ["numpy", "torch", "jax", "array_api_strict", "tensorflow"])
@pytest.mark.parametrize("width", [1, 2, 5])
def test_obstruct_covers_gymnasiums_squares(library, width):
    b = make_backend(library)
    rng = np.random.default_rng(width)
    frame, noise = rng.integers(0, 255, (2, 13, 9, 3), dtype=np.uint8)
    centers = rng.integers(0, 13 * 9, 12)
    got = b.to_numpy(
        obstruct(b.to_backend(frame), b.to_backend(noise), b.to_backend(centers), width=width)
    )
    want = np.where(_loop_mask(centers, (13, 9), width)[..., None], noise, frame)
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("library", ["torch", "jax", "tensorflow"])
@pytest.mark.parametrize(("name", "kwargs"), NOISE)
def test_device_frames_stay_and_follow_the_seed(library, name, kwargs):
    """A torch, JAX or TensorFlow frame comes back in its library, drawn from the library's
    own generator with no host read (TensorFlow has no guard: its key is checked to be a
    ``tf.random.Generator``); the same seed gives the same frames, another seed others;
    about the asked share of pixels is noise."""
    b = make_backend(library)
    guard = {"torch": torch_no_host_sync, "jax": jax_no_host_sync}.get(
        library, contextlib.nullcontext
    )

    def frames(seed):
        env = getattr(anywrap, name)(
            render_envs.FakeAtari("rgb_array", shape=(80, 60, 3), library=library), **kwargs
        )
        env.reset(seed=seed)
        env.render()  # compiles outside the guard
        with guard():
            out = [env.render() for _ in range(3)]
        if library == "tensorflow":
            key = type(env._key)
            assert key.__name__ == "Generator" and key.__module__.startswith("tensorflow")
        assert all(
            isinstance(f, b.array_type) and f.dtype == b.to_backend(np.zeros(1, np.uint8)).dtype
            for f in out
        )
        return [b.to_numpy(f) for f in out], env.unwrapped.screen

    first, clean = frames(3)
    again, _ = frames(3)
    other, _ = frames(4)
    for f, g in zip(first, again):
        np.testing.assert_array_equal(f, g)
    assert not np.array_equal(first[0], other[0]) and not np.array_equal(first[0], first[1])
    share = np.mean([(f != clean).any(-1).mean() for f in first])
    expected = kwargs.get("probability_of_noise_per_pixel", kwargs.get("obstructed_pixels_ratio"))
    assert abs(share - expected) < 0.12, share  # squares overlap: a little under the ratio
    if kwargs.get("is_noise_grayscale"):
        noisy = first[0][(first[0] != clean).any(-1)]
        assert (noisy == noisy[:, :1]).all() and noisy.max() <= 76 + 149 + 29 - 3


@pytest.mark.parametrize(("name", "kwargs"), NOISE[1:3])
def test_a_library_without_a_generator_draws_from_numpys(name, kwargs):
    """array-api-strict frames: NumPy's generator, its draws moved to the frame's library."""
    b = make_backend("array_api_strict")
    env = getattr(anywrap, name)(
        render_envs.FakeAtari("rgb_array", library="array_api_strict"), **kwargs
    )
    env.reset(seed=0)
    frame = env.render()
    assert isinstance(frame, b.array_type) and frame.shape == env.unwrapped.screen.shape
    assert 0.15 < (b.to_numpy(frame) != env.unwrapped.screen).any(-1).mean() < 0.75


def test_noise_errors_name_the_wrapper():
    env = render_envs.make()
    with pytest.raises(InvalidProbability, match=r"anywrap\.AddWhiteNoise: expected .* got 1"):
        anywrap.AddWhiteNoise(env, 1)
    with pytest.raises(
        ValueError, match=r"anywrap\.ObstructView: expected `obstructed_pixels_ratio`"
    ):
        anywrap.ObstructView(env, -0.1, 3)
    with pytest.raises(
        ValueError, match=r"anywrap\.ObstructView: expected `obstruction_width`.*got 0"
    ):
        anywrap.ObstructView(env, 0.1, 0)

    class Flat(gym.Wrapper):
        def render(self):
            return np.zeros((4, 4), np.uint8)

    wrapped = anywrap.AddWhiteNoise(Flat(render_envs.make()), 0.5)
    wrapped.reset(seed=0)
    with pytest.raises(
        ValueError, match=r"anywrap\.AddWhiteNoise: expected a rendered frame \(H, W, C\), got"
    ):
        wrapped.render()


@pytest.mark.parametrize("shell", ["host", "functional"])
@pytest.mark.parametrize(
    ("name", "args", "message"),
    [
        ("AddWhiteNoise", ("0.5",), "expected `probability_of_noise_per_pixel` to be a real"),
        ("AddWhiteNoise", (0.5, "yes"), "expected `is_noise_grayscale` to be a bool, got str"),
        ("ObstructView", ("0.1", 3), "expected `obstructed_pixels_ratio` to be a real"),
        ("ObstructView", (0.1, 3, 1), "expected `is_noise_grayscale` to be a bool, got int 1"),
    ],
)
def test_noise_arguments_of_another_type_are_refused_by_name(shell, name, args, message):
    """A string probability or ratio failed in Python's `<=`; "yes" or 1 for the gray flag
    was taken (and written into the wrapper's attributes)."""
    if shell == "functional":
        pytest.importorskip("jax")
        from anywrap import functional as F

        env = F.from_gymnax(pytest.importorskip("gymnax").make("Breakout-MinAtar")[0])
        make, who = getattr(F, name), rf"anywrap\.functional\.{name}"
    else:
        env, make, who = render_envs.make(), getattr(anywrap, name), rf"anywrap\.{name}"
    with pytest.raises(TypeError, match=rf"{who}: {message}"):
        make(env, *args)


# ----------------------------------------------------------------- RepeatAction
@pytest.mark.parametrize("repeats", [1, 3, 4])
def test_repeat_action_is_gymnasiums(repeats):
    ours = anywrap.RepeatAction(render_envs.make(), repeats)
    theirs = gym.wrappers.RepeatAction(render_envs.make(), repeats)
    ends = 0
    for seed in (0, 1):
        np.testing.assert_array_equal(ours.reset(seed=seed)[0], theirs.reset(seed=seed)[0])
        for _ in range(12):
            got, want = ours.step(2), theirs.step(2)
            np.testing.assert_array_equal(got[0], want[0])
            assert got[1:4] == want[1:4] and type(got[1]) is type(want[1])
            ends += got[2] or got[3]
            if got[2] or got[3]:
                break
    assert ends == 2


class _DeviceReward(gym.Wrapper):
    def __init__(self, env, backend):
        super().__init__(env)
        self.b = backend

    def step(self, action):
        obs, reward, terminated, truncated, info = self.env.step(action)
        return obs, self.b.to_backend(np.float32(reward)), terminated, truncated, info


@pytest.mark.parametrize("library", ["torch", "tensorflow"])
def test_repeat_action_sums_a_device_reward_on_its_device(library):
    b = make_backend(library)
    env = anywrap.RepeatAction(_DeviceReward(render_envs.make(), b), 3)
    env.reset(seed=0)
    with torch_no_host_sync() if library == "torch" else contextlib.nullcontext():
        reward = env.step(0)[1]
    assert isinstance(reward, b.array_type) and b.to_numpy(reward).dtype == np.float32
    assert float(b.to_numpy(reward)) == 1 + 2 + 3  # FakeAtari's reward is its step count


def test_repeat_action_errors_name_the_wrapper():
    with pytest.raises(
        TypeError, match=r"anywrap\.RepeatAction: `num_repeats` is expected to be an integer"
    ):
        anywrap.RepeatAction(render_envs.make(), 1.5)
    with pytest.raises(
        ValueError,
        match=r"anywrap\.RepeatAction: `num_repeats` needs to be equal or greater than one, .* 0",
    ):
        anywrap.RepeatAction(render_envs.make(), 0)
