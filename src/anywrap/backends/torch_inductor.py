"""How a traced transform becomes a program: the ATen trace (``make_fx``, no host
reads), TorchInductor's compilation, the choice of CPU kernels, and the CUDA graph
around a device program. The cache of programs per signature that calls these is
:mod:`anywrap.backends.torch_compile`.

Two paths, chosen by PyTorch's version (:func:`private_path`):

* ``"inductor"``, on the releases anywrap is tested on (:data:`PRIVATE_PATH`):
  the transform is traced to ATen with ``make_fx`` and handed to TorchInductor's
  backend (``compile_fx_inner``) without TorchDynamo's guards, which cost 40 to
  80 us a call on these transforms;
* ``"torch.compile"`` elsewhere, or where an entry point of the first path is
  missing: the public ``torch.compile(dynamic=False)`` (TorchDynamo may split a
  transform where it cannot trace, as at ``torch.result_type``).

If neither compiles, the transform runs eagerly after one warning that names
PyTorch's version.
"""

from __future__ import annotations

import contextlib
import functools
import math
import threading
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

INDUCTOR_OPTIONS = {
    "size_asserts": False,
    "alignment_asserts": False,
    "scalar_asserts": False,
    "compile_threads": 1,
}
"""TorchInductor's checks of its inputs' sizes and strides are the signature's job. One
compile thread: no pool of compiler processes to start (seconds on two cores) or to
wait for at exit; the C++ compiler still runs in its own process. Options a PyTorch
release lacks are left out."""

SCALAR_OPTIONS = {"cpp.simdlen": 1}
"""TorchInductor options for scalar CPU kernels: no vector instruction set is 1 bit wide,
so none is picked and every loop is written element by element."""

PRIVATE_PATH = ((2, 7), (2, 15))
"""The PyTorch releases (from, up to but not including) whose private entry points
the ``"inductor"`` path uses: the oldest and the newest that the test runs cover."""


def torch_version() -> tuple[int, int]:
    """PyTorch's (major, minor) version."""
    major, minor = torch.__version__.split(".")[:2]
    return int(major), int("".join(c for c in minor if c.isdigit()) or 0)


def private_path() -> bool:
    """Whether this PyTorch takes the ``"inductor"`` path (see the module)."""
    low, high = PRIVATE_PATH
    return low <= torch_version() < high


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


_local = threading.local()
"""Per thread: how many traces run there (a user may step wrappers from several
threads: one thread's trace must not change the formulas another runs eagerly)."""


def tracing() -> bool:
    """Whether a transform is being traced, on this thread, into a program that may
    branch: the routes may then emit what only a program can run
    (``torch.ops.higher_order.cond``, which eagerly would read its predicate on the
    host)."""
    return getattr(_local, "branching", 0) > 0


def in_program() -> bool:
    """Whether a transform is being traced, on this thread, into a compiled program,
    branching or not: the routes may then pick the formula that compiles best over
    the one that runs best as separate eager kernels."""
    return getattr(_local, "programs", 0) > 0


@functools.cache
def _decompositions() -> dict[Any, Any]:
    """TorchInductor's decompositions, applied while tracing (as AOT Autograd would)."""
    from torch._inductor.decomposition import select_decomp_table

    return select_decomp_table()  # type: ignore[no-any-return]


def _compiler_imports() -> None:
    """Import the tracer and the compiler before the trace's guard is on: some torch
    releases (2.7) run module-level code that reads tensors' values as they import
    ``torch._dynamo``, which the guard would refuse, leaving the module half made."""
    import torch._dynamo
    import torch._inductor.compile_fx
    import torch._inductor.decomposition
    import torch.fx.experimental.proxy_tensor  # noqa: F401


def _trace(flat_fn: Callable[..., Any], inputs: list[torch.Tensor], branches: bool) -> Any:
    from torch.fx.experimental.proxy_tensor import make_fx

    with warnings.catch_warnings():
        # TorchInductor imports torch.utils.mkldnn, which PyTorch 2.13 builds with
        # its own deprecated torch.jit.script_method: nothing a user can act on.
        warnings.filterwarnings("ignore", ".*script_method", DeprecationWarning)
        _compiler_imports()
    _local.branching = getattr(_local, "branching", 0) + branches
    _local.programs = getattr(_local, "programs", 0) + 1
    try:
        with _NoValueReads():
            # functionalize: a transform's in-place steps on its own temporaries
            # (a rounding in place) become plain operations, as TorchInductor needs.
            pure = torch.func.functionalize(flat_fn, remove="mutations")
            return make_fx(pure, decomposition_table=_decompositions(), tracing_mode="real")(
                *inputs
            )
    finally:
        _local.branching -= branches
        _local.programs -= 1


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


class Built:
    """What :func:`trace_and_compile` made: the program, the output template, the CPU
    build kept (and why), the path, and whether TorchInductor's cache had it."""

    __slots__ = ("cached", "kernels", "path", "run", "template")

    def __init__(
        self, run: Callable[..., Any], template: Any, kernels: str | None, path: str, cached: bool
    ) -> None:
        self.run, self.template, self.kernels = run, template, kernels
        self.path, self.cached = path, cached


def trace_and_compile(
    fn: Callable[..., Any], flat: list[Any], structure: Structure, build: str = "auto"
) -> Built:
    """Compile ``fn`` for the call's leaves ``flat`` (laid out by ``structure``), by
    the path this PyTorch takes; on CUDA, captured in a CUDA graph."""
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

    # Distinct tensors for the trace: the tracer knows a tensor by its identity, so a
    # tensor passed twice (an observation that is also the final observation) would
    # be one input of the graph, which would then read both arguments from it.
    inputs: list[torch.Tensor] = []
    seen: set[int] = set()
    for t in _inputs(flat):
        inputs.append(t.clone() if id(t) in seen else t)
        seen.add(id(t))
    if private_path():
        try:
            return _inductor_path(flat_fn, inputs, template, build)
        except (ImportError, AttributeError) as exc:  # an entry point this PyTorch lacks
            _private_failed(exc)
    return _public_path(flat_fn, inputs, template)


def _private_failed(exc: BaseException) -> None:
    warnings.warn(
        f"anywrap: PyTorch {torch.__version__} lacks an entry point of anywrap's compiled "
        f"path ({type(exc).__name__}: {exc}); compiling with torch.compile instead",
        RuntimeWarning,
        stacklevel=2,
    )


def _inductor_path(
    flat_fn: Callable[..., Any], inputs: list[torch.Tensor], template: dict[str, Any], build: str
) -> Built:
    with torch.no_grad(), _without_function_modes():
        graph = _trace(flat_fn, inputs, branches=True)
        if not _inline_branch_constants(graph):  # a branch TorchInductor cannot take
            graph = _trace(flat_fn, inputs, branches=False)
        ops = sum(node.op == "call_function" for node in graph.graph.nodes)
        if ops <= SMALL_PROGRAM:
            raise _Small(f"{ops} operation(s): cheaper eagerly than as a compiled call")
        branches = any(node.target is torch.ops.higher_order.cond for node in graph.graph.nodes)
        hits = _compiler_seconds()
        if inputs and inputs[0].device.type == "cuda":
            run = _cuda_graph(_inductor(graph, inputs), inputs)
            return Built(run, template["out"], None, "inductor", _from_cache(hits))
        kept, why = _cpu_build(build, template["bool"])
        run = _inductor(graph, inputs, SCALAR_OPTIONS if kept == "scalar" else None)
        cached = _from_cache(hits)
    if branches:
        run = _branching_on_the_host(run)
    return Built(run, template["out"], f"{kept} ({why})", "inductor", cached)


def _cpu_build(build: str, writes_bool: bool) -> tuple[str, str]:
    """Which CPU build a program gets, and why: the one the environment names, else
    scalar kernels for a program that writes ``bool`` tensors and vector kernels
    otherwise. TorchInductor's vector kernels store a ``bool`` result a lane at a
    time through memory (on the development machine a 4096-env episode step took
    52 us vectorised, 36 us scalar; the reward normaliser 34 and 14 us), and win
    on float batches (the observation normaliser 47 against 54 us, the roofline's
    wide batch 28 against 47 ms). A rule, not a timing: every run on every
    machine keeps the same build, whatever the load."""
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
    """Whether no compiler ran since ``before``: TorchInductor's kernel cache (on disk,
    shared by every process of this user) had every kernel of the program. Its graph
    cache needs TorchDynamo's shape environment, which a ``make_fx`` trace has not."""
    return _compiler_seconds() - before == 0.0


def _public_path(
    flat_fn: Callable[..., Any], inputs: list[torch.Tensor], template: dict[str, Any]
) -> Built:
    """``torch.compile`` of the flat transform, run once here so that it compiles now
    (and fails now, rather than at a later step)."""
    compiled = torch.compile(flat_fn, dynamic=False)
    with torch.no_grad(), _without_function_modes():
        hits = _compiler_seconds()
        compiled(*inputs)
        cached = _from_cache(hits)

    def run(*tensors: torch.Tensor) -> Any:
        with torch.no_grad():
            return compiled(*tensors)

    return Built(run, template["out"], None, "torch.compile", cached)


def _inductor(
    graph: torch.fx.GraphModule,
    inputs: list[torch.Tensor],
    options: dict[str, Any] | None = None,
) -> Callable[..., Any]:
    """TorchInductor's program for ``graph``, with ``options`` on top of
    :data:`INDUCTOR_OPTIONS`. The graph is pure ATen already (traced
    with TorchInductor's decompositions, no mutation, no autograd), so it goes
    straight to TorchInductor's backend, without the AOT Autograd wrappers that
    ``torch._inductor.compile`` adds (about 4 us a call on the CPU)."""
    from torch._inductor import config
    from torch._inductor.compile_fx import compile_fx_inner

    wanted = {**INDUCTOR_OPTIONS, **(options or {})}
    with config.patch({k: v for k, v in wanted.items() if _has_option(config, k)}):
        program = compile_fx_inner(graph, list(inputs))

    def run(*tensors: torch.Tensor) -> Any:
        return program(list(tensors))

    return run


def _has_option(config: Any, key: str) -> bool:
    node = config
    for part in key.split("."):
        if not hasattr(node, part):
            return False
        node = getattr(node, part)
    return True


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


_MODE_STACK = "_len_torch_function_stack"
"""PyTorch's private count of the torch function modes: where a release lacks it, the
modes are left in place (the public ``torch.compile`` path still compiles)."""


@contextlib.contextmanager
def _without_function_modes() -> Iterator[None]:
    """No ``TorchFunctionMode`` (a user's, or a test's guard against host reads)
    while tracing and compiling: they would see the compiler's own work, which
    runs once and is not the transform's."""
    stack = getattr(torch._C, _MODE_STACK, None)
    if stack is None:  # a PyTorch without this private stack API: the modes stay
        yield
        return
    modes = []
    while stack() > 0:
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
