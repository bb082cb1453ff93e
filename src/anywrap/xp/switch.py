"""The switch of PyTorch's compiled path, and the record of what it compiled.

In order of precedence: :func:`set_compile`; ``ANYWRAP_TORCH_COMPILE`` (``0``/``1``/``auto``
and their words); the default ``auto``: compiled on accelerators, eager on the CPU.

Example:
    >>> from anywrap import xp
    >>> previous = xp.set_compile(False)
    >>> xp.compile_enabled()
    False
    >>> xp.set_compile(previous) is False  # returns the setting it replaced
    True
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass

ENV_VAR = "ANYWRAP_TORCH_COMPILE"  # turns PyTorch's compiled path on (1) or off (0)
KERNELS_VAR = "ANYWRAP_TORCH_CPU_KERNELS"  # a CPU program's build: vector, scalar or auto
AFTER_CALLS = 2000  # default: a signature is compiled on its 2000th call

_ON = frozenset({"1", "true", "on", "yes"})
_OFF = frozenset({"0", "false", "off", "no"})
_UNREAD = "unread"
_setting: bool | str | None = _UNREAD  # True: everywhere, False: nowhere, None: auto
_after_calls = AFTER_CALLS


class CompileNotice(UserWarning):
    """Said once per process, as PyTorch's compiled path starts its first compile."""


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
        kernels: On the CPU, which build was kept and why; ``None`` elsewhere.
        source: ``"compiled"``, ``"cache"`` (TorchInductor's disk cache) or ``"shared"``
            (another wrapper had compiled the same transform for the same signature).
        path: ``"torch.compile"``, or ``None`` (not compiled).
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


def _read(var: str, choices: list[str]) -> str:
    value = os.environ.get(var, "").strip().lower()
    if value and value not in choices:
        raise ValueError(
            f"anywrap: environment variable {var}={os.environ[var]!r}: expected one of {choices}"
        )
    return value


def cpu_kernels() -> str:
    """Which build a CPU program gets, from :data:`KERNELS_VAR`."""
    return _read(KERNELS_VAR, ["auto", "vector", "scalar"]) or "auto"


def compile_setting() -> bool | None:
    """The switch: True (every device), False (never) or None (``auto``: accelerators)."""
    global _setting
    if _setting == _UNREAD:
        value = _read(ENV_VAR, sorted(_ON | _OFF | {"auto"}))
        _setting = True if value in _ON else False if value in _OFF else None
    return _setting  # type: ignore[return-value]


def compile_enabled() -> bool:
    """Whether PyTorch's compiled path is on (on some devices at least)."""
    return compile_setting() is not False


def compiles_on_cpu() -> bool:
    """Whether CPU tensors are compiled too (``set_compile(True)`` or the variable ``1``)."""
    return compile_setting() is True


def compile_after_calls() -> int:
    """On which call a signature is compiled."""
    return _after_calls


def set_compile(enabled: bool | None, *, after_calls: int | None = None) -> bool | None:
    """Turn PyTorch's compiled path on, off or to ``auto``, for every wrapper.

    Args:
        enabled: True: compile on every device, the CPU included; False: never;
            None: ``auto``, the default (accelerators only).
        after_calls: If given, compile a signature on its ``after_calls``-th call
            (1: at once); the default is :data:`AFTER_CALLS`.

    Returns:
        The setting before the call (True, False or None), to restore it.
    """
    global _setting, _after_calls
    if enabled is not None and not isinstance(enabled, bool):
        raise TypeError(f"set_compile: expected enabled to be a bool or None, got {enabled!r}")
    if after_calls is not None and (
        isinstance(after_calls, bool) or not isinstance(after_calls, int) or after_calls < 1
    ):
        raise ValueError(
            f"set_compile: expected after_calls to be a positive int, got {after_calls!r}"
        )
    try:
        previous = compile_setting()
    except ValueError:  # a variable no setting reads: set_compile overrides it (auto before)
        previous = None
    if after_calls is not None:
        _after_calls = after_calls
    _setting = enabled
    return previous


def record_compile(record: CompileRecord) -> None:
    """Log ``record`` and tell the listeners (called by the backends' compilers)."""
    _log.append(record)
    notify("done", record.function, record.signature)


def compile_log() -> list[CompileRecord]:
    """Every compilation so far, oldest first (a copy)."""
    return list(_log)


def add_listener(listener: Callable[[str, str, str], None]) -> None:
    """Call ``listener(event, function, signature)`` as compiles start and end."""
    _listeners.append(listener)


def remove_listener(listener: Callable[[str, str, str], None]) -> None:
    """Stop calling ``listener``."""
    if listener in _listeners:
        _listeners.remove(listener)


def notify(event: str, function: str, signature: str) -> None:
    """Tell the listeners (called by the backends' compilers)."""
    for listener in list(_listeners):
        listener(event, function, signature)
