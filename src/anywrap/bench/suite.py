"""The benchmarks behind ``anywrap bench``: B1 to B8.

Each ``bench_bN(ctx)`` returns a result dict (see :func:`result`) and imports
the libraries it needs itself, so that a missing one only costs that
benchmark. Cases are timed with :func:`anywrap.bench.harness.interleave`.

=====  =====================================================================
B1     NumPy, one Pendulum-v1: time the CleanRL stack adds per step,
       anywrap vs Gymnasium 1.4.
B2     NumPy ``SyncVectorEnv`` of 16 Pendulum-v1: the same comparison.
B3     JAX ``phys2d/Pendulum-v0`` vector env at several sizes: anywrap's
       vector stack vs Gymnasium's (on JAX arrays, and behind JaxToNumpy)
       vs the bare env.
B4     Jitted ``lax.scan`` rollout: anywrap.functional vs gymnax LogWrapper +
       Brax running statistics (``anywrap.bench.functional_bench``).
B5     PyTorch batched Pendulum (pure torch): anywrap vs Gymnasium vector
       stacks, and TorchRL VecNorm + RewardSum.
B6     Array conversions vs Gymnasium's JaxToTorch / JaxToNumpy
       (``anywrap.bench.convert_bench``).
B7     Image pipeline (not available: anywrap has no image wrappers yet).
B8     Roofline: jitted NormalizeObservation on a 65536 x 256 float32 batch
       vs a jitted elementwise copy, in GB/s.
=====  =====================================================================
"""

from __future__ import annotations

import contextlib
import importlib
import inspect
import io
import warnings
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from anywrap.bench.harness import Case, Failure, Timing, interleave, paired_median_difference

__all__ = ["BENCHMARKS", "Context", "DeviceUnavailable", "Settings", "result"]


class DeviceUnavailable(RuntimeError):
    """``--device cuda`` was asked for on a machine without a usable GPU."""


@dataclass(frozen=True)
class Settings:
    """Sizes of one run: ``quick`` keeps the whole suite under two minutes on 2 cores."""

    quick: bool = False
    device: str = "cpu"
    reps: int = 5
    warmup: int = 1

    def pick(self, full: Any, quick: Any) -> Any:
        """``quick`` in a quick run, else ``full``."""
        return quick if self.quick else full


@dataclass
class Context:
    """What a benchmark gets: the settings, the devices, and a progress-bar factory."""

    settings: Settings
    progress: Callable[[str, int], contextlib.AbstractContextManager[Callable[[], Any]]]
    jax_device: Any = None
    torch_device: Any = None
    notes: list[str] = field(default_factory=list)

    def time(self, desc: str, cases: Sequence[Case]) -> dict[str, Timing | Failure]:
        """Interleave ``cases`` with the run's reps and warm-up, under a progress bar."""
        s = self.settings
        with self.progress(desc, len(cases) * (s.reps + s.warmup)) as tick:
            return interleave(cases, reps=s.reps, warmup=s.warmup, on_block=tick)

    @contextlib.contextmanager
    def on_jax_device(self) -> Iterator[None]:
        """Make the run's JAX device the default one inside the block."""
        import jax

        with jax.default_device(self.jax_device):
            yield


def result(
    bid: str,
    title: str,
    *,
    status: str = "ok",
    reason: str | None = None,
    params: dict[str, Any] | None = None,
    rows: list[dict[str, Any]] | None = None,
    summary: dict[str, Any] | None = None,
    verdicts: list[str] | None = None,
    notes: list[str] | None = None,
    series: dict[str, dict[str, list[float]]] | None = None,
) -> dict[str, Any]:
    """One benchmark's result, as stored in the JSON file.

    ``rows`` are table lines (see :func:`row`); ``summary`` holds the
    headline figures (ratios); ``verdicts`` are one-line statements against
    the issue's targets; ``series`` maps a case to ``{"num_envs": [...],
    "env_steps_per_s": [...]}`` for the plot.
    """
    return {
        "id": bid,
        "title": title,
        "status": status,
        "reason": reason,
        "params": params or {},
        "rows": rows or [],
        "summary": summary or {},
        "verdicts": verdicts or [],
        "notes": notes or [],
        "series": series or {},
    }


def _import_quietly(name: str) -> Any:
    """Import ``name`` keeping its import-time prints (optional MuJoCo backends) off stdout,
    which holds the table."""
    with contextlib.redirect_stdout(io.StringIO()):
        return importlib.import_module(name)


def unavailable(bid: str, title: str, reason: str) -> dict[str, Any]:
    """A benchmark that cannot run here, and why."""
    return result(bid, title, status="not available", reason=reason)


def row(
    label: str,
    timing: Timing | Failure,
    *,
    num_envs: int = 1,
    ref: Timing | Failure | None = None,
    ref_label: str = "bare",
    extra: str = "",
    **fields: Any,
) -> dict[str, Any]:
    """A table line for one case: median time per step, env steps/s, ratio to ``ref``."""
    out: dict[str, Any] = {"label": label, "case": timing.name, "extra": extra, **fields}
    if isinstance(timing, Failure):
        out["error"] = timing.error
        return out
    out.update(
        seconds_per_step=timing.median,
        env_steps_per_s=num_envs / timing.median,
        spread=timing.spread,
        samples=timing.samples,
    )
    if isinstance(ref, Timing):
        out["ratio"] = timing.median / ref.median
        out["ratio_to"] = ref_label
    return out


def _verdict(name: str, value: float | None, target: float, text: str) -> str:
    if value is None:
        return f"{name}: not measured ({text})"
    status = "MET" if value <= target else "MISSED"
    return f"{name}: {value:.2f} ({text}): {status}"


def _type_name(x: Any) -> str:
    t = type(x)
    return f"{t.__module__.split('.')[0]}.{t.__name__}"


@contextlib.contextmanager
def _quiet() -> Iterator[None]:
    """Silence the peers' deprecation chatter, which would garble the progress bar."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


def _stepping_case(
    name: str,
    make: Callable[[], Any],
    actions: Sequence[Any],
    out_types: dict[str, str],
    *,
    sync: Callable[[Any], Any] | None = None,
    reset_once: bool = False,
) -> Case:
    """A case that steps a (vector) env through ``actions``; one block is the whole sequence.

    The env is built by ``make()`` now; a failure to build becomes a case that
    raises, so the harness records it like any failure. The env is reset with
    seed 0 before every block, or only once when ``reset_once`` (for envs whose
    reset recompiles). ``out_types[name]`` records the observation's type.
    """
    try:
        env = make()
        if reset_once:
            out_types[name] = _type_name(env.reset(seed=0)[0])
    except Exception as exc:
        msg = f"{type(exc).__name__}: {exc}"

        def fail() -> None:
            raise RuntimeError(msg)

        return Case(name, fail, steps=len(actions))

    def setup() -> None:
        env.reset(seed=0)

    def run() -> Any:
        out = None
        for a in actions:
            out = env.step(a)
        out_types[name] = _type_name(out[0]) if out is not None else "?"
        return out

    return Case(name, run, steps=len(actions), setup=None if reset_once else setup, sync=sync)


def _wrapped(wrap: Callable[[Any], Any], make: Callable[[], Any]) -> Any:
    return wrap(make())


def _torchrl_case(
    name: str, env: Any, stacked: bool, actions: Sequence[Any], sync: Callable[[Any], Any]
) -> Case:
    """A TorchRL case: ``env`` (optionally under VecNorm + RewardSum) via step_and_maybe_reset."""
    from torchrl.envs import Compose, RewardSum, TransformedEnv, VecNorm

    if stacked:
        env = TransformedEnv(env, Compose(VecNorm(in_keys=["observation"]), RewardSum()))
    state: dict[str, Any] = {}

    def setup() -> None:
        env.set_seed(0)
        state["td"] = env.reset()

    def run() -> Any:
        td = state["td"]
        for a in actions:
            td.set("action", a)
            _, td = env.step_and_maybe_reset(td)
        state["td"] = td
        return td

    return Case(name, run, steps=len(actions), setup=setup, sync=sync)


# --------------------------------------------------------------------- B1, B2


def _numpy_added(
    ctx: Context,
    bid: str,
    title: str,
    make: Callable[[], Any],
    num_envs: int,
    steps: int,
    vector: bool,
) -> dict[str, Any]:
    import gymnasium as gym
    import numpy as np

    import anywrap

    gym_wrappers = gym.wrappers.vector if vector else gym.wrappers
    any_wrappers = anywrap.vector if vector else anywrap
    shape = (steps, num_envs, 1) if vector else (steps, 1)
    actions = list(np.random.default_rng(0).uniform(-2.0, 2.0, shape).astype(np.float32))

    def case(name: str, wrap: Callable[[Any], Any]) -> Case:
        env = wrap(make())

        def setup() -> None:
            env.reset(seed=0)

        def run_vector() -> None:
            for a in actions:
                env.step(a)

        def run_single() -> None:
            for a in actions:
                _, _, terminated, truncated, _ = env.step(a)
                if terminated or truncated:
                    env.reset()

        return Case(name, run_vector if vector else run_single, steps=steps, setup=setup)

    with _quiet():
        cases = [
            case("bare", lambda e: e),
            case("gymnasium", lambda e: _stack(e, gym_wrappers, np.clip)),
            case("anywrap", lambda e: _stack(e, any_wrappers, np.clip)),
        ]
        t = ctx.time(bid, cases)
    bare = t["bare"]
    rows, added = [], {}
    for name, label in [
        ("bare", "bare env"),
        ("gymnasium", "Gymnasium 1.4 stack"),
        ("anywrap", "anywrap stack"),
    ]:
        extra = ""
        if name != "bare" and isinstance(t[name], Timing) and isinstance(bare, Timing):
            added[name] = paired_median_difference(t[name], bare)  # type: ignore[arg-type]
            extra = f"adds {added[name] * 1e6:.1f} us/step"
        rows.append(
            row(
                label,
                t[name],
                num_envs=num_envs,
                ref=bare,
                extra=extra,
                added_seconds_per_step=added.get(name),
            )
        )
    ratio = (
        added["anywrap"] / added["gymnasium"] if len(added) == 2 and added["gymnasium"] else None
    )
    return result(
        bid,
        title,
        params={
            "num_envs": num_envs,
            "steps_per_block": steps,
            "reps": ctx.settings.reps,
            "warmup": ctx.settings.warmup,
            "actions": "identical, numpy seed 0",
        },
        rows=rows,
        summary={
            "anywrap_added_s": added.get("anywrap"),
            "gymnasium_added_s": added.get("gymnasium"),
            "anywrap_added_over_gymnasium_added": ratio,
        },
        verdicts=[
            _verdict(
                "time anywrap adds / time Gymnasium adds", ratio, 1.0, "target <= 1.0, aim 0.5"
            )
        ],
        notes=["added = median over interleaved rounds of (stack - bare) time per step"],
    )


def _stack(env: Any, wrappers: Any, clip: Callable[..., Any]) -> Any:
    from anywrap.bench.envs import cleanrl_stack

    return cleanrl_stack(env, wrappers, clip)


def bench_b1(ctx: Context) -> dict[str, Any]:
    """B1: NumPy single env, Pendulum-v1: time added per step by each stack."""
    import gymnasium as gym

    steps = ctx.settings.pick(2000, 500)
    return _numpy_added(
        ctx,
        "B1",
        "NumPy single env Pendulum-v1, CleanRL six-wrapper stack",
        lambda: gym.make("Pendulum-v1"),
        1,
        steps,
        vector=False,
    )


def bench_b2(ctx: Context) -> dict[str, Any]:
    """B2: NumPy SyncVectorEnv of 16 Pendulum-v1: time added per vector step."""
    import gymnasium as gym

    steps = ctx.settings.pick(500, 150)
    return _numpy_added(
        ctx,
        "B2",
        "NumPy SyncVectorEnv x16 Pendulum-v1, CleanRL six-wrapper vector stack",
        lambda: gym.make_vec("Pendulum-v1", num_envs=16, vectorization_mode="sync"),
        16,
        steps,
        vector=True,
    )


# ------------------------------------------------------------------------- B3


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
    with ctx.on_jax_device(), _quiet():
        for n in sizes:
            host = np.random.default_rng(0).uniform(-2.0, 2.0, (steps, n, 1)).astype(np.float32)
            dev_actions = [jnp.asarray(a) for a in host]
            host_actions = list(host)
            out_types: dict[str, str] = {}

            stacks: list[tuple[str, Callable[[Any], Any], list[Any]]] = [
                ("bare", lambda e: e, dev_actions),
                ("anywrap", lambda e: _stack(e, anywrap.vector, jnp.clip), dev_actions),
                ("gymnasium", lambda e: _stack(e, gym_vec, jnp.clip), dev_actions),
                (
                    "gymnasium_jax_to_numpy",
                    lambda e: _stack(gym_vec.JaxToNumpy(e), gym_vec, np.clip),
                    host_actions,
                ),
            ]
            cases = [
                _stepping_case(
                    name,
                    partial(_wrapped, wrap, partial(gym.make_vec, "phys2d/Pendulum-v0", n)),
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
        _verdict(
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
        params={
            "sizes": list(sizes),
            "steps_per_block": steps,
            "reps": ctx.settings.reps,
            "device": str(ctx.jax_device),
        },
        rows=rows,
        summary=ratios,
        verdicts=verdicts,
        series=series,
        notes=[
            "Gymnasium's NormalizeObservation keeps NumPy statistics: on JAX arrays each "
            "step goes through the host (the obs type column says what comes out)."
        ],
    )


# ------------------------------------------------------------------------- B4


def bench_b4(ctx: Context) -> dict[str, Any]:
    """B4: jitted lax.scan rollout, anywrap.functional vs gymnax LogWrapper + Brax stats."""
    title = "Jitted lax.scan rollout: anywrap.functional vs gymnax LogWrapper + Brax stats"
    try:
        mod = _import_quietly("anywrap.bench.functional_bench")
    except Exception as exc:
        return unavailable("B4", title, f"anywrap.bench.functional_bench: {exc!r}")
    sizes = ctx.settings.pick((64, 1024, 4096), (64, 4096))
    steps = ctx.settings.pick(200, 50)
    rows: list[dict[str, Any]] = []
    series: dict[str, dict[str, list[float]]] = {}
    raw = []
    labels = {
        "bare": "bare gymnax rollout",
        "anywrap": "anywrap.functional stack",
        "peer": "gymnax LogWrapper + Brax stats",
    }
    # The targets were set with the "sum" consumer; the "trajectory" one (the
    # rollout returns obs and reward, as PPO stores them) is reported beside it
    # at the largest size: see functional_bench's docstring for why they differ.
    runs = [(n, "sum") for n in sizes] + [(sizes[-1], "trajectory")]
    with ctx.on_jax_device(), _quiet(), ctx.progress("B4", len(runs)) as tick:
        for n, consumer in runs:
            res = mod.run(num_envs=n, steps=steps, reps=ctx.settings.reps, consumer=consumer)
            raw.append(res)
            tick()
            bare = res.get("bare_steps_per_s")
            for key, value in res.items():
                if not key.endswith("_steps_per_s"):
                    continue
                name = key.removesuffix("_steps_per_s")
                trajectory = consumer == "trajectory"
                rows.append(
                    {
                        "label": labels.get(name, name) + (", trajectory" if trajectory else ""),
                        "case": name + ("_trajectory" if trajectory else ""),
                        "num_envs": n,
                        "env_steps_per_s": value,
                        "seconds_per_step": n / value,
                        "ratio": bare / value if bare else None,
                        "ratio_to": "bare",
                        "extra": f"N={n}" + (", obs+reward returned" if trajectory else ""),
                    }
                )
                if trajectory:
                    continue
                s = series.setdefault(name, {"num_envs": [], "env_steps_per_s": []})
                s["num_envs"].append(n)
                s["env_steps_per_s"].append(value)
    verdicts = [
        f"N={r['num_envs']}: anywrap.functional runs at {r['anywrap_vs_bare']:.2f}x the bare "
        f"rollout's env steps/s (target >= 0.9) and {r['anywrap_vs_peer']:.2f}x the peer "
        f"stack's (target >= 1.0): "
        + ("MET" if r["anywrap_vs_bare"] >= 0.9 and r["anywrap_vs_peer"] >= 1.0 else "MISSED")
        for r in raw
        if {"anywrap_vs_peer", "anywrap_vs_bare"} <= r.keys() and r.get("consumer") == "sum"
    ] + [
        f"N={r['num_envs']}, trajectory consumer (report): anywrap.functional "
        f"{r['anywrap_vs_bare']:.2f}x bare, {r['anywrap_vs_peer']:.2f}x the peer; "
        f"the peer {r['peer_vs_bare']:.2f}x bare"
        for r in raw
        if {"anywrap_vs_peer", "anywrap_vs_bare"} <= r.keys() and r.get("consumer") != "sum"
    ]
    return result(
        "B4",
        title,
        params={
            "sizes": list(sizes),
            "steps": steps,
            "reps": ctx.settings.reps,
            "device": str(ctx.jax_device),
        },
        rows=rows,
        summary={"runs": raw},
        series=series,
        verdicts=verdicts,
        notes=[
            "timed by functional_bench.run (interleaved, median of reps); "
            "'x bare' is time per step relative to the bare rollout",
            "consumer 'sum' reduces obs and reward to a number per step (the targets' "
            "setting); with it XLA's CPU backend fuses the bare env's reward math into "
            "that reduction, a slow kernel that flatters every wrapped stack; the "
            "'trajectory' rows return obs and reward from the scan instead",
        ],
    )


# ------------------------------------------------------------------------- B5


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
    with _quiet():
        for n in sizes:
            gen = torch.Generator().manual_seed(0)
            actions = [(torch.rand(n, 1, generator=gen) * 4 - 2).to(dev) for _ in range(steps)]
            out_types: dict[str, str] = {}

            stacks: list[tuple[str, Callable[[Any], Any]]] = [
                ("bare", lambda e: e),
                ("anywrap", lambda e: _stack(e, anywrap.vector, torch.clamp)),
                ("gymnasium", lambda e: _stack(e, gym.wrappers.vector, torch.clamp)),
            ]
            cases = [
                _stepping_case(
                    name,
                    partial(_wrapped, wrap, partial(torch_pendulum_vector_env, n, dev)),
                    actions,
                    out_types,
                    sync=sync,
                )
                for name, wrap in stacks
            ]
            if have_torchrl:
                cases += [
                    _torchrl_case(name, torchrl_pendulum_env(n, dev), stacked, actions, sync)
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
        params={
            "sizes": list(sizes),
            "steps_per_block": steps,
            "reps": ctx.settings.reps,
            "device": str(dev),
        },
        rows=rows,
        summary=summary,
        notes=notes,
    )


# ------------------------------------------------------------------------- B6


def bench_b6(ctx: Context) -> dict[str, Any]:
    """B6: array conversions vs Gymnasium's JaxToTorch / JaxToNumpy (convert_bench)."""
    title = "Conversions vs Gymnasium JaxToTorch / JaxToNumpy"
    try:
        mod = _import_quietly("anywrap.bench.convert_bench")
    except Exception as exc:
        return unavailable("B6", title, f"anywrap.bench.convert_bench: {exc!r}")
    params = inspect.signature(mod.run).parameters
    wanted = {
        "reps": ctx.settings.reps,
        "steps": ctx.settings.pick(200, 50),
        "quick": ctx.settings.quick,
        "device": ctx.settings.device,
    }
    kwargs = {k: v for k, v in wanted.items() if k in params}
    with ctx.on_jax_device(), _quiet(), ctx.progress("B6", 1) as tick:
        res = mod.run(**kwargs)
        tick()
    return result(
        "B6",
        title,
        params=kwargs,
        rows=_conversion_rows(res),
        summary={"raw": res},
        notes=[
            "x ref = anywrap time / Gymnasium time (below 1: anywrap faster); "
            "figures as returned by convert_bench.run"
        ],
    )


def _short(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:.3g}"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}: {_short(v)}" for k, v in value.items()) + "}"
    return str(value)


def _conversion_rows(res: Any) -> list[dict[str, Any]]:
    """Table rows from ``{size: {pair: {"anywrap_us", "gymnasium_us", "speedup"}}}``.

    Anything shaped otherwise is shown as ``key: value`` lines.
    """
    rows: list[dict[str, Any]] = []
    for size, pairs in res.items() if isinstance(res, dict) else []:
        if not isinstance(pairs, dict):
            rows.append({"label": str(size), "extra": _short(pairs)})
            continue
        other = {}
        for pair, fig in pairs.items():
            if isinstance(fig, dict) and {"anywrap_us", "gymnasium_us"} <= fig.keys():
                ours, theirs = fig["anywrap_us"], fig["gymnasium_us"]
                rows.append(
                    {
                        "label": f"{pair} anywrap, {size}",
                        "case": f"{pair}:{size}",
                        "seconds_per_step": ours * 1e-6,
                        "env_steps_per_s": 1e6 / ours,
                        "ratio": ours / theirs,
                        "ratio_to": "gymnasium",
                        "extra": f"Gymnasium {theirs:.1f} us/step, speedup {theirs / ours:.2f}x",
                    }
                )
            else:
                other[pair] = fig
        if other:
            text = ", ".join(f"{k}={_short(v)}" for k, v in other.items())
            rows.append({"label": str(size), "extra": text})
    return rows


# ------------------------------------------------------------------------- B7


def bench_b7(ctx: Context) -> dict[str, Any]:
    """B7: image pipeline; anywrap has no image wrappers yet."""
    return unavailable("B7", "Image pipeline", "not available (no image wrappers yet)")


# ------------------------------------------------------------------------- B8


def bench_b8(ctx: Context) -> dict[str, Any]:
    """B8: roofline of jitted NormalizeObservation against a jitted elementwise copy."""
    import jax
    import jax.numpy as jnp

    from anywrap.transforms.observations import init_observation_stats, normalize_observation

    title = "Roofline: jitted normalize_observation on 65536x256 float32 vs jitted copy"
    rows_, cols = 65536, 256
    calls = ctx.settings.pick(10, 4)
    with ctx.on_jax_device():
        x = jax.random.normal(jax.random.key(0), (rows_, cols), dtype=jnp.float32)
        stats = init_observation_stats((cols,), xp=jnp, dtype=jnp.float32)
        # x + 1, not x + 0: XLA may fold x + 0 into a no-op and time nothing.
        copy = jax.jit(lambda a: a + 1.0)
        norm_update = jax.jit(partial(normalize_observation, epsilon=1e-8, update=True))
        norm_only = jax.jit(partial(normalize_observation, epsilon=1e-8, update=False))

        def repeat(fn: Callable[[], Any]) -> Callable[[], Any]:
            def run() -> Any:
                out = None
                for _ in range(calls):
                    out = fn()
                return out

            return run

        cases = [
            Case("copy", repeat(lambda: copy(x)), steps=calls, sync=jax.block_until_ready),
            Case(
                "normalize_update",
                repeat(lambda: norm_update(stats, x)),
                steps=calls,
                sync=jax.block_until_ready,
            ),
            Case(
                "normalize_only",
                repeat(lambda: norm_only(stats, x)),
                steps=calls,
                sync=jax.block_until_ready,
            ),
        ]
        t = ctx.time("B8", cases)
    nbytes = rows_ * cols * 4
    labels = {
        "copy": "jitted copy (x + 1)",
        "normalize_update": "normalize_observation (update stats)",
        "normalize_only": "normalize_observation (update=False)",
    }
    copy_t = t["copy"]
    rows, summary = [], {}
    for c in cases:
        r = row(labels[c.name], t[c.name], num_envs=rows_, ref=copy_t, ref_label="copy")
        timing = t[c.name]
        if isinstance(timing, Timing):
            gbs = 2 * nbytes / timing.median / 1e9
            r["gb_per_s"] = gbs
            r["extra"] = f"{gbs:.1f} GB/s"
            summary[f"{c.name}_gb_per_s"] = gbs
        rows.append(r)
    frac = {
        k: summary.get(f"{k}_gb_per_s", 0.0) / summary["copy_gb_per_s"]
        for k in ("normalize_update", "normalize_only")
        if "copy_gb_per_s" in summary
    }
    summary.update({f"{k}_fraction_of_copy": v for k, v in frac.items()})
    verdicts = [f"{labels[k]} reaches {v:.0%} of copy bandwidth" for k, v in frac.items()]
    return result(
        "B8",
        title,
        params={
            "shape": [rows_, cols],
            "dtype": "float32",
            "calls_per_block": calls,
            "reps": ctx.settings.reps,
            "device": str(ctx.jax_device),
        },
        rows=rows,
        summary=summary,
        verdicts=verdicts,
        notes=[
            "GB/s = 2 x 64 MiB (read the batch once, write it once) / time; "
            "us/step is per call on the whole batch; 'env steps/s' is rows/s"
        ],
    )


BENCHMARKS: dict[str, Callable[[Context], dict[str, Any]]] = {
    "B1": bench_b1,
    "B2": bench_b2,
    "B3": bench_b3,
    "B4": bench_b4,
    "B5": bench_b5,
    "B6": bench_b6,
    "B7": bench_b7,
    "B8": bench_b8,
}
"""Every benchmark, by id, in run order."""

USES = {"B3": "jax", "B4": "jax", "B5": "torch", "B6": "jax", "B8": "jax"}
"""Which device library each benchmark runs on (B1, B2, B7: host only)."""
