"""A stepped stack survives ``copy.deepcopy``, ``pickle`` and ``cloudpickle`` (SB3's
SubprocVecEnv ships envs with cloudpickle) on every backend, single and vector, and
the copy steps as the original does (issue 34: a JAX stack with ClipAction failed
with "cannot pickle 'Device' object")."""

from __future__ import annotations

import copy
import pickle
import warnings

import gymnasium as gym
import numpy as np
import pytest
from contracts.case import all_cases

import anywrap
from anywrap.convert.converter import convert
from anywrap.xp import to_numpy

cloudpickle = pytest.importorskip("cloudpickle")


def _pendulum():
    return gym.make("Pendulum-v1")


def _stack(lib: str, vector: bool):
    A = anywrap.vector if vector else anywrap
    if vector:
        env = gym.vector.SyncVectorEnv([_pendulum, _pendulum])
    else:
        env = _pendulum()
    if lib != "numpy":
        env = A.ArrayConversion(env, to=lib)
    env = A.RescaleObservation(env, -1.0, 1.0)
    env = A.ClipAction(A.RescaleAction(env, -1.0, 1.0))
    env = A.StickyAction(env, 0.25)
    env = A.TimeAwareObservation(A.TimeLimit(env, 50))
    env = A.DelayObservation(A.FrameStackObservation(env, 2), 1)
    env = A.FlattenObservation(A.DtypeObservation(env, np.float32))
    env = A.NormalizeReward(A.NormalizeObservation(A.ClipReward(env, -5.0, 5.0)))
    env = A.RecordEpisodeStatistics(env)
    env.reset(seed=0)
    return env


COPIES = {
    "deepcopy": copy.deepcopy,
    "pickle": lambda s: pickle.loads(pickle.dumps(s)),
    "cloudpickle": lambda s: cloudpickle.loads(cloudpickle.dumps(s)),
}


@pytest.mark.parametrize("how", sorted(COPIES))
@pytest.mark.parametrize("vector", [False, True], ids=["single", "vector"])
@pytest.mark.parametrize("lib", ["numpy", "jax", "torch"])
def test_a_copy_of_a_stepped_stack_steps_as_the_original(lib, vector, how):
    pytest.importorskip(lib)
    shape = (2, 1) if vector else (1,)
    action = convert(np.full(shape, 0.5, np.float32), lib)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # JAX's float64 narrowing
        stack = _stack(lib, vector)
        for _ in range(7):
            stack.step(action)
        twin = COPIES[how](stack)
        for _ in range(5):
            a, b = stack.step(action), twin.step(action)
            assert type(b[0]) is type(a[0])
            np.testing.assert_array_equal(to_numpy(b[0]), to_numpy(a[0]))
            np.testing.assert_array_equal(np.asarray(to_numpy(b[1])), np.asarray(to_numpy(a[1])))


def _pickles(obj) -> bool:
    try:
        pickle.dumps(obj)
    except Exception:
        return False
    return True


def test_every_wrapper_pickles_where_gymnasiums_does():
    """Each wrapper of the contract table with a Gymnasium twin, reset and stepped on NumPy:
    where Gymnasium's pickles, anywrap's pickles too, and the copy steps
    (DiscretizeObservation's check was a closure, which pickle refuses)."""
    compared, refused = 0, []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for case in all_cases():
            if not case.reference or not hasattr(
                gym.wrappers.vector if case.vector else gym.wrappers, case.name
            ):
                continue
            try:
                theirs = case.wrap_reference(case.make_env())
                theirs.reset(seed=0)
            except Exception:  # Gymnasium's refuses this env or mode: nothing to compare
                continue
            if not _pickles(theirs):
                continue
            ours = case.wrap(case.make_env())
            ours.reset(seed=0)
            ours.step(ours.action_space.sample())
            compared += 1
            if not _pickles(ours):
                refused.append(case.id)
                continue
            try:  # where Gymnasium's copy steps (a pickled JAX env loses its state)
                pickle.loads(pickle.dumps(theirs)).step(theirs.action_space.sample())
            except Exception:
                continue
            twin = pickle.loads(pickle.dumps(ours))  # ours steps too
            twin.step(twin.action_space.sample())
    assert refused == []
    assert compared >= 20, compared  # the table's wrappers that Gymnasium can pickle
