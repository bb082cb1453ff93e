"""The switch of PyTorch's compiled path, and the record of what it compiled.

On PyTorch, :class:`anywrap.xp.Compiled` compiles each transform that a
stateful shell calls (see :mod:`anywrap.backends.torch_compile`): it is
compiled once per signature (the shapes, strides, dtypes and devices of its
tensors) by the public ``torch.compile``, so that a wrapper's step is one
fused program instead of dozens of small kernels (at 4096 CPU envs the
CleanRL stack adds about 0.6 ms a step compiled, 0.7 ms eagerly: most of
the compiled time is ``torch.compile``'s guarded entry; see
docs/performance.md).

Compiling costs seconds: the first compile in a process 5 to 20 s on two CPU
cores (TorchDynamo, TorchInductor and the C++ compiler start), the next a
second or two each. A short script must never pay that, so a signature is compiled only once it has
been called :func:`compile_after_calls` times (:data:`AFTER_CALLS`: 2000 by
default): a doctest, an evaluation or a debugging run never compiles, and a
training run pays once, on the calling thread, at a step that is the same on
every run (a background compile was measured and rejected: on two cores it
made the eager steps around it 2 to 3 times slower). A program is shared by
every wrapper and stack that calls the same transform with the same
signature, and TorchInductor's disk cache makes the compiles of later runs
cheaper; the log says where each program came from (``source``).

The first compile in a process is announced once, before it starts, as a
:class:`CompileNotice` warning (a ``UserWarning`` users can filter), naming
the transform, its shapes and how to turn compiling off; listeners
(:func:`add_listener`) hear each compile start and end (the demo's progress
bar says "compiling").

The switch, in order of precedence:

* :func:`set_compile` (``set_compile(False)``, or ``set_compile(True,
  after_calls=64)`` to compile sooner in a long run); it applies to wrappers
  already built;
* the environment variable ``ANYWRAP_TORCH_COMPILE``: ``0`` / ``false`` /
  ``off`` / ``no`` turn compilation off, ``1`` / ``true`` / ``on`` / ``yes``
  on; it is read the first time the switch is asked;
* the default: on.

With the switch off every transform runs eagerly, with the same formulas.

This module imports no array library (``import anywrap`` stays light).

Example:
    >>> from anywrap import xp
    >>> previous = xp.set_compile(False)
    >>> xp.compile_enabled()
    False
    >>> _ = xp.set_compile(previous)
    >>> xp.switch.compile_after_calls()
    2000
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass

__all__ = [
    "ENV_VAR",
    "KERNELS_VAR",
    "CompileNotice",
    "CompileRecord",
    "add_listener",
    "compile_after_calls",
    "compile_enabled",
    "compile_log",
    "cpu_kernels",
    "notify",
    "record_compile",
    "remove_listener",
    "set_compile",
]

ENV_VAR = "ANYWRAP_TORCH_COMPILE"
"""The environment variable that turns PyTorch's compiled path on (1) or off (0)."""

KERNELS_VAR = "ANYWRAP_TORCH_CPU_KERNELS"
"""The environment variable that picks a CPU program's build: ``vector`` or ``scalar``;
unset (or ``auto``), scalar kernels for a program that writes ``bool`` tensors and
vector kernels otherwise (a rule, not a timing: every run keeps the same build)."""

_KERNELS = ("auto", "vector", "scalar")

AFTER_CALLS = 2000
"""Default: a signature is compiled on its 2000th call (the first 1999 run eagerly): a
run of 1500 steps never compiles; a compile pays for itself some thousands of steps
later (10,000 at 4096 CPU envs on a first run, 2,000 with a warm cache)."""

_ON = frozenset({"1", "true", "on", "yes"})
_OFF = frozenset({"0", "false", "off", "no"})

_enabled: bool | None = None
_after_calls = AFTER_CALLS


class CompileNotice(UserWarning):
    """Said once per process, as PyTorch's compiled path starts its first compile:
    what compiles, for which shapes, and how to turn it off. Filter it with
    ``warnings.filterwarnings("ignore", category=anywrap.xp.switch.CompileNotice)``."""


@dataclass(frozen=True)
class CompileRecord:
    """One compilation (or one refused compilation) of one transform for one signature.

    Attributes:
        library: The backend that compiled (``"torch"``).
        function: The transform's name (``"step_episodes"``).
        signature: The shapes, dtypes and devices it was compiled for, in words.
        seconds: Wall time of the trace and compilation (0 for a shared program).
        compiled: False when the transform could not be compiled and runs eagerly.
        reason: Why it could not (``None`` when it was compiled).
        kernels: On the CPU, which build was kept and why (``"scalar (writes bool
            tensors)"``); ``None`` elsewhere.
        source: Where the program came from: ``"compiled"``; ``"cache"``
            (TorchInductor's disk cache had it); ``"shared"`` (another wrapper or
            stack had compiled the same transform for the same signature).
        path: How it was compiled: ``"torch.compile"`` (the public entry point,
            the only one anywrap uses) or ``None`` (not compiled).
    """

    library: str
    function: str
    signature: str
    seconds: float
    compiled: bool = True
    reason: str | None = None
    kernels: str | None = None
    source: str = "compiled"
    path: str | None = "torch.compile"


_log: list[CompileRecord] = []
_listeners: list[Callable[[str, str, str], None]] = []


def _from_environment() -> bool:
    value = os.environ.get(ENV_VAR, "").strip().lower()
    if not value or value in _ON:
        return True
    if value in _OFF:
        return False
    raise ValueError(
        f"anywrap: environment variable {ENV_VAR}={os.environ[ENV_VAR]!r}: expected one of "
        f"{sorted(_ON | _OFF)}"
    )


def cpu_kernels() -> str:
    """Which build a CPU program gets: ``"auto"`` (scalar kernels where the program
    writes ``bool`` tensors, vector kernels elsewhere), ``"vector"`` or ``"scalar"``,
    from :data:`KERNELS_VAR` (read at each compilation).

    Raises:
        ValueError: the variable holds another value.
    """
    value = os.environ.get(KERNELS_VAR, "").strip().lower() or "auto"
    if value not in _KERNELS:
        raise ValueError(
            f"anywrap: environment variable {KERNELS_VAR}={os.environ[KERNELS_VAR]!r}: "
            f"expected one of {list(_KERNELS)}"
        )
    return value


def compile_enabled() -> bool:
    """Whether PyTorch's transforms are compiled (see the module's docstring)."""
    global _enabled
    if _enabled is None:
        _enabled = _from_environment()
    return _enabled


def compile_after_calls() -> int:
    """How many calls with one signature run eagerly before it is compiled (counting
    the call that compiles)."""
    return _after_calls


def set_compile(enabled: bool, *, after_calls: int | None = None) -> bool:
    """Turn PyTorch's compiled path on or off, for wrappers built before and after.

    Args:
        enabled: Whether to compile.
        after_calls: If given, compile a signature on its ``after_calls``-th call
            (1: at once); the default is :data:`AFTER_CALLS`.

    Returns:
        Whether compilation was on before the call (to restore it).

    Raises:
        TypeError: ``enabled`` is not a bool.
        ValueError: ``after_calls`` is not a positive int.
    """
    global _enabled, _after_calls
    if not isinstance(enabled, bool):
        raise TypeError(f"set_compile: expected enabled to be a bool, got {enabled!r}")
    if after_calls is not None:
        if isinstance(after_calls, bool) or not isinstance(after_calls, int) or after_calls < 1:
            raise ValueError(
                f"set_compile: expected after_calls to be a positive int, got {after_calls!r}"
            )
    previous = compile_enabled()
    if after_calls is not None:
        _after_calls = after_calls
    _enabled = enabled
    return previous


def record_compile(record: CompileRecord) -> None:
    """Append ``record`` to the log (called by the backends' compilers)."""
    _log.append(record)
    notify("done", record.function, record.signature)


def compile_log() -> list[CompileRecord]:
    """Every compilation so far, oldest first (a copy)."""
    return list(_log)


def add_listener(listener: Callable[[str, str, str], None]) -> None:
    """Call ``listener(event, function, signature)`` as compiles start (``"start"``)
    and end (``"done"``): a progress bar can say what the process is doing. A
    listener runs on the thread that compiles, and must not raise."""
    _listeners.append(listener)


def remove_listener(listener: Callable[[str, str, str], None]) -> None:
    """Stop calling ``listener``."""
    if listener in _listeners:
        _listeners.remove(listener)


def notify(event: str, function: str, signature: str) -> None:
    """Tell the listeners (called by the backends' compilers)."""
    for listener in list(_listeners):
        listener(event, function, signature)
