"""The switch of PyTorch's compiled path, and the record of what it compiled.

On PyTorch, :class:`anywrap.xp.Compiled` compiles each transform that a
stateful shell calls (see :mod:`anywrap.backends.torch_compile`): it is traced
once per signature (the shapes, strides, dtypes and devices of its tensors)
and compiled by TorchInductor, so that a wrapper's step is one fused program
instead of dozens of small kernels. Compiling costs seconds per transform and
signature, so a signature is compiled only once it has been called
:func:`compile_after_calls` times (64 by default): a short script, a doctest
or a reset called a few times never pays for it.

The switch, in order of precedence:

* :func:`set_compile` (``set_compile(False)``, or ``set_compile(True,
  after_calls=1)`` to compile at once); it applies to wrappers already built;
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
    64
"""

from __future__ import annotations

import os
from dataclasses import dataclass

__all__ = [
    "ENV_VAR",
    "KERNELS_VAR",
    "CompileRecord",
    "compile_after_calls",
    "compile_enabled",
    "compile_log",
    "cpu_kernels",
    "record_compile",
    "set_compile",
]

ENV_VAR = "ANYWRAP_TORCH_COMPILE"
"""The environment variable that turns PyTorch's compiled path on (1) or off (0)."""

KERNELS_VAR = "ANYWRAP_TORCH_CPU_KERNELS"
"""The environment variable that picks a CPU program's build: ``vector`` or ``scalar``
compiles that build alone; unset (or ``auto``), both are compiled and the faster kept."""

_KERNELS = ("auto", "vector", "scalar")

AFTER_CALLS = 64
"""Default: a signature is compiled on its 64th call (the first 63 run eagerly)."""

_ON = frozenset({"1", "true", "on", "yes"})
_OFF = frozenset({"0", "false", "off", "no"})

_enabled: bool | None = None
_after_calls = AFTER_CALLS


@dataclass(frozen=True)
class CompileRecord:
    """One compilation (or one refused compilation) of one transform for one signature.

    Attributes:
        library: The backend that compiled (``"torch"``).
        function: The transform's name (``"step_episodes"``).
        signature: The shapes, dtypes and devices it was compiled for, in words.
        seconds: Wall time of the trace and compilation.
        compiled: False when the transform could not be compiled and runs eagerly.
        reason: Why it could not (``None`` when it was compiled).
        kernels: On the CPU, which of the two builds was kept, with both timings
            (``"scalar (21.3 us a call; vector 35.0 us)"``); ``None`` elsewhere.
    """

    library: str
    function: str
    signature: str
    seconds: float
    compiled: bool = True
    reason: str | None = None
    kernels: str | None = None


_log: list[CompileRecord] = []


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
    """Which build a CPU program gets: ``"auto"`` (both compiled, the faster kept),
    ``"vector"`` or ``"scalar"``, from :data:`KERNELS_VAR` (read at each compilation).

    One build compiles in half the time, and every run keeps the same one; with
    ``"auto"`` two runs may keep different builds, whose results agree to the
    rounding of their dtype.

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
            (1: at once); the default is 64.

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
        _after_calls = after_calls
    previous = compile_enabled()
    _enabled = enabled
    return previous


def record_compile(record: CompileRecord) -> None:
    """Append ``record`` to the log (called by the backends' compilers)."""
    _log.append(record)


def compile_log() -> list[CompileRecord]:
    """Every compilation so far, oldest first (a copy)."""
    return list(_log)
