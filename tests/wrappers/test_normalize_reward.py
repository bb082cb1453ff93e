"""anywrap.NormalizeReward beyond the contract suite: Gymnasium's quirks."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

import anywrap


def test_normalize_reward_never_resets_on_reset_quirk():
    """Gymnasium's single NormalizeReward keeps its accumulator across reset(): so do we."""
    ours = anywrap.NormalizeReward(gym.make("CartPole-v1"))
    theirs = gym.wrappers.NormalizeReward(gym.make("CartPole-v1"))
    for env in (ours, theirs):
        env.reset(seed=0)
        for _ in range(5):
            env.step(1)
        env.reset(seed=1)
    np.testing.assert_allclose(ours.discounted_reward, theirs.discounted_reward, rtol=1e-12)
    assert float(ours.discounted_reward[0]) > 1.0  # really not reset


def test_rewards_of_every_python_and_numpy_type_give_gymnasiums_numbers_to_the_bit():
    """Python floats, NumPy float64 and float32 and ints as rewards, in one run: anywrap's
    numbers are Gymnasium's to the bit (a float32 reward keeps its dtype), with the
    statistics shared by an evaluation wrapper and frozen by ``update_running_mean``."""
    import gymnasium as gym

    import anywrap

    class Rewards(gym.Env):
        observation_space = gym.spaces.Box(-1.0, 1.0, (1,), np.float32)
        action_space = gym.spaces.Discrete(2)

        def __init__(self):
            self.t = 0
            self.rng = np.random.default_rng(2)
            self.kinds = []

        def reset(self, *, seed=None, options=None):
            return np.zeros(1, np.float32), {}

        def step(self, action):
            self.t += 1
            value = self.rng.normal(1.0, 3.0)
            reward = self.last = [float, np.float64, np.float32, int][self.t % 7 // 2](value)
            self.kinds.append(type(reward))
            return np.zeros(1, np.float32), reward, self.t % 9 == 0, False, {}

    train, ref = anywrap.NormalizeReward(Rewards()), gym.wrappers.NormalizeReward(Rewards())
    evals, ref_eval = anywrap.NormalizeReward(Rewards()), gym.wrappers.NormalizeReward(Rewards())
    evals.return_rms, ref_eval.return_rms = train.return_rms, ref.return_rms
    evals.update_running_mean = ref_eval.update_running_mean = False
    for env in (train, ref, evals, ref_eval):
        env.reset(seed=0)
    for t in range(200):
        for ours, theirs in ((train, ref), (evals, ref_eval)):
            got, want = ours.step(0)[1], theirs.step(0)[1]
            if type(ours.unwrapped.last) is np.float32:  # anywrap keeps a float's dtype
                assert type(got) is np.float32 and got == np.float32(want)
            else:
                assert type(got) is type(want) is np.float64 and got == want
        if t == 100:  # the switch, both ways
            train.update_running_mean = ref.update_running_mean = False
        if t == 150:
            train.update_running_mean = ref.update_running_mean = True
    assert float(train.return_rms.var) == float(ref.return_rms.var)
    assert float(train.return_rms.count) == ref.return_rms.count
    assert float(evals.discounted_reward[0]) == float(ref_eval.discounted_reward[0])
    assert float(evals.return_rms.mean) == float(ref.return_rms.mean)  # one shared object
    assert set(train.unwrapped.kinds) == {float, np.float64, np.float32, int}


@pytest.mark.filterwarnings("ignore:invalid value encountered:RuntimeWarning")
def test_a_variance_set_below_zero_gives_numpys_nan_not_an_error():
    env = anywrap.NormalizeReward(gym.make("CartPole-v1"), update_running_mean=False)
    env.reset(seed=0)
    for bad in (-1.0, np.nan):
        env.return_rms.var = np.float64(bad)
        assert np.isnan(env.step(0)[1])
