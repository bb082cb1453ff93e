"""PyTorch's compiled path: the programs that the torch backend's ``jit`` hook makes.

A :class:`TorchProgram` wraps one pure transform (what
:class:`anywrap.xp.Compiled` holds per backend). Each call:

1. flattens the arguments (:class:`anywrap.tree.Structure`, straight-line
   code made once per structure) and finds their *signature*: each tensor's
   shape, strides, dtype and device, and every other leaf's value. A Python
   ``float`` counts as a float, not as its value: it enters the program as a
   0-d tensor, so that a wall clock passed at every step (``now``) is an
   input, not a constant that would make every step a new program;
2. runs the transform eagerly until that signature has been called
   :func:`anywrap.xp.switch.compile_after_calls` times (2000 by default: a
   short run never waits for a compile), then compiles it with the public
   ``torch.compile(fullgraph=True, dynamic=False)``: the whole transform is one
   graph or nothing (a transform that reads a value on the host cannot be
   compiled whole, and runs eagerly). A transform of at most
   :data:`SMALL_PROGRAM` torch calls stays eager: a call through
   ``torch.compile`` costs what about ten eager calls do. CPU tensors are
   compiled only after ``set_compile(True)``: the default, ``auto``, compiles
   on accelerators only, since on a CPU the compiled stack is no faster;
3. on the CPU, compiles one build: TorchInductor's scalar kernels for a
   program that writes ``bool`` tensors, its vector kernels otherwise (a rule,
   not a timing: see :func:`_cpu_build`), through ``torch.compile``'s
   ``options``. The program is shared with every other wrapper that calls the
   same transform (the same function, partially applied to the same values)
   with the same signature, and the compile log says where each came from:
   ``compiled``, ``cache`` (TorchInductor's kernel cache had it) or ``shared``;
4. then runs the compiled program. A wrapper's state goes round its program,
   so the leaves that are the last call's own outputs are checked by identity
   and the others in full (:meth:`_Signature.fits`) before the compiled call,
   whose own guards then hold.

A transform that cannot be compiled (a value read on the host, a compiler
missing on the machine) runs eagerly, after one warning; so does a signature
beyond :data:`MAX_SIGNATURES`. A transform whose arguments hold something
other than tensors, Python numbers, strings and ``None`` (a
``torch.Generator``, a NumPy array), or a partial holding a callable (a
distributed reduce), runs eagerly without a warning. Each compilation is
logged (:func:`anywrap.xp.compile_log`), and :func:`anywrap.xp.set_compile`
turns the whole path off. Only public entry points are used, so a PyTorch
newer than any tested compiles the same way.

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
import time
import warnings
from collections.abc import Callable, Sequence
from typing import Any

import torch

from anywrap.backends.torch_build import (  # noqa: F401  (re-exported: tests, docs)
    _BRANCH,
    _CONSTANT_LEAVES,
    _SLOT,
    SCALAR_OPTIONS,
    SMALL_PROGRAM,
    Built,
    _check_form,
    _cpu_build,
    _describe,
    _inputs,
    _name,
    _plan,
    _signature,
    _Small,
    trace_and_compile,
)
from anywrap.tree import Structure, leaves
from anywrap.xp import switch

__all__ = ["MAX_SIGNATURES", "TorchProgram", "compile_torch"]

MAX_SIGNATURES = 8
"""Signatures one transform keeps (compiled or counted); calls beyond them run eagerly."""


def compile_torch(fn: Callable[..., Any]) -> Callable[..., Any]:
    """The torch backend's ``jit`` hook: ``fn`` as a :class:`TorchProgram`."""
    return TorchProgram(fn)


def _calls_back(fn: Callable[..., Any]) -> bool:
    """Whether ``fn`` is a partial holding a callback: a callable that is not one of
    anywrap's own pure functions (a distributed reduce, a user's function). A
    program would bake in what the callback did while it was traced."""
    while isinstance(fn, functools.partial):
        for v in (*fn.args, *fn.keywords.values()):
            if isinstance(v, type) or not callable(v):
                continue
            inner = v
            while isinstance(inner, functools.partial):
                inner = inner.func
            module = getattr(inner, "__module__", None) or ""
            if not module.startswith("anywrap.") or module.startswith("anywrap.distributed"):
                return True
            if _calls_back(v):
                return True
        fn = fn.func
    return False


class _Signature:
    """One signature of a program: how often it ran, and its compiled form.

    Once compiled, a signature also knows which of its inputs were, at the
    last call, outputs of the call before (``fed``: a wrapper's state goes
    round the program), and keeps only those outputs from one call to the
    next. :meth:`fits` checks those inputs by identity: an output of this
    program for this signature has the layout the program gives it, whatever
    the step. The other leaves are checked in full.
    """

    __slots__ = (
        "calls",
        "cpu",
        "eager",
        "fed",
        "keep",
        "key",
        "out",
        "out_consts",
        "out_slots",
        "plan",
        "rest_consts",
        "rest_floats",
        "rest_tensors",
        "run",
        "shared",
        "structure",
    )

    def __init__(self, structure: Structure, key: tuple[Any, ...]) -> None:
        self.calls = 0
        self.eager = False
        self.cpu = all(m[3].type == "cpu" for m in key[1:] if type(m) is tuple and len(m) == 4)
        """Whether every tensor is on the CPU: compiled only if ``set_compile(True)``."""
        self.shared: Any = None
        """The key under which programs are shared between wrappers (None: not shared)."""
        self.structure = structure
        self.key = key
        self.run: Callable[..., Any] | None = None
        self.out: Structure | None = None
        self.out_consts: list[Any] = []
        self.out_slots: list[int] = []
        self.plan: list[tuple[int, torch.dtype | None, torch.device | None]] = []
        self.fed: tuple[tuple[int, int], ...] = ()
        """(input position, position among the kept outputs) of each fed input."""
        self.keep: tuple[int, ...] | None = None
        """The outputs a call keeps for the next one's check: those that came back
        (the state), once :meth:`learn` has seen them; all until then."""
        self.rest_tensors: tuple[tuple[int, Any], ...] = ()
        self.rest_floats: tuple[int, ...] = ()
        self.rest_consts: tuple[tuple[int, Any], ...] = ()

    def learn(self, flat: list[Any], last_outs: Sequence[torch.Tensor]) -> None:
        """Note which of ``flat``'s leaves are outputs of the last call (whose
        signature was this one, and which kept ``last_outs``: all its outputs, or
        those in :attr:`keep`); a call where none are keeps what was noted."""
        keep = self.keep
        by_id = {id(t): (k if keep is None else keep[k]) for k, t in enumerate(last_outs)}
        found = [
            (i, by_id[id(x)])
            for i, x in enumerate(flat)
            if isinstance(x, torch.Tensor) and id(x) in by_id
        ]
        if not found:
            return
        self.keep = tuple(sorted({j for _, j in found}))
        slot = {j: k for k, j in enumerate(self.keep)}
        self.fed = tuple((i, slot[j]) for i, j in found)
        taken = {i for i, _ in found}
        rest = [(i, x, self.key[1 + i]) for i, x in enumerate(flat) if i not in taken]
        self.rest_tensors = tuple((i, m) for i, x, m in rest if isinstance(x, torch.Tensor))
        self.rest_floats = tuple(i for i, x, _ in rest if type(x) is float)
        self.rest_consts = tuple(
            (i, m) for i, x, m in rest if not isinstance(x, torch.Tensor) and type(x) is not float
        )

    def fits(self, flat: list[Any], last_outs: Sequence[torch.Tensor]) -> bool:
        """Whether ``flat`` (laid out by :attr:`structure`) has this signature."""
        if not self.fed:
            return False
        for i, j in self.fed:
            if flat[i] is not last_outs[j]:
                return False
        for i, meta in self.rest_tensors:
            x = flat[i]
            if (
                not isinstance(x, torch.Tensor)
                or x.requires_grad
                or (x.shape, x.stride(), x.dtype, x.device) != meta
            ):
                return False
        for i in self.rest_floats:
            if type(flat[i]) is not float:
                return False
        for i, (tp, value) in self.rest_consts:
            x = flat[i]
            if type(x) is not tp or x != value:
                return False
        return True

    def inputs(self, flat: list[Any]) -> list[torch.Tensor]:
        """The program's inputs (see :func:`_inputs`), by the plan made at compile time."""
        return [
            flat[i] if dtype is None else torch.full((), flat[i], dtype=dtype, device=dev)
            for i, dtype, dev in self.plan
        ]

    def install(self, program: _Program) -> None:
        """Run ``program`` from the next call on."""
        self.out, self.plan = program.out, program.plan
        self.out_consts, self.out_slots = program.out_consts, program.out_slots
        self.run = program.run


class _Program:
    """A compiled program and how to read its outputs: what wrappers share."""

    __slots__ = ("kernels", "out", "out_consts", "out_slots", "plan", "run")

    def __init__(self, built: Built, flat: list[Any]) -> None:
        self.run = built.run
        self.out = Structure(built.template)
        self.plan = _plan(flat)
        self.out_consts = leaves(built.template)
        self.out_slots = [i for i, leaf in enumerate(self.out_consts) if leaf is _SLOT]
        self.kernels = built.kernels


_shared: dict[Any, _Program] = {}
"""Programs by (transform, signature): a second wrapper or stack takes the first's."""


_announced = False


def _announce(name: str, described: str) -> None:
    """The first compile of the process says what it is doing, once, before it starts."""
    global _announced
    if _announced:
        return
    _announced = True
    warnings.warn(
        f"anywrap: compiling {name} for PyTorch ({described}): the first compile in a "
        "process takes 5 to 20 s on a small CPU (TorchDynamo, TorchInductor and the C++ "
        "compiler start), the next ones a second or two, and TorchInductor's disk cache "
        "makes them cheaper in later runs. Turn compiling off with ANYWRAP_TORCH_COMPILE=0 "
        "or anywrap.xp.set_compile(False).",
        switch.CompileNotice,
        stacklevel=5,
    )


def _share_key(fn: Callable[..., Any], key: tuple[Any, ...]) -> Any:
    """A key for sharing ``fn``'s program for the signature ``key`` between wrappers:
    the function and the values it was partially applied to, and the signature with
    the call's structure as plain data. None where something in it is not hashable
    (it is then compiled for this wrapper alone)."""
    try:
        return (_fn_key(fn), _structure_key(key[0]), key[1:])
    except TypeError:
        return None


def _fn_key(fn: Any) -> Any:
    if isinstance(fn, functools.partial):
        keywords = tuple(sorted((k, _value_key(v)) for k, v in fn.keywords.items()))
        return ("partial", _fn_key(fn.func), tuple(_value_key(v) for v in fn.args), keywords)
    wrapped = getattr(fn, "__wrapped__", None)
    if wrapped is not None and not callable(getattr(fn, "__code__", None)):
        return ("wrapped", type(fn), _fn_key(wrapped))
    hash(fn)
    return fn


def _value_key(v: Any) -> Any:
    if callable(v) and not isinstance(v, type):
        return _fn_key(v)
    hash(v)
    return (type(v), v)


def _structure_key(structure: Structure) -> Any:
    return structure.key


class TorchProgram:
    """A pure transform over tensors, compiled once per signature (see the module).

    Attributes:
        fn: The transform.
        name: Its name, for warnings and the compile log.
    """

    __slots__ = ("_eager_only", "_last", "_signatures", "_structures", "_warned", "fn", "name")

    def __init__(self, fn: Callable[..., Any]) -> None:
        self.fn = fn
        self.name = _name(fn)
        self._structures: list[Structure] = []
        self._signatures: dict[Any, _Signature] = {}
        self._warned = False
        self._eager_only = _calls_back(fn)  # such a transform stays eager, silently
        self._last: tuple[_Signature, Sequence[torch.Tensor]] | None = None
        """The compiled signature of the last call and the outputs it keeps (alive,
        so that their identities cannot pass to other tensors): those that come
        back as inputs. An output the caller drops (a normalised batch, a
        report) is not kept, so its memory goes back at once."""

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if self._eager_only or not switch.compile_enabled():
            return self.fn(*args, **kwargs)
        tree = (args, kwargs)
        last = self._last
        if last is not None:  # the common step: the state the last call gave back
            sig = last[0]
            flat = sig.structure.leaves(tree)
            if flat is not None and sig.fits(flat, last[1]):
                return self._run(sig, flat)
        for structure in self._structures:  # nearly always one
            flat = structure.leaves(tree)
            if flat is not None:
                key = _signature(structure, flat)
                if key is not _BRANCH:
                    break
        else:
            structure, flat, key = self._new_structure(tree)
        if key is None:  # a leaf no program can take (a generator, a NumPy array, grad)
            return self.fn(*args, **kwargs)
        found = self._signatures.get(key)
        if found is None:
            if len(self._signatures) >= MAX_SIGNATURES:
                self._warn(f"more than {MAX_SIGNATURES} signatures; the others run eagerly")
                return self.fn(*args, **kwargs)
            found = self._signatures[key] = _Signature(structure, key)
            found.shared = _share_key(self.fn, key)
        sig = found
        if sig.run is not None:
            if last is not None and last[0] is sig:
                sig.learn(flat, last[1])
            return self._run(sig, flat)
        self._last = None
        if sig.eager or (sig.cpu and not switch.compiles_on_cpu()):
            return self.fn(*args, **kwargs)
        sig.calls += 1
        if sig.calls < switch.compile_after_calls():
            return self.fn(*args, **kwargs)
        program = _shared.get(sig.shared) if sig.shared is not None else None
        if program is not None:  # another wrapper or stack compiled it: take it
            sig.install(program)
            self._record(_describe(flat), 0.0, kernels=program.kernels, source="shared")
            return self._run(sig, flat)
        expected = self.fn(*args, **kwargs)  # the eager result: the program must match its form
        program = self._compile(sig, flat, structure, expected)
        if program is not None:
            sig.install(program)
        return expected

    def _run(self, sig: _Signature, flat: list[Any]) -> Any:
        outs = sig.run(*sig.inputs(flat))  # type: ignore[misc]
        keep = sig.keep
        self._last = (sig, outs if keep is None else [outs[j] for j in keep])
        values = list(sig.out_consts)
        for i, out in zip(sig.out_slots, outs):
            values[i] = out
        return sig.out.unflatten(values)  # type: ignore[union-attr]

    def _new_structure(self, tree: Any) -> tuple[Any, Any, Any]:
        try:
            structure = Structure(tree)
        except TypeError:  # a mapping the straight-line code does not take
            return None, None, None
        if len(self._structures) < MAX_SIGNATURES:
            self._structures.append(structure)
        flat = structure.leaves(tree)
        assert flat is not None
        key = _signature(structure, flat)
        return structure, flat, None if key is _BRANCH else key

    def _warn(self, reason: str) -> None:
        if not self._warned:
            self._warned = True
            warnings.warn(
                f"anywrap: the transform {self.name} runs eagerly on PyTorch: {reason}",
                RuntimeWarning,
                stacklevel=4,
            )

    def _compile(
        self,
        sig: _Signature,
        flat: list[Any],
        structure: Structure,
        expected: Any,
    ) -> _Program | None:
        """The program for ``sig``, or None (the signature then runs eagerly)."""
        build = switch.cpu_kernels()  # a wrong value is the user's to see, not a warning
        described = _describe(flat)
        _announce(self.name, described)
        switch.notify("start", self.name, described)
        start = time.perf_counter()
        try:
            built = trace_and_compile(self.fn, flat, structure, build)
            _check_form(built.template, expected)
            program = _Program(built, flat)
        except _Small as exc:  # cheaper eagerly, whatever the shapes: no warning
            sig.eager = self._eager_only = True
            self._record(described, time.perf_counter() - start, reason=str(exc), path=None)
            return None
        except Exception as exc:  # anything the tracer or compiler refuses: stay eager
            reason = f"{type(exc).__name__}: {' '.join(str(exc).split())[:300]}"
            sig.eager = True
            self._record(described, time.perf_counter() - start, reason=reason, path=None)
            self._warn(
                f"it could not be compiled for {described} on PyTorch {torch.__version__} "
                f"({reason})"
            )
            return None
        if sig.shared is not None:
            _shared.setdefault(sig.shared, program)
        self._record(
            described,
            time.perf_counter() - start,
            kernels=built.kernels,
            source="cache" if built.cached else "compiled",
            path=built.path,
        )
        return program

    def _record(
        self,
        described: str,
        seconds: float,
        *,
        reason: str | None = None,
        kernels: str | None = None,
        source: str = "compiled",
        path: str | None = "torch.compile",
    ) -> None:
        switch.record_compile(
            switch.CompileRecord(
                "torch",
                self.name,
                described,
                seconds,
                compiled=reason is None,
                reason=reason,
                kernels=kernels,
                source=source,
                path=path,
            )
        )

    def __repr__(self) -> str:
        return f"<anywrap TorchProgram {self.name}: {len(self._signatures)} signature(s)>"
