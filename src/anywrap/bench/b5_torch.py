"""B5: a batched PyTorch Pendulum (pure torch): anywrap's and Gymnasium's vector
stacks, and TorchRL's VecNorm + RewardSum over its own EnvBase."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from functools import partial
from typing import Any

from anywrap.bench.common import (
    Context,
    quiet,
    result,
    row,
    stack,
    stepping_case,
    torchrl_case,
    wrapped,
)

__all__ = ["bench_b5"]


def bench_b5(ctx: Context) -> dict[str, Any]:
    """B5: batched PyTorch Pendulum: anywrap vs Gymnasium vector stacks, and TorchRL."""
    import gymnasium as gym
    import torch

    import anywrap
    from anywrap.bench.envs import torch_pendulum_vector_env, torchrl_pendulum_env

    title = "PyTorch batched Pendulum (pure torch): anywrap vs Gymnasium vs TorchRL"
    dev = ctx.torch_device
    sizes = ctx.settings.pick((256, 4096), (1024,))
    steps = ctx.settings.pick(100, 30)
    cuda = torch.device(dev).type == "cuda"

    def sync(_: Any) -> None:
        if cuda:
            torch.cuda.synchronize()

    notes = [
        "TorchRL stack: VecNorm(observation) + RewardSum over the same dynamics as a "
        "TorchRL EnvBase, stepped with step_and_maybe_reset"
    ]
    try:
        importlib.import_module("torchrl")
        have_torchrl = True
    except Exception as exc:
        have_torchrl = False
        notes.append(f"TorchRL not available: {exc!r}")
    rows: list[dict[str, Any]] = []
    summary: dict[str, Any] = {}
    labels = {
        "bare": "bare torch vector env",
        "anywrap": "anywrap stack",
        "gymnasium": "Gymnasium stack",
        "torchrl_bare": "TorchRL bare EnvBase",
        "torchrl": "TorchRL VecNorm+RewardSum",
    }
    with quiet():
        for n in sizes:
            gen = torch.Generator().manual_seed(0)
            actions = [(torch.rand(n, 1, generator=gen) * 4 - 2).to(dev) for _ in range(steps)]
            out_types: dict[str, str] = {}

            stacks: list[tuple[str, Callable[[Any], Any]]] = [
                ("bare", lambda e: e),
                ("anywrap", lambda e: stack(e, anywrap.vector, torch.clamp)),
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
            if have_torchrl:
                cases += [
                    torchrl_case(name, torchrl_pendulum_env(n, dev), stacked, actions, sync)
                    for name, stacked in (("torchrl_bare", False), ("torchrl", True))
                ]
            t = ctx.time(f"B5 N={n}", cases)
            for c in cases:
                ref_name = "torchrl_bare" if c.name.startswith("torchrl") else "bare"
                r = row(
                    labels[c.name],
                    t[c.name],
                    num_envs=n,
                    ref=t[ref_name],
                    ref_label=ref_name,
                    extra=f"N={n}, out: {out_types.get(c.name, 'tensordict.TensorDict')}",
                )
                r["num_envs"] = n
                rows.append(r)
                summary[f"{c.name}_over_{ref_name}_N{n}"] = r.get("ratio")
                if "error" in r:
                    summary[f"{c.name}_error"] = r["error"]
    return result(
        "B5",
        title,
        params=ctx.params(dev, sizes=list(sizes), steps_per_block=steps),
        rows=rows,
        summary=summary,
        notes=notes,
    )
