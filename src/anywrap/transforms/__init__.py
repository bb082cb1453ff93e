"""Pure transforms: ``init(...) -> State`` and ``step(State, inputs) -> (State, outputs)``.

All of anywrap's arithmetic lives here, written once against the Array API,
one module per wrapper (or per formula that several share: :mod:`moments`).
Nothing here branches in Python on an array's value, mutates in place, or
indexes with a boolean mask, so every function runs eagerly on NumPy, on CUDA
tensors without a sync, and traced under ``jax.jit`` / ``vmap`` / ``scan``.
"""

from anywrap.transforms import (
    actions,
    arrays,
    delay,
    frames,
    images,
    moments,
    normalize_observation,
    normalize_reward,
    record_episode_statistics,
    rescale,
    sticky,
    time,
)

__all__ = [
    "actions",
    "arrays",
    "delay",
    "frames",
    "images",
    "moments",
    "normalize_observation",
    "normalize_reward",
    "record_episode_statistics",
    "rescale",
    "sticky",
    "time",
]
