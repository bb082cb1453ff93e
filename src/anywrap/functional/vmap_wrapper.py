"""VmapWrapper: a batch of copies of an unbatched functional env, stepped with one ``jax.vmap``."""

from __future__ import annotations

from typing import Any

import jax

from .core import FunctionalEnv, Step, Wrapper, batch_ndim, is_key_batch

__all__ = ["VmapWrapper"]


class VmapWrapper(Wrapper):
    """A batch of ``num_envs`` copies of an unbatched env, stepped with one ``jax.vmap``.

    ``reset`` splits ``key`` into ``num_envs`` keys, or takes a batch of keys (a
    shard's, in ``shard_map``). Wrappers over it see the whole batch.

    Example:
        >>> import jax, gymnax
        >>> import numpy as np
        >>> from anywrap import functional as F
        >>> env = F.VmapWrapper(F.from_gymnax(gymnax.make("CartPole-v1")[0]), 3)
        >>> env.num_envs, env.autoreset_mode.name
        (3, 'SAME_STEP')
        >>> obs, state = env.reset(jax.random.key(0))
        >>> np.asarray(obs).round(3)
        array([[-0.04 , -0.016, -0.037,  0.031],
               [-0.041, -0.014,  0.012, -0.034],
               [ 0.025, -0.015,  0.025, -0.023]], dtype=float32)
    """

    def __init__(self, env: FunctionalEnv, num_envs: int) -> None:
        super().__init__(env)
        if batch_ndim(env):
            raise ValueError(
                f"VmapWrapper: the env is already batched (num_envs={env.num_envs}); "
                "wrap an unbatched env"
            )
        if not isinstance(num_envs, int) or num_envs < 1:
            raise ValueError(f"VmapWrapper: num_envs must be a positive int, got {num_envs!r}")
        self._num_envs = num_envs

    num_envs = property(lambda self: self._num_envs)  # type: ignore[assignment]
    batched = True  # type: ignore[assignment]

    def reset(self, key: jax.Array) -> tuple[Any, Any]:
        keys = key if is_key_batch(key) else jax.random.split(key, self._num_envs)
        return jax.vmap(self.env.reset)(keys)

    def step(self, state: Any, action: Any) -> Step:
        return jax.vmap(self.env.step)(state, action)
