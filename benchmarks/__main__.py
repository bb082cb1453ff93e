"""``python -m benchmarks``: anywrap's benchmark suite, run from a checkout.

Run it from the repository root (``make bench`` and ``make bench-quick`` do)::

    $ python -m benchmarks --quick --only B1,B3
    $ python -m benchmarks --device cuda --only B3,B4,B5,B8 --json out/gpu.json

It prints a table, writes the JSON results and a throughput plot.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence

__all__ = ["build_parser", "main"]

_BENCH_HELP = """\
Benchmarks (each compares cases run interleaved A, B, A, B, ...; figures are
medians of >= 5 repetitions after a warm-up):
  B1  NumPy single env Pendulum-v1: time the CleanRL stack adds, anywrap vs Gymnasium
  B2  NumPy SyncVectorEnv x16: the same
  B3  JAX phys2d/Pendulum-v0 vector env: anywrap vs Gymnasium stacks vs bare env
  B4  jitted lax.scan rollout: anywrap.functional vs gymnax LogWrapper + Brax stats
  B5  PyTorch batched Pendulum: anywrap vs Gymnasium vector stacks vs TorchRL
  B6  conversions vs Gymnasium's JaxToTorch / JaxToNumpy
  B7  image pipeline, 256 envs: grayscale, resize 84x84, stack 4, vs Gymnasium + OpenCV
  B8  roofline: jitted NormalizeObservation vs jitted copy, GB/s
  B9  PyTorch first runs, compile included: fresh processes, compile on vs off
"""

PROG = "python -m benchmarks"


def _reps(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be >= 1, got {value}")
    return value


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of ``python -m benchmarks``."""
    parser = argparse.ArgumentParser(
        prog=PROG,
        description="Benchmark anywrap's wrappers side by side with Gymnasium, "
        "Brax/gymnax and TorchRL; print a table, write JSON and a plot.",
        epilog=_BENCH_HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--quick",
        action="store_true",
        help="smaller sizes: the whole suite in under 2 minutes on 2 CPU cores",
    )
    parser.add_argument(
        "--device",
        choices=("cpu", "cuda"),
        default="cpu",
        help="where JAX and PyTorch benchmarks run (default: cpu); cuda fails if no GPU is usable",
    )
    parser.add_argument(
        "--only",
        metavar="IDS",
        help="comma-separated benchmark ids to run, e.g. B1,B3 (default: all)",
    )
    parser.add_argument(
        "--json",
        metavar="PATH",
        default="bench-results/results.json",
        help="where to write the JSON results (default: %(default)s)",
    )
    parser.add_argument(
        "--plot",
        metavar="PATH",
        default="bench-results/throughput.png",
        help="where to write the B3/B4 throughput plot (default: %(default)s)",
    )
    parser.add_argument(
        "--reps",
        type=_reps,
        default=5,
        metavar="N",
        help="timed repetitions per case; figures are their median (default: %(default)s)",
    )
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the suite as the command line asks; returns the exit status."""
    argv = list(sys.argv[1:] if argv is None else argv)
    args = build_parser().parse_args(argv)
    from benchmarks.suite import (
        DeviceUnavailable,
        Settings,
        format_table,
        parse_only,
        run_suite,
        write_json,
        write_plot,
    )

    try:
        only = parse_only(args.only)
    except ValueError as exc:
        print(f"{PROG}: {exc}", file=sys.stderr)
        return 2
    settings = Settings(quick=args.quick, device=args.device, reps=args.reps)
    start = time.perf_counter()
    try:
        report = run_suite(
            settings, only, progress=not args.no_progress, argv=[*PROG.split(), *argv]
        )
    except DeviceUnavailable as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    report["wall_s"] = time.perf_counter() - start
    print(format_table(report))
    path = write_json(report, args.json)
    print(f"results: {path}")
    plot = write_plot(report, args.plot)
    print(f"plot: {plot}" if plot else "plot: none (B3 and B4 did not run)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
