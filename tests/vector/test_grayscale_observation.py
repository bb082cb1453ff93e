"""anywrap.vector.GrayscaleObservation beyond the contract suite: SAME_STEP (which
Gymnasium's refuses), the final observations in Gymnasium's own layout, and its checks."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.vector import AutoresetMode
from gymnasium.wrappers import GrayscaleObservation as GymGray
from image_helpers import SMALL, env_fns

import anywrap


def test_same_step_final_observations_are_converted_entry_by_entry():
    """A SyncVectorEnv's SAME_STEP ``final_obs`` is an object array (None where no
    episode ended): each entry comes out as Gymnasium's single wrapper gives it."""
    raw = gym.vector.SyncVectorEnv(env_fns(3, SMALL), autoreset_mode=AutoresetMode.SAME_STEP)
    bare = gym.vector.SyncVectorEnv(env_fns(3, SMALL), autoreset_mode=AutoresetMode.SAME_STEP)
    ours = anywrap.vector.GrayscaleObservation(raw, keep_dim=True)
    gray = GymGray(gym.make("anywrap-test/Images-v0", shape=SMALL), keep_dim=True)
    ours.reset(seed=0)
    bare.reset(seed=0)
    finals = 0
    for _ in range(6):
        actions = np.zeros(3, int)
        obs, *_, info = ours.step(actions)
        want, *_, bare_info = bare.step(actions)
        np.testing.assert_array_equal(obs, np.stack([gray.observation(o) for o in want]))
        assert ("final_obs" in info) == ("final_obs" in bare_info)
        if "final_obs" in info:
            for got, f in zip(info["final_obs"], bare_info["final_obs"]):
                assert (got is None) == (f is None)
                if f is not None:
                    finals += 1
                    np.testing.assert_array_equal(got, gray.observation(f))
    assert finals > 0


@pytest.mark.parametrize(
    "bad, exc, pattern",
    [
        (lambda o: o.astype(np.float32), ValueError, r"dtype uint8.*float32"),
        (lambda o: o.tolist(), TypeError, r"expected an observation array"),
    ],
)
def test_a_bad_batch_names_the_wrapper_what_it_expected_and_what_it_got(bad, exc, pattern):
    class Bad(gym.vector.VectorWrapper):
        def reset(self, **kwargs):
            obs, info = self.env.reset(**kwargs)
            return bad(obs), info

    envs = anywrap.vector.GrayscaleObservation(Bad(gym.vector.SyncVectorEnv(env_fns(3, SMALL))))
    with pytest.raises(exc, match="anywrap.vector.GrayscaleObservation: .*" + pattern):
        envs.reset(seed=0)


def test_a_space_that_is_not_an_rgb_image_is_refused():
    with pytest.raises(ValueError, match=r"anywrap.vector.GrayscaleObservation: .*3 channels"):
        anywrap.vector.GrayscaleObservation(gym.make_vec("CartPole-v1", 2))
