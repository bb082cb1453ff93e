"""B5: a batched PyTorch Pendulum (pure torch): anywrap's and Gymnasium's vector
stacks, and TorchRL's VecNorm + RewardSum over its own EnvBase.

Each stack is reported as its time per step, its ratio to its own bare env,
and the time it adds per step: the median over the interleaved rounds of
(stack - bare), paired round by round as B1 and B2 do. The rows, the summary
and the verdicts all read those two figures. anywrap's stack runs twice: as
configured (PyTorch's compiled path, unless ``ANYWRAP_TORCH_COMPILE=0``) and
with compilation switched off, side by side.
"""

from __future__ import annotations

import contextlib
import dataclasses
import importlib
from collections.abc import Callable, Iterator
from functools import partial
from typing import Any

from benchmarks.suite.common import (
    Context,
    quiet,
    result,
    row,
    stack,
    stepping_case,
    torchrl_case,
    verdict,
    wrapped,
)
from benchmarks.suite.harness import Case, Failure, Timing, paired_median_difference

__all__ = ["REFERENCE", "b5_figures", "bench_b5"]

REFERENCE = {
    "bare": "bare",
    "anywrap": "bare",
    "anywrap_eager": "bare",
    "gymnasium": "bare",
    "torchrl_bare": "torchrl_bare",
    "torchrl": "torchrl_bare",
}
"""The bare env each case is compared with."""

LABELS = {
    "bare": "bare torch vector env",
    "anywrap": "anywrap stack",
    "anywrap_eager": "anywrap stack, compile off",
    "gymnasium": "Gymnasium stack",
    "torchrl_bare": "TorchRL bare EnvBase",
    "torchrl": "TorchRL VecNorm+RewardSum",
}

TARGET_ADDED = 1.0
"""anywrap's added time per step over TorchRL's, at most (the issue's target)."""
AIM_OVER_BARE = (4096, 1.5)
"""At 4096 envs, the issue aims at the anywrap stack costing 1.5x its bare env."""


def bench_b5(ctx: Context) -> dict[str, Any]:
    """B5: batched PyTorch Pendulum: anywrap vs Gymnasium vector stacks, and TorchRL."""
    import gymnasium as gym
    import torch

    import anywrap
    from anywrap import xp
    from anywrap.demo import torch_pendulum_vector_env
    from benchmarks.suite.envs import torchrl_pendulum_env

    title = "PyTorch batched Pendulum (pure torch): anywrap vs Gymnasium vs TorchRL"
    dev = ctx.torch_device
    sizes = ctx.settings.pick((256, 4096), (1024,))
    steps = ctx.settings.pick(100, 30)
    cuda = torch.device(dev).type == "cuda"
    compiled = xp.compile_enabled()
    after_calls = xp.switch.compile_after_calls()
    # Compile within the first (untimed) block: only when compilation happens moves.
    early = min(after_calls, max(1, steps // 2))

    def sync(_: Any) -> None:
        if cuda:
            torch.cuda.synchronize()

    notes = [
        "TorchRL stack: VecNorm(observation) + RewardSum over the same dynamics as a "
        "TorchRL EnvBase, stepped with step_and_maybe_reset",
        "adds = median over interleaved rounds of (stack - its bare env) time per step",
        "anywrap stack: "
        + (
            f"PyTorch's compiled path (each transform compiled on call {early} of its "
            "signature, inside the untimed warm-up block)"
            if compiled
            else "eager (compilation switched off by ANYWRAP_TORCH_COMPILE or set_compile)"
        ),
    ]
    try:
        importlib.import_module("torchrl")
        have_torchrl = True
    except Exception as exc:
        have_torchrl = False
        notes.append(f"TorchRL not available: {exc!r}")
    timings: dict[int, dict[str, Timing | Failure]] = {}
    extras: dict[int, dict[str, str]] = {}
    compile_seconds: dict[int, list[float]] = {}
    kept: dict[int, str] = {}
    xp.set_compile(compiled, after_calls=early)
    with quiet(), _finally(lambda: xp.set_compile(compiled, after_calls=after_calls)):
        for n in sizes:
            gen = torch.Generator().manual_seed(0)
            actions = [(torch.rand(n, 1, generator=gen) * 4 - 2).to(dev) for _ in range(steps)]
            out_types: dict[str, str] = {}

            stacks: list[tuple[str, Callable[[Any], Any]]] = [
                ("bare", lambda e: e),
                ("anywrap", lambda e: stack(e, anywrap.vector, torch.clamp)),
                ("anywrap_eager", lambda e: stack(e, anywrap.vector, torch.clamp)),
                ("gymnasium", lambda e: stack(e, gym.wrappers.vector, torch.clamp)),
            ]
            cases = [
                stepping_case(
                    name,
                    partial(wrapped, wrap, partial(torch_pendulum_vector_env, n, dev)),
                    actions,
                    out_types,
                    sync=sync,
                )
                for name, wrap in stacks
            ]
            cases[2] = _without_compiling(cases[2])
            if have_torchrl:
                cases += [
                    torchrl_case(name, torchrl_pendulum_env(n, dev), stacked, actions, sync)
                    for name, stacked in (("torchrl_bare", False), ("torchrl", True))
                ]
            before = len(xp.compile_log())
            timings[n] = ctx.time(f"B5 N={n}", cases)
            records = [r for r in xp.compile_log()[before:] if r.compiled]
            compile_seconds[n] = [r.seconds for r in records]
            kept[n] = ", ".join(
                f"{r.function} {r.kernels.split(' ')[0]}" for r in records if r.kernels
            )
            extras[n] = {
                name: f"out: {out_types.get(name, 'tensordict.TensorDict')}" for name in timings[n]
            }
    rows, summary, verdicts = b5_figures(timings, extras)
    for n, secs in compile_seconds.items():
        if secs:
            notes.append(
                f"N={n}: {len(secs)} transform signature(s) compiled in {sum(secs):.1f} s "
                f"(longest {max(secs):.1f} s), once per shape and dtype, in the warm-up"
                + (f"; CPU kernels kept: {kept[n]}" if kept.get(n) else "")
            )
        summary[f"compile_seconds_N{n}"] = sum(secs)
    return result(
        "B5",
        title,
        params=ctx.params(dev, sizes=list(sizes), steps_per_block=steps, compiled=compiled),
        rows=rows,
        summary=summary,
        verdicts=verdicts,
        notes=notes,
    )


@contextlib.contextmanager
def _finally(restore: Callable[[], Any]) -> Iterator[None]:
    try:
        yield
    finally:
        restore()


def _without_compiling(case: Case) -> Case:
    """``case`` with anywrap's compiled path switched off while its blocks run."""
    from anywrap import xp

    def run() -> Any:
        previous = xp.set_compile(False)
        try:
            return case.run()
        finally:
            xp.set_compile(previous)

    return dataclasses.replace(case, run=run)


def b5_figures(
    timings: dict[int, dict[str, Timing | Failure]],
    extras: dict[int, dict[str, str]] | None = None,
) -> tuple[list[dict[str, Any]], dict[str, Any], list[str]]:
    """B5's rows, summary and verdicts from its timings (``{num_envs: {case: timing}}``);
    ``extras`` adds a note to a case's row.

    Every figure comes from two statistics of the timings: the ratio of a case's
    median to its bare env's median, and the time it adds per step (the median
    of the paired differences, :func:`~benchmarks.suite.harness.paired_median_difference`).
    """
    rows: list[dict[str, Any]] = []
    summary: dict[str, Any] = {}
    verdicts: list[str] = []
    for n, t in timings.items():
        added: dict[str, float] = {}
        for name, timing in t.items():
            ref_name = REFERENCE.get(name, "bare")
            ref = t.get(ref_name)
            extra = [f"N={n}", (extras or {}).get(n, {}).get(name, "")]
            if name != ref_name and isinstance(timing, Timing) and isinstance(ref, Timing):
                added[name] = paired_median_difference(timing, ref)
                extra.insert(1, f"adds {added[name] * 1e6:.1f} us/step")
            r = row(
                LABELS.get(name, name),
                timing,
                num_envs=n,
                ref=ref if name != ref_name else timing,
                ref_label=ref_name,
                extra=", ".join(e for e in extra if e),
                added_seconds_per_step=added.get(name),
            )
            r["num_envs"] = n
            rows.append(r)
            summary[f"{name}_over_{ref_name}_N{n}"] = r.get("ratio")
            if name in added:
                summary[f"{name}_added_s_N{n}"] = added[name]
            if "error" in r:
                summary[f"{name}_error_N{n}"] = r["error"]
        ratio = _over(added.get("anywrap"), added.get("torchrl"))
        summary[f"anywrap_added_over_torchrl_added_N{n}"] = ratio
        verdicts.append(
            verdict(
                f"N={n}: time anywrap's stack adds / time TorchRL's VecNorm+RewardSum adds",
                ratio,
                TARGET_ADDED,
                f"target <= {TARGET_ADDED}",
            )
        )
    size, aim = AIM_OVER_BARE
    if size in timings:
        verdicts.append(
            verdict(
                f"N={size}: anywrap stack / its bare env",
                summary.get(f"anywrap_over_bare_N{size}"),
                aim,
                f"aim <= {aim}",
            )
        )
    return rows, summary, verdicts


def _over(a: float | None, b: float | None) -> float | None:
    if a is None or b is None or b <= 0:
        return None
    return a / b
