"""AtariPreprocessing and AddRenderObservation beyond the contract suite: side by side with
Gymnasium's over a fake ALE env (every option), on device with no host read of a frame,
and the errors."""

from __future__ import annotations

import contextlib
import itertools

import gymnasium as gym
import numpy as np
import pytest
import render_envs
from helpers import jax_no_host_sync, make_backend, torch_no_host_sync
from image_helpers import SMALL

import anywrap

GUARDS = {"torch": torch_no_host_sync, "jax": jax_no_host_sync}
_OPTIONS = [
    dict(zip(("frame_skip", "grayscale_obs", "grayscale_newaxis", "scale_obs", "screen_size"), o))
    for o in itertools.product(
        (1, 2, 4), (True, False), (False, True), (False, True), (16, (20, 12))
    )
    if o[1] or not o[2]
]


def _pair(**kwargs):
    make = lambda: render_envs.make(length=13, shape=(42, 32, 3))  # noqa: E731
    return anywrap.AtariPreprocessing(make(), **kwargs), gym.wrappers.AtariPreprocessing(
        make(), **kwargs
    )


def _same(got, want, where):
    assert type(got) is type(want) or np.asarray(got).dtype == np.asarray(want).dtype, where
    np.testing.assert_array_equal(got, want, err_msg=where)
    assert np.asarray(got).dtype == np.asarray(want).dtype, where


@pytest.mark.parametrize("kwargs", _OPTIONS, ids=str)
@pytest.mark.parametrize("life_loss", [False, True])
def test_the_outputs_are_gymnasiums(kwargs, life_loss):
    """Same observations, rewards, flags, lives and spaces through noop resets, skips
    cut short by episode ends and lost lives (the fake ALE's grayscale is
    GrayscaleObservation's formula: see the class docstring for real ALE)."""
    ours, theirs = _pair(noop_max=5, terminal_on_life_loss=life_loss, **kwargs)
    assert ours.observation_space == theirs.observation_space
    ends = 0
    for seed in (0, 1, 2):
        got, want = ours.reset(seed=seed), theirs.reset(seed=seed)
        _same(got[0], want[0], f"reset {seed}")
        assert got[1] == want[1]
        for t in range(20):
            got, want = ours.step(t % 4), theirs.step(t % 4)
            _same(got[0], want[0], f"seed {seed} step {t}")
            assert got[1:] == want[1:] and type(got[1]) is type(want[1])
            assert (ours.lives, ours.game_over) == (theirs.lives, theirs.game_over)
            if got[2] or got[3]:
                ends += 1
                break
    assert ends >= 2


@pytest.mark.parametrize("library", ["torch", "jax", "tensorflow"])
def test_device_frames_stay_on_the_device(library):
    b = make_backend(library)
    guard = GUARDS.get(library, contextlib.nullcontext)  # TensorFlow has no guard
    kwargs = {"noop_max": 3, "frame_skip": 3, "screen_size": 12, "scale_obs": True}
    ours = anywrap.AtariPreprocessing(render_envs.FakeAtari(library=library), **kwargs)
    theirs = gym.wrappers.AtariPreprocessing(render_envs.FakeAtari(), **kwargs)
    np.testing.assert_allclose(
        b.to_numpy(ours.reset(seed=0)[0]), theirs.reset(seed=0)[0], atol=1e-6
    )
    ours.step(1), theirs.step(1)  # compiles outside the guard
    for _ in range(6):
        with guard():
            obs, reward, terminated, truncated, _ = ours.step(1)
        assert isinstance(obs, b.array_type)
        want = theirs.step(1)
        # anywrap's area resize, compiled (JAX) or on torch, is 1 level off OpenCV on a
        # few pixels at ratios that are no whole numbers (ResizeObservation's, as it is)
        # (and XLA divides by 255 as a product: float32 rounding)
        off = np.rint(b.to_numpy(obs) * 255) - np.rint(want[0] * 255)
        assert np.abs(off).max() <= 1 and np.mean(off != 0) < 0.05
        np.testing.assert_allclose(b.to_numpy(obs), want[0], atol=1 / 255 + 1e-6)
        assert (reward, terminated, truncated) == want[1:4]


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"frame_skip": "4"}, "expected `frame_skip` to be an int, got str '4'"),
        ({"frame_skip": 2.5}, "expected `frame_skip` to be an int, got float 2.5"),
        ({"noop_max": 2.5}, "expected `noop_max` to be an int, got float 2.5"),
        ({"scale_obs": "no"}, "expected `scale_obs` to be a bool, got str 'no'"),
        ({"terminal_on_life_loss": 1}, "expected `terminal_on_life_loss` to be a bool"),
    ],
)
def test_atari_arguments_of_another_type_are_refused_by_name(kwargs, message):
    """'4' failed in Python's `<=`, 2.5 at the first step; 2.5 noops and "no" were taken."""
    with pytest.raises(TypeError, match=rf"anywrap\.AtariPreprocessing: {message}"):
        anywrap.AtariPreprocessing(render_envs.make(), **kwargs)


@pytest.mark.parametrize(
    ("values", "error", "message"),
    [
        ({"reward": np.array([1.0, 2.0])}, ValueError, "expected a scalar reward"),
        ({"reward": 1 + 2j}, TypeError, "expected reward to hold real numbers"),
        ({"terminated": "False"}, TypeError, "expected terminated to hold bools"),
        ({"truncated": 0.5}, TypeError, "expected truncated to hold bools"),
    ],
)
@pytest.mark.parametrize("at", [0, 1], ids=["first skipped step", "second"])
def test_atari_step_values_of_another_kind_are_refused_before_any_change(
    values, error, message, at
):
    """A reward of two elements became two summed rewards; "False" ended the skip loop; a bad
    second step came after the first had written its frame into the buffer."""

    class Bent(gym.Wrapper):
        calls = 0

        def step(self, action):
            obs, reward, terminated, truncated, info = self.env.step(action)
            self.calls += 1
            bend = values if self.calls == at + 1 else {}  # (noop_max=0: reset does not step)
            out = {"reward": reward, "terminated": terminated, "truncated": truncated, **bend}
            return obs, out["reward"], out["terminated"], out["truncated"], info

    env = anywrap.AtariPreprocessing(Bent(render_envs.make()), noop_max=0, frame_skip=2)
    env.reset(seed=0)
    before = ([b.copy() for b in env.obs_buffer], env.lives, env.game_over)
    with pytest.raises(error, match=rf"anywrap\.AtariPreprocessing: {message}"):
        env.step(0)
    for kept, now in zip(before[0], env.obs_buffer):
        np.testing.assert_array_equal(kept, now)
    assert (env.lives, env.game_over) == before[1:]


def test_atari_errors_name_the_wrapper():
    for kwargs in ({"frame_skip": 0}, {"screen_size": (3,)}, {"noop_max": -1}):
        with pytest.raises(
            ValueError, match=r"anywrap\.AtariPreprocessing: Expect the `.*, actually"
        ):
            anywrap.AtariPreprocessing(render_envs.make(), **kwargs)
    with pytest.raises(
        ValueError, match=r"anywrap\.AtariPreprocessing: expected an env without frame"
    ):
        anywrap.AtariPreprocessing(_skipping())
    with pytest.raises(
        ValueError, match=r"anywrap\.AtariPreprocessing: expected an image with 3 channels"
    ):
        anywrap.AtariPreprocessing(render_envs.make(shape=(42, 32)))


def _skipping():
    env = render_envs.FakeAtari()
    env._frameskip = 4
    return env


def test_a_real_ale_env_runs_and_its_rgb_frames_are_gymnasiums():
    """With real ALE, RGB frames are Gymnasium's (the same screens); grayscale ones differ
    by ALE's palette luminance (documented)."""
    ale_py = pytest.importorskip("ale_py")
    gym.register_envs(ale_py)
    make = lambda: gym.make("ALE/Breakout-v5", frameskip=1, repeat_action_probability=0.0)  # noqa: E731
    kwargs = {"grayscale_obs": False, "noop_max": 10}
    ours, theirs = (
        anywrap.AtariPreprocessing(make(), **kwargs),
        gym.wrappers.AtariPreprocessing(make(), **kwargs),
    )
    _same(ours.reset(seed=3)[0], theirs.reset(seed=3)[0], "reset")
    for t in range(10):
        got, want = ours.step(t % 4), theirs.step(t % 4)
        _same(got[0], want[0], f"step {t}")
        assert got[1:4] == want[1:4]


# ---------------------------------------------------------- AddRenderObservation
@pytest.mark.parametrize("render_only", [True, False])
def test_render_observation_is_gymnasiums(render_only):
    ours = anywrap.AddRenderObservation(render_envs.make(), render_only=render_only)
    theirs = gym.wrappers.AddRenderObservation(render_envs.make(), render_only=render_only)
    assert ours.observation_space == theirs.observation_space
    for got, want in [(ours.reset(seed=0)[0], theirs.reset(seed=0)[0])] + [
        (ours.step(1)[0], theirs.step(1)[0]) for _ in range(3)
    ]:
        if render_only:
            np.testing.assert_array_equal(got, want)
        else:
            assert list(got) == list(want)
            for k in want:
                np.testing.assert_array_equal(got[k], want[k])


def test_render_observation_of_a_dict_space():
    env = gym.wrappers.TransformObservation(
        render_envs.make(),
        lambda o: {"image": o},
        gym.spaces.Dict({"image": render_envs.make().observation_space}),
    )
    ours = anywrap.AddRenderObservation(env, render_only=False)
    assert list(ours.observation_space.spaces) == ["image", "pixels"]
    obs, _ = ours.reset(seed=0)
    assert sorted(obs) == ["image", "pixels"]
    with pytest.raises(
        ValueError, match=r"anywrap\.AddRenderObservation: expected a `render_key` not in"
    ):
        anywrap.AddRenderObservation(env, render_only=False, render_key="image")


@pytest.mark.parametrize("library", ["torch", "jax", "tensorflow"])
def test_render_observation_keeps_device_frames(library):
    b = make_backend(library)
    guard = GUARDS.get(library, contextlib.nullcontext)  # TensorFlow has no guard
    env = anywrap.AddRenderObservation(
        render_envs.FakeAtari("rgb_array", library=library), render_only=False
    )
    assert env.observation_space["pixels"] == gym.spaces.Box(0, 255, SMALL, np.uint8)
    theirs = gym.wrappers.AddRenderObservation(render_envs.make(), render_only=False)
    env.reset(seed=0), theirs.reset(seed=0)
    with guard():
        obs = env.step(1)[0]
    assert isinstance(obs["pixels"], b.array_type) and isinstance(obs["state"], b.array_type)
    want = theirs.step(1)[0]
    for key in ("pixels", "state"):
        np.testing.assert_array_equal(b.to_numpy(obs[key]), want[key], err_msg=key)


def test_render_observation_errors_name_the_wrapper():
    with pytest.raises(
        ValueError, match=r"anywrap\.AddRenderObservation: expected a render_mode other"
    ):
        anywrap.AddRenderObservation(gym.make(render_envs.ENV_ID))
