"""The functional contract under JAX's transformations: a stack compiles whole, a
``lax.scan`` rollout equals the step-by-step loop, and ``vmap`` with ``axis_name`` equals
the batched wrapper (``shard_map`` is in test_shard_map.py: it needs its own process)."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest
from array_envs import functional_counter

jax = pytest.importorskip("jax")
pytest.importorskip("gymnax")
import jax.numpy as jnp  # noqa: E402
from functional_envs import N, cleanrl_stack, pendulum, rollout, uniform_actions  # noqa: E402

from anywrap import functional as F  # noqa: E402

ENDS = (3, 4, 6, 9)


def counter_stack():
    """Every stateful array wrapper (and two stateless ones) over a counter with
    episodes of 3, 4, 6 and 9 steps, cut at 5."""
    env = F.AutoReset(F.TimeLimit(functional_counter(ENDS), 5))
    env = F.StickyAction(F.RescaleAction(env, -2.0, 2.0), 0.5, (1, 2))
    env = F.TimeAwareObservation(F.DelayObservation(env, 2), normalize_time=True)
    env = F.NormalizeObservation(F.RecordEpisodeStatistics(env, 3))
    return F.ClipReward(env, 0.0, 3.0)


class Pixels:
    """4 envs of 12x10 RGB frames, each frame's colour the step count times 40; DISABLED."""

    observation_space = gym.spaces.Box(0, 255, (12, 10, 3), np.uint8)
    action_space = gym.spaces.Box(-1.0, 1.0, (1,), np.float32)
    num_envs, autoreset_mode = 4, gym.vector.AutoresetMode.DISABLED

    def frame(self, t):
        value = (t * 40 + jnp.arange(4) * 7) % 256
        return jnp.broadcast_to(value[:, None, None, None], (4, 12, 10, 3)).astype(jnp.uint8)

    def reset(self, key):
        t = jnp.zeros(4, jnp.int32)  # each env's own count: AutoReset restarts it per env
        return self.frame(t), t

    def step(self, t, action):
        no = jnp.zeros(4, bool)
        return F.Step(self.frame(t + 1), t + 1, jnp.zeros(4), no, no, {})


def image_stack():
    env = F.AutoReset(F.TimeLimit(Pixels(), 3))
    env = F.ResizeObservation(F.GrayscaleObservation(env, keep_dim=True), (6, 5))
    return F.FrameStackObservation(env, 3, padding_type="zero")


STACKS = {
    "cleanrl": (lambda: cleanrl_stack(pendulum(max_steps=7), buffer_length=3), 12),
    "counter": (counter_stack, 14),
    "images": (image_stack, 8),
}


@pytest.mark.parametrize("name", list(STACKS))
def test_a_scan_rollout_equals_the_step_loop(name):
    """The same steps, compiled as one ``lax.scan`` and as one jitted step called in a
    Python loop: the same outputs, infos and final state (episodes end on the way). The
    CleanRL stack's rollout is also checked for what a compiled stack must give."""
    make, steps = STACKS[name]
    env = make()
    actions = uniform_actions(steps, len(ENDS) if name == "counter" else N, scale=1.0)
    obs0, state, out = rollout(env, actions)
    obs, s = env.reset(jax.random.key(0))
    close(obs0, obs, "reset")
    step = jax.jit(env.step)
    ended = False
    for t in range(steps):
        s_t = step(s, actions[t])
        s = s_t.state
        got = jax.tree.map(lambda x, t=t: x[t], out)
        close(got, (s_t.obs, s_t.reward, s_t.terminated, s_t.truncated, s_t.info), f"step {t}")
        ended = ended or bool(jnp.any(s_t.terminated | s_t.truncated))
    close(state, s, "final state")
    assert ended
    if name == "cleanrl":
        check_the_cleanrl_stack(env, obs0, state, out, steps)


def close(a, b, what):
    assert jax.tree.structure(a) == jax.tree.structure(b), what
    for x, y in zip(jax.tree.leaves(a), jax.tree.leaves(b)):
        if jax.dtypes.issubdtype(x.dtype, jax.dtypes.prng_key):
            x, y = jax.random.key_data(x), jax.random.key_data(y)
        np.testing.assert_allclose(np.asarray(x), np.asarray(y), rtol=1e-6, atol=1e-6, err_msg=what)


def check_the_cleanrl_stack(env, obs0, state, out, steps):
    """The CleanRL stack compiled whole: shapes, dtypes, bounds, info keys, spaces, and
    one state pytree in which the wrapper states nest."""
    obs, rew, _term, _trunc, info = out
    assert obs0.shape == (N, 3) and obs.shape == (steps, N, 3) and rew.shape == (steps, N)
    assert obs.dtype == jnp.float32
    assert float(jnp.max(jnp.abs(obs))) <= 5.0 and float(jnp.max(jnp.abs(rew))) <= 5.0
    assert set(info) >= {"episode", "_episode", "final_obs"}
    assert isinstance(env.observation_space, gym.spaces.Box)
    assert env.observation_space.dtype == np.float32
    assert np.all(np.isinf(env.action_space.high))
    assert isinstance(state, F.NormalizeRewardState)
    F.find_state(state, F.NormalizeObservationState)
    F.find_state(state, F.EpisodeStatisticsState)
    with pytest.raises(LookupError, match="AutoResetState"):
        F.find_state(state, F.AutoResetState)


def test_vmap_with_axis_name_shares_statistics_like_a_batched_env():
    """vmap of an unbatched wrapped env with axis_name == the batched wrapper."""
    steps = 20
    single = F.NormalizeReward(F.NormalizeObservation(pendulum(None), axis_name="e"), axis_name="e")
    actions = uniform_actions(steps)

    def body(state, a):
        s = jax.vmap(single.step, axis_name="e")(state, a)
        return s.state, (s.obs, s.reward)

    @jax.jit
    def run(key):
        _, state = jax.vmap(single.reset, axis_name="e")(jax.random.split(key, N))
        return jax.lax.scan(body, state, actions)

    state_v, (obs_v, rew_v) = run(jax.random.key(0))
    batched = F.NormalizeReward(F.NormalizeObservation(pendulum()))
    _, state_b, (obs_b, rew_b, *_r) = rollout(batched, actions)
    np.testing.assert_allclose(np.asarray(obs_v), np.asarray(obs_b), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(np.asarray(rew_v), np.asarray(rew_b), rtol=1e-5, atol=1e-6)
    mv = F.find_state(state_v, F.NormalizeObservationState).obs_stats
    mb = F.find_state(state_b, F.NormalizeObservationState).obs_stats
    assert mv.mean.shape == (N, 3)  # one identical copy per env
    np.testing.assert_allclose(np.asarray(mv.mean), np.broadcast_to(mb.mean, (N, 3)), rtol=1e-5)
