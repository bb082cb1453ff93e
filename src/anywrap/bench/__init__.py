"""``anywrap bench``: anywrap's wrappers side by side with Gymnasium, Brax/gymnax and TorchRL.

The suite (B1 to B9, see :mod:`anywrap.bench.suite`) runs each benchmark's
cases interleaved (A, B, A, B, ...), reports the median of at least five
repetitions after a warm-up, and prints ratios beside absolute times.

Example:
    >>> from anywrap.bench import Settings, run_suite
    >>> report = run_suite(Settings(quick=True, reps=1, warmup=0), ["B1"], progress=False)
    >>> b1 = report["benchmarks"]["B1"]
    >>> b1["status"], sorted(b1["summary"])
    ('ok', ['CartPole-v1', 'Pendulum-v1'])

Nothing heavy is imported here: each benchmark imports NumPy, JAX, PyTorch or
TorchRL itself when it runs.
"""

from anywrap.bench.harness import Case, Failure, Timing, interleave, paired_median_difference
from anywrap.bench.report import format_table, write_json, write_plot
from anywrap.bench.runner import parse_only, resolve_devices, run_suite
from anywrap.bench.suite import BENCHMARKS, DeviceUnavailable, Settings

__all__ = [
    "BENCHMARKS",
    "Case",
    "DeviceUnavailable",
    "Failure",
    "Settings",
    "Timing",
    "format_table",
    "interleave",
    "paired_median_difference",
    "parse_only",
    "resolve_devices",
    "run_suite",
    "write_json",
    "write_plot",
]
