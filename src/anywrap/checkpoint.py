"""Checkpoints of a whole wrapper stack's statistics, as safetensors files.

safetensors holds plain tensors and a string header, so loading an untrusted
file runs no code (unlike pickle). Writes go to a temporary file in the same
folder, then replace the target in one rename: an interrupted save leaves
the previous file intact.

Example:
    >>> import os, tempfile
    >>> import gymnasium as gym
    >>> import anywrap
    >>> env = anywrap.NormalizeObservation(gym.make("CartPole-v1"))
    >>> _ = env.reset(seed=0)
    >>> path = os.path.join(tempfile.mkdtemp(), "stats.safetensors")
    >>> anywrap.save_state(env, path)
    >>> anywrap.load_state(env, path)
"""

from __future__ import annotations

import os
import tempfile
from typing import Any

import numpy as np

from anywrap.shell.state import StatefulShell
from anywrap.xp import to_numpy

__all__ = ["load_state", "save_state", "stack_state_dict"]

_FORMAT = "anywrap.stack/1"


def _stateful_layers(env: Any) -> list[tuple[str, StatefulShell]]:
    """``(prefix, wrapper)`` for each anywrap stateful wrapper, outermost first."""
    layers = []
    depth = 0
    while env is not None:
        if isinstance(env, StatefulShell):
            layers.append((f"{depth}.{type(env).__name__}", env))
        env = getattr(env, "env", None)
        depth += 1
    return layers


def stack_state_dict(env: Any) -> dict[str, Any]:
    """The statistics of every anywrap wrapper in ``env``'s stack, keyed ``depth.Class.field``."""
    return {
        f"{prefix}.{k}": v
        for prefix, layer in _stateful_layers(env)
        for k, v in layer.state_dict().items()
    }


def save_state(env: Any, path: str | os.PathLike[str]) -> None:
    """Save the statistics of ``env``'s wrapper stack to a safetensors file, atomically."""
    from safetensors.numpy import save_file

    # np.ascontiguousarray would turn 0-d counts into 1-d arrays.
    tensors = {k: np.array(to_numpy(v), order="C") for k, v in stack_state_dict(env).items()}
    layers = ",".join(p for p, _ in _stateful_layers(env))
    path = os.fspath(path)
    folder = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=".anywrap-", suffix=".tmp", dir=folder)
    os.close(fd)
    try:
        save_file(tensors, tmp, metadata={"format": _FORMAT, "layers": layers})
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def load_state(env: Any, path: str | os.PathLike[str]) -> None:
    """Load statistics saved by :func:`save_state` into ``env``'s wrapper stack.

    Raises:
        ValueError: the file was saved from a stack of another shape (other
            wrappers, order or observation shapes). Nothing is changed then.
    """
    from safetensors import safe_open

    with safe_open(os.fspath(path), framework="numpy") as f:
        meta = f.metadata() or {}
        flat = {k: f.get_tensor(k) for k in f.keys()}
    layers = _stateful_layers(env)
    want = ",".join(p for p, _ in layers)
    if meta.get("format") != _FORMAT or meta.get("layers") != want:
        raise ValueError(
            f"anywrap.load_state: {os.fspath(path)!r} holds the wrappers "
            f"[{meta.get('layers', '?')}], this stack has [{want}]"
        )
    # Check every layer before touching any, so a failed load changes nothing.
    parts = []
    for prefix, layer in layers:
        part = {k[len(prefix) + 1 :]: v for k, v in flat.items() if k.startswith(prefix + ".")}
        own = layer.state_dict()
        bad = [k for k in own if k not in part or tuple(part[k].shape) != tuple(own[k].shape)]
        if bad or len(part) != len(own):
            raise ValueError(
                f"anywrap.load_state: {prefix} in {os.fspath(path)!r} does not fit this "
                f"stack (entries {bad or sorted(set(part) - set(own))} differ in name or shape)"
            )
        parts.append((layer, part))
    for layer, part in parts:
        layer.load_state_dict(part)
