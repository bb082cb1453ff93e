"""Checkpoints of a whole wrapper stack's statistics, as safetensors files (loading one
runs no code, and checks the whole file before anything changes)."""

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
from anywrap.shell.checks import checked_entries, not_finite
from anywrap.xp import to_numpy

__all__ = ["CheckpointError", "load_state", "save_state", "stack_state_dict"]

_FORMAT = "anywrap.stack/1"
_FUNCTIONAL = "anywrap.functional/1"
T = TypeVar("T")
_TEMPORARY = re.compile(r"^\.anywrap-(\d+)-[^/]*\.tmp$")


class CheckpointError(ValueError):
    """A checkpoint file that cannot be read, or that does not fit the stack."""


def _stateful_layers(env: Any) -> dict[str, Shell]:
    """Each anywrap stateful wrapper by ``depth.Class``, outermost first."""
    layers, depth = {}, 0
    while env is not None:
        if isinstance(env, Shell) and env._state is not None:
            layers[f"{depth}.{type(env).__name__}"] = env
        env, depth = getattr(env, "env", None), depth + 1
    return layers


def stack_state_dict(env: Any) -> dict[str, Any]:
    """The statistics of every anywrap wrapper in ``env``'s stack, keyed ``depth.Class.field``."""
    return {
        f"{prefix}.{k}": v
        for prefix, layer in _stateful_layers(env).items()
        for k, v in layer.state_dict().items()
    }


def _is_functional(env: Any) -> bool:
    """Whether ``env`` is an anywrap.functional wrapper or adapter (without importing JAX)."""
    core = sys.modules.get("anywrap.functional.core")
    return core is not None and (
        isinstance(env, core.Wrapper) or type(env).__module__.startswith("anywrap.functional.")
    )


def _path(owner: str, path: Any) -> str:
    """``path`` as a str, or a TypeError naming ``owner`` (bytes paths are not taken)."""
    if isinstance(path, (str, os.PathLike)) and isinstance(name := os.fspath(path), str):
        return name
    raise TypeError(f"{owner}: expected `path` as a str or os.PathLike, got {path!r}")


def _write(path: str, tensors: dict[str, np.ndarray], metadata: dict[str, str]) -> None:
    """Write a temporary file in the same folder, then rename it over ``path`` (same mode)."""
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
    with contextlib.suppress(OSError):  # remove the temporary files that killed saves left
        for name in os.listdir(folder):
            m = _TEMPORARY.match(name)
            if m and int(m.group(1)) != os.getpid():
                with contextlib.suppress(OSError):  # another user's process: alive
                    try:
                        os.kill(int(m.group(1)), 0)
                    except ProcessLookupError:  # gone: its save was killed
                        os.unlink(os.path.join(folder, name))
    try:  # the file keeps its mode; a new one gets what the umask gives
        mode = os.stat(path).st_mode & 0o7777
    except FileNotFoundError:
        os.umask(umask := os.umask(0))  # read, then restored
        mode = 0o666 & ~umask
    # Not safetensors' save_file: a killed save would leave its temporary file, unswept.
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

    ``state``: a functional stack's state, which holds its statistics. The file does not
    depend on the number of envs, devices or processes; over several JAX processes only
    process 0 writes, and each statistic must be replicated (as ``shard_specs`` places it).

    Example:
        >>> import os, tempfile, jax, jax.numpy as jnp, gymnax, anywrap
        >>> from anywrap import functional as F
        >>> env = F.NormalizeObservation(F.from_gymnax(gymnax.make("Pendulum-v1")[0], num_envs=4))
        >>> _, state = env.reset(jax.random.key(0))
        >>> state = env.step(state, jnp.ones((4, 1))).state
        >>> path = os.path.join(tempfile.mkdtemp(), "stats.safetensors")
        >>> anywrap.save_state(env, path, state=state)
        >>> loaded = anywrap.load_state(env, path, state=env.reset(jax.random.key(1))[1])
        >>> round(float(loaded.obs_stats.count), 4)  # 4 observations at reset, 4 at the step
        8.0001
    """
    path = _path("anywrap.save_state", path)
    if state is None:
        prefixes = list(_stateful_layers(env))
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
    if state is not None:
        from anywrap.functional.sharding import writes_checkpoints

        if not writes_checkpoints():  # another JAX process than 0
            return
    tensors: dict[str, np.ndarray] = {}
    for key, value in entries.items():
        try:  # (not np.ascontiguousarray, which turns 0-d counts into 1-d arrays)
            tensors[key] = host = np.array(to_numpy(value), order="C")
        except RuntimeError as e:  # JAX: an array over devices of other processes
            raise ValueError(
                f"anywrap.save_state: expected {key} replicated on every process (P(), as "
                f"anywrap.functional.shard_specs places it), got {value.sharding}; nothing was "
                f"written to {path!r}"
            ) from e
        if not_finite(key, host):  # load_state would refuse it: a file that saves, loads
            raise CheckpointError(
                f"anywrap.save_state: expected finite statistics, got {key} = "
                f"{np.array2string(host, threshold=6)}: they overflowed and cannot be restored; "
                "clip the data first, or keep the statistics in float64 (stats_dtype='float64'). "
                f"Nothing was written to {path!r}"
            )
    _write(path, tensors, {"format": fmt, "layers": ",".join(prefixes)})


def _functional_entries(owner: str, env: Any, state: Any) -> tuple[list[str], dict[str, Any]]:
    """The layers and statistics (by key) of a functional stack's ``state``."""
    if not _is_functional(env):
        raise ValueError(
            f"{owner}: expected `state` only with an anywrap.functional stack, "
            f"got {env!r}, whose wrappers hold their own statistics"
        )
    from anywrap.functional.sharding import global_entries

    entries = global_entries(owner, env, state)
    return list(dict.fromkeys(".".join(k.split(".", 2)[:2]) for k in entries)), entries


def _layer_map(
    meta: dict[str, str], fmt: str, own: list[str], strict: bool, mismatch: str
) -> dict[str, str]:
    """Which saved layer each of ``own``'s layers loads (see :func:`load_state`'s ``strict``)."""
    saved = [p for p in meta.get("layers", "").split(",") if p]
    if meta.get("format") == fmt:
        matched = {p: p for p in own} if saved == own else {}
        if not matched and not strict:
            queues: dict[str, list[str]] = {}  # the saved layers of each class, taken in order
            for prefix in saved:
                queues.setdefault(prefix.partition(".")[2], []).append(prefix)
            matched = {p: q.pop(0) for p in own if (q := queues.get(p.partition(".")[2]))}
        if matched:
            return matched
        if strict:
            mismatch += (
                "; to load the statistics of the wrappers this stack has and the file holds "
                "(an evaluation stack with fewer wrappers), pass strict=False"
            )
    raise CheckpointError(mismatch)


@overload
def load_state(env: Any, path: str | os.PathLike[str], *, strict: bool = True) -> None: ...
@overload
def load_state(env: Any, path: str | os.PathLike[str], *, state: T, strict: bool = True) -> T: ...
def load_state(
    env: Any, path: str | os.PathLike[str], *, state: Any = None, strict: bool = True
) -> Any:
    """Load statistics saved by :func:`save_state` into ``env``'s wrapper stack, in place;
    the whole file is checked first (a :class:`CheckpointError` says what does not fit).

    ``state``: for a functional stack, a template state (a fresh ``env.reset``), returned
    with the file's statistics. ``strict=False`` loads each wrapper from the saved one of
    its class (the n-th for the n-th); at least one must match.

    Example:
        A training stack's file, loaded into an evaluation stack:

        >>> import os, tempfile, numpy as np, gymnasium as gym, anywrap
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
    """
    path = _path("anywrap.load_state", path)
    if not isinstance(strict, (bool, np.bool_)):
        raise TypeError(f"anywrap.load_state: expected `strict` to be a bool, got {strict!r}")
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
    # save_state writes every entry under a saved layer: others mean a damaged or foreign file
    saved = tuple(p + "." for p in meta.get("layers", "").split(",") if p)
    if strict and saved and (stray := sorted(k for k in flat if not k.startswith(saved))):
        raise CheckpointError(
            f"anywrap.load_state: {path!r} holds entries of no saved wrapper, {stray[:4]} "
            "(a damaged or foreign checkpoint); nothing was loaded"
        )
    if state is not None:
        return _load_functional(env, path, meta, flat, state, bool(strict))
    layers = _stateful_layers(env)
    hint = " (a functional stack's statistics: load them with state=)"
    mismatch = (
        f"anywrap.load_state: {path!r} holds the wrappers [{meta.get('layers', '?')}]"
        f"{hint if meta.get('format') == _FUNCTIONAL else ''}, this stack has [{','.join(layers)}]"
    )
    source = _layer_map(meta, _FORMAT, list(layers), bool(strict), mismatch)
    states = [
        (layers[prefix], _checked(prefix, path, layers[prefix].checked_state, _part(flat, saved)))
        for prefix, saved in source.items()
    ]
    for layer, state in states:
        layer._install(state)


def _part(flat: dict[str, np.ndarray], saved: str, prefix: str = "") -> dict[str, np.ndarray]:
    """The entries of the saved layer ``saved``, keyed after ``prefix``."""
    return {prefix + k[len(saved) + 1 :]: v for k, v in flat.items() if k.startswith(saved + ".")}


def _checked(prefix: str, path: str, check: Any, *args: Any) -> Any:
    """``check(*args)``, whose refusal names the layer ``prefix`` that does not fit."""
    try:
        return check(*args)
    except (KeyError, ValueError) as e:
        msg = e.args[0] if isinstance(e, KeyError) and e.args else str(e)
        raise CheckpointError(
            f"anywrap.load_state: {prefix} in {path!r} does not fit this stack: {msg}"
        ) from e


def _load_functional(
    env: Any, path: str, meta: dict[str, str], flat: dict[str, np.ndarray], state: Any, strict: bool
) -> Any:
    from anywrap.functional.sharding import with_global_entries

    owner = "anywrap.load_state"
    prefixes, entries = _functional_entries(owner, env, state)
    kind = {_FORMAT: "a stateful stack's", _FUNCTIONAL: "the"}.get(meta.get("format", ""))
    mismatch = (
        f"{owner}: {path!r} holds {kind or 'no anywrap'} statistics of the wrappers "
        f"[{meta.get('layers', '?')}], this functional stack has [{','.join(prefixes)}]"
    )
    source = _layer_map(meta, _FUNCTIONAL, prefixes, strict, mismatch)
    values = dict(entries)  # the layers that load nothing keep their own statistics
    for prefix, saved in source.items():
        mine = _part(entries, prefix, prefix + ".")
        own = {k: (tuple(v.shape), np.dtype(v.dtype)) for k, v in mine.items()}
        given = _part(flat, saved, prefix + ".")
        who = f"anywrap.functional.{prefix.partition('.')[2]}"
        values.update(zip(own, _checked(prefix, path, checked_entries, who, own, given)))
    return with_global_entries(owner, env, state, values)
