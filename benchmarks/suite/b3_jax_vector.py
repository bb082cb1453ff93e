"""B3: JAX ``phys2d/Pendulum-v0`` vector env at several sizes: anywrap's vector
stack, Gymnasium's (on JAX arrays, and behind JaxToNumpy), and the bare env."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

from benchmarks.suite.common import (
    Context,
    quiet,
    result,
    row,
    stack,
    stepping_case,
    verdict,
    wrapped,
)

__all__ = ["bench_b3"]


def bench_b3(ctx: Context) -> dict[str, Any]:
    """B3: JAX phys2d/Pendulum-v0 vector env: anywrap vs Gymnasium stacks vs bare."""
    import gymnasium as gym
    import jax
    import jax.numpy as jnp
    import numpy as np

    import anywrap

    title = "JAX vector env phys2d/Pendulum-v0, CleanRL six-wrapper vector stack"
    sizes = ctx.settings.pick((64, 1024, 4096), (64, 4096))
    steps = ctx.settings.pick(100, 20)

    def sync(out: Any) -> None:
        jax.block_until_ready([x for x in out[:4] if isinstance(x, jax.Array)])

    rows: list[dict[str, Any]] = []
    series: dict[str, dict[str, list[float]]] = {}
    ratios: dict[str, float | None] = {}
    labels = {
        "bare": "bare env",
        "anywrap": "anywrap stack",
        "gymnasium": "Gymnasium stack on JAX arrays",
        "gymnasium_jax_to_numpy": "Gymnasium stack behind JaxToNumpy",
    }
    gym_vec = gym.wrappers.vector
    with ctx.on_jax_device(), quiet():
        for n in sizes:
            host = np.random.default_rng(0).uniform(-2.0, 2.0, (steps, n, 1)).astype(np.float32)
            dev_actions = [jnp.asarray(a) for a in host]
            host_actions = list(host)
            out_types: dict[str, str] = {}

            stacks: list[tuple[str, Callable[[Any], Any], list[Any]]] = [
                ("bare", lambda e: e, dev_actions),
                ("anywrap", lambda e: stack(e, anywrap.vector, jnp.clip), dev_actions),
                ("gymnasium", lambda e: stack(e, gym_vec, jnp.clip), dev_actions),
                (
                    "gymnasium_jax_to_numpy",
                    lambda e: stack(gym_vec.JaxToNumpy(e), gym_vec, np.clip),
                    host_actions,
                ),
            ]
            cases = [
                stepping_case(
                    name,
                    partial(wrapped, wrap, partial(gym.make_vec, "phys2d/Pendulum-v0", n)),
                    acts,
                    out_types,
                    sync=sync,
                    reset_once=True,
                )
                for name, wrap, acts in stacks
            ]
            t = ctx.time(f"B3 N={n}", cases)
            for c in cases:
                r = row(
                    labels[c.name],
                    t[c.name],
                    num_envs=n,
                    ref=t["bare"],
                    extra=f"N={n}, obs out: {out_types.get(c.name, '-')}",
                )
                r["num_envs"] = n
                rows.append(r)
                if "env_steps_per_s" in r:
                    s = series.setdefault(c.name, {"num_envs": [], "env_steps_per_s": []})
                    s["num_envs"].append(n)
                    s["env_steps_per_s"].append(r["env_steps_per_s"])
            ratios[f"anywrap_over_bare_N{n}"] = rows[-3].get("ratio")
            ratios[f"gymnasium_over_bare_N{n}"] = rows[-2].get("ratio")
            ratios[f"gymnasium_jax_to_numpy_over_bare_N{n}"] = rows[-1].get("ratio")
    verdicts = [
        verdict(
            f"anywrap stack / bare env step, N={n}",
            ratios[f"anywrap_over_bare_N{n}"],
            1.2,
            "target <= 1.2",
        )
        for n in sizes
    ]
    return result(
        "B3",
        title,
        params=ctx.params(ctx.jax_device, sizes=list(sizes), steps_per_block=steps),
        rows=rows,
        summary=ratios,
        verdicts=verdicts,
        series=series,
        notes=[
            "Gymnasium's NormalizeObservation keeps NumPy statistics: on JAX arrays each "
            "step goes through the host (the obs type column says what comes out)."
        ],
    )
