"""anywrap.vector.DelayObservation (Gymnasium has none): row by row Gymnasium's single
wrapper in each sub-env, in every autoreset mode and on every backend; the ring copies
no batch; no host sync on a device env."""

from __future__ import annotations

import functools

import gymnasium as gym
import pytest
from array_envs import BackendVectorEnv, CounterVectorEnv
from array_helpers import (
    MODES,
    actions_for,
    assert_never_syncs,
    bad_reset_masks_change_nothing,
    drive_vector,
    foreign_state_changes_nothing,
    run_vector_on,
    stepped,
    sub_envs,
)
from gymnasium.vector import AutoresetMode
from helpers import make_backend

import anywrap


def pendulum(steps: int = 13) -> gym.Env:
    return gym.make("Pendulum-v1", max_episode_steps=steps)


def delayed(make, delay: int):
    return lambda: gym.wrappers.DelayObservation(make(), delay)


@pytest.mark.parametrize("mode", MODES, ids=lambda m: m.name)
@pytest.mark.parametrize("delay", [1, 3])
def test_the_observations_are_those_of_sub_env_wrappers(mode, delay):
    ours = anywrap.vector.DelayObservation(sub_envs(pendulum, 3, mode), delay)
    theirs = sub_envs(delayed(pendulum, delay), 3, mode)
    acts = actions_for(ours.single_action_space, 45, seed=10, batch=3)
    assert drive_vector(ours, theirs, acts, mode) > 0


def test_staggered_masked_resets():
    """DISABLED with episodes of different lengths: masked resets of some sub-envs
    while the others keep their queues."""
    makes = [functools.partial(pendulum, k) for k in (3, 5, 7)]
    mode = AutoresetMode.DISABLED
    ours = anywrap.vector.DelayObservation(gym.vector.SyncVectorEnv(makes, autoreset_mode=mode), 2)
    theirs = gym.vector.SyncVectorEnv([delayed(m, 2) for m in makes], autoreset_mode=mode)
    acts = actions_for(ours.single_action_space, 40, seed=11, batch=3)
    assert drive_vector(ours, theirs, acts, mode) >= 10


@pytest.mark.parametrize("mode", MODES, ids=lambda m: m.name)
def test_on_every_backend(backend, mode):
    short = functools.partial(pendulum, 7)
    ours = anywrap.vector.DelayObservation(BackendVectorEnv(sub_envs(short, 3, mode), backend), 2)
    run_vector_on(backend, ours, sub_envs(delayed(short, 2), 3, mode), mode, steps=26)
    state = ours.state_dict()
    assert state and all(isinstance(v, backend.array_type) for v in state.values())


@pytest.mark.parametrize("mode", MODES, ids=lambda m: m.name)
@pytest.mark.parametrize("lib", ["jax", "torch"])
def test_never_syncs(lib, mode):
    assert_never_syncs(lambda e: anywrap.vector.DelayObservation(e, 2), lib, mode)


@pytest.mark.parametrize("lib", ["numpy", "jax", "torch"])
def test_the_ring_copies_no_batch(lib):
    """Each step the ring takes the env's batch itself and keeps the older ones as they
    were: the same buffers, whatever the library (a compiled step would copy an array it
    returns, so the ring turns outside it)."""
    backend = make_backend(lib)
    counter = CounterVectorEnv(backend.xp, device=backend.device)
    env = anywrap.vector.DelayObservation(counter, 3)
    env.reset(seed=0)

    def address(x):
        if lib == "jax":
            return x.unsafe_buffer_pointer()
        return x.data_ptr() if lib == "torch" else x.__array_interface__["data"][0]

    for _ in range(4):
        env.step(counter.sample_action())
    before = [address(q) for q in env._state.queue]
    env.step(counter.sample_action())
    assert [address(q) for q in env._state.queue][:-1] == before[1:]


def vec(n: int) -> gym.vector.VectorEnv:
    return gym.make_vec("Pendulum-v1", n, vectorization_mode="sync")


def test_bad_input_changes_nothing():
    env = stepped(anywrap.vector.DelayObservation(vec(3), 2))
    bad_reset_masks_change_nothing(env)
    foreign_state_changes_nothing(env, stepped(anywrap.vector.DelayObservation(vec(2), 2)))
