"""A run of vector wrappers after the env's step as one program (``anywrap.shell.fusion``):
Gymnasium's numbers, one program a step, bad data refused before any wrapper of the run
changes, and the wrapper-by-wrapper path wherever a program cannot stand in."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.vector import AutoresetMode
from helpers import (
    GYM_VECTOR,
    ReplayVectorEnv,
    make_backend,
    record_vector_trajectory,
    run_vector,
    vector_stack,
)
from image_helpers import count_compiled_calls, eager_jax_ops

import anywrap
from anywrap.shell.fusion import PROGRAMS, fused_run


def programs_of(stack):
    """The stack programs its outermost wrapper holds (``None``: a run left unfused)."""
    return list(PROGRAMS.get(stack, {}).values())


def assert_gymnasiums(got, want):
    ends = 0
    for i, (g, w) in enumerate(zip(got, want, strict=True)):
        np.testing.assert_allclose(np.asarray(g[1]), w[1], rtol=1e-5, atol=1e-5, err_msg=i)
        if g[0] == "step":
            np.testing.assert_allclose(np.asarray(g[2]), w[2], rtol=1e-5, err_msg=i)
            if "episode" in w[5]:
                m = w[5]["_episode"]
                ends += int(m.sum())
                np.testing.assert_array_equal(np.asarray(g[5]["_episode"]), m)
                np.testing.assert_allclose(
                    np.asarray(g[5]["episode"]["r"])[m], w[5]["episode"]["r"][m], rtol=1e-5
                )
                np.testing.assert_array_equal(
                    np.asarray(g[5]["episode"]["l"])[m], w[5]["episode"]["l"][m]
                )
    assert ends >= 5


@pytest.mark.parametrize("backend", ["jax", "torch"])
@pytest.mark.parametrize("mode", [AutoresetMode.NEXT_STEP, AutoresetMode.DISABLED])
def test_a_fused_stack_is_gymnasiums(backend, mode):
    """The CleanRL stack on device arrays runs its five wrappers after the step as one
    program (eagerly on torch: compiling is off on CPUs), with Gymnasium's numbers."""
    b = make_backend(backend)
    traj = record_vector_trajectory(autoreset_mode=mode)
    want = run_vector(vector_stack(ReplayVectorEnv(traj, make_backend("numpy")), GYM_VECTOR))
    stack = vector_stack(ReplayVectorEnv(traj, b))
    got = run_vector(stack)
    assert_gymnasiums(got, want)
    [program] = programs_of(stack)
    assert program.fn.__name__ == (
        "stack(step_episodes+normalize_observation+<lambda>+normalize_reward+<lambda>)"
    )


def test_a_jax_step_is_the_action_clip_and_one_program():
    """Two compiled calls a step (ClipAction's, before the env's step, and the stack's,
    held by the outermost wrapper), and nothing runs eagerly."""
    pytest.importorskip("jax")
    traj = record_vector_trajectory(num_steps=20)
    replay = ReplayVectorEnv(traj, make_backend("jax"))
    stack = vector_stack(replay)
    run_vector(stack, steps=5)
    calls: list[str] = []
    count_compiled_calls(stack, replay, calls)
    with eager_jax_ops() as eager:
        stack.step(replay.action())
    assert sorted(calls) == ["ClipAction", "TransformReward"]
    assert eager == [], eager


@pytest.mark.parametrize("backend", ["jax", "torch"])
def test_bad_data_changes_no_wrapper_of_the_run(backend):
    """An observation of the wrong shape is refused by NormalizeObservation, and the
    episode statistics below it (which would have counted the step, each wrapper
    running on its own) are as they were."""
    b = make_backend(backend)
    traj = record_vector_trajectory(num_steps=20)
    replay = ReplayVectorEnv(traj, b)
    stack = vector_stack(replay)
    run_vector(stack, steps=4)
    episodes = stack.env.env.env.env.env  # RecordEpisodeStatistics, innermost
    saved = episodes.state_dict()  # start times are saved relative to now: left out
    before = {k: np.array(b.to_numpy(v)) for k, v in saved.items() if k != "start_time"}
    step = replay.step
    replay.step = lambda a: (b.xp.zeros((4, 2)), *step(a)[1:])
    with pytest.raises(ValueError, match="NormalizeObservation"):
        stack.step(replay.action())
    after = episodes.state_dict()
    for k, v in before.items():
        np.testing.assert_array_equal(np.asarray(b.to_numpy(after[k])), v, err_msg=k)


def test_a_func_that_cannot_be_traced_runs_on_its_own():
    """A TransformObservation func that reads its input on the host fails under
    ``jax.jit``: that run goes wrapper by wrapper, with the same numbers."""
    pytest.importorskip("jax")
    import jax.numpy as jnp

    traj = record_vector_trajectory()
    want = run_vector(vector_stack(ReplayVectorEnv(traj, make_backend("numpy")), GYM_VECTOR))
    replay = ReplayVectorEnv(traj, make_backend("jax"))
    env = anywrap.vector.RecordEpisodeStatistics(replay)
    env = anywrap.vector.ClipAction(env)
    env = anywrap.vector.NormalizeObservation(env)
    env = anywrap.vector.TransformObservation(
        env, lambda o: jnp.asarray(np.clip(np.asarray(o), -5.0, 5.0))
    )
    env = anywrap.vector.NormalizeReward(env, gamma=0.99)
    stack = anywrap.vector.TransformReward(env, lambda r: jnp.clip(r, -5.0, 5.0))
    assert_gymnasiums(run_vector(stack), want)
    assert programs_of(stack) == [None]


def test_a_wrapper_that_overrides_step_ends_the_run():
    """A subclass with its own ``step`` is stepped as written: the run stops below it."""
    pytest.importorskip("torch")
    steps = []

    class Counting(anywrap.vector.NormalizeObservation):
        def step(self, actions):
            steps.append(1)
            return super().step(actions)

    traj = record_vector_trajectory(num_steps=10)
    env = Counting(
        anywrap.vector.RecordEpisodeStatistics(ReplayVectorEnv(traj, make_backend("torch")))
    )
    env = anywrap.vector.NormalizeReward(env)
    assert [type(w).__name__ for w in fused_run(env)[0]] == ["NormalizeReward"]
    run_vector(env, steps=10)
    assert len(steps) == 10


def test_numpy_stacks_run_wrapper_by_wrapper():
    """On the host each wrapper runs its own NumPy code (Gymnasium's speed): no program."""
    envs = anywrap.vector.NormalizeReward(
        anywrap.vector.NormalizeObservation(gym.make_vec("Pendulum-v1", 2))
    )
    envs.reset(seed=0)
    for _ in range(3):
        envs.step(np.zeros((2, 1), dtype=np.float32))
    assert programs_of(envs) == []


def test_stacks_of_the_same_work_compare_equal_and_closures_over_arrays_do_not_raise():
    """Programs are shared by work: two ``lambda r: clip(r, ...)`` of two stacks are one
    key; a func closing over arrays (unhashable, compared element by element) is its
    stack's own, and comparing it raises nothing."""
    from anywrap.shell.fusion import Piece, _Stack

    def clip_piece():
        return Piece(lambda r: np.clip(r, -1.0, 1.0), "reward", stateful=False)

    def scale_piece(scale):
        return Piece(lambda o: o * scale, stateful=False)

    a, b = _Stack((clip_piece(),)), _Stack((clip_piece(),))
    assert a == b and hash(a) == hash(b)
    c, d = _Stack((scale_piece(np.ones(3)),)), _Stack((scale_piece(np.ones(3)),))
    assert c != d and c == c
    assert {c: 1}[c] == 1
