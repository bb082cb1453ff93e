"""anywrap.vector.StickyAction (Gymnasium has none): Gymnasium's state machine in each
sub-env on the same draws, in every autoreset mode and on every backend; its draws
reproducible from the seed and distributed as Gymnasium's; no host sync on a device env."""

from __future__ import annotations

import functools

import gymnasium as gym
import numpy as np
import pytest
from array_envs import BackendVectorEnv, CounterVectorEnv, ScriptedStickyAction, assert_same, script
from array_helpers import (
    MODES,
    actions_for,
    assert_never_syncs,
    bad_reset_masks_change_nothing,
    check_on,
    fails_cleanly,
    foreign_state_changes_nothing,
    run_vector_on,
    stepped,
    sub_envs,
)
from gymnasium.error import InvalidProbability
from gymnasium.vector import AutoresetMode
from helpers import make_backend

import anywrap


def cartpole() -> gym.Env:
    return gym.make("CartPole-v1", max_episode_steps=25)


def pendulum() -> gym.Env:
    return gym.make("Pendulum-v1", max_episode_steps=7)


def scripted(make, table: np.ndarray, clock: list[int], n: int, mode: AutoresetMode):
    """Gymnasium's StickyAction in each of ``n`` sub-envs, sub-env i drawing column i."""
    subs = [
        functools.partial(
            lambda i: ScriptedStickyAction(
                make(),
                table,
                clock,
                i,
                repeat_action_probability=0.5,
                repeat_action_duration=(1, 3),
            ),
            i,
        )
        for i in range(n)
    ]
    return gym.vector.SyncVectorEnv(subs, autoreset_mode=mode)


@pytest.mark.parametrize("mode", MODES, ids=lambda m: m.name)
def test_the_state_machine_is_that_of_sub_env_wrappers(mode):
    n, steps = 3, 60
    table = np.random.default_rng(15).random((steps + 1, n, 2))
    clock = [0]
    ours = anywrap.vector.StickyAction(sub_envs(cartpole, n, mode), 0.5, (1, 3))
    theirs = scripted(cartpole, table, clock, n, mode)
    assert_same(ours.reset(seed=1)[0], theirs.reset(seed=1)[0])
    script(ours, table)
    ends = 0
    for t, a in enumerate(
        actions_for(ours.single_action_space, steps, seed=16, batch=n, mixed=False)
    ):
        clock[0] = t
        x, y = ours.step(a), theirs.step(a)
        for i in range(4):
            assert_same(x[i], y[i], f"step {t} output {i}")
        done = y[2] | y[3]
        ends += int(done.sum())
        if mode is AutoresetMode.DISABLED and done.any():
            assert_same(
                ours.reset(options={"reset_mask": done.copy()})[0],
                theirs.reset(options={"reset_mask": done.copy()})[0],
            )
    assert ends >= 3


@pytest.mark.parametrize("mode", MODES, ids=lambda m: m.name)
def test_on_every_backend(backend, mode):
    """p = 0: the env itself, on the backend; the state (the generator's too) lives there."""
    ours = anywrap.vector.StickyAction(BackendVectorEnv(sub_envs(pendulum, 3, mode), backend), 0.0)
    run_vector_on(backend, ours, sub_envs(pendulum, 3, mode), mode, steps=26)
    state = ours.state_dict()
    assert state and all(isinstance(v, backend.array_type) for v in state.values())


def test_the_choices_on_every_backend_are_gymnasiums(backend):
    """The same draws on each backend give Gymnasium's choices: through the wrapper
    (its generator replaced by the table), or on JAX, which cannot read a host table
    inside its compiled step, through the jitted transform taking the rows."""
    n, steps = 3, 60
    table = np.random.default_rng(3).random((steps + 1, n, 2))
    clock = [0]
    ref = scripted(lambda: gym.make("Pendulum-v1"), table, clock, n, AutoresetMode.NEXT_STEP)
    ref.reset(seed=0)
    acts = actions_for(ref.single_action_space, steps, 4, batch=n, mixed=False)
    acts = [a.astype(np.float32) for a in acts]
    if backend.name == "jax":
        import jax

        from anywrap.transforms.sticky_action import init_sticky, sticky_action

        step = jax.jit(functools.partial(sticky_action, p=0.5, low=1, high=3))
        like = backend.to_backend(np.zeros((n, 1), np.float32))
        state = init_sticky(like, batch_shape=(n,), xp=backend.xp)
    else:
        proxy = BackendVectorEnv(
            sub_envs(lambda: gym.make("Pendulum-v1"), n, AutoresetMode.NEXT_STEP), backend
        )
        ours = anywrap.vector.StickyAction(proxy, 0.5, (1, 3))
        ours.reset(seed=0)
        script(ours, table, backend.to_backend)
    repeats = 0
    for t, a in enumerate(acts):
        clock[0] = t
        ref.step(a)
        want = np.stack([e.last_action for e in ref.envs])
        if backend.name == "jax":
            state, sent = step(state, backend.to_backend(a), backend.to_backend(table[t]))
        else:
            ours.step(backend.to_backend(a))
            sent = proxy.received[-1]
        check_on(backend, sent, want, f"step {t}")
        repeats += int((want != a).any(axis=1).sum())
    assert repeats > 10


@pytest.mark.parametrize("mode", MODES, ids=lambda m: m.name)
@pytest.mark.parametrize("lib", ["jax", "torch"])
def test_never_syncs(lib, mode):
    assert_never_syncs(lambda e: anywrap.vector.StickyAction(e, 0.5, (1, 3)), lib, mode)


# ------------------------------------------------------------------ the draws
def sent_actions(backend, *, p: float, duration, seed: int, n: int, steps: int) -> np.ndarray:
    """``(steps, n)``: what each sub-env received when asked for action ``t`` at step ``t``."""
    counter = CounterVectorEnv(backend.xp, ends=(10**6,) * n, device=backend.device)
    env = anywrap.vector.StickyAction(counter, p, duration)
    env.reset(seed=seed)
    for t in range(steps):
        env.step(backend.to_backend(np.full((n, 1), float(t), np.float32)))
    return np.stack([np.asarray(backend.to_numpy(a))[:, 0] for a in counter.received])


def test_the_same_seed_gives_the_same_choices(backend):
    kw = dict(p=0.5, duration=(1, 3), n=16, steps=30)
    a = sent_actions(backend, seed=4, **kw)
    np.testing.assert_array_equal(a, sent_actions(backend, seed=4, **kw))
    assert not np.array_equal(a, sent_actions(backend, seed=5, **kw))


def test_the_repeat_rate_is_p(backend):
    """With runs of one step, every step after the first repeats with probability p,
    independently: the rate over 2048 envs x 24 steps is p within 5 standard errors."""
    p, n, steps = 0.3, 2048, 25
    sent = sent_actions(backend, p=p, duration=1, seed=0, n=n, steps=steps)
    repeat = sent != np.arange(steps, dtype=np.float32)[:, None]
    assert not repeat[0].any(), "no previous action on the first step: nothing to repeat"
    rate = repeat[1:].mean()
    assert abs(rate - p) < 5 * np.sqrt(p * (1 - p) / repeat[1:].size), (rate, p)
    # a repeat is the previous action sent
    np.testing.assert_array_equal(sent[1:][repeat[1:]], sent[:-1][repeat[1:]])


def test_the_run_lengths_are_uniform(backend):
    """Runs drawn from (2, 4): a run of r < 4 repeats is one series of length r that no
    new series follows at once, so P(r) = (1 - p) / 3 for r = 2, 3, and r = 1 never.
    Only runs that start 12 steps or more before the horizon are counted (every one of
    them, finished or not), so the horizon does not favour short runs."""
    p, n, steps, margin = 0.2, 2048, 40, 12
    sent = sent_actions(backend, p=p, duration=(2, 4), seed=1, n=n, steps=steps)
    repeat = sent != np.arange(steps, dtype=np.float32)[:, None]
    lengths = []
    for i in range(n):
        run, start = 0, 0
        for t in range(1, steps):
            if repeat[t, i]:
                start = t if run == 0 else start
                run += 1
            elif run:
                if start <= steps - margin:
                    lengths.append(run)
                run = 0
        if run and start <= steps - margin:
            lengths.append(run)  # unfinished: at least `margin` long
    lengths = np.array(lengths)
    assert len(lengths) > 5000
    assert (lengths >= 2).all()
    want = (1 - p) / 3
    se = np.sqrt(want * (1 - want) / len(lengths))
    for r in (2, 3):
        assert abs((lengths == r).mean() - want) < 5 * se, r


def test_the_state_dict_restores_the_generator(backend):
    """``state_dict`` holds the generator's state: loading it replays the same choices."""
    counter = CounterVectorEnv(backend.xp, ends=(10**6,) * 8, device=backend.device)
    env = anywrap.vector.StickyAction(counter, 0.5, (1, 3))
    env.reset(seed=2)

    def run(steps: int) -> np.ndarray:
        for t in range(steps):
            env.step(backend.to_backend(np.full((8, 1), float(t), np.float32)))
        return np.stack([np.asarray(backend.to_numpy(a)) for a in counter.received[-steps:]])

    run(5)
    saved = {k: np.array(anywrap.xp.to_numpy(v), copy=True) for k, v in env.state_dict().items()}
    first = run(12)
    env.load_state_dict(saved)
    np.testing.assert_array_equal(run(12), first)
    assert (first != np.arange(12, dtype=np.float32)[:, None, None]).any()  # some repeats


# ------------------------------------------------------------------ bad input
def vec(n: int) -> gym.vector.VectorEnv:
    return gym.make_vec("Pendulum-v1", n, vectorization_mode="sync")


def test_bad_input_changes_nothing():
    with pytest.raises(InvalidProbability, match=r"anywrap\.vector\.StickyAction"):
        anywrap.vector.StickyAction(vec(2), -0.1)
    envs = stepped(anywrap.vector.StickyAction(vec(2), 0.5))
    fails_cleanly(
        envs,
        lambda: envs.step(np.zeros((3, 1))),
        ValueError,
        r"anywrap\.vector\.StickyAction",
        r"shape \(2, 1\)",
    )
    env = stepped(anywrap.vector.StickyAction(vec(3), 0.5))
    bad_reset_masks_change_nothing(env)
    foreign_state_changes_nothing(env, stepped(anywrap.vector.StickyAction(vec(2), 0.5)))


def test_an_action_of_another_library_is_refused_before_the_env_sees_it():
    torch = pytest.importorskip("torch")
    xp = make_backend("jax").xp
    counter = CounterVectorEnv(xp)
    env = anywrap.vector.StickyAction(counter, 0.5)
    env.reset(seed=0)
    env.step(counter.sample_action())
    fails_cleanly(
        env,
        lambda: env.step(torch.zeros((4, 1))),
        TypeError,
        r"anywrap\.vector\.StickyAction",
        r"env's library",
        r"torch\.Tensor",
    )
    assert len(counter.received) == 1, "the env was stepped despite the error"
