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
   :func:`anywrap.xp.compile_after_calls` times, then traces it once with
   ``make_fx`` into one graph of ATen operations, and compiles that graph with
   TorchInductor (``torch._inductor.compile``, the entry point for graphs
   captured without TorchDynamo). The whole transform is one graph or
   nothing, as ``fullgraph=True`` asks. The trace runs on the call's own
   tensors, so that the transform's caches (constant tables) fill with real
   tensors, and it refuses any read of a tensor's value on the host, which
   would be baked into the program;
3. on the CPU, compiles the graph twice, with TorchInductor's vector kernels
   and with scalar ones, times both on the call's tensors and keeps the
   faster (:func:`_faster`: on some CPUs the vector kernels lose wherever a
   kernel writes ``bool`` values). The compile log says which was kept;
4. then runs the compiled program. Its call checks no guards (the signature
   is the guard), so a step costs the program's kernels and a few us of
   Python, where ``torch.compile``'s guarded entry costs 40 to 80 us on these
   transforms (measured on the development machine; see the README). A
   wrapper's state goes round its program, so the leaves that are the last
   call's own outputs are checked by identity and the others in full
   (:meth:`_Signature.fits`). An output whose layout is changed in place
   (``resize_``, ``as_strided_``, ``set_``) between two calls is not seen:
   the wrappers never do that to their state, and neither should a user;
5. on CUDA, the compiled program is captured in a CUDA graph at the same
   time: a call copies its inputs into the graph's buffers, replays the graph
   once, and copies the outputs out (one multi-tensor copy per dtype each
   way, whatever the number of kernels inside), so that outputs belong to the
   caller.

A transform that cannot be traced or compiled (a value read on the host, a
compiler missing on the machine) runs eagerly, after one warning; so does a
signature beyond :data:`MAX_SIGNATURES`. A transform whose arguments hold
something other than tensors, Python numbers, strings and ``None`` (a
``torch.Generator``, a NumPy array), or a partial holding a callable (a
distributed reduce), runs eagerly without a warning. Each compilation is
logged (:func:`anywrap.xp.compile_log`), and :func:`anywrap.xp.set_compile`
turns the whole path off.

Example:
    >>> import torch
    >>> from anywrap import xp
    >>> previous = xp.set_compile(True, after_calls=2)
    >>> center = xp.Compiled(lambda x, scale: (x - x.mean()) * scale)
    >>> [center(torch.arange(3.0), 2.0).tolist() for _ in range(3)]  # compiled on call 2
    [[-2.0, 0.0, 2.0], [-2.0, 0.0, 2.0], [-2.0, 0.0, 2.0]]
    >>> record = xp.compile_log()[-1]
    >>> record.compiled, record.signature
    (True, 'float32[3]@cpu, float')
    >>> _ = xp.set_compile(previous, after_calls=64)
"""

from __future__ import annotations

import contextlib
import copy
import functools
import time
import warnings
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import torch
from torch.overrides import TorchFunctionMode

from anywrap.tree import Structure, flatten_with_paths, is_branch, leaves, tree_map
from anywrap.xp import switch

__all__ = ["MAX_SIGNATURES", "TorchProgram", "compile_torch"]

MAX_SIGNATURES = 8
"""Signatures one transform keeps (compiled or counted); calls beyond them run eagerly."""

SMALL_PROGRAM = 2
"""A transform of at most this many operations runs eagerly: the compiled call's
fixed cost (about 7 us on a CPU) is more than such kernels cost (a clip: 2 to 5 us)."""

INDUCTOR_OPTIONS = {"size_asserts": False, "alignment_asserts": False, "scalar_asserts": False}
"""TorchInductor's checks of its inputs' sizes and strides are the signature's job."""

SCALAR_OPTIONS = {"cpp.simdlen": 1}
"""TorchInductor options for scalar CPU kernels: no vector instruction set is 1 bit wide,
so none is picked and every loop is written element by element."""

TIMING_ROUNDS = 3
TIMING_CALLS = 10
TIMING_SECONDS = 0.005
TIE = 0.10
"""How :func:`_faster` times a program's two CPU builds, and the margin under which the
vector build is kept."""

_SLOT = object()
"""Marks, in an output template, where a tensor of the program's outputs goes."""

_CONSTANT_LEAVES = (type(None), bool, int, str)
"""Non-tensor leaves that a program may bake in (they are part of the signature)."""


def compile_torch(fn: Callable[..., Any]) -> Callable[..., Any]:
    """The torch backend's ``jit`` hook: ``fn`` as a :class:`TorchProgram`."""
    return TorchProgram(fn)


def _name(fn: Callable[..., Any]) -> str:
    inner = fn
    while isinstance(inner, functools.partial):
        inner = inner.func
    return getattr(inner, "__qualname__", None) or getattr(inner, "__name__", None) or repr(fn)


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
        "structure",
    )

    def __init__(self, structure: Structure, key: tuple[Any, ...]) -> None:
        self.calls = 0
        self.eager = False
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
        sig = found
        if sig.run is not None:
            if last is not None and last[0] is sig:
                sig.learn(flat, last[1])
            return self._run(sig, flat)
        self._last = None
        if sig.eager:
            return self.fn(*args, **kwargs)
        sig.calls += 1
        if sig.calls < switch.compile_after_calls():
            return self.fn(*args, **kwargs)
        expected = self.fn(*args, **kwargs)  # the eager result: the program must match its form
        self._compile(sig, flat, structure, expected)
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
        self, sig: _Signature, flat: list[Any], structure: Structure, expected: Any
    ) -> None:
        build = switch.cpu_kernels()  # a wrong value is the user's to see, not a warning
        start = time.perf_counter()
        described = _describe(flat)
        try:
            run, template, kernels = _trace_and_compile(self.fn, flat, structure, build)
            _check_form(template, expected)
            out = Structure(template)
        except _Small as exc:  # cheaper eagerly, whatever the shapes: no warning
            sig.eager = self._eager_only = True
            switch.record_compile(
                switch.CompileRecord(
                    "torch", self.name, described, time.perf_counter() - start, False, str(exc)
                )
            )
            return
        except Exception as exc:  # anything the tracer or compiler refuses: stay eager
            reason = f"{type(exc).__name__}: {' '.join(str(exc).split())[:300]}"
            sig.eager = True
            switch.record_compile(
                switch.CompileRecord(
                    "torch", self.name, described, time.perf_counter() - start, False, reason
                )
            )
            self._warn(f"it could not be compiled for {described} ({reason})")
            return
        sig.out = out
        sig.plan = _plan(flat)
        sig.out_consts = leaves(template)
        sig.out_slots = [i for i, leaf in enumerate(sig.out_consts) if leaf is _SLOT]
        sig.run = run
        switch.record_compile(
            switch.CompileRecord(
                "torch", self.name, described, time.perf_counter() - start, kernels=kernels
            )
        )

    def __repr__(self) -> str:
        return f"<anywrap TorchProgram {self.name}: {len(self._signatures)} signature(s)>"


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
        from anywrap.xp.policy import has_float64
        from anywrap.xp.registry import backend_named

        xp = backend_named("torch").namespace_module()
        dtype = _float_dtypes[device] = torch.float64 if has_float64(xp, device) else torch.float32
    return dtype


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


_tracing = 0
"""How many traces for a program that may branch are running (never more than one)."""


def tracing() -> bool:
    """Whether a transform is being traced into a program that may branch: the routes
    may then emit what only a program can run (``torch.ops.higher_order.cond``, which
    eagerly would read its predicate on the host)."""
    return _tracing > 0


_programs = 0
"""How many traces for a compiled program are running (never more than one)."""


def in_program() -> bool:
    """Whether a transform is being traced into a compiled program, branching or not:
    the routes may then pick the formula that compiles best over the one that runs
    best as separate eager kernels."""
    return _programs > 0


@functools.cache
def _decompositions() -> dict[Any, Any]:
    """TorchInductor's decompositions, applied while tracing (as AOT Autograd would)."""
    from torch._inductor.decomposition import select_decomp_table

    return select_decomp_table()  # type: ignore[no-any-return]


def _trace(flat_fn: Callable[..., Any], inputs: list[torch.Tensor], branches: bool) -> Any:
    from torch.fx.experimental.proxy_tensor import make_fx

    global _tracing, _programs
    _tracing += branches
    _programs += 1
    try:
        with _NoValueReads():
            # functionalize: a transform's in-place steps on its own temporaries
            # (a rounding in place) become plain operations, as TorchInductor needs.
            pure = torch.func.functionalize(flat_fn, remove="mutations")
            return make_fx(pure, decomposition_table=_decompositions(), tracing_mode="real")(
                *inputs
            )
    finally:
        _tracing -= branches
        _programs -= 1


def _inline_branch_constants(graph: torch.fx.GraphModule) -> bool:
    """Replace the 0-d tensor constants of ``graph``'s branches (the scalars a
    formula meets) with operations that make them: TorchInductor cannot take a
    branch holding a tensor constant. False when a branch holds a larger one."""
    ok = True
    for sub in graph.children():
        if not isinstance(sub, torch.fx.GraphModule):
            continue
        for node in list(sub.graph.nodes):
            value = getattr(sub, node.target) if node.op == "get_attr" else None  # type: ignore[arg-type]
            if not isinstance(value, torch.Tensor):
                continue
            if value.ndim:
                ok = False
                continue
            with sub.graph.inserting_before(node):
                made = sub.graph.call_function(
                    torch.ops.aten.scalar_tensor.default,
                    (value.item(),),
                    {"dtype": value.dtype, "device": value.device},
                )
            node.replace_all_uses_with(made)
            sub.graph.erase_node(node)
        sub.recompile()
        ok = _inline_branch_constants(sub) and ok
    return ok


def _trace_and_compile(
    fn: Callable[..., Any], flat: list[Any], structure: Structure, build: str = "auto"
) -> tuple[Callable[..., Any], Any, str | None]:
    """Trace ``fn`` over the call's tree into one ATen graph and compile it with
    TorchInductor: on CUDA, captured in a CUDA graph; on the CPU, twice (vector
    and scalar kernels), keeping the faster (:func:`_faster`), or once where
    ``build`` (:func:`anywrap.xp.switch.cpu_kernels`) names one. Returns the
    program, the output template, and which CPU kernels were kept."""
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
        return [x for x in leaves(out) if isinstance(x, torch.Tensor)]

    # Distinct tensors for the trace: the tracer knows a tensor by its identity, so a
    # tensor passed twice (an observation that is also the final observation) would
    # be one input of the graph, which would then read both arguments from it.
    inputs: list[torch.Tensor] = []
    seen: set[int] = set()
    for t in _inputs(flat):
        inputs.append(t.clone() if id(t) in seen else t)
        seen.add(id(t))
    with torch.no_grad(), _without_function_modes():
        graph = _trace(flat_fn, inputs, branches=True)
        if not _inline_branch_constants(graph):  # a branch TorchInductor cannot take
            graph = _trace(flat_fn, inputs, branches=False)
        ops = sum(node.op == "call_function" for node in graph.graph.nodes)
        if ops <= SMALL_PROGRAM:
            raise _Small(f"{ops} operation(s): cheaper eagerly than as a compiled call")
        branches = any(node.target is torch.ops.higher_order.cond for node in graph.graph.nodes)
        with warnings.catch_warnings():
            # TorchInductor imports torch.utils.mkldnn, which PyTorch 2.13 builds with
            # its own deprecated torch.jit.script_method: nothing a user can act on.
            warnings.filterwarnings("ignore", ".*script_method", DeprecationWarning)
            if inputs and inputs[0].device.type == "cuda":
                return _cuda_graph(_inductor(graph, inputs), inputs), template["out"], None
            if build != "auto":  # one build, as the environment asks
                only = _inductor(graph, inputs, SCALAR_OPTIONS if build == "scalar" else None)
                run = _branching_on_the_host(only) if branches else only
                return run, template["out"], f"{build} ({switch.KERNELS_VAR})"
            vector = _inductor(copy.deepcopy(graph), inputs)
            scalar = _inductor(graph, inputs, SCALAR_OPTIONS)
        if branches:
            vector, scalar = _branching_on_the_host(vector), _branching_on_the_host(scalar)
        run, kernels = _faster(vector, scalar, inputs)
    return run, template["out"], kernels


def _inductor(
    graph: torch.fx.GraphModule,
    inputs: list[torch.Tensor],
    options: dict[str, Any] | None = None,
) -> Callable[..., Any]:
    """TorchInductor's program for ``graph``, with ``options`` on top of
    :data:`INDUCTOR_OPTIONS`. The graph is pure ATen already (traced
    with TorchInductor's decompositions, no mutation, no autograd), so it goes
    straight to TorchInductor's backend, without the AOT Autograd wrappers that
    ``torch._inductor.compile`` adds (about 4 us a call on the CPU); where this
    PyTorch lacks that entry point, through ``torch._inductor.compile``."""
    try:
        from torch._inductor import config
        from torch._inductor.compile_fx import compile_fx_inner
    except ImportError:  # pragma: no cover - another PyTorch
        from torch._inductor import compile as inductor_compile

        return inductor_compile(  # type: ignore[no-any-return]
            graph, list[Any](inputs), options={**INDUCTOR_OPTIONS, **(options or {})}
        )
    with config.patch({**INDUCTOR_OPTIONS, **(options or {})}):
        program = compile_fx_inner(graph, list(inputs))

    def run(*tensors: torch.Tensor) -> Any:
        return program(list(tensors))

    return run


def _faster(
    vector: Callable[..., Any], scalar: Callable[..., Any], inputs: list[torch.Tensor]
) -> tuple[Callable[..., Any], str]:
    """The faster of a program's two CPU builds, timed on the call's own tensors.

    TorchInductor's vector kernels win on wide float batches (the roofline's
    normaliser), but on some CPUs they lose to scalar loops where a kernel
    reads or writes ``bool`` tensors: its vector ``bool`` masks go through
    memory a lane at a time (measured on the development machine: a 4096-env
    episode step 52 us vectorised against 36 us scalar). Which wins depends on
    the CPU and the program, so both are timed: ``TIMING_ROUNDS`` rounds,
    alternating, the best round of each kept. A round is ``TIMING_CALLS``
    calls, or fewer where a call is slow (at least one, about
    ``TIMING_SECONDS`` a round), so that timing a large program costs about
    what compiling it does. The programs are pure, so the extra calls change
    nothing. A tie (within ``TIE``) keeps the vector kernels, TorchInductor's
    default.
    """
    runs = {"vector": vector, "scalar": scalar}
    first = {}
    for name, run in runs.items():  # first calls: lazy set-up stays out of the timing
        start = time.perf_counter()
        run(*inputs)
        first[name] = time.perf_counter() - start
    calls = max(1, min(TIMING_CALLS, int(TIMING_SECONDS / max(first.values()))))
    best = {name: float("inf") for name in runs}
    for _ in range(TIMING_ROUNDS):
        for name, run in runs.items():
            start = time.perf_counter()
            for _ in range(calls):
                run(*inputs)
            best[name] = min(best[name], (time.perf_counter() - start) / calls)
    kept = "scalar" if best["scalar"] * (1 + TIE) < best["vector"] else "vector"
    other = "vector" if kept == "scalar" else "scalar"
    us = {k: v * 1e6 for k, v in best.items()}
    return runs[kept], f"{kept} ({us[kept]:.1f} us a call; {other} {us[other]:.1f} us)"


def _branching_on_the_host(run: Callable[..., Any]) -> Callable[..., Any]:
    """A CPU program that branches: TorchInductor's wrapper reads the 0-d predicate
    (``.item()`` on a host tensor, no sync). It runs without the caller's
    ``TorchFunctionMode``, which would take that read for one of the transform's
    own (programs for devices never branch, see ``_fast_path_torch``)."""

    def call(*tensors: torch.Tensor) -> Any:
        with torch._C.DisableTorchFunction():
            return run(*tensors)

    return call


_VALUE_READS = frozenset(
    {"item", "tolist", "numpy", "__bool__", "__float__", "__int__", "__index__", "__array__"}
)


class _Small(Exception):
    """A traced transform too small to gain from compiling."""


class _ValueRead(RuntimeError):
    """A transform read a tensor's value on the host while it was traced."""


class _NoValueReads(TorchFunctionMode):
    """Refuses reads of a tensor's value while tracing: the trace runs on the call's
    real tensors (so that the transform's own caches fill with real constants), and
    a value read there would be baked into the program as a constant."""

    def __torch_function__(
        self, func: Any, types: Any, args: Sequence[Any] = (), kwargs: Any = None
    ) -> Any:
        if getattr(func, "__name__", "") in _VALUE_READS:
            raise _ValueRead(f"it reads a tensor's value on the host (Tensor.{func.__name__})")
        return func(*args, **(kwargs or {}))


@contextlib.contextmanager
def _without_function_modes() -> Iterator[None]:
    """No ``TorchFunctionMode`` (a user's, or a test's guard against host reads)
    while tracing and compiling: they would see the compiler's own work, which
    runs once and is not the transform's."""
    modes = []
    while torch._C._len_torch_function_stack() > 0:
        modes.append(torch._C._pop_torch_function_stack())
    try:
        yield
    finally:
        for mode in reversed(modes):
            torch._C._push_on_torch_function_stack(mode)


def _check_form(template: Any, expected: Any) -> None:
    """The program's outputs must have the eager outputs' tree, and its constants."""
    got = flatten_with_paths(template)
    want = flatten_with_paths(expected)
    if [p for p, _ in got] != [p for p, _ in want]:
        raise ValueError("the traced outputs' tree differs from the eager outputs'")
    for (path, g), (_, w) in zip(got, want):
        if g is _SLOT:
            if not isinstance(w, torch.Tensor):
                raise ValueError(f"output {path}: a tensor when traced, {type(w)} eagerly")
        elif isinstance(w, torch.Tensor) or type(g) is not type(w) or g != w:
            raise ValueError(f"output {path}: {g!r} when traced, {w!r} eagerly")


def _by_dtype(tensors: Sequence[torch.Tensor]) -> list[list[int]]:
    groups: dict[torch.dtype, list[int]] = {}
    for i, t in enumerate(tensors):
        groups.setdefault(t.dtype, []).append(i)
    return list(groups.values())


def _cuda_graph(run: Callable[..., Any], example: list[torch.Tensor]) -> Callable[..., Any]:
    """``run`` captured in a CUDA graph over static input buffers.

    A call copies its inputs into the buffers (one multi-tensor copy per
    dtype), replays the graph, and copies the outputs into fresh tensors (one
    per dtype) that belong to the caller: the next replay overwrites the
    graph's own outputs.
    """
    device = example[0].device
    static_in = [t.clone() for t in example]
    side = torch.cuda.Stream(device=device)
    side.wait_stream(torch.cuda.current_stream(device))
    with torch.cuda.stream(side):
        for _ in range(2):  # warm-up: lazy initialisation stays out of the graph
            run(*static_in)
    torch.cuda.current_stream(device).wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        static_out = list(run(*static_in))
    in_groups = _by_dtype(static_in)
    out_groups = _by_dtype(static_out)

    def replay(*tensors: torch.Tensor) -> list[torch.Tensor]:
        for group in in_groups:
            torch._foreach_copy_([static_in[i] for i in group], [tensors[i] for i in group])
        graph.replay()
        outs: list[Any] = [None] * len(static_out)
        for group in out_groups:
            fresh = [torch.empty_like(static_out[i]) for i in group]
            torch._foreach_copy_(fresh, [static_out[i] for i in group])
            for i, t in zip(group, fresh):
                outs[i] = t
        return outs

    return replay
