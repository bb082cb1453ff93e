"""Optional dependencies: a missing one is named with the extra that installs it.

Example:
    >>> require("numpy", "anywrap.demo").__name__
    'numpy'
"""

from __future__ import annotations

import importlib
from types import ModuleType

__all__ = ["require"]

EXTRA = {
    "jax": ("jax", "jax"),
    "flax": ("jax", "flax"),
    "torch": ("torch", "torch"),
    "tensorflow": ("tf", "tensorflow-cpu"),
    "safetensors": ("io", "safetensors"),
    "PIL": ("record", "pillow"),
    "cv2": ("images", "opencv-python-headless"),
    "tqdm": ("progress", "tqdm"),
    "gymnax": ("gymnax", "gymnax six"),
}
"""Top-level module -> (anywrap's extra, the distributions it installs)."""

ALIASES = {"jnp": "jax", "pytorch": "torch", "tf": "tensorflow"}


def require(module: str, who: str) -> ModuleType:
    """``module`` imported; if it (an optional dependency) is not installed, a
    ModuleNotFoundError that names ``who`` and the extra that installs it."""
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as e:
        top = module.partition(".")[0]
        if e.name is None or e.name.partition(".")[0] != top or top not in EXTRA:
            raise
        extra, dists = EXTRA[top]
        raise ModuleNotFoundError(
            f"{who} needs {top}, which is not installed: from a checkout of anywrap, "
            f'pip install ".[{extra}]" (or pip install {dists})',
            name=e.name,
        ) from None
