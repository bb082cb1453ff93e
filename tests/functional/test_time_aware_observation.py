"""anywrap.functional.TimeAwareObservation: the limit comes from a TimeLimit below, or is given
(its numbers: test_same_numbers.py)."""

from __future__ import annotations

import pytest
from array_envs import functional_counter

pytest.importorskip("jax")
pytest.importorskip("gymnax")
from functional_envs import pendulum

from anywrap import functional as F


def test_needs_a_limit():
    with pytest.raises(
        ValueError, match=r"anywrap\.functional\.TimeAwareObservation.*max_timesteps"
    ):
        F.TimeAwareObservation(pendulum())


def test_finds_the_limit_below_other_wrappers_or_takes_it():
    env = F.AutoReset(F.TimeLimit(functional_counter((3, 4)), 7))
    assert F.TimeAwareObservation(F.DelayObservation(env, 1)).max_timesteps == 7
    assert F.TimeAwareObservation(pendulum(), max_timesteps=200).max_timesteps == 200
