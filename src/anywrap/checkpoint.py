"""Checkpoints of a whole wrapper stack's statistics, as safetensors files.

safetensors holds plain tensors and a string header: loading a file runs no
code. Loading checks the whole file before anything changes. A functional
stack's statistics live in its state, which both functions then take
(``state=``).

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
import sys
import tempfile
from typing import Any, TypeVar, overload

import numpy as np

from anywrap._extras import require
from anywrap.shell.base import Shell
from anywrap.shell.checks import checked_entries
from anywrap.xp import to_numpy

__all__ = ["CheckpointError", "load_state", "save_state", "stack_state_dict"]

_FORMAT = "anywrap.stack/1"
_FUNCTIONAL = "anywrap.functional/1"
T = TypeVar("T")
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


def _is_functional(env: Any) -> bool:
    """Whether ``env`` is an anywrap.functional wrapper or adapter (without importing JAX)."""
    core = sys.modules.get("anywrap.functional.core")  # loaded wherever such an env exists
    return core is not None and (
        isinstance(env, core.Wrapper) or type(env).__module__.startswith("anywrap.functional.")
    )


def _write(path: str, tensors: dict[str, np.ndarray], metadata: dict[str, str]) -> None:
    """Write ``tensors`` to ``path`` as safetensors, atomically.

    The bytes go to a temporary file in the same folder, renamed over the
    target: an interrupted save leaves the previous file intact, and the next
    save into the folder removes what a killed one left. The mode follows the
    umask; an existing file keeps its own.
    """
    save = require("safetensors.numpy", "anywrap.save_state").save

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
    mode = _file_mode(path)
    # The bytes are written here, into a file that this module's orphan sweep
    # knows: safetensors' own save_file goes through a temporary file of its
    # own, which a killed save would leave behind under a name of its choosing.
    data = save(tensors, metadata=metadata)
    fd, tmp = tempfile.mkstemp(prefix=f".anywrap-{os.getpid()}-", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException as e:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        if isinstance(e, OSError):  # a full disk, a quota: name the file, say what is kept
            kept = "the previous file is intact" if os.path.exists(path) else "nothing was written"
            raise type(e)(
                e.errno, f"anywrap.save_state: could not write {path!r} ({e.strerror or e}); {kept}"
            ) from e
        raise


def save_state(env: Any, path: str | os.PathLike[str], *, state: Any = None) -> None:
    """Save the statistics of ``env``'s wrapper stack to a safetensors file, atomically.

    A functional stack's statistics live in its state: pass it as ``state``.
    The file then holds the statistics of the whole batch, each once: the
    moments of ``NormalizeObservation`` and ``NormalizeReward``, and the
    episode count and recent-episode buffer of ``RecordEpisodeStatistics``
    (the ``global_fields`` each wrapper declares). The parts with one row per
    env (running returns, episode clocks, each env's last episode) are not
    saved: they belong to the episodes in flight, whose env state the file
    does not hold, so :func:`load_state` keeps the template's (a fresh
    reset's). So the file does not depend on the number of envs, devices or
    processes: one written by 2 processes over 4 devices loads into one
    process, and the reverse.

    Over several JAX processes (``jax.distributed``), process 0 writes the file
    and the others write nothing; each may call this (the statistics are
    replicated, so no process waits for another). Every statistic must be
    readable on process 0: replicated, as :func:`anywrap.functional.shard_specs`
    places it. To read the file from another process, wait for process 0 first
    (e.g. ``jax.experimental.multihost_utils.sync_global_devices``).

    Example:
        >>> import os, tempfile
        >>> import jax, jax.numpy as jnp, gymnax
        >>> import anywrap
        >>> from anywrap import functional as F
        >>> env = F.NormalizeObservation(F.from_gymnax(gymnax.make("Pendulum-v1")[0], num_envs=4))
        >>> _, state = env.reset(jax.random.key(0))
        >>> for _ in range(10):
        ...     state = env.step(state, jnp.ones((4, 1))).state
        >>> path = os.path.join(tempfile.mkdtemp(), "stats.safetensors")
        >>> anywrap.save_state(env, path, state=state)
        >>> _, fresh = env.reset(jax.random.key(1))  # other episodes, 4 observations seen
        >>> loaded = anywrap.load_state(env, path, state=fresh)
        >>> round(float(loaded.obs_stats.count), 4), round(float(fresh.obs_stats.count), 4)
        (44.0001, 4.0001)
        >>> bool(jnp.array_equal(loaded.obs_stats.var, state.obs_stats.var))
        True

    Raises:
        ValueError: the stack holds no anywrap wrapper with statistics, a
            functional stack comes without its ``state`` (or a stateful one
            with one), or a statistic is split over other processes' devices.
        FileNotFoundError: the folder of ``path`` does not exist.
        IsADirectoryError: ``path`` is a folder.
    """
    path = os.fspath(path)
    if state is None:
        prefixes = [p for p, _ in _stateful_layers(env)]
        entries, fmt = stack_state_dict(env), _FORMAT
    else:
        try:
            prefixes, entries = _functional_entries("anywrap.save_state", env, state)
        except ValueError as e:
            raise ValueError(f"{e}; nothing was written to {path!r}") from None
        fmt = _FUNCTIONAL
    if not prefixes:
        hint = (
            "; a functional stack keeps its statistics in its state: pass it, "
            "save_state(env, path, state=state)"
            if _is_functional(env) and state is None
            else ""
        )
        raise ValueError(
            f"anywrap.save_state: expected a stack with at least one anywrap wrapper that "
            f"keeps statistics (NormalizeObservation, NormalizeReward, RecordEpisodeStatistics, "
            f"...), got {env!r}; nothing was written to {path!r}{hint}"
        )
    if state is not None and not _writes_checkpoints():  # another JAX process than 0
        return
    # np.ascontiguousarray would turn 0-d counts into 1-d arrays.
    tensors = {k: _host(k, v, path) for k, v in entries.items()}
    _write(path, tensors, {"format": fmt, "layers": ",".join(prefixes)})


def _host(key: str, value: Any, path: str) -> np.ndarray:
    try:
        return np.array(to_numpy(value), order="C")
    except RuntimeError as e:  # JAX: an array over devices of other processes
        raise ValueError(
            f"anywrap.save_state: expected {key} replicated on every process (P(), as "
            f"anywrap.functional.shard_specs places it), got {value.sharding}; nothing was "
            f"written to {path!r}"
        ) from e


def _writes_checkpoints() -> bool:
    from anywrap.functional.sharding import writes_checkpoints

    return writes_checkpoints()


def _prefix(key: str) -> str:
    """The layer (``depth.Wrapper``) of a functional checkpoint key."""
    return ".".join(key.split(".", 2)[:2])


def _functional_entries(owner: str, env: Any, state: Any) -> tuple[list[str], dict[str, Any]]:
    """The layers and statistics (by key) of a functional stack's ``state``."""
    if not _is_functional(env):
        raise ValueError(
            f"{owner}: expected `state` only with an anywrap.functional stack, "
            f"got {env!r}, whose wrappers hold their own statistics"
        )
    from anywrap.functional.sharding import global_entries

    entries = global_entries(owner, env, state)
    return list(dict.fromkeys(_prefix(k) for k in entries)), entries


def _read(path: str) -> tuple[dict[str, str], dict[str, np.ndarray]]:
    safe_open = require("safetensors", "anywrap.load_state").safe_open

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


def _by_class(own: list[str], saved: list[str]) -> dict[str, str]:
    """Each of ``own``'s layers (``depth.Wrapper``) to the saved layer it takes its
    statistics from: the n-th saved layer of the same class for the n-th own one."""
    queues: dict[str, list[str]] = {}
    for prefix in saved:
        queues.setdefault(prefix.partition(".")[2], []).append(prefix)
    matched = {}
    for prefix in own:
        queue = queues.get(prefix.partition(".")[2])
        if queue:
            matched[prefix] = queue.pop(0)
    return matched


def _layer_map(
    path: str, meta: dict[str, str], fmt: str, own: list[str], strict: bool, mismatch: str
) -> dict[str, str]:
    """Which saved layer each of ``own``'s layers loads (see :func:`load_state`)."""
    saved = [p for p in meta.get("layers", "").split(",") if p]
    if meta.get("format") == fmt:
        if saved == own:
            return {p: p for p in own}
        if not strict:
            matched = _by_class(own, saved)
            if matched:
                return matched
    hint = (
        ""
        if not strict or meta.get("format") != fmt
        else (
            "; to load the statistics of the wrappers this stack has and the file holds "
            "(an evaluation stack with fewer wrappers), pass strict=False"
        )
    )
    raise CheckpointError(mismatch + hint)


@overload
def load_state(env: Any, path: str | os.PathLike[str], *, strict: bool = True) -> None: ...
@overload
def load_state(env: Any, path: str | os.PathLike[str], *, state: T, strict: bool = True) -> T: ...
def load_state(
    env: Any, path: str | os.PathLike[str], *, state: Any = None, strict: bool = True
) -> Any:
    """Load statistics saved by :func:`save_state` into ``env``'s wrapper stack.

    The whole file is checked before any wrapper changes. For a functional
    stack, pass a state of it as ``state`` (the template, usually a fresh
    ``env.reset``, run where the training state lives): the state returned
    is the template with the file's statistics, each on the devices and with
    the sharding of the template's array it replaces (every process reads the
    file and builds its own shards); the per-env parts are the template's
    (see :func:`save_state`). Nothing is returned for a stateful stack, whose
    wrappers change in place.

    ``strict=False`` loads into each wrapper with statistics the statistics of
    the saved wrapper of the same class (the n-th saved ``NormalizeObservation``
    for the n-th one of this stack), so that an evaluation stack that holds only
    the observation normaliser takes it from a training stack's file. Wrappers
    the file lacks keep their state, and saved ones this stack lacks are left
    out; at least one must match. (As ``strict=False`` in PyTorch's
    ``load_state_dict``.) Each loaded wrapper is checked as with ``strict=True``.

    Example:
        A training stack's file, loaded into an evaluation stack that holds
        only the observation normaliser:

        >>> import os, tempfile
        >>> import numpy as np
        >>> import gymnasium as gym
        >>> import anywrap
        >>> train = anywrap.NormalizeReward(anywrap.NormalizeObservation(gym.make("Pendulum-v1")))
        >>> _ = train.reset(seed=0)
        >>> for _ in range(10):
        ...     _ = train.step(np.zeros(1, np.float32))
        >>> path = os.path.join(tempfile.mkdtemp(), "stats.safetensors")
        >>> anywrap.save_state(train, path)
        >>> evaluation = anywrap.NormalizeObservation(gym.make("Pendulum-v1"))
        >>> anywrap.load_state(evaluation, path, strict=False)
        >>> round(float(evaluation.obs_rms.count), 4)
        11.0001

    Raises:
        FileNotFoundError: there is no file at ``path``.
        CheckpointError: (a ``ValueError``) the file is not a safetensors
            checkpoint, was saved from a stack of another shape (other
            wrappers, order or observation shapes; with ``strict=False``, no
            wrapper of this stack's classes) or kind (stateful or functional),
            or holds an entry of the wrong kind of number or an invalid
            variance or count.
    """
    path = os.fspath(path)
    if not isinstance(strict, (bool, np.bool_)):
        raise TypeError(f"anywrap.load_state: expected `strict` to be a bool, got {strict!r}")
    meta, flat = _read(path)
    if state is not None:
        return _load_functional(env, path, meta, flat, state, bool(strict))
    layers = _stateful_layers(env)
    want = ",".join(p for p, _ in layers)
    hint = (
        " (a functional stack's statistics: load them with state=)"
        if meta.get("format") == _FUNCTIONAL
        else ""
    )
    source = _layer_map(
        path,
        meta,
        _FORMAT,
        [p for p, _ in layers],
        bool(strict),
        f"anywrap.load_state: {path!r} holds the wrappers "
        f"[{meta.get('layers', '?')}]{hint}, this stack has [{want}]",
    )
    states = []
    for prefix, layer in layers:
        if prefix not in source:
            continue
        saved = source[prefix] + "."
        part = {k[len(saved) :]: v for k, v in flat.items() if k.startswith(saved)}
        try:
            states.append((layer, layer.checked_state(part)))
        except (KeyError, ValueError) as e:
            raise _misfit(prefix, path, e) from e
    for layer, state in states:
        layer._install(state)
    return None


def _misfit(prefix: str, path: str, e: Exception) -> CheckpointError:
    msg = e.args[0] if isinstance(e, KeyError) and e.args else str(e)
    return CheckpointError(
        f"anywrap.load_state: {prefix} in {path!r} does not fit this stack: {msg}"
    )


def _load_functional(
    env: Any, path: str, meta: dict[str, str], flat: dict[str, np.ndarray], state: Any, strict: bool
) -> Any:
    from anywrap.functional.sharding import with_global_entries

    owner = "anywrap.load_state"
    prefixes, entries = _functional_entries(owner, env, state)
    want = ",".join(prefixes)
    kind = {_FORMAT: "a stateful stack's", _FUNCTIONAL: "the"}.get(meta.get("format", ""))
    source = _layer_map(
        path,
        meta,
        _FUNCTIONAL,
        prefixes,
        strict,
        f"{owner}: {path!r} holds {kind or 'no anywrap'} statistics of the wrappers "
        f"[{meta.get('layers', '?')}], this functional stack has [{want}]",
    )
    values: dict[str, np.ndarray] = {}
    for prefix in prefixes:
        if prefix not in source:
            values.update({k: v for k, v in entries.items() if k.startswith(prefix + ".")})
            continue
        own = {
            k: (tuple(v.shape), np.dtype(v.dtype))
            for k, v in entries.items()
            if k.startswith(prefix + ".")
        }
        saved = source[prefix] + "."
        given = {prefix + "." + k[len(saved) :]: v for k, v in flat.items() if k.startswith(saved)}
        who = f"anywrap.functional.{prefix.partition('.')[2]}"
        try:
            values.update(zip(own, checked_entries(who, own, given)))
        except (KeyError, ValueError) as e:
            raise _misfit(prefix, path, e) from e
    return with_global_entries(owner, env, state, values)
