"""benchmarks.suite.functional_bench (benchmark B4): its three rollouts run, and its ratios are
medians of within-round ratios."""

from __future__ import annotations

import pytest

pytest.importorskip("jax")
pytest.importorskip("gymnax")


@pytest.mark.parametrize("consumer", ["sum", "trajectory"])
def test_functional_bench_runs_all_three_rollouts(consumer):
    pytest.importorskip("brax")
    from benchmarks.suite import functional_bench

    res = functional_bench.run(num_envs=8, steps=5, reps=1, consumer=consumer)
    assert res["consumer"] == consumer
    for case in ("bare", "anywrap", "peer"):
        assert res[f"{case}_steps_per_s"] > 0
    with pytest.raises(ValueError, match="consumer"):
        functional_bench.run(num_envs=8, steps=5, reps=1, consumer="mean")


def test_functional_bench_ratios_are_medians_of_within_round_ratios(monkeypatch):
    """Scripted timings: round r takes (1 + r) x the case's base time, so each
    within-round ratio is exact while the medians of raw times would not pair up."""
    from benchmarks.suite import functional_bench as fb

    base = {"bare": 1.0, "anywrap": 1.25, "peer": 1.0 / 0.8}
    for name in base:
        monkeypatch.setattr(fb, f"_{name}", lambda n, s, c, name=name: (name, None))
    calls: list[str] = []

    def fake_time(fn, carry):
        calls.append(fn)
        return base[fn] * (1 + (len(calls) - 1) // 3)  # each round slower than the last

    monkeypatch.setattr(fb, "_time", fake_time)
    res = fb.run(num_envs=4, steps=10, reps=3)
    assert calls[6:9] == ["bare", "anywrap", "peer"]  # round 0 (after two warm-ups each)
    assert calls[9:12] == ["anywrap", "peer", "bare"]  # round 1: the order rotates
    assert res["anywrap_vs_bare"] == pytest.approx(0.8)
    assert res["peer_vs_bare"] == pytest.approx(0.8)
    assert res["anywrap_vs_peer"] == pytest.approx(1.0)
