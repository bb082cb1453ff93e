"""Run a selection of the benchmarks and gather one report."""

from __future__ import annotations

import contextlib
import os
import platform
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from importlib import metadata
from typing import Any

from benchmarks.suite.catalog import BENCHMARKS, USES, Context, DeviceUnavailable, Settings
from benchmarks.suite.common import unavailable

__all__ = ["parse_only", "resolve_devices", "run_suite"]


def parse_only(spec: str | None) -> list[str]:
    """``"B1,b3"`` -> ``["B1", "B3"]`` in suite order; None -> every benchmark.

    Raises:
        ValueError: naming the unknown ids and the known ones.
    """
    if spec is None:
        return list(BENCHMARKS)
    wanted = {part.strip().upper() for part in spec.split(",") if part.strip()}
    unknown = sorted(wanted - set(BENCHMARKS))
    if unknown or not wanted:
        raise ValueError(
            f"--only: unknown benchmark id(s) {unknown or [spec]}; known: {', '.join(BENCHMARKS)}"
        )
    return [b for b in BENCHMARKS if b in wanted]


def resolve_devices(device: str, needs: set[str]) -> dict[str, Any]:
    """The JAX device and torch device for ``device`` ("cpu" or "cuda").

    Only the libraries in ``needs`` ("jax", "torch") are imported.

    Raises:
        DeviceUnavailable: ``cuda`` was asked for and a needed library sees no GPU.
        ValueError: an unknown device name.
    """
    if device not in ("cpu", "cuda"):
        raise ValueError(f"--device must be 'cpu' or 'cuda', got {device!r}")
    out: dict[str, Any] = {"jax": None, "torch": None}
    problems = []
    if "jax" in needs:
        import jax

        if device == "cpu":
            out["jax"] = jax.devices("cpu")[0]
        else:
            try:
                out["jax"] = jax.devices("gpu")[0]
            except RuntimeError as exc:
                problems.append(
                    f"JAX sees no GPU (jax.devices('gpu'): {' '.join(str(exc).split())[:160]}; "
                    f"backend is {jax.default_backend()!r}; install jax[cuda12])"
                )
    if "torch" in needs:
        import torch

        if device == "cpu":
            out["torch"] = torch.device("cpu")
        elif torch.cuda.is_available():
            out["torch"] = torch.device("cuda", torch.cuda.current_device())
        else:
            problems.append(
                f"PyTorch sees no GPU (torch.cuda.is_available() is False; torch "
                f"{torch.__version__}, built with CUDA {torch.version.cuda})"
            )
    if problems:
        raise DeviceUnavailable(
            "python -m benchmarks --device cuda: no usable CUDA GPU: "
            + "; ".join(problems)
            + ". Run on a GPU machine, or use --device cpu."
        )
    return out


def _missing(libraries: set[str]) -> dict[str, str]:
    """The libraries of ``libraries`` that do not import, each with its error. A
    benchmark that runs on one of them is reported as not available; one that
    only adds rows from it (B8's PyTorch rows) leaves them out and says so."""
    out = {}
    for name in sorted(libraries):
        try:
            __import__(name)
        except ImportError as exc:
            out[name] = f"{type(exc).__name__}: {exc}"
    return out


def _versions() -> dict[str, str | None]:
    out: dict[str, str | None] = {}
    for name in (
        "anywrap",
        "numpy",
        "gymnasium",
        "jax",
        "jaxlib",
        "flax",
        "brax",
        "gymnax",
        "torch",
        "torchrl",
        "tensordict",
    ):
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            out[name] = None
    return out


@contextlib.contextmanager
def _tqdm_progress(desc: str, total: int, enabled: bool) -> Iterator[Callable[[], Any]]:
    bar = None
    if enabled:
        try:
            from tqdm.auto import tqdm

            bar = tqdm(total=total, desc=desc, unit="block", leave=False, file=sys.stderr)
        except ImportError:
            bar = None
    try:
        yield (lambda: bar.update(1)) if bar is not None else (lambda: None)
    finally:
        if bar is not None:
            bar.close()


def run_suite(
    settings: Settings,
    only: Sequence[str] | None = None,
    *,
    progress: bool = True,
    argv: Sequence[str] | None = None,
) -> dict[str, Any]:
    """Run the benchmarks ``only`` (default all) and return the report.

    A benchmark that raises is recorded as ``status: "error"`` with its
    exception; the others still run.

    Raises:
        DeviceUnavailable: before running anything, when ``settings.device``
            is ``cuda`` and no GPU is usable.
    """
    ids = list(only) if only is not None else list(BENCHMARKS)
    needs = {lib for b in ids for lib in USES.get(b, ())}
    missing = _missing(needs)
    devices = resolve_devices(settings.device, needs - set(missing))
    ctx = Context(
        settings=settings,
        progress=lambda desc, total: _tqdm_progress(desc, total, progress),
        jax_device=devices["jax"],
        torch_device=devices["torch"],
    )
    start = time.perf_counter()
    results: dict[str, Any] = {}
    for bid in ids:
        t0 = time.perf_counter()
        main_lib = next(iter(USES.get(bid, ())), None)
        try:
            if main_lib in missing:  # a GPU host may lack one of the libraries
                res = unavailable(
                    bid, BENCHMARKS[bid].__doc__ or bid, f"{main_lib}: {missing[main_lib]}"
                )
            else:
                res = BENCHMARKS[bid](ctx)
        except DeviceUnavailable:
            raise
        except Exception as exc:
            import traceback

            res = {
                "id": bid,
                "title": BENCHMARKS[bid].__doc__ or bid,
                "status": "error",
                "reason": f"{type(exc).__name__}: {exc}",
                "params": {},
                "rows": [],
                "summary": {},
                "verdicts": [],
                "notes": [],
                "series": {},
                "traceback": traceback.format_exc(),
            }
        res["wall_s"] = time.perf_counter() - t0
        results[bid] = res
    return {
        "schema": "anywrap-bench/1",
        "command": list(argv) if argv is not None else None,
        "config": {
            "quick": settings.quick,
            "device": settings.device,
            "reps": settings.reps,
            "warmup": settings.warmup,
            "only": ids,
        },
        "machine": {
            "platform": platform.platform(),
            "python": platform.python_version(),
            "cpu_count": os.cpu_count(),
            "jax_device": str(devices["jax"]) if devices["jax"] is not None else None,
            "torch_device": str(devices["torch"]) if devices["torch"] is not None else None,
        },
        "versions": _versions(),
        "wall_s": time.perf_counter() - start,
        "benchmarks": results,
    }
