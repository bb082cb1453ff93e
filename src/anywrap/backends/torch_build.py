"""How :mod:`anywrap.backends.torch_compile` reads a call and builds its program: the
call's signature (each tensor's shape, strides, dtype and device; every other leaf's
value), and :func:`trace_and_compile`, which compiles one signature with the public
``torch.compile(fullgraph=True, dynamic=False)`` and runs it once.

Example:
    >>> import torch
    >>> from anywrap.backends.torch_build import _describe
    >>> _describe([torch.zeros(2, 3), 0.5])
    'float32[2, 3]@cpu, float'
"""

from __future__ import annotations

import functools
import math
import types
from collections.abc import Callable, Sequence
from typing import Any

import torch
from torch.overrides import TorchFunctionMode

from anywrap.tree import Structure, flatten_with_paths, is_branch, leaves, tree_map
from anywrap.xp import switch

_CONSTANT_LEAVES = (type(None), bool, int, str)
"""Non-tensor leaves that a program may bake in (they are part of the signature)."""


def _name(fn: Callable[..., Any]) -> str:
    inner = fn
    while isinstance(inner, functools.partial):
        inner = inner.func
    return getattr(inner, "__qualname__", None) or getattr(inner, "__name__", None) or repr(fn)


_BRANCH = object()
"""What :func:`_signature` returns for a branch where the structure had a leaf."""


def _signature(structure: Structure, flat: list[Any]) -> Any:
    """The cache key of a call: ``None`` when it holds a leaf no program takes,
    :data:`_BRANCH` when it holds a branch where ``structure`` has a leaf."""
    key: list[Any] = [structure]
    for x in flat:
        if isinstance(x, torch.Tensor):
            if x.requires_grad:
                return None
            key.append((x.shape, x.stride(), x.dtype, x.device))
        elif type(x) is float:
            key.append(float)
        elif isinstance(x, _CONSTANT_LEAVES):
            key.append((type(x), x))
        else:
            return _BRANCH if is_branch(x) else None
    return tuple(key)


def _plan(flat: list[Any]) -> list[tuple[int, torch.dtype | None, torch.device | None]]:
    """Where :func:`_inputs` finds each input in ``flat``: ``(position, None, None)``
    for a tensor, ``(position, dtype, device)`` for a float made a 0-d tensor."""
    device = _device_of(flat)
    plan: list[tuple[int, torch.dtype | None, torch.device | None]] = []
    for i, x in enumerate(flat):
        if isinstance(x, torch.Tensor):
            plan.append((i, None, None))
        elif type(x) is float:
            plan.append((i, _float_dtype(device), device))
    return plan


def _describe(flat: list[Any]) -> str:
    parts = []
    for x in flat:
        if isinstance(x, torch.Tensor):
            dtype = str(x.dtype).removeprefix("torch.")
            parts.append(f"{dtype}{list(x.shape)}@{x.device}")
        elif type(x) is float:
            parts.append("float")
    return ", ".join(parts) or "no tensors"


def _form(expected: Any) -> list[tuple[Any, Any]]:
    """The eager outputs' tree and constants, without their tensors' values (what
    :func:`_check_form` compares)."""
    return [
        (p, _SLOT if isinstance(w, torch.Tensor) else w) for p, w in flatten_with_paths(expected)
    ]


def _check_form(template: Any, expected: Any) -> None:
    """The program's outputs must have the eager outputs' tree, and its constants."""
    got = flatten_with_paths(template)
    want = expected if isinstance(expected, list) else _form(expected)
    if [p for p, _ in got] != [p for p, _ in want]:
        raise ValueError("the traced outputs' tree differs from the eager outputs'")
    for (path, g), (_, w) in zip(got, want):
        if g is _SLOT:
            if w is not _SLOT:
                raise ValueError(f"output {path}: a tensor when traced, {type(w)} eagerly")
        elif w is _SLOT or type(g) is not type(w) or g != w:
            raise ValueError(f"output {path}: {g!r} when traced, {w!r} eagerly")


# ------------------------------------------------------------------ compiling
SMALL_PROGRAM = 8
"""A transform of at most this many torch calls runs eagerly. A call through
``torch.compile`` has a fixed cost (TorchDynamo's frame, guards and runtime wrappers:
60 to 80 us on a CPU, whatever the program) that about ten eager calls add up to, on a
CPU or as CUDA launches; ClipAction's clip and cast (three calls) cost 2 to 3 times
more compiled than eager at 4096 envs."""

INDUCTOR_OPTIONS = {
    "size_asserts": False,
    "alignment_asserts": False,
    "scalar_asserts": False,
    "compile_threads": 1,
}
"""``torch.compile`` options for the CPU: TorchInductor's checks of its inputs' sizes
and strides are the signature's job; one compile thread: no pool of compiler processes
to start (seconds on two cores) or to wait for at exit. Options a PyTorch release lacks
are left out."""

SCALAR_OPTIONS = {"cpp.simdlen": 1}
"""Options for scalar CPU kernels: no vector instruction set is 1 bit wide, so none is
picked and every loop is written element by element."""

_SLOT = object()
"""Marks, in an output template, where a tensor of the program's outputs goes."""


class _Small(Exception):
    """A transform too small to gain from compiling."""


class Built:
    """What :func:`trace_and_compile` made: the program, the output template, the CPU
    build kept (and why), the path, and whether TorchInductor's cache had it."""

    __slots__ = ("cached", "kernels", "path", "run", "template")

    def __init__(
        self, run: Callable[..., Any], template: Any, kernels: str | None, path: str, cached: bool
    ) -> None:
        self.run, self.template, self.kernels = run, template, kernels
        self.path, self.cached = path, cached


def _device_of(flat: list[Any]) -> torch.device:
    for x in flat:
        if isinstance(x, torch.Tensor):
            return x.device
    return torch.device("cpu")


_float_dtypes: dict[torch.device, torch.dtype] = {}


def _float_dtype(device: torch.device) -> torch.dtype:
    """float64 (a Python float's precision) where the device holds it, else float32."""
    dtype = _float_dtypes.get(device)
    if dtype is None:
        from array_api_compat import torch as torch_xp

        from anywrap.xp import wide_float

        dtype = _float_dtypes[device] = wide_float(torch_xp, device)
    return dtype


class _Counting(TorchFunctionMode):
    """Counts the torch functions a transform calls (not the attribute reads)."""

    def __init__(self) -> None:
        super().__init__()
        self.calls = 0

    def __torch_function__(
        self, func: Any, types: Any, args: Sequence[Any] = (), kwargs: Any = None
    ) -> Any:
        if not getattr(func, "__name__", "").startswith("__get__"):
            self.calls += 1
        return func(*args, **(kwargs or {}))


def _own_code(fn: Callable[..., Any], name: str) -> Callable[..., Any]:
    """``fn`` with a code object of its own: ``torch.compile`` keeps its programs, and
    counts its recompilations, per code object, and every program's flat function has
    the same code."""
    code = fn.__code__.replace(co_name=name.replace(".", "_").replace("<", "").replace(">", ""))
    return types.FunctionType(code, fn.__globals__, code.co_name, fn.__defaults__, fn.__closure__)


def trace_and_compile(
    fn: Callable[..., Any], flat: list[Any], structure: Structure, build: str = "auto"
) -> Built:
    """Compile ``fn`` for the call's leaves ``flat`` (laid out by ``structure``) with
    ``torch.compile(fullgraph=True, dynamic=False)``, and run it once, so that it
    compiles now (and fails now, rather than at a later step)."""
    values = list(flat)
    positions = [i for i, x in enumerate(values) if isinstance(x, torch.Tensor) or type(x) is float]
    template: dict[str, Any] = {}

    def flat_fn(*tensors: torch.Tensor) -> list[torch.Tensor]:
        vals = list(values)
        for i, t in zip(positions, tensors):
            vals[i] = t
        args, kwargs = structure.unflatten(vals)
        out = fn(*args, **kwargs)
        template["out"] = tree_map(lambda x: _SLOT if isinstance(x, torch.Tensor) else x, out)
        outs = [x for x in leaves(out) if isinstance(x, torch.Tensor)]
        template["bool"] = any(x.dtype == torch.bool for x in outs)
        return outs

    # Distinct tensors: a tensor passed twice (an observation that is also the final
    # observation) would be one input of the graph, which would then read both from it.
    inputs: list[torch.Tensor] = []
    seen: set[int] = set()
    for t in _inputs(flat):
        inputs.append(t.clone() if id(t) in seen else t)
        seen.add(id(t))
    counting = _Counting()
    with torch.no_grad(), counting:
        flat_fn(*inputs)  # the template, and the size of the transform
    if counting.calls <= SMALL_PROGRAM:
        raise _Small(f"{counting.calls} torch call(s): cheaper eagerly than as a compiled call")
    kernels = None
    options: dict[str, Any] | None = None
    if inputs and inputs[0].device.type == "cpu":
        kept, why = _cpu_build(build, template["bool"])
        kernels = f"{kept} ({why})"
        options = {**INDUCTOR_OPTIONS, **(SCALAR_OPTIONS if kept == "scalar" else {})}

    def call(args: Any, kwargs: Any) -> Any:
        return fn(*args, **kwargs)

    # The transform is compiled with its own trees as arguments: were the trees rebuilt
    # inside, TorchDynamo would guard on the tree walker's globals at every call.
    call = _own_code(call, f"anywrap_{_name(fn)}")
    try:
        compiled = torch.compile(call, fullgraph=True, dynamic=False, options=options)
    except RuntimeError:  # an option this release does not know: its defaults
        compiled = torch.compile(call, fullgraph=True, dynamic=False)
    out_structure = Structure(template["out"])
    slots = [i for i, leaf in enumerate(leaves(template["out"])) if leaf is _SLOT]

    def run(*tensors: torch.Tensor) -> list[torch.Tensor]:
        vals = list(values)
        for i, t in zip(positions, tensors):
            vals[i] = t
        args, kwargs = structure.unflatten(vals)
        with torch.no_grad():
            out = out_structure.leaves(compiled(args, kwargs))
        return [out[i] for i in slots]  # type: ignore[index]

    hits = _compiler_seconds()
    run(*inputs)
    cached = _from_cache(hits)

    return Built(run, template["out"], kernels, "torch.compile", cached)


def _inputs(flat: list[Any]) -> list[torch.Tensor]:
    """The program's inputs: the tensors, and the floats as 0-d tensors on their device
    (``torch.full`` fills on the device: no copy from the host, no sync)."""
    out: list[torch.Tensor] = []
    device = None
    for x in flat:
        if isinstance(x, torch.Tensor):
            out.append(x)
        elif type(x) is float:
            if device is None:
                device = _device_of(flat)
            out.append(torch.full((), x, dtype=_float_dtype(device), device=device))
    return out


def _cpu_build(build: str, writes_bool: bool) -> tuple[str, str]:
    """Which CPU build a program gets, and why: the one the environment names, else
    scalar kernels for a program that writes ``bool`` tensors and vector kernels
    otherwise. TorchInductor's vector kernels store a ``bool`` result a lane at a
    time through memory (on the development machine a 4096-env episode step took
    52 us vectorised, 36 us scalar), and win on float batches. A rule, not a
    timing: every run on every machine keeps the same build, whatever the load."""
    if build != "auto":
        return build, switch.KERNELS_VAR
    return ("scalar", "writes bool tensors") if writes_bool else ("vector", "float outputs")


def _compiler_seconds() -> float:
    """CPU seconds of the child processes this process has waited for (the C++
    compiler, with one compile thread); NaN where the platform does not say."""
    try:
        import resource
    except ImportError:  # pragma: no cover - not on Windows
        return math.nan
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _from_cache(before: float) -> bool:
    """Whether no compiler ran since ``before``: TorchInductor's caches (on disk,
    shared by every process of this user) had every kernel of the program."""
    return _compiler_seconds() - before == 0.0
