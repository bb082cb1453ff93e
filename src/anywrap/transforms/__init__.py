"""Pure transforms: ``init(...) -> State`` and ``step(State, inputs) -> (State, outputs)``.

All of anywrap's arithmetic lives here, written once against the Array API, one
module per wrapper, named after it (``normalize_observation``), or per formula
that several share (:mod:`~anywrap.transforms.moments`). Nothing here branches in
Python on an array's value, mutates in place, or indexes with a boolean mask, so
every function runs eagerly on NumPy, on CUDA tensors without a sync, and traced
under ``jax.jit`` / ``vmap`` / ``scan``.

The modules load on first use: ``anywrap.transforms.moments`` and
``from anywrap.transforms import moments`` both work.

Example:
    >>> from anywrap import transforms
    >>> transforms.moments.COUNT_EPSILON
    0.0001
"""

from __future__ import annotations

import importlib
import pkgutil
from typing import Any

__all__ = sorted(m.name for m in pkgutil.iter_modules(__path__) if not m.name.startswith("_"))


def __getattr__(name: str) -> Any:
    if name in __all__:
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
