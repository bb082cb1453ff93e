"""A Gymnasium ``VectorEnv`` over a batched functional env; each step is one compiled call.

Example:
    >>> import gymnax
    >>> from anywrap import functional as F
    >>> venv = F.to_vector_env(F.VmapWrapper(F.from_gymnax(gymnax.make("Pendulum-v1")[0]), 4))
    >>> obs, info = venv.reset(seed=0)
    >>> obs.shape, venv.metadata["autoreset_mode"].name
    ((4, 3), 'SAME_STEP')
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import jax
import jax.numpy as jnp
import numpy as np
from gymnasium.vector import AutoresetMode
from gymnasium.vector.utils import batch_space

from .core import FunctionalEnv, batch_ndim, same_step

__all__ = ["FunctionalVectorEnv", "to_vector_env"]


class FunctionalVectorEnv(gym.vector.VectorEnv):
    """Gymnasium's vector API over a batched functional env (see :func:`to_vector_env`):
    JAX arrays, ``info["final_obs"]`` with the mask ``info["_final_obs"]``, the functional
    state in ``self.state`` (``reset`` starts every wrapper statistic afresh)."""

    def __init__(self, env: FunctionalEnv, *, seed: int | None = None) -> None:
        if env.num_envs is None:
            got = (
                f"{env!r}, whose batch is set by its reset keys: pass num_envs to "
                "from_brax(env, num_envs=n)"
                if batch_ndim(env)
                else f"the unbatched {env!r}: wrap it in "
                "anywrap.functional.VmapWrapper(env, num_envs) first"
            )
            raise ValueError(f"to_vector_env: expected a batched env of known size, got {got}")
        if env.autoreset_mode == AutoresetMode.NEXT_STEP:
            raise ValueError("to_vector_env: NEXT_STEP functional envs are not supported")
        self.env = env
        self.num_envs = env.num_envs
        self.single_observation_space = env.observation_space
        self.single_action_space = env.action_space
        self.observation_space = batch_space(env.observation_space, self.num_envs)
        self.action_space = batch_space(env.action_space, self.num_envs)
        self.metadata = {"autoreset_mode": env.autoreset_mode}
        self.render_mode = None
        self.state: Any = None
        self._key = jax.random.key(np.random.SeedSequence(seed).generate_state(1)[0])
        self._reset = jax.jit(env.reset)

        def step(state: Any, action: Any) -> Any:
            obs, state, reward, terminated, truncated, info = env.step(state, action)
            if same_step(env) and "final_obs" in info:
                info = {**info, "_final_obs": jnp.logical_or(terminated, truncated)}
            return state, (obs, reward, terminated, truncated, info)

        self._step = jax.jit(step, donate_argnums=0)

    def reset(
        self, *, seed: int | list[int] | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Any, dict[str, Any]]:
        """Reset every env; ``seed`` (an int) makes the run reproducible."""
        if options and "reset_mask" in options:
            raise NotImplementedError(
                "FunctionalVectorEnv.reset: reset_mask is not supported (the functional "
                "env resets itself; a full reset also restarts wrapper statistics)"
            )
        if isinstance(seed, list):
            raise TypeError("FunctionalVectorEnv.reset: seed must be an int or None, not a list")
        if seed is not None:
            self._key = jax.random.key(seed)
        self._key, sub = jax.random.split(self._key)
        obs, self.state = self._reset(sub)
        return obs, {}

    def step(self, actions: Any) -> tuple[Any, Any, Any, Any, dict[str, Any]]:
        """One compiled call: ``(obs, reward, terminated, truncated, info)``."""
        if self.state is None:
            raise RuntimeError("FunctionalVectorEnv.step: call reset() first")
        self.state, out = self._step(self.state, actions)
        return out

    def __repr__(self) -> str:
        return f"FunctionalVectorEnv({self.env!r}, num_envs={self.num_envs})"


def to_vector_env(env: FunctionalEnv, *, seed: int | None = None) -> FunctionalVectorEnv:
    """Wrap a batched functional env as a Gymnasium ``VectorEnv`` (one jitted call per
    step) whose ``metadata["autoreset_mode"]`` is the env's."""
    return FunctionalVectorEnv(env, seed=seed)
