"""anywrap.functional.TimeLimit: below AutoReset only (its numbers: test_same_numbers.py)."""

from __future__ import annotations

import pytest

pytest.importorskip("jax")
pytest.importorskip("gymnax")
from functional_envs import pendulum
from gymnasium.envs.phys2d.pendulum import PendulumFunctional

from anywrap import functional as F


def test_refuses_an_env_that_resets_itself():
    with pytest.raises(ValueError, match=r"anywrap\.functional\.TimeLimit.*below AutoReset"):
        F.TimeLimit(pendulum(), 10)


@pytest.mark.parametrize(("bad", "error"), [(0, ValueError), (2.5, TypeError), (True, TypeError)])
def test_bad_limits_name_the_wrapper(bad, error):
    with pytest.raises(error, match=r"anywrap\.functional\.TimeLimit: .*max_episode_steps"):
        F.TimeLimit(F.from_func_env(PendulumFunctional()), bad)
