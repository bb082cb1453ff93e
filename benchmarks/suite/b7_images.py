"""B7: the Atari-style image pipeline (256 RGB 210x160 frames -> grayscale -> resize
84x84 -> stack 4), anywrap on JAX, PyTorch and NumPy against Gymnasium's vector
wrappers on NumPy with OpenCV, timed by :mod:`benchmarks.suite.images_bench`."""

from __future__ import annotations

from typing import Any

from benchmarks.suite.common import Context, quiet, result, with_runner

__all__ = ["bench_b7"]

TARGETED = ("jax", "torch")
"""The backends the issue's target (>= 3x Gymnasium's throughput) names."""

_LABELS = {
    "gymnasium": "Gymnasium (SyncVectorEnv of its wrappers, OpenCV)",
    "gymnasium-bare": "Gymnasium's image source alone",
    "anywrap-jax": "anywrap on JAX",
    "anywrap-torch": "anywrap on PyTorch",
    "anywrap-numpy": "anywrap on NumPy",
    "bare-jax": "image source alone, JAX",
    "bare-torch": "image source alone, PyTorch",
    "bare-numpy": "image source alone, NumPy",
}


@with_runner(
    "B7",
    "Image pipeline: grayscale, resize 84x84, stack 4, 256 envs",
    "benchmarks.suite.images_bench",
)
def bench_b7(ctx: Context, mod: Any, title: str) -> dict[str, Any]:
    """B7: the 256-env image pipeline, anywrap (JAX, PyTorch, NumPy) against Gymnasium."""
    num_envs = ctx.settings.pick(256, 64)
    steps = ctx.settings.pick(10, 3)
    with ctx.on_jax_device(), quiet(), ctx.progress("B7", 1) as tick:
        res = mod.run(num_envs=num_envs, steps=steps, reps=ctx.settings.reps, warmup=1)
        tick()
    gym_fig = res["pipeline"].get("gymnasium", {})
    rows = []
    for name, fig in res["pipeline"].items():
        row: dict[str, Any] = {"label": _LABELS.get(name, name), "case": name, "num_envs": num_envs}
        if "error" in fig:
            row["error"] = fig["error"]
        else:
            backend = name.removeprefix("anywrap-")
            row.update(
                seconds_per_step=fig["step_ms"] / 1e3,
                env_steps_per_s=fig["env_steps_per_s"],
                spread=fig["spread"],
            )
            if "step_ms" in gym_fig and name.startswith("anywrap-"):
                row["ratio"] = fig["step_ms"] / gym_fig["step_ms"]
                row["ratio_to"] = "gymnasium"
                row["extra"] = f"{res['speedup'].get(backend, float('nan')):.2f}x Gymnasium"
        rows.append(row)
    verdicts = [
        f"anywrap on {b} runs the pipeline at {s:.2f}x Gymnasium's env steps/s "
        + (
            f"(target >= {res['target']:.0f}x): {'MET' if res['met'][b] else 'MISSED'}"
            if b in TARGETED
            else "(report)"
        )
        for b, s in res["speedup"].items()
    ]
    for b, row in res["depth"].items():
        ratio = row.get("update_ratio_16_over_4")
        if ratio is not None:
            verdicts.append(
                f"frame stack on {b}: the state update costs {ratio:.2f}x at depth 16 what it "
                "costs at depth 4 (a ring buffer: one frame written per step)"
            )
    return result(
        "B7",
        title,
        params=ctx.params(ctx.jax_device, num_envs=num_envs, steps=steps),
        rows=rows,
        summary={
            "speedup": res["speedup"],
            "wrapper_ms": res["wrapper_ms"],
            "depth": res["depth"],
            "bytes_per_env": res["bytes_per_env"],
            "torch_threads": res["torch_threads"],
        },
        verdicts=verdicts,
        notes=[
            "every figure is env steps/s of the whole pipeline (median of interleaved "
            "rounds); 'x ref' is anywrap's time per step over Gymnasium's",
            "the image source replays pre-made frames already on the target library and "
            "device, so the wrappers' cost is what is measured",
        ],
    )
