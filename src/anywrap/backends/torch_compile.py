"""PyTorch's compiled path: the programs that the torch backend's ``jit`` hook makes.

A :class:`TorchProgram` wraps one pure transform. A call's *signature* (each tensor's
shape, strides, dtype and device, every other leaf's value) runs eagerly for
:func:`anywrap.xp.switch.compile_after_calls` calls, then is compiled by the public
``torch.compile(fullgraph=True, dynamic=False)`` and shared between wrappers. Small
transforms, CPU tensors (unless ``set_compile(True)``) and what cannot be compiled stay eager.

Example:
    >>> import torch
    >>> from anywrap import xp
    >>> previous = xp.set_compile(True, after_calls=2)
    >>> def standardise(x, scale):  # ten torch calls: worth a compiled call
    ...     centred = x - x.mean()
    ...     std = (centred * centred).mean().sqrt() + 1e-6
    ...     return (centred / std * scale).clamp(-10.0, 10.0).round(decimals=2)
    >>> program = xp.Compiled(standardise)
    >>> outs = [program(torch.arange(3.0), 2.0) for _ in range(3)]  # compiled on call 2
    >>> outs[0], all(torch.equal(o, outs[0]) for o in outs)
    (tensor([-2.4500,  0.0000,  2.4500]), True)
    >>> record = xp.compile_log()[-1]
    >>> record.compiled, record.signature, record.path
    (True, 'float32[3]@cpu, float', 'torch.compile')
    >>> _ = xp.set_compile(previous, after_calls=xp.switch.AFTER_CALLS)
"""

from __future__ import annotations

import functools
import math
import os
import time
import types
import warnings
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

import torch
from array_api_compat import torch as torch_xp
from torch.overrides import TorchFunctionMode

from anywrap.tree import Structure, flatten_with_paths, is_branch, leaves, tree_map
from anywrap.xp import switch, wide_float

__all__ = ["MAX_SIGNATURES", "TorchProgram"]

MAX_SIGNATURES = 8
"""Signatures one transform keeps (compiled or counted); calls beyond them run eagerly."""

# A transform of at most SMALL_PROGRAM torch calls runs eagerly (a compiled call's fixed
# cost), over tensors of at most SMALL_DATA elements (over image batches one kernel wins).
SMALL_PROGRAM = 8
SMALL_DATA = 1 << 16
_ASSERTS = ("size_asserts", "alignment_asserts", "scalar_asserts")
# CPU options: the signature checks sizes; no compiler pool.
INDUCTOR_OPTIONS: dict[str, Any] = {**dict.fromkeys(_ASSERTS, False), "compile_threads": 1}
SCALAR_OPTIONS = {"cpp.simdlen": 1}  # scalar CPU kernels: no vector instruction set is 1 wide

_CONSTANT_LEAVES = (type(None), bool, int, str)  # leaves a program bakes in
_BRANCH = object()  # a branch where the structure had a leaf
_SLOT = object()  # where a tensor goes in a program's output template
_shared: dict[Any, _Program] = {}  # programs by (transform, signature), between wrappers
_announced = False


def _inner(fn: Any) -> Any:
    while isinstance(fn, functools.partial):
        fn = fn.func
    return fn


def _name(fn: Callable[..., Any]) -> str:
    inner = _inner(fn)
    return getattr(inner, "__qualname__", None) or getattr(inner, "__name__", None) or repr(fn)


def _leaf_key(x: Any) -> Any:
    """A leaf's part of the signature: None for a leaf no program takes, or _BRANCH."""
    if isinstance(x, torch.Tensor):
        return None if x.requires_grad else (x.shape, x.stride(), x.dtype, x.device)
    if type(x) is float:
        return float
    if isinstance(x, _CONSTANT_LEAVES):
        return (type(x), x)
    return _BRANCH if is_branch(x) else None


def _signature(structure: Structure, flat: list[Any]) -> Any:
    """The cache key of a call; None or :data:`_BRANCH` as in :func:`_leaf_key`."""
    key: list[Any] = [structure]
    for x in flat:
        k = _leaf_key(x)
        if k is None or k is _BRANCH:
            return k
        key.append(k)
    return tuple(key)


def _on_cpu(flat: list[Any]) -> bool:
    return all(x.is_cpu for x in flat if isinstance(x, torch.Tensor))


def _describe(flat: list[Any]) -> str:
    parts = [
        f"{str(x.dtype).removeprefix('torch.')}{list(x.shape)}@{x.device}"
        if isinstance(x, torch.Tensor)
        else "float"
        for x in flat
        if isinstance(x, torch.Tensor) or type(x) is float
    ]
    return ", ".join(parts) or "no tensors"


def _inputs(flat: list[Any], plan: Any) -> list[torch.Tensor]:
    # torch.full fills on the device: no copy from the host, no sync.
    return [
        flat[i] if dtype is None else torch.full((), flat[i], dtype=dtype, device=device)
        for i, dtype, device in plan
    ]


def _template(out: Any) -> Any:
    return tree_map(lambda x: _SLOT if isinstance(x, torch.Tensor) else x, out)


class _Small(Exception):
    """A transform too small to gain from compiling."""


class _Program(NamedTuple):
    """A compiled program, shared between wrappers (``cached``: no compiler ran)."""

    run: Callable[..., tuple[Any, Sequence[torch.Tensor]]]
    plan: list[tuple[int, torch.dtype | None, torch.device | None]]
    kernels: str | None
    cached: bool


class _Counting(TorchFunctionMode):
    """Counts the torch functions a transform calls (not the attribute reads)."""

    calls = 0

    def __torch_function__(self, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
        if not getattr(func, "__name__", "").startswith("__get__"):
            self.calls += 1
        return func(*args, **(kwargs or {}))


def _child_seconds() -> float:
    """CPU seconds of the child processes waited for (the C++ compiler); NaN if unknown."""
    t = os.times()  # Windows counts no children
    return t.children_user + t.children_system if os.name == "posix" else math.nan


def _compile_checked(
    fn: Callable[..., Any], flat: list[Any], structure: Structure, build: str, expected: Any
) -> _Program:
    """``fn`` compiled for the leaves ``flat``, run once and checked against ``expected``."""
    # Each input's place in flat; a float's 0-d dtype (float64 where held) and device.
    device = next((x.device for x in flat if isinstance(x, torch.Tensor)), torch.device("cpu"))
    dtype = wide_float(torch_xp, device)
    plan: list[tuple[int, torch.dtype | None, torch.device | None]] = [
        (i, None, None) if isinstance(x, torch.Tensor) else (i, dtype, device)
        for i, x in enumerate(flat)
        if isinstance(x, torch.Tensor) or type(x) is float
    ]
    planned = {i for i, _, _ in plan}
    base = [None if i in planned else x for i, x in enumerate(flat)]  # the constants

    def arguments(tensors: Sequence[torch.Tensor]) -> Any:
        vals = list(base)
        for (i, _, _), t in zip(plan, tensors):
            vals[i] = t
        return structure.unflatten(vals)

    # Distinct tensors: a tensor passed twice (an observation that is also the final
    # observation) would be one input of the graph, which would then read both from it.
    inputs = _inputs(flat, plan)
    inputs = [t.clone() if any(t is u for u in inputs[:k]) else t for k, t in enumerate(inputs)]
    counting = _Counting()
    with torch.no_grad(), counting:
        args, kwargs = arguments(inputs)
        out = fn(*args, **kwargs)
    template = _template(out)
    largest = max((t.numel() for t in inputs), default=0)
    if counting.calls <= SMALL_PROGRAM and largest <= SMALL_DATA:
        raise _Small(f"{counting.calls} torch call(s): cheaper eagerly than as a compiled call")
    kernels: str | None = None
    options: dict[str, Any] | None = None
    if inputs and inputs[0].device.type == "cpu":
        # A rule, not a timing: TorchInductor's vector kernels store a bool a lane at a
        # time through memory, and win on float batches.
        why = switch.KERNELS_VAR
        if build == "auto":
            bools = any(isinstance(x, torch.Tensor) and x.dtype == torch.bool for x in leaves(out))
            build, why = ("scalar", "writes bool tensors") if bools else ("vector", "float outputs")
        kernels = f"{build} ({why})"
        options = {**INDUCTOR_OPTIONS, **(SCALAR_OPTIONS if build == "scalar" else {})}

    # Flat tensors in and out: the trees are built inside the trace, not around each call,
    # and TorchDynamo guards one level of arguments (not the tree walkers' globals).
    out_structure = Structure(template)
    out_leaves = leaves(template)
    slots = [i for i, leaf in enumerate(out_leaves) if leaf is _SLOT]

    def call(*tensors: torch.Tensor) -> tuple[torch.Tensor, ...]:
        args, kwargs = arguments(tensors)
        out = out_structure.leaves(fn(*args, **kwargs))
        return tuple(out[i] for i in slots)  # type: ignore[index]

    # A code object of its own: torch.compile keeps programs per code.
    name = f"anywrap_{_name(fn)}".replace(".", "_").replace("<", "").replace(">", "")
    code = call.__code__.replace(co_name=name)
    call = types.FunctionType(code, call.__globals__, name, None, call.__closure__)
    for opts in ({**(options or {}), "guard_filter_fn": _guards_kept}, options, None):
        try:  # the first options this release knows (guard filters: PyTorch 2.8 on)
            compiled = torch.compile(call, fullgraph=True, dynamic=False, options=opts)
            break
        except RuntimeError:
            if opts is None:
                raise

    def run(*tensors: torch.Tensor) -> tuple[Any, Sequence[torch.Tensor]]:
        with torch.no_grad():
            outs = compiled(*tensors)
        vals = list(out_leaves)
        for i, t in zip(slots, outs):
            vals[i] = t
        return out_structure.unflatten(vals), outs

    before = _child_seconds()
    run(*inputs)
    cached = _child_seconds() - before == 0.0
    # The program's outputs must have the eager outputs' tree, and its constants.
    got, want = flatten_with_paths(template), flatten_with_paths(_template(expected))
    if [p for p, _ in got] != [p for p, _ in want]:
        raise ValueError("the traced outputs' tree differs from the eager outputs'")
    for (path, g), (_, w) in zip(got, want):
        if type(g) is not type(w) or (g is not _SLOT and g != w):
            raise ValueError(f"output {path}: {g!r} when traced, {w!r} eagerly")
    return _Program(run, plan, kernels, cached)


# A program keeps the guards on each argument tensor (shape, strides, dtype, device and
# dispatch keys: a tensor under a functorch transform differs) and on the global state (grad
# mode, autocast, default device, function modes); the signature, matched before a program
# runs, fixes the others (types, lengths, constants, closure, module globals: 400-odd, 40 us
# a step). Guard types a release adds are kept, so that what is unknown stays safe.
_DROPPED_GUARDS = frozenset(
    "BUILTIN_MATCH CLASS_MATCH CLOSURE_MATCH CONSTANT_MATCH DICT_KEYS_MATCH DICT_NOT_CONTAINS "
    "DIMENSION_DYNAMIC_MARKING_GUARD EQUALS_MATCH ID_MATCH MODULE_MATCH "
    "NOT_PRESENT_IN_GENERIC_DICT SEQUENCE_LENGTH TYPE_MATCH".split()
)


def _guards_kept(entries: Sequence[Any]) -> list[bool]:
    """Guards on the tensors and the global state only (see :data:`_DROPPED_GUARDS`); none on
    module globals (read once, when traced, as ``jax.jit`` does)."""
    return [
        not getattr(e, "is_global", False) and getattr(e, "guard_type", None) not in _DROPPED_GUARDS
        for e in entries
    ]


def _calls_back(fn: Callable[..., Any]) -> bool:
    """Whether ``fn`` holds a callable not anywrap's own (a trace would bake it in)."""
    while isinstance(fn, functools.partial):
        for v in (*fn.args, *fn.keywords.values()):
            if callable(v) and not isinstance(v, type):
                module = getattr(_inner(v), "__module__", None) or ""
                if not module.startswith("anywrap.") or module.startswith("anywrap.distributed"):
                    return True
                if _calls_back(v):
                    return True
        fn = fn.func
    return False


def _key(v: Any) -> Any:
    """A hashable key of a transform (or of an argument bound to one); TypeError if none."""
    if not callable(v) or isinstance(v, type):
        hash(v)
        return (type(v), v)
    if isinstance(v, functools.partial):
        keywords = tuple(sorted((k, _key(a)) for k, a in v.keywords.items()))
        return ("partial", _key(v.func), tuple(_key(a) for a in v.args), keywords)
    wrapped = getattr(v, "__wrapped__", None)
    if wrapped is not None and not callable(getattr(v, "__code__", None)):
        return ("wrapped", type(v), _key(wrapped))
    hash(v)
    return v


class _Signature:
    """One signature: its calls, its program, and the inputs fed by the last call's outputs."""

    def __init__(self, structure: Structure, key: tuple[Any, ...], fn: Callable[..., Any]):
        self.structure, self.key = structure, key
        try:  # the key under which wrappers share a program
            self.shared: Any = (_key(fn), key[0].key, key[1:])
        except TypeError:
            self.shared = None
        self.calls, self.eager = 0, False
        self.program: _Program | None = None
        self.fed: tuple[tuple[int, int], ...] = ()  # (input position, kept output position)
        self.keep: tuple[int, ...] | None = None
        self.rest: tuple[tuple[int, Any], ...] = ()  # the other leaves and their keys

    def learn(self, flat: list[Any], last_outs: Sequence[torch.Tensor]) -> None:
        """Note which of ``flat``'s leaves are the last call's kept ``last_outs``."""
        keep = self.keep
        by_id = {id(t): (k if keep is None else keep[k]) for k, t in enumerate(last_outs)}
        # last_outs are alive: an id of theirs is no other leaf's.
        found = [(i, by_id[id(x)]) for i, x in enumerate(flat) if id(x) in by_id]
        if not found:
            return
        self.keep = tuple(sorted({j for _, j in found}))
        slot = {j: k for k, j in enumerate(self.keep)}
        self.fed = tuple((i, slot[j]) for i, j in found)
        taken = {i for i, _ in found}
        self.rest = tuple((i, self.key[1 + i]) for i in range(len(flat)) if i not in taken)

    def fits(self, flat: list[Any], last_outs: Sequence[torch.Tensor]) -> bool:
        """Whether ``flat`` (laid out by :attr:`structure`) has this signature."""
        if not self.fed or any(flat[i] is not last_outs[j] for i, j in self.fed):
            return False
        return all(_leaf_key(flat[i]) == key for i, key in self.rest)


class TorchProgram:
    """The pure transform ``fn`` over tensors, compiled once per signature (see the module);
    ``name``: its name, for warnings and the compile log."""

    __slots__ = ("_eager_only", "_last", "_signatures", "_structures", "_warned", "fn", "name")

    def __init__(self, fn: Callable[..., Any]) -> None:
        self.fn, self.name = fn, _name(fn)
        # Each structure (nearly always one), and its calls until a signature may be due.
        self._structures: dict[Structure, int] = {}
        self._signatures: dict[Any, _Signature] = {}
        self._warned = False
        self._eager_only = _calls_back(fn)  # such a transform stays eager, silently
        # The compiled signature of the last call and the outputs it keeps alive (those
        # that come back as inputs), so that their identities pass to no other tensor.
        self._last: tuple[_Signature, Sequence[torch.Tensor]] | None = None

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if self._eager_only or (setting := switch.compile_setting()) is False:
            return self.fn(*args, **kwargs)
        tree = (args, kwargs)
        last = self._last
        if last is not None:  # the common step: the state the last call gave back
            sig = last[0]
            flat = sig.structure.leaves(tree)
            if flat is not None and sig.fits(flat, last[1]):
                return self._run(sig, flat)
        cpu_eager = setting is not True
        credit = 0
        for structure, counted in self._structures.items():
            flat = structure.leaves(tree)
            if flat is not None:
                if cpu_eager and _on_cpu(flat):  # CPU tensors, eager whatever the signature
                    self._last = None
                    return self.fn(*args, **kwargs)
                # No signature of a structure called fewer than after_calls - 1 times can
                # be due: count the structure, not the signature (0.5 us a leaf). From
                # then on signatures count; the first is credited the structure's calls.
                if counted >= 0:
                    if counted < switch.compile_after_calls() - 1:
                        self._structures[structure] = counted + 1
                        self._last = None
                        return self.fn(*args, **kwargs)
                    credit, self._structures[structure] = counted, -1
                key = _signature(structure, flat)
                if key is not _BRANCH:
                    break
        else:  # a new structure
            try:
                structure = Structure(tree)
            except TypeError:  # a mapping the straight-line code does not take
                return self.fn(*args, **kwargs)
            if len(self._structures) < MAX_SIGNATURES:
                self._structures[structure] = 0
                return self(*args, **kwargs)  # counted as a known structure's call
            flat = structure.leaves(tree)
            assert flat is not None
            if cpu_eager and _on_cpu(flat):  # CPU tensors, eager whatever the signature
                self._last = None
                return self.fn(*args, **kwargs)
            key = _signature(structure, flat)
        if key is None or key is _BRANCH:  # a leaf no program can take
            return self.fn(*args, **kwargs)
        sig = self._signatures.get(key)  # type: ignore[assignment]
        if sig is None:
            if len(self._signatures) >= MAX_SIGNATURES:
                self._warn(f"more than {MAX_SIGNATURES} signatures; the others run eagerly")
                return self.fn(*args, **kwargs)
            sig = self._signatures[key] = _Signature(structure, key, self.fn)
            sig.calls = credit
        if sig.program is not None:
            if last is not None and last[0] is sig:
                sig.learn(flat, last[1])
            return self._run(sig, flat)
        self._last = None
        sig.calls += 1
        if sig.eager or sig.calls < switch.compile_after_calls():
            return self.fn(*args, **kwargs)
        program = _shared.get(sig.shared) if sig.shared is not None else None
        if program is not None:  # another wrapper or stack compiled it: take it
            sig.program = program
            self._record(_describe(flat), 0.0, kernels=program.kernels, source="shared")
            return self._run(sig, flat)
        expected = self.fn(*args, **kwargs)  # the eager result: the program must match its form
        sig.program = self._compile(sig, flat, structure, expected)
        return expected

    def _run(self, sig: _Signature, flat: list[Any]) -> Any:
        out, outs = sig.program.run(*_inputs(flat, sig.program.plan))  # type: ignore[union-attr]
        keep = sig.keep
        self._last = (sig, outs if keep is None else [outs[j] for j in keep])
        return out

    def _warn(self, reason: str) -> None:
        if not self._warned:
            self._warned = True
            warnings.warn(
                f"anywrap: the transform {self.name} runs eagerly on PyTorch: {reason}",
                RuntimeWarning,
                stacklevel=4,
            )

    def _compile(
        self, sig: _Signature, flat: list[Any], structure: Structure, expected: Any
    ) -> _Program | None:
        """The program for ``sig``, or None (the signature then runs eagerly)."""
        global _announced
        build = switch.cpu_kernels()  # a wrong value is the user's to see, not a warning
        described = _describe(flat)
        if not _announced:  # the process's first compile says what it does, before it starts
            _announced = True
            warnings.warn(
                f"anywrap: compiling {self.name} for PyTorch ({described}): the first compile "
                "in a process takes 5 to 20 s on a small CPU (TorchDynamo, TorchInductor and "
                "the C++ compiler start), the next ones a second or two, and TorchInductor's "
                "disk cache makes them cheaper in later runs. Turn compiling off with "
                "ANYWRAP_TORCH_COMPILE=0 or anywrap.xp.set_compile(False).",
                switch.CompileNotice,
                stacklevel=4,
            )
        switch.notify("start", self.name, described)
        start = time.perf_counter()
        try:
            program = _compile_checked(self.fn, flat, structure, build, expected)
        except Exception as exc:  # too small, or anything the tracer or compiler refuses
            sig.eager = True
            small = isinstance(exc, _Small)  # cheaper eagerly, whatever the shapes: no warning
            words = " ".join(str(exc).split())
            reason = words if small else f"{type(exc).__name__}: {words[:300]}"
            self._record(described, time.perf_counter() - start, reason=reason, path=None)
            if small:
                self._eager_only = True
            else:
                self._warn(
                    f"it could not be compiled for {described} on PyTorch {torch.__version__} "
                    f"({reason})"
                )
            return None
        if sig.shared is not None:
            _shared.setdefault(sig.shared, program)
        source = "cache" if program.cached else "compiled"
        self._record(described, time.perf_counter() - start, kernels=program.kernels, source=source)
        return program

    def _record(self, described: str, seconds: float, **fields: Any) -> None:
        compiled = fields.get("reason") is None
        record = switch.CompileRecord("torch", self.name, described, seconds, compiled, **fields)
        switch.record_compile(record)

    def __repr__(self) -> str:
        return f"<anywrap TorchProgram {self.name}: {len(self._signatures)} signature(s)>"
