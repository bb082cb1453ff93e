"""Gymnasium's wrappers with no array arithmetic, under anywrap's names, on envs of
every library: OrderEnforcing, PassiveEnvChecker, Autoreset, RenderCollection and
HumanRendering (single and vector). Gymnasium's own is the reference on NumPy (the
contract suite) and beside anywrap's on the converted env here."""

from __future__ import annotations

import os
import warnings

import gymnasium as gym
import numpy as np
import pytest
from catalogue_envs import LibraryEnv, LibraryVectorEnv
from helpers import make_backend

import anywrap

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
LIBRARIES = ["jax", "torch"]


def _pendulum(library: str, steps: int = 5, render: bool = False) -> LibraryEnv:
    mode = "rgb_array" if render else None
    return LibraryEnv(gym.make("Pendulum-v1", max_episode_steps=steps, render_mode=mode), library)


@pytest.mark.parametrize("library", LIBRARIES)
def test_order_enforcing_and_autoreset_keep_the_envs_arrays(library: str) -> None:
    backend = make_backend(library)
    env = anywrap.Autoreset(anywrap.OrderEnforcing(_pendulum(library, steps=2)))
    with pytest.raises(gym.error.ResetNeeded):
        env.step(env.unwrapped.sample_action())
    obs, _ = env.reset(seed=0)
    assert isinstance(obs, backend.array_type)
    ref = gym.wrappers.Autoreset(gym.make("Pendulum-v1", max_episode_steps=2))
    want, _ = ref.reset(seed=0)
    np.testing.assert_array_equal(backend.to_numpy(obs), want)
    env.unwrapped.action_space.seed(1)
    for _ in range(5):  # episode end, the reset step (Python 0.0 and False), a new episode
        action = env.unwrapped.sample_action()
        got, want = env.step(action), ref.step(backend.to_numpy(action))
        assert isinstance(got[0], backend.array_type)
        np.testing.assert_array_equal(backend.to_numpy(got[0]), want[0])
        assert float(got[1]) == pytest.approx(float(want[1]), rel=1e-6)
        assert bool(got[3]) == bool(want[3])


@pytest.mark.parametrize("library", LIBRARIES)
def test_passive_env_checker_checks_device_arrays_as_numpy_ones(library: str) -> None:
    """Gymnasium's warns that a device observation "was expecting a numpy array";
    anywrap's checks what it holds and returns the env's own arrays."""
    backend = make_backend(library)
    with warnings.catch_warnings(record=True) as theirs:
        warnings.simplefilter("always")
        env = gym.wrappers.PassiveEnvChecker(_pendulum(library))
        env.reset(seed=0)
    assert any("numpy array" in str(w.message) for w in theirs)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        env = anywrap.PassiveEnvChecker(_pendulum(library))
        obs, _ = env.reset(seed=0)
        out = env.step(env.unwrapped.sample_action())
        env.step(env.unwrapped.sample_action())
    assert isinstance(obs, backend.array_type) and isinstance(out[0], backend.array_type)
    assert isinstance(out[1], backend.array_type)  # not the host copy the check saw


class _OutOfSpace(gym.Wrapper):
    def reset(self, **kwargs):  # type: ignore[no-untyped-def]
        obs, info = self.env.reset(**kwargs)
        return obs * 0 + 100, info


@pytest.mark.parametrize("library", LIBRARIES)
def test_passive_env_checker_warns_as_gymnasium_does_on_numpy(library: str) -> None:
    backend = make_backend(library)

    def messages(env: gym.Env) -> list[str]:
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            env.reset(seed=0)
        return [str(w.message) for w in seen]

    theirs = messages(gym.wrappers.PassiveEnvChecker(_OutOfSpace(gym.make("Pendulum-v1"))))
    ours = messages(anywrap.PassiveEnvChecker(_OutOfSpace(_pendulum(library))))
    assert theirs and ours == theirs, (ours, theirs)
    assert backend.name == library


@pytest.mark.parametrize("library", LIBRARIES)
def test_render_collection_keeps_device_frames(library: str) -> None:
    backend = make_backend(library)
    env = anywrap.RenderCollection(_pendulum(library, render=True))
    ref = gym.wrappers.RenderCollection(gym.make("Pendulum-v1", render_mode="rgb_array"))
    env.reset(seed=0), ref.reset(seed=0)
    env.step(backend.to_backend(np.array([0.5], np.float32)))
    ref.step(np.array([0.5], np.float32))
    frames, want = env.render(), ref.render()
    assert len(frames) == len(want) == 2 and env.render_mode == ref.render_mode
    for got, expected in zip(frames, want):
        assert isinstance(got, backend.array_type)
        np.testing.assert_array_equal(backend.to_numpy(got), expected)


@pytest.mark.parametrize("library", LIBRARIES)
def test_human_rendering_shows_device_frames(library: str) -> None:
    pytest.importorskip("pygame")
    with pytest.raises(AssertionError, match="numpy array"):  # Gymnasium's
        gym.wrappers.HumanRendering(_pendulum(library, render=True)).reset(seed=0)
    env = anywrap.HumanRendering(_pendulum(library, render=True))
    obs, _ = env.reset(seed=0)
    env.step(env.unwrapped.sample_action())
    assert isinstance(obs, make_backend(library).array_type) and env.screen_size == (500, 500)
    env.close()


@pytest.mark.parametrize("library", LIBRARIES)
def test_vector_human_rendering_shows_device_frames(library: str) -> None:
    pytest.importorskip("pygame")

    def envs() -> LibraryVectorEnv:
        bare = gym.make_vec("Pendulum-v1", num_envs=2, render_mode="rgb_array")
        return LibraryVectorEnv(bare, library)

    with pytest.raises(AssertionError):  # Gymnasium's asserts NumPy frames
        gym.wrappers.vector.HumanRendering(envs()).reset(seed=0)
    env = anywrap.vector.HumanRendering(envs())
    obs, _ = env.reset(seed=0)
    env.step(env.unwrapped.sample_action())
    assert isinstance(obs, make_backend(library).array_type)
    env.close()


def test_the_spec_fields_are_gymnasiums() -> None:
    """OrderEnforcing and PassiveEnvChecker live in the spec's ``order_enforce`` and
    ``disable_env_checker``, as Gymnasium's do (no wrapper entry)."""
    bare = gym.make("CartPole-v1").unwrapped
    for ours, theirs in (
        (anywrap.OrderEnforcing(bare), gym.wrappers.OrderEnforcing(bare)),
        (anywrap.PassiveEnvChecker(bare), gym.wrappers.PassiveEnvChecker(bare)),
    ):
        assert ours.spec == theirs.spec and ours.spec.additional_wrappers == ()
    assert anywrap.OrderEnforcing(bare).spec.order_enforce
    assert not anywrap.PassiveEnvChecker(bare).spec.disable_env_checker
