"""The suite behind ``python -m benchmarks``: anywrap beside Gymnasium, Brax/gymnax, TorchRL.

The suite (B1 to B9, see :mod:`benchmarks.suite.catalog`) runs each benchmark's
cases interleaved (A, B, A, B, ...), reports the median of at least five
repetitions after a warm-up, and prints ratios beside absolute times.

Example:
    >>> from benchmarks.suite import Settings, run_suite
    >>> report = run_suite(Settings(quick=True, reps=1, warmup=0), ["B1"], progress=False)
    >>> b1 = report["benchmarks"]["B1"]
    >>> b1["status"], sorted(b1["summary"])
    ('ok', ['CartPole-v1', 'Pendulum-v1'])

Nothing heavy is imported here: each benchmark imports NumPy, JAX, PyTorch or
TorchRL itself when it runs.
"""

from benchmarks.suite.catalog import BENCHMARKS, DeviceUnavailable, Settings
from benchmarks.suite.harness import Case, Failure, Timing, interleave, paired_median_difference
from benchmarks.suite.report import format_table, write_json, write_plot
from benchmarks.suite.runner import parse_only, resolve_devices, run_suite

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
