"""Timing harness: interleaved repetitions, medians after warm-up.

Every benchmark compares a few *cases* (the bare env, anywrap's stack, a peer
library's stack) by running them in turn, ``A, B, C, A, B, C, ...``, so that
a slow stretch of the machine (another process, thermal throttling) hits every
case alike. Each case runs ``warmup`` untimed blocks first (JIT compilation,
caches), then ``reps`` timed blocks; a figure is the median over the blocks.

Example:
    >>> from benchmarks.suite.harness import Case, interleave
    >>> ticks = iter(range(100))
    >>> cases = [Case("a", lambda: None, steps=1), Case("b", lambda: None, steps=1)]
    >>> out = interleave(cases, reps=5, warmup=0, clock=lambda: float(next(ticks)))
    >>> out["a"].median, out["b"].median
    (1.0, 1.0)
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

__all__ = ["Case", "Failure", "Timing", "interleave", "paired_median_difference"]


@dataclass(frozen=True)
class Case:
    """One contender in a benchmark.

    Attributes:
        name: Key of the case in the results.
        run: Runs one block of work (e.g. ``steps`` env steps); its return
            value is handed to ``sync``.
        steps: Units of work in one block: the timings are per unit.
        setup: Untimed, called before every block (e.g. reset the env).
        sync: Timed, called after ``run`` with its result, to wait for
            asynchronous work (``jax.block_until_ready``, ``torch.cuda.synchronize``).
    """

    name: str
    run: Callable[[], Any]
    steps: int = 1
    setup: Callable[[], Any] | None = None
    sync: Callable[[Any], Any] | None = None


@dataclass
class Timing:
    """Seconds per unit of work of one case, one sample per timed block."""

    name: str
    samples: list[float] = field(default_factory=list)

    @property
    def median(self) -> float:
        """Median seconds per unit."""
        return statistics.median(self.samples)

    @property
    def min(self) -> float:
        """Fastest block, seconds per unit."""
        return min(self.samples)

    @property
    def spread(self) -> float:
        """Relative spread: (max - min) / median over the samples."""
        return (max(self.samples) - min(self.samples)) / self.median if self.median else 0.0


@dataclass
class Failure:
    """A case that raised: it is dropped from the following rounds."""

    name: str
    error: str


def _time_block(case: Case, clock: Callable[[], float]) -> float:
    if case.setup is not None:
        case.setup()
    start = clock()
    out = case.run()
    if case.sync is not None:
        case.sync(out)
    return clock() - start


def interleave(
    cases: Sequence[Case],
    *,
    reps: int,
    warmup: int = 1,
    clock: Callable[[], float] = time.perf_counter,
    on_block: Callable[[], Any] | None = None,
) -> dict[str, Timing | Failure]:
    """Time ``cases`` in interleaved rounds and return each one's :class:`Timing`.

    Round ``r`` runs every live case once, in the given order; the first
    ``warmup`` rounds are not recorded. A case that raises becomes a
    :class:`Failure` (with the exception's type and message) and the others
    carry on.

    Args:
        cases: The contenders, with distinct names.
        reps: Timed rounds (at least 1; quote figures from 5 or more).
        warmup: Untimed rounds before them.
        clock: Seconds, monotonic (a fake one in tests).
        on_block: Called after every block, timed or not (a progress bar).

    Returns:
        ``{case.name: Timing or Failure}`` in the order of ``cases``.
    """
    if reps < 1:
        raise ValueError(f"interleave: reps must be >= 1, got {reps}")
    if warmup < 0:
        raise ValueError(f"interleave: warmup must be >= 0, got {warmup}")
    names = [c.name for c in cases]
    if len(set(names)) != len(names):
        raise ValueError(f"interleave: case names must be distinct, got {names}")
    out: dict[str, Timing | Failure] = {c.name: Timing(c.name) for c in cases}
    for rnd in range(warmup + reps):
        for case in cases:
            result = out[case.name]
            if isinstance(result, Failure):
                if on_block is not None:
                    on_block()
                continue
            try:
                seconds = _time_block(case, clock)
            except Exception as exc:  # a peer library that cannot run this input
                out[case.name] = Failure(case.name, _describe(exc))
            else:
                if rnd >= warmup:
                    result.samples.append(seconds / case.steps)
            if on_block is not None:
                on_block()
    return out


def _describe(exc: BaseException) -> str:
    text = " ".join(str(exc).split())
    if len(text) > 200:
        text = text[:197] + "..."
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def paired_median_difference(a: Timing, b: Timing) -> float:
    """Median over rounds of ``a - b`` (seconds per unit).

    Interleaving pairs the samples round by round, so the difference of each
    pair cancels most of the machine's drift.
    """
    pairs: Iterable[tuple[float, float]] = zip(a.samples, b.samples)
    return statistics.median(x - y for x, y in pairs)
