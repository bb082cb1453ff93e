"""Checkpoints of a whole wrapper stack's statistics, as safetensors files.

safetensors holds plain tensors and a string header, so loading an untrusted
file runs no code (unlike pickle). Writes go to a temporary file in the same
folder, then replace the target in one rename: an interrupted save leaves
the previous file intact. A temporary file that a killed process left behind
is removed by the next save into that folder. The file's mode follows the
umask, and an existing file keeps its own.

Loading checks the whole file before anything changes: a file that is not a
safetensors checkpoint, one saved from another stack, or one whose entries
hold the wrong kind of number (or a negative or non-finite variance or count)
is refused with an error that names the file and the entry.

Example:
    Statistics learned over 10 steps, saved, and loaded into a fresh stack:

    >>> import os, tempfile
    >>> import numpy as np
    >>> import gymnasium as gym
    >>> import anywrap
    >>> env = anywrap.NormalizeObservation(gym.make("Pendulum-v1"))
    >>> _ = env.reset(seed=0)
    >>> for _ in range(10):
    ...     _ = env.step(np.zeros(1, np.float32))
    >>> path = os.path.join(tempfile.mkdtemp(), "stats.safetensors")
    >>> anywrap.save_state(env, path)
    >>> fresh = anywrap.NormalizeObservation(gym.make("Pendulum-v1"))
    >>> round(float(fresh.obs_rms.count), 4), fresh.obs_rms.mean
    (0.0001, array([0., 0., 0.], dtype=float32))
    >>> anywrap.load_state(fresh, path)
    >>> round(float(fresh.obs_rms.count), 4), fresh.obs_rms.mean.round(3)
    (11.0001, array([0.203, 0.861, 2.679], dtype=float32))
    >>> bool(np.array_equal(fresh.obs_rms.var, env.obs_rms.var))
    True
"""

from __future__ import annotations

import contextlib
import os
import re
import tempfile
from typing import Any

import numpy as np

from anywrap.shell.base import Shell
from anywrap.xp import to_numpy

__all__ = ["CheckpointError", "load_state", "save_state", "stack_state_dict"]

_FORMAT = "anywrap.stack/1"
_TEMPORARY = re.compile(r"^\.anywrap-(\d+)-[^/]*\.tmp$")


class CheckpointError(ValueError):
    """A checkpoint file that cannot be read, or that does not fit the stack."""


def _stateful_layers(env: Any) -> list[tuple[str, Shell]]:
    """``(prefix, wrapper)`` for each anywrap stateful wrapper, outermost first."""
    layers = []
    depth = 0
    while env is not None:
        if isinstance(env, Shell) and env._state is not None:
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


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # another user's process: alive
        return True
    return True


def _remove_orphans(folder: str) -> None:
    """Remove the temporary files that killed saves left in ``folder``."""
    with contextlib.suppress(OSError):
        for name in os.listdir(folder):
            m = _TEMPORARY.match(name)
            if m and int(m.group(1)) != os.getpid() and not _alive(int(m.group(1))):
                with contextlib.suppress(OSError):
                    os.unlink(os.path.join(folder, name))


def _file_mode(path: str) -> int:
    """An existing file's mode, or what the umask gives a new file."""
    try:
        return os.stat(path).st_mode & 0o7777
    except FileNotFoundError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask


def save_state(env: Any, path: str | os.PathLike[str]) -> None:
    """Save the statistics of ``env``'s wrapper stack to a safetensors file, atomically.

    Raises:
        ValueError: the stack holds no anywrap wrapper with statistics.
        FileNotFoundError: the folder of ``path`` does not exist.
        IsADirectoryError: ``path`` is a folder.
    """
    from safetensors.numpy import save

    path = os.fspath(path)
    layers = _stateful_layers(env)
    if not layers:
        raise ValueError(
            f"anywrap.save_state: expected a stack with at least one anywrap wrapper that "
            f"keeps statistics (NormalizeObservation, NormalizeReward, RecordEpisodeStatistics, "
            f"...), got {env!r}; nothing was written to {path!r}"
        )
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        raise FileNotFoundError(
            f"anywrap.save_state: cannot write {path!r}: its folder {folder!r} does not exist"
        )
    if os.path.isdir(path):
        raise IsADirectoryError(
            f"anywrap.save_state: expected a file path, got the folder {path!r} "
            "(give a file name inside it, e.g. 'stats.safetensors'); nothing was written"
        )
    _remove_orphans(folder)
    # np.ascontiguousarray would turn 0-d counts into 1-d arrays.
    tensors = {k: np.array(to_numpy(v), order="C") for k, v in stack_state_dict(env).items()}
    mode = _file_mode(path)
    # The bytes are written here, into a file that this module's orphan sweep
    # knows: safetensors' own save_file goes through a temporary file of its
    # own, which a killed save would leave behind under a name of its choosing.
    data = save(tensors, metadata={"format": _FORMAT, "layers": ",".join(p for p, _ in layers)})
    fd, tmp = tempfile.mkstemp(prefix=f".anywrap-{os.getpid()}-", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def _read(path: str) -> tuple[dict[str, str], dict[str, np.ndarray]]:
    from safetensors import safe_open

    if not os.path.isfile(path):
        raise FileNotFoundError(f"anywrap.load_state: no checkpoint file at {path!r}")
    try:
        with safe_open(path, framework="numpy") as f:
            meta = f.metadata() or {}
            flat = {k: f.get_tensor(k) for k in f.keys()}
    except Exception as e:  # safetensors' own errors name neither the file nor anywrap
        raise CheckpointError(
            f"anywrap.load_state: {path!r} is not a readable safetensors checkpoint "
            f"({type(e).__name__}: {e})"
        ) from e
    return meta, flat


def load_state(env: Any, path: str | os.PathLike[str]) -> None:
    """Load statistics saved by :func:`save_state` into ``env``'s wrapper stack.

    The whole file is checked before any wrapper changes.

    Raises:
        FileNotFoundError: there is no file at ``path``.
        CheckpointError: (a ``ValueError``) the file is not a safetensors
            checkpoint, was saved from a stack of another shape (other
            wrappers, order or observation shapes), or holds an entry of the
            wrong kind of number or an invalid variance or count.
    """
    path = os.fspath(path)
    meta, flat = _read(path)
    layers = _stateful_layers(env)
    want = ",".join(p for p, _ in layers)
    if meta.get("format") != _FORMAT or meta.get("layers") != want:
        raise CheckpointError(
            f"anywrap.load_state: {path!r} holds the wrappers "
            f"[{meta.get('layers', '?')}], this stack has [{want}]"
        )
    states = []
    for prefix, layer in layers:
        part = {k[len(prefix) + 1 :]: v for k, v in flat.items() if k.startswith(prefix + ".")}
        try:
            states.append((layer, layer.checked_state(part)))
        except (KeyError, ValueError) as e:
            msg = e.args[0] if isinstance(e, KeyError) and e.args else str(e)
            raise CheckpointError(
                f"anywrap.load_state: {prefix} in {path!r} does not fit this stack: {msg}"
            ) from e
    for layer, state in states:
        layer._install(state)
