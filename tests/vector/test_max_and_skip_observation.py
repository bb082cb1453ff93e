"""anywrap.vector.MaxAndSkipObservation: Gymnasium has no vector version, so each
sub-env is checked against Gymnasium's single wrapper on that sub-env alone, up to its
first episode end (after it, the vector env has already reset the sub-env, which a
single env would not), and the rewards of the steps after an end are checked to reach
the next call."""

from __future__ import annotations

import contextlib

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.vector import AutoresetMode
from gymnasium.wrappers import MaxAndSkipObservation as GymMaxSkip
from helpers import jax_no_host_sync, make_backend, torch_no_host_sync
from image_helpers import ImageReplayVectorEnv, env_fns, record_image_vector

import anywrap

GUARDS = {"jax": jax_no_host_sync, "torch": torch_no_host_sync}


def gym_skip(env, actions):
    """Gymnasium's MaxAndSkipObservation.step, fed the recorded action of each repeat
    (the recording's actions differ between repeats; the wrapper sees them the same)."""
    queue = iter(actions)
    inner = env.env
    step = inner.step
    inner.step = lambda _a: step(next(queue))
    try:
        return env.step(None)
    finally:
        inner.step = step


@pytest.mark.parametrize("mode", [AutoresetMode.NEXT_STEP, AutoresetMode.SAME_STEP])
@pytest.mark.parametrize("backend_name", ["numpy", "jax", "torch", "array_api_strict"])
def test_each_sub_env_is_gymnasiums_until_its_episode_ends(mode, backend_name):
    """Stale-buffer quirk included; on JAX and PyTorch nothing after the first call
    is read on the host."""
    n, skip, calls = 4, 3, 6
    b = make_backend(backend_name)
    replay = ImageReplayVectorEnv(record_image_vector(n, skip * calls, mode), b)
    ours = anywrap.vector.MaxAndSkipObservation(replay, skip)
    refs = [GymMaxSkip(f(), skip) for f in env_fns(n)]
    obs, _ = ours.reset(seed=0)
    for i, r in enumerate(refs):
        np.testing.assert_array_equal(b.to_numpy(obs)[i], r.reset(seed=0)[0])
    outs = [ours.step(None)]  # compiles
    with GUARDS.get(backend_name, contextlib.nullcontext)():
        outs += [ours.step(None) for _ in range(calls - 1)]
    live = np.ones(n, bool)
    for t, out in enumerate(outs):
        assert all(isinstance(x, b.array_type) for x in out[:4])
        obs, rew, term, trunc = (b.to_numpy(x) for x in out[:4])
        info = out[4]
        for i in np.flatnonzero(live):
            actions = [a % 3 for a in range(t * skip * n + i, (t + 1) * skip * n, n)]
            o, r, te, tr, _ = gym_skip(refs[i], actions)
            if mode is AutoresetMode.SAME_STEP and (te or tr):
                np.testing.assert_array_equal(b.to_numpy(info["final_obs"])[i], o)
            else:
                np.testing.assert_array_equal(obs[i], o, err_msg=f"call {t} env {i}")
            assert (float(rew[i]), bool(term[i]), bool(trunc[i])) == (r, te, tr), (t, i)
            live[i] = not (te or tr)
    assert not live.any()


@pytest.mark.parametrize("mode", [AutoresetMode.NEXT_STEP, AutoresetMode.SAME_STEP])
def test_every_reward_is_kept(mode):
    """Each call's rewards add up to the env's, call after call: rewards of steps
    after an episode's end arrive with the next call."""
    n, skip, calls = 3, 4, 8
    seen = []

    class Spy(gym.vector.VectorWrapper):
        def step(self, actions):
            out = self.env.step(actions)
            seen.append(np.array(out[1]))
            return out

    raw = gym.vector.SyncVectorEnv(env_fns(n, (20, 16, 3)), autoreset_mode=mode)
    ours = anywrap.vector.MaxAndSkipObservation(Spy(raw), skip)
    ours.reset(seed=0)
    total = np.zeros(n)
    for _ in range(calls):
        total += ours.step(np.zeros(n, int))[1]
    pending = np.asarray(ours.state_dict()["pending"])
    np.testing.assert_allclose(total + pending, np.sum(seen, axis=0), rtol=1e-12)


def test_an_env_that_does_not_reset_itself_is_refused():
    vec = gym.vector.SyncVectorEnv(env_fns(2, (20, 16, 3)), autoreset_mode=AutoresetMode.DISABLED)
    with pytest.raises(ValueError, match=r"anywrap.vector.MaxAndSkipObservation: .*DISABLED"):
        anywrap.vector.MaxAndSkipObservation(vec, 4)


def test_a_list_of_frames_fails_loudly():
    class AsList(gym.vector.VectorWrapper):
        def step(self, actions):
            obs, *rest = self.env.step(actions)
            return (obs.tolist(), *rest)

    ours = anywrap.vector.MaxAndSkipObservation(AsList(gym.vector.SyncVectorEnv(env_fns(2))), 2)
    ours.reset(seed=0)
    with pytest.raises(TypeError, match=r"anywrap.vector.MaxAndSkipObservation: .*array"):
        ours.step(np.zeros(2, int))
