"""Bad input that the second adversarial probe (issue 34) still found getting past the
checks: each is refused with an error that names the wrapper, what it expected and what
it got, before anything changes."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

import anywrap

VECTOR = gym.vector.SyncVectorEnv


def _vector(n: int = 2):
    return gym.make_vec("CartPole-v1", n, vectorization_mode="sync")


@pytest.mark.parametrize("dtype", ["flaot32", object, "U5", "datetime64", 1])
@pytest.mark.parametrize("vector", [False, True])
def test_dtype_observation_refuses_a_dtype_of_no_numbers(vector, dtype):
    """NumPy's own 'data type not understood' named no wrapper; an object dtype was taken."""
    wrap, env = (
        (anywrap.vector.DtypeObservation, _vector())
        if vector
        else (anywrap.DtypeObservation, gym.make("CartPole-v1"))
    )
    name = "anywrap.vector.DtypeObservation" if vector else "anywrap.DtypeObservation"
    with pytest.raises(TypeError, match=rf"{name}: expected `dtype` to be a dtype of numbers.*got"):
        wrap(env, dtype)


@pytest.mark.parametrize("to", [1, 2.5, np.zeros(2), None])
@pytest.mark.parametrize("vector", [False, True])
def test_array_conversion_refuses_a_target_that_is_no_library(vector, to):
    """``to=1`` read as NumPy's int scalar and converted to NumPy without a word."""
    wrap, env = (
        (anywrap.vector.ArrayConversion, _vector())
        if vector
        else (anywrap.ArrayConversion, gym.make("CartPole-v1"))
    )
    with pytest.raises(TypeError, match=r"anywrap\.(vector\.)?ArrayConversion: .*(name|library)"):
        wrap(env, to=to)


class TextEnv(gym.Env):
    observation_space = gym.spaces.Text(5)
    action_space = gym.spaces.Discrete(2)

    def reset(self, *, seed=None, options=None):
        return "ab", {}

    def step(self, action):
        return "cd", 0.0, False, False, {}


@pytest.mark.parametrize(
    "space",
    [gym.spaces.Text(5), gym.spaces.Dict(a=gym.spaces.Box(0, 1), b=gym.spaces.Text(3))],
    ids=["Text", "Dict with Text"],
)
def test_delay_observation_refuses_a_space_of_no_arrays_at_construction(space):
    """It was taken, then failed at reset with "'str' object has no attribute 'device'"."""
    env = TextEnv()
    env.observation_space = space
    with pytest.raises(TypeError, match=r"anywrap\.DelayObservation: expected an observation "):
        anywrap.DelayObservation(env, 2)


def test_an_unknown_array_type_names_the_type_and_the_way_to_register_it():
    class Alien:
        shape, dtype = (2, 4), "float32"

    class AlienEnv(gym.vector.VectorEnv):
        def __init__(self):
            self.num_envs = 2
            self.single_observation_space = gym.spaces.Box(-1, 1, (4,), np.float32)
            self.observation_space = gym.vector.utils.batch_space(self.single_observation_space, 2)
            self.single_action_space = gym.spaces.Discrete(2)
            self.action_space = gym.vector.utils.batch_space(self.single_action_space, 2)
            self.metadata = {}

        def reset(self, *, seed=None, options=None):
            return Alien(), {}

    env = anywrap.vector.NormalizeObservation(AlienEnv())
    with pytest.raises(TypeError) as e:
        env.reset()
    message = str(e.value)
    for part in (
        "anywrap.vector.NormalizeObservation",
        "Alien",
        "not an array of a known library",
        "anywrap.xp.register_backend",
        "Adding an array library",
    ):
        assert part in message, message


class CollidingDictEnv(gym.Env):
    observation_space = gym.spaces.Dict(
        {
            "a.b": gym.spaces.Box(-1, 1, (2,)),
            "a": gym.spaces.Dict({"b": gym.spaces.Box(-1, 1, (2,))}),
        }
    )
    action_space = gym.spaces.Discrete(2)

    def reset(self, *, seed=None, options=None):
        return self.observation_space.sample(), {}

    def step(self, action):
        return self.observation_space.sample(), 0.0, False, False, {}


def test_dict_keys_that_collide_once_joined_are_named_not_saved_half(tmp_path):
    """``{"a.b": ..., "a": {"b": ...}}`` gave one 'a.b.mean' in state_dict(): save_state
    wrote half the statistics and load_state refused its own file."""
    env = anywrap.NormalizeObservation(CollidingDictEnv())
    env.reset(seed=0)
    env.step(0)
    with pytest.raises(ValueError, match=r"anywrap\.NormalizeObservation: .*'a\.b\.\w+' twice"):
        env.state_dict()
    with pytest.raises(ValueError, match=r"'a\.b\.\w+' twice"):
        anywrap.save_state(env, tmp_path / "s.safetensors")
    assert not list(tmp_path.iterdir())
