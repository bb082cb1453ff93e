"""Is the eager step's host time anywrap's Python, or PyTorch's calls? One fused step of
the CleanRL stack, timed two ways over the same inputs.

* **eager**: the fused run's function (RecordEpisodeStatistics, NormalizeObservation,
  the observation clamp, NormalizeReward and the reward clamp, after the env's step) as
  anywrap runs it with compilation off: the transforms' Python and their torch calls;
* **straight-line**: the same function captured once by TorchDynamo (``torch.compile``
  with a backend that keeps the graph it is given) and its graph's ``forward`` called
  directly: only the torch calls, one after another, with no anywrap code, no guards and
  no compiler. ``torch.compiler.is_compiling()`` reads False while it traces, so the
  few routes that choose other kernels when traced take their eager ones: both ways make
  the same ATen calls (counted beside the times, nested ones included).

Both ways are timed on one step's inputs, called again and again: not a user's loop
(``device_ops.py`` times whole episodes with their autoresets), but the same calls as any
step's, since the eager routes read no data on the host; an episode's end takes them too.

If the straight-line time is close to the eager one, the Python around the calls is not
what costs: the number and kind of torch calls are. Run it where the host's work is all
there is (few envs: the kernels have next to nothing to compute):

    python benchmarks/straight_line.py                 # 4 envs, CPU, one thread
    python benchmarks/straight_line.py --envs 4096 --rounds 9

Both ways return the same arrays; the script checks that before it times them.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable
from typing import Any

import torch

from anywrap.tree import leaves


def aten_calls(fn: Callable[..., Any], args: tuple) -> int:
    """The ATen calls of one ``fn(*args)``, nested ones included (``device_ops.py``'s count)."""
    from torch.profiler import ProfilerActivity, profile

    with profile(activities=[ProfilerActivity.CPU]) as prof:
        fn(*args)
    return sum(ev.count for ev in prof.key_averages() if ev.key.startswith("aten::"))


def fused_step(envs: int, device: str = "cpu") -> tuple[Callable[..., Any], tuple]:
    """The CleanRL stack's fused function after its env's step, and one step's arguments."""
    from anywrap import demo, vector, xp
    from anywrap.shell import fusion

    xp.set_compile(False)
    env = demo.torch_pendulum_vector_env(envs, torch.device(device))
    stack = demo.cleanrl_stack(env, vector, torch.clamp)
    stack.reset(seed=0)
    seen: dict[str, Any] = {}
    run_fused = fusion._run_fused

    def spy(parts: Any, out: Any, run: Any) -> Any:
        def keep(*args: Any) -> Any:
            seen["fn"], seen["args"] = getattr(run, "fn", run), args
            return run(*args)

        return run_fused(parts, out, keep)

    fusion._run_fused = spy
    try:
        for _ in range(3):
            stack.step(torch.zeros((envs, 1), device=device))
    finally:
        fusion._run_fused = run_fused
    return seen["fn"], seen["args"]


def straight_line(fn: Callable[..., Any], args: tuple) -> tuple[Callable[..., Any], list[Any]]:
    """``fn``'s torch calls as one graph, and the flat inputs its ``forward`` takes."""
    kept: dict[str, Any] = {}

    def keep(gm: torch.fx.GraphModule, inputs: list[Any]) -> Callable[..., Any]:
        kept["gm"], kept["inputs"] = gm, inputs
        return gm.forward

    torch._dynamo.reset()
    traced = torch.compiler.is_compiling
    torch.compiler.is_compiling = lambda: False  # the eager routes' kernels, not the traced ones
    try:
        out = torch.compile(fn, backend=keep, fullgraph=True, dynamic=False)(*args)
    finally:
        torch.compiler.is_compiling = traced
    expected, got = leaves(fn(*args)), leaves(out)
    if len(expected) != len(got) or not all(
        torch.equal(a, b) if torch.is_tensor(a) else a == b for a, b in zip(expected, got)
    ):
        raise AssertionError("the captured graph does not compute what the eager step does")
    return kept["gm"].forward, kept["inputs"]


def measure(envs: int = 4, rounds: int = 7, calls: int = 1000) -> dict[str, Any]:
    """Median µs a call of each way (interleaved rounds) and their ATen calls."""
    fn, args = fused_step(envs)
    graph, inputs = straight_line(fn, args)
    ways = {"eager": (fn, args), "straight-line": (graph, tuple(inputs))}
    seconds: dict[str, list[float]] = {name: [] for name in ways}
    for _ in range(rounds + 1):  # the first round warms up
        for name, (f, a) in ways.items():
            start = time.perf_counter()
            for _ in range(calls):
                f(*a)
            seconds[name].append((time.perf_counter() - start) / calls)
    return {
        name: {
            "us_per_call": statistics.median(seconds[name][1:]) * 1e6,
            "aten_calls": aten_calls(f, a),
        }
        for name, (f, a) in ways.items()
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--envs", type=int, default=4)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--calls", type=int, default=1000, help="calls in a round")
    parser.add_argument("--threads", type=int, default=1)
    a = parser.parse_args(argv)
    torch.set_num_threads(a.threads)
    figures = measure(a.envs, a.rounds, a.calls)
    print(f"| the fused step, {a.envs} envs | ATen calls | µs a call | µs per ATen call |")
    print("|---|---:|---:|---:|")
    for name, r in figures.items():
        per = r["us_per_call"] / r["aten_calls"]
        print(f"| {name} | {r['aten_calls']} | {r['us_per_call']:.0f} | {per:.2f} |")
    eager, line = figures["eager"]["us_per_call"], figures["straight-line"]["us_per_call"]
    print(f"straight-line / eager: {line / eager:.2f}")


if __name__ == "__main__":
    main()
