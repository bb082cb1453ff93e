"""How a traced transform becomes a program: the ATen trace (``make_fx``, no host
reads), TorchInductor's compilation, the choice between its vector and scalar CPU
kernels (:func:`_faster`), and the CUDA graph around a device program. The cache
of programs per signature that calls these is :mod:`anywrap.backends.torch_compile`.
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

from anywrap.tree import Structure, leaves, tree_map
from anywrap.xp import switch

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
