"""What the benchmarks share: run settings, the context a benchmark gets, the
result and row records, and the stepping cases the stacks are timed with.

Example:
    >>> from benchmarks.suite.common import Settings
    >>> Settings(quick=True).pick(2000, 500)
    500
"""

from __future__ import annotations

import contextlib
import functools
import importlib
import io
import warnings
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from benchmarks.suite.harness import Case, Failure, Timing, interleave, paired_median_difference

__all__ = [
    "Context",
    "DeviceUnavailable",
    "Settings",
    "import_quietly",
    "numpy_added",
    "quiet",
    "result",
    "row",
    "stack",
    "stepping_case",
    "torchrl_case",
    "type_name",
    "unavailable",
    "verdict",
    "with_runner",
    "wrapped",
]


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

    def params(self, device: Any, **fields: Any) -> dict[str, Any]:
        """A result's ``params``: ``fields``, the repetitions and the device."""
        return {**fields, "reps": self.settings.reps, "device": str(device)}

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


def import_quietly(name: str) -> Any:
    """Import ``name`` keeping its import-time prints (optional MuJoCo backends) off stdout,
    which holds the table."""
    with contextlib.redirect_stdout(io.StringIO()):
        return importlib.import_module(name)


def unavailable(bid: str, title: str, reason: str) -> dict[str, Any]:
    """A benchmark that cannot run here, and why."""
    return result(bid, title, status="not available", reason=reason)


def with_runner(
    bid: str, title: str, module: str
) -> Callable[[Callable[[Context, Any, str], dict[str, Any]]], Callable[[Context], dict[str, Any]]]:
    """Decorator: a benchmark timed by a runner module (``functional_bench``,
    ``convert_bench``), which gets the imported module and its title, or is
    reported unavailable when the module cannot be imported."""

    def deco(
        fn: Callable[[Context, Any, str], dict[str, Any]],
    ) -> Callable[[Context], dict[str, Any]]:
        @functools.wraps(fn)
        def bench(ctx: Context) -> dict[str, Any]:
            try:
                mod = import_quietly(module)
            except Exception as exc:
                return unavailable(bid, title, f"{module}: {exc!r}")
            return fn(ctx, mod, title)

        return bench

    return deco


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


def verdict(name: str, value: float | None, target: float, text: str) -> str:
    if value is None:
        return f"{name}: not measured ({text})"
    status = "MET" if value <= target else "MISSED"
    return f"{name}: {value:.2f} ({text}): {status}"


def type_name(x: Any) -> str:
    t = type(x)
    return f"{t.__module__.split('.')[0]}.{t.__name__}"


@contextlib.contextmanager
def quiet() -> Iterator[None]:
    """Silence the peers' deprecation chatter, which would garble the progress bar."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


def stepping_case(
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
            out_types[name] = type_name(env.reset(seed=0)[0])
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
        out_types[name] = type_name(out[0]) if out is not None else "?"
        return out

    return Case(name, run, steps=len(actions), setup=None if reset_once else setup, sync=sync)


def wrapped(wrap: Callable[[Any], Any], make: Callable[[], Any]) -> Any:
    return wrap(make())


def torchrl_case(
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


def numpy_added(
    ctx: Context,
    bid: str,
    title: str,
    env_ids: Sequence[str],
    num_envs: int,
    steps: int,
    vector: bool,
) -> dict[str, Any]:
    """The time each CleanRL stack (Gymnasium's, anywrap's) adds to a NumPy env's
    step, for each env of ``env_ids`` (one env, or a ``SyncVectorEnv`` of
    ``num_envs``), with random actions drawn once and the env reset at each
    episode end as a training loop does (vector envs reset themselves).

    ClipAction is in the stack where the action space is a Box.
    """
    import gymnasium as gym
    import numpy as np

    import anywrap

    gym_wrappers = gym.wrappers.vector if vector else gym.wrappers
    any_wrappers = anywrap.vector if vector else anywrap

    def make(env_id: str) -> Any:
        if vector:
            return gym.make_vec(env_id, num_envs=num_envs, vectorization_mode="sync")
        return gym.make(env_id)

    def case(name: str, env: Any, actions: list[Any]) -> Case:
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

    cases, clipped = [], {}
    with quiet():
        for env_id in env_ids:
            probe = make(env_id)
            space = probe.action_space
            space.seed(0)
            actions = [space.sample() for _ in range(steps)]
            clipped[env_id] = isinstance(
                probe.single_action_space if vector else space, gym.spaces.Box
            )
            for name, wrappers in (
                ("bare", None),
                ("gymnasium", gym_wrappers),
                ("anywrap", any_wrappers),
            ):
                env = make(env_id)
                if wrappers is not None:
                    env = stack(env, wrappers, np.clip, clip_action=clipped[env_id])
                cases.append(case(f"{env_id}:{name}", env, actions))
        t = ctx.time(bid, cases)
    rows, summary, verdicts = [], {}, []
    labels = {"bare": "bare env", "gymnasium": "Gymnasium 1.4 stack", "anywrap": "anywrap stack"}
    for env_id in env_ids:
        bare = t[f"{env_id}:bare"]
        added: dict[str, float] = {}
        for name, label in labels.items():
            timing = t[f"{env_id}:{name}"]
            extra = ""
            if name != "bare" and isinstance(timing, Timing) and isinstance(bare, Timing):
                added[name] = paired_median_difference(timing, bare)
                extra = f"adds {added[name] * 1e6:.1f} us/step"
            rows.append(
                row(
                    f"{env_id}: {label}",
                    timing,
                    num_envs=num_envs,
                    ref=bare,
                    extra=extra,
                    added_seconds_per_step=added.get(name),
                    env_id=env_id,
                )
            )
        ratio = (
            added["anywrap"] / added["gymnasium"]
            if len(added) == 2 and added["gymnasium"] > 0
            else None
        )
        summary[env_id] = {
            "anywrap_added_s": added.get("anywrap"),
            "gymnasium_added_s": added.get("gymnasium"),
            "anywrap_added_over_gymnasium_added": ratio,
            "clip_action": clipped[env_id],
        }
        verdicts.append(
            verdict(
                f"{env_id}: time anywrap adds / time Gymnasium adds",
                ratio,
                1.0,
                "target <= 1.0, aim 0.5",
            )
        )
    return result(
        bid,
        title,
        params={
            "env_ids": list(env_ids),
            "num_envs": num_envs,
            "steps_per_block": steps,
            "reps": ctx.settings.reps,
            "warmup": ctx.settings.warmup,
            "actions": "identical for every stack, the action space's sample with seed 0",
        },
        rows=rows,
        summary=summary,
        verdicts=verdicts,
        notes=[
            "added = median over interleaved rounds of (stack - bare) time per step",
            "the stacks include ClipAction where the action space is a Box",
        ],
    )


def stack(env: Any, wrappers: Any, clip: Callable[..., Any], *, clip_action: bool = True) -> Any:
    """The CleanRL six-wrapper stack of ``wrappers`` (``anywrap``, ``gym.wrappers``, ...)."""
    from anywrap.demo import cleanrl_stack

    return cleanrl_stack(env, wrappers, clip, clip_action=clip_action)
