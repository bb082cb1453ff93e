"""Pure transforms: ``init(...) -> State`` and ``step(State, inputs) -> (State, outputs)``.

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
