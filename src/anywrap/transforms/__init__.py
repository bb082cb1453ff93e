"""Pure transforms: ``init(...) -> State`` and ``step(State, inputs) -> State``.

All of anywrap's arithmetic lives here, written once against the Array API.
Nothing here branches in Python on an array's value, mutates in place, or
indexes with a boolean mask, so every function runs eagerly on NumPy, on
CUDA tensors without a sync, and traced under ``jax.jit`` / ``vmap`` / ``scan``.
"""

from anywrap.transforms import (
    actions,
    arrays,
    delay,
    episodes,
    moments,
    observations,
    rescale,
    returns,
    sticky,
    time,
)

__all__ = [
    "actions",
    "arrays",
    "delay",
    "episodes",
    "moments",
    "observations",
    "rescale",
    "returns",
    "sticky",
    "time",
]
