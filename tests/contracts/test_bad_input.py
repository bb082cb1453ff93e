"""Contract 7, bad input fails loudly: an observation, reward or action of the wrong
shape is refused with an error that names the wrapper, what it expected and what it
got, raised before any state changes."""

from __future__ import annotations

import re
from typing import Any

import gymnasium as gym
import numpy as np
import pytest
from contracts.case import Case, cases_where
from helpers import assert_same_state, flat_state

from anywrap.shell.checks import wrapper_name


class _Spoil(gym.Wrapper):
    """Passes a single env through, but gives its next step's ``what`` an extra axis."""

    def __init__(self, env: Any) -> None:
        super().__init__(env)
        self.what: str | None = None

    def step(self, action: Any) -> Any:
        obs, reward, terminated, truncated, info = self.env.step(action)
        if self.what == "obs":
            obs = np.stack([obs, obs])
        elif self.what == "reward":
            reward = np.array([reward, reward])
        return obs, reward, terminated, truncated, info


class _SpoilVector(gym.vector.VectorWrapper):
    """:class:`_Spoil` for a vector env (``(num_envs, 2)`` rewards, doubled observations)."""

    def __init__(self, env: Any) -> None:
        super().__init__(env)
        self.what: str | None = None

    def step(self, actions: Any) -> Any:
        obs, reward, terminated, truncated, info = self.env.step(actions)
        if self.what == "obs":
            obs = np.concatenate([obs, obs])
        elif self.what == "reward":
            reward = np.stack([reward, reward], axis=1)
        return obs, reward, terminated, truncated, info


def _wrapped(case: Case) -> tuple[Any, Any]:
    env = case.make_env()
    spoiled = (_SpoilVector if case.vector else _Spoil)(env)
    wrapper = case.wrap(spoiled)
    wrapper.reset(seed=0)
    wrapper.step(wrapper.action_space.sample())  # a good step first: state to keep
    return wrapper, spoiled


@pytest.mark.parametrize("what", ["obs", "reward"])
@pytest.mark.parametrize(
    "case", cases_where(lambda c: bool(c.consumes & {"obs", "reward"}) and c.make_env is not None)
)
def test_a_bad_observation_or_reward_is_refused_before_any_change(case: Case, what: str) -> None:
    if what not in case.consumes:
        return  # the wrapper takes this value as it comes (checked by the other cases)
    wrapper, spoiled = _wrapped(case)
    before = flat_state(wrapper)
    spoiled.what = what
    with pytest.raises((ValueError, TypeError), match=wrapper_name(wrapper).replace(".", r"\.")):
        wrapper.step(wrapper.action_space.sample())
    assert_same_state(flat_state(wrapper), before)


@pytest.mark.parametrize("case", cases_where(lambda c: "action" in c.consumes))
def test_an_action_of_the_wrong_shape_is_refused_before_the_env_sees_it(case: Case) -> None:
    wrapper, _ = _wrapped(case)
    before = flat_state(wrapper)
    good = np.asarray(wrapper.action_space.sample())
    with pytest.raises(ValueError, match=wrapper_name(wrapper).replace(".", r"\.")) as e:
        wrapper.step(np.stack([good, good]))
    assert "expected an action of shape" in str(e.value) and "got" in str(e.value)
    assert_same_state(flat_state(wrapper), before)


@pytest.mark.parametrize("case", cases_where(lambda c: c.make_env is not None))
def test_options_that_are_no_dict_are_refused_before_any_change(case: Case) -> None:
    """Gymnasium's envs take a list as ``options`` without a word (issue 34)."""
    wrapper, _ = _wrapped(case)
    before = flat_state(wrapper)
    with pytest.raises(TypeError, match=rf"{re.escape(wrapper_name(wrapper))}: expected `options`"):
        wrapper.reset(seed=1, options=[("reset_mask", None)])
    assert_same_state(flat_state(wrapper), before)


def _vector_over_sync(c: Case) -> bool:
    """A vector case right over Gymnasium's SyncVectorEnv, which takes NumPy masks only
    (a conversion wrapper converts the mask: not these cases)."""
    if not c.vector or c.make_env is None or c.name.startswith(_CONVERSIONS):
        return False
    return type(c.make_env()) is gym.vector.SyncVectorEnv


_CONVERSIONS = ("To", "JaxTo", "NumpyTo", "ArrayConversion")


@pytest.mark.parametrize("mask", ["all False", "torch"])
@pytest.mark.parametrize("case", cases_where(_vector_over_sync))
def test_a_reset_mask_the_env_would_refuse_is_refused_by_the_wrapper(case: Case, mask: str) -> None:
    """An all-False mask, and a mask of another library than Gymnasium's vector env's,
    named by the outermost wrapper (Gymnasium's env refused them unnamed; issue 34)."""
    wrapper = case.wrap(case.make_env())
    wrapper.reset(seed=0)
    wrapper.step(wrapper.action_space.sample())
    before = flat_state(wrapper)
    if mask == "torch":
        torch = pytest.importorskip("torch")
        value, error = torch.ones(wrapper.num_envs, dtype=torch.bool), TypeError
    else:
        value, error = np.zeros(wrapper.num_envs, bool), ValueError
    with pytest.raises(error, match=rf"{re.escape(wrapper_name(wrapper))}: expected options"):
        wrapper.reset(options={"reset_mask": value})
    assert_same_state(flat_state(wrapper), before)
