"""The envs and rollouts that the tests of ``anywrap.functional`` share (tests/functional/).

Import it after ``pytest.importorskip("jax")``: it imports JAX and gymnax.
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import gymnax
import jax
import jax.numpy as jnp
import numpy as np

from anywrap import functional as F

N = 4
"""The default batch."""


def pendulum(n: int | None = N, max_steps: int = 200, *, vmap: bool = True) -> Any:
    """gymnax Pendulum-v1 (SAME_STEP), episodes of ``max_steps``: one env (``n=None``), or a
    batch of ``n``, each env with its own key (``vmap``) or one key for the batch."""
    env, params = gymnax.make("Pendulum-v1")
    params = params.replace(max_steps_in_episode=max_steps)
    if n is None:
        return F.from_gymnax(env, params)
    return (
        F.VmapWrapper(F.from_gymnax(env, params), n)
        if vmap
        else F.from_gymnax(env, params, num_envs=n)
    )


def cleanrl_stack(
    env: Any,
    *,
    gamma: float = 0.99,
    clip: tuple[float, float] = (5.0, 5.0),
    learn_final_obs: bool = False,
    buffer_length: int = 0,
    axis_name: Any = None,
) -> Any:
    """The six CleanRL wrappers (episode statistics, action clip, observation and reward
    normalisation, each normaliser followed by a clip) over ``env``."""
    obs_clip, rew_clip = clip
    env = F.RecordEpisodeStatistics(env, buffer_length, axis_name=axis_name)
    env = F.ClipAction(env)
    env = F.NormalizeObservation(env, learn_final_obs=learn_final_obs, axis_name=axis_name)
    env = F.TransformObservation(env, lambda o: jnp.clip(o, -obs_clip, obs_clip))
    env = F.NormalizeReward(env, gamma=gamma, axis_name=axis_name)
    return F.TransformReward(env, lambda r: jnp.clip(r, -rew_clip, rew_clip))


def uniform_actions(steps: int, n: int | None = N, scale: float = 3.0, key: int = 1) -> Any:
    """``(steps, n, 1)`` actions uniform in ``[-scale, scale]`` (``(steps, 1)`` for one env)."""
    shape = (steps, 1) if n is None else (steps, n, 1)
    return jax.random.uniform(jax.random.key(key), shape, minval=-scale, maxval=scale)


def rollout(env: Any, actions: Any, key: int = 0) -> tuple[Any, Any, tuple[Any, ...]]:
    """One jitted ``lax.scan`` over ``actions`` (time first) from ``reset(key(key))``:
    ``(reset obs, final state, (obs, reward, terminated, truncated, info) per step)``."""

    def body(state: Any, a: Any) -> Any:
        s = env.step(state, a)
        return s.state, (s.obs, s.reward, s.terminated, s.truncated, s.info)

    @jax.jit
    def run(k: Any, acts: Any) -> Any:
        obs, state = env.reset(k)
        state, out = jax.lax.scan(body, state, acts)
        return obs, state, out

    return run(jax.random.key(key), jnp.asarray(actions))  # type: ignore[no-any-return]


class Episodes:
    """A SAME_STEP batch whose env ``i`` ends an episode every ``limits[i]`` steps
    (terminated, or truncated where ``truncate``); the observation and the reward are the
    step number of the episode. ``extra_info`` joins every step's info."""

    observation_space = gym.spaces.Box(-np.inf, np.inf, (1,), np.float32)
    action_space = gym.spaces.Box(-1.0, 1.0, (1,), np.float32)
    autoreset_mode = gym.vector.AutoresetMode.SAME_STEP

    def __init__(
        self,
        limits: tuple[int, ...] = (2, 3, 4),
        extra_info: dict[str, Any] | None = None,
        truncate: tuple[bool, ...] | None = None,
    ) -> None:
        self.num_envs = len(limits)
        self.limits = jnp.asarray(limits)
        self.truncate = jnp.asarray(truncate or (False,) * len(limits))
        self.extra_info = extra_info or {}

    def reset(self, key: Any) -> Any:
        return jnp.zeros((self.num_envs, 1)), jnp.zeros(self.num_envs, jnp.int32)

    def step(self, t: Any, action: Any) -> F.Step:
        t = t + 1
        done = t == self.limits
        obs = t[:, None].astype(jnp.float32)
        terminated, truncated = done & ~self.truncate, done & self.truncate
        info = dict(self.extra_info)
        return F.Step(
            obs, jnp.where(done, 0, t), t.astype(jnp.float32), terminated, truncated, info
        )


class Holder(gym.Env):
    """Gives a Gymnasium wrapper the spaces it is built from (its maps are then called
    directly, row by row)."""

    def __init__(self, observation_space: gym.Space, action_space: gym.Space) -> None:
        self.observation_space, self.action_space = observation_space, action_space


def leaves_equal(a: Any, b: Any) -> bool:
    """Whether two pytrees hold the same arrays, bit for bit."""
    la, lb = jax.tree.leaves(a), jax.tree.leaves(b)
    return len(la) == len(lb) and all(
        np.array_equal(np.asarray(x), np.asarray(y)) for x, y in zip(la, lb)
    )
