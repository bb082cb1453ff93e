"""Tests of the benchmark harness and of ``python -m benchmarks`` end to end (small configs)."""

from __future__ import annotations

import contextlib
import json
import math
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from benchmarks.suite import (
    BENCHMARKS,
    Case,
    Failure,
    Settings,
    Timing,
    interleave,
    paired_median_difference,
    parse_only,
    write_json,
)

ROOT = Path(__file__).resolve().parents[2]
SRC = str(ROOT / "src")


def _bench(*args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """``python -m benchmarks ARGS`` from the checkout's root, as ``make bench`` runs it."""
    return subprocess.run(
        [sys.executable, "-m", "benchmarks", *args],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": SRC},
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def test_help_lists_every_option_and_benchmark() -> None:
    proc = _bench("--help")
    assert proc.returncode == 0, proc.stderr
    assert "usage: python -m benchmarks" in proc.stdout
    for option in ("--quick", "--device", "--only", "--json", "--plot", "--reps"):
        assert option in proc.stdout
    assert all(f"B{i}  " in proc.stdout for i in range(1, 10))


def test_bad_only_is_a_clear_error() -> None:
    proc = _bench("--only", "B1,B42")
    assert proc.returncode == 2
    assert "unknown benchmark id(s) ['B42']" in proc.stderr


def test_bad_reps_is_rejected() -> None:
    proc = _bench("--reps", "0")
    assert proc.returncode == 2
    assert "--reps" in proc.stderr and "must be >= 1, got 0" in proc.stderr


def test_importing_the_suite_imports_neither_jax_nor_torch() -> None:
    code = (
        "import sys, benchmarks.suite, benchmarks.__main__;"
        "print(sorted(m for m in ('jax', 'torch', 'torchrl', 'matplotlib') if m in sys.modules))"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": SRC},
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    assert proc.stdout.strip() == "[]"


class FakeClock:
    """A clock that only moves when a fake case 'works' for a given time."""

    def __init__(self) -> None:
        self.now = 0.0
        self.calls: list[str] = []

    def __call__(self) -> float:
        return self.now

    def case(self, name: str, durations: list[float], steps: int = 1) -> Case:
        it = iter(durations)

        def run() -> None:
            self.calls.append(name)
            self.now += next(it)

        return Case(name, run, steps=steps)


def test_interleave_alternates_cases_and_takes_medians() -> None:
    clock = FakeClock()
    # first block of each is the warm-up (100 s): it must not count
    a = clock.case("A", [100.0, 1.0, 9.0, 2.0, 3.0, 1.5], steps=1)
    b = clock.case("B", [100.0, 4.0, 8.0, 40.0, 6.0, 5.0], steps=2)
    out = interleave([a, b], reps=5, warmup=1, clock=clock)
    assert clock.calls == ["A", "B"] * 6
    ta, tb = out["A"], out["B"]
    assert isinstance(ta, Timing) and isinstance(tb, Timing)
    assert ta.samples == [1.0, 9.0, 2.0, 3.0, 1.5]
    assert ta.median == 2.0
    assert tb.samples == [2.0, 4.0, 20.0, 3.0, 2.5]  # per unit: steps=2
    assert tb.median == 3.0
    assert ta.min == 1.0
    # paired by round: (2-1, 4-9, 20-2, 3-3, 2.5-1.5) -> median 1.0
    assert paired_median_difference(tb, ta) == 1.0


def test_interleave_setup_untimed_sync_timed() -> None:
    clock = FakeClock()
    events: list[str] = []

    def setup() -> None:
        events.append("setup")
        clock.now += 1000.0  # setup time must not count

    def run() -> int:
        events.append("run")
        clock.now += 1.0
        return 7

    def sync(x: int) -> None:
        events.append(f"sync{x}")
        clock.now += 0.5  # waiting for the device counts

    out = interleave([Case("c", run, setup=setup, sync=sync)], reps=3, warmup=0, clock=clock)
    assert events == ["setup", "run", "sync7"] * 3
    t = out["c"]
    assert isinstance(t, Timing) and t.samples == [1.5, 1.5, 1.5]


def test_interleave_records_failures_and_goes_on() -> None:
    clock = FakeClock()
    ticks: list[int] = []

    def broken() -> None:
        raise TypeError("mean() got an unexpected keyword argument 'axis'")

    ok = clock.case("ok", [1.0] * 4)
    out = interleave(
        [Case("broken", broken), ok],
        reps=3,
        warmup=1,
        clock=clock,
        on_block=lambda: ticks.append(1),
    )
    assert isinstance(out["broken"], Failure)
    assert out["broken"].error.startswith("TypeError: mean()")
    assert isinstance(out["ok"], Timing) and len(out["ok"].samples) == 3
    assert len(ticks) == 8  # the progress bar still reaches its total


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [({"reps": 0}, "reps"), ({"reps": 1, "warmup": -1}, "warmup")],
)
def test_interleave_rejects_bad_counts(kwargs: dict[str, int], match: str) -> None:
    with pytest.raises(ValueError, match=match):
        interleave([Case("a", lambda: None)], **kwargs)


def test_interleave_rejects_duplicate_names() -> None:
    with pytest.raises(ValueError, match="distinct"):
        interleave([Case("a", lambda: None), Case("a", lambda: None)], reps=1)


def test_parse_only() -> None:
    assert parse_only(None) == list(BENCHMARKS)
    assert parse_only("b3, B1") == ["B1", "B3"]
    with pytest.raises(ValueError, match="unknown benchmark id"):
        parse_only("B1,B10")


def test_write_json_is_strict_json(tmp_path: Path) -> None:
    data = {"x": math.nan, "y": np.float32(1.5), "z": [np.int64(3)]}
    path = write_json(data, tmp_path / "r.json")
    assert json.loads(path.read_text()) == {"x": None, "y": 1.5, "z": [3]}
    assert not list(tmp_path.glob(".*.tmp"))


@contextlib.contextmanager
def _no_progress(desc: str, total: int):
    yield lambda: None


def test_b7_rows_and_verdicts_come_from_the_runners_figures() -> None:
    from benchmarks.suite.b7_images import bench_b7
    from benchmarks.suite.catalog import Context

    class Runner:  # images_bench.run's layout, with figures chosen here
        @staticmethod
        def run(**kwargs):
            Runner.kwargs = kwargs
            fig = lambda ms: {"step_ms": ms, "env_steps_per_s": 64 / (ms / 1e3), "spread": 0.1}  # noqa: E731
            return {
                "pipeline": {
                    "gymnasium": fig(30.0),
                    "anywrap-jax": fig(6.0),
                    "anywrap-torch": fig(20.0),
                    "anywrap-numpy": {"error": "boom"},
                },
                "speedup": {"jax": 5.0, "torch": 1.5},
                "target": 3.0,
                "met": {"jax": True, "torch": False},
                "wrapper_ms": {},
                "depth": {"jax": {"update_ratio_16_over_4": 1.1}},
                "bytes_per_env": {"4": 28252},
                "torch_threads": 2,
            }

    ctx = Context(settings=Settings(quick=True, reps=1), progress=_no_progress)
    res = bench_b7.__wrapped__(ctx, Runner, "B7 title")  # type: ignore[attr-defined]
    assert Runner.kwargs["num_envs"] == 64 and Runner.kwargs["reps"] == 1
    rows = {r["case"]: r for r in res["rows"]}
    assert rows["anywrap-jax"]["ratio"] == pytest.approx(6.0 / 30.0)
    assert rows["anywrap-numpy"]["error"] == "boom"
    assert rows["gymnasium"]["env_steps_per_s"] == pytest.approx(64 / 0.03)
    text = " | ".join(res["verdicts"])
    assert "jax runs the pipeline at 5.00x" in text and "MET" in text
    assert "torch runs the pipeline at 1.50x" in text and "MISSED" in text
    assert "1.10x at depth 16" in text


def test_b5_rows_summary_and_verdicts_share_one_statistic() -> None:
    """B5's added time per step is the median of the paired (stack - bare) differences,
    shown in the rows and read by the summary and the verdicts; the ratios are the
    rows' ratios of medians."""
    from benchmarks.suite.b5_torch import b5_figures

    us = 1e-6
    bare = [100 * us, 300 * us, 110 * us]  # a slow second round hits every case alike
    timings = {
        256: {
            "bare": Timing("bare", bare),
            "anywrap": Timing("anywrap", [b + 50 * us for b in bare]),
            "anywrap_eager": Timing("anywrap_eager", [b + 400 * us for b in bare]),
            "gymnasium": Failure("gymnasium", "TypeError: boom"),
            "torchrl_bare": Timing("torchrl_bare", [150 * us, 350 * us, 160 * us]),
            "torchrl": Timing("torchrl", [250 * us, 450 * us, 260 * us]),
        },
        4096: {
            "bare": Timing("bare", [200 * us] * 3),
            "anywrap": Timing("anywrap", [290 * us, 300 * us, 310 * us]),
            "torchrl_bare": Timing("torchrl_bare", [200 * us] * 3),
            "torchrl": Timing("torchrl", [260 * us] * 3),
        },
    }
    rows, summary, verdicts = b5_figures(timings, {256: {"anywrap": "out: torch.Tensor"}})
    by = {(r["num_envs"], r["case"]): r for r in rows}
    assert by[256, "anywrap"]["added_seconds_per_step"] == pytest.approx(50 * us)
    assert "adds 50.0 us/step" in by[256, "anywrap"]["extra"]
    assert "out: torch.Tensor" in by[256, "anywrap"]["extra"]
    assert by[256, "torchrl"]["added_seconds_per_step"] == pytest.approx(100 * us)
    assert by[256, "torchrl"]["ratio_to"] == "torchrl_bare"
    assert by[256, "anywrap"]["ratio"] == pytest.approx(160 / 110)  # medians
    assert by[256, "gymnasium"]["error"] == "TypeError: boom"
    assert by[256, "bare"]["added_seconds_per_step"] is None
    assert summary["anywrap_added_s_N256"] == by[256, "anywrap"]["added_seconds_per_step"]
    assert summary["anywrap_added_over_torchrl_added_N256"] == pytest.approx(0.5)
    assert summary["anywrap_added_over_torchrl_added_N4096"] == pytest.approx(100 / 60)
    assert summary["anywrap_over_bare_N4096"] == by[4096, "anywrap"]["ratio"] == 1.5
    assert verdicts == [
        "N=256: time anywrap's stack adds / time TorchRL's VecNorm+RewardSum adds: 0.50 "
        "(target <= 1.0): MET",
        "N=4096: time anywrap's stack adds / time TorchRL's VecNorm+RewardSum adds: 1.67 "
        "(target <= 1.0): MISSED",
        "N=4096: anywrap stack / its bare env: 1.50 (aim <= 1.5): MET",
    ]


def test_torch_pendulum_matches_gymnasium_dynamics() -> None:
    torch = pytest.importorskip("torch")
    import gymnasium as gym

    from anywrap.demo import torch_pendulum_vector_env

    env = torch_pendulum_vector_env(3)
    env.reset(seed=0)
    ref = gym.make("Pendulum-v1").unwrapped
    ref.reset(seed=0)
    states = np.array([[0.3, -0.5], [3.0, 7.9], [-2.0, 1.0]])
    env.core.th = torch.tensor(states[:, 0], dtype=torch.float32)
    env.core.thdot = torch.tensor(states[:, 1], dtype=torch.float32)
    actions = np.array([[1.0], [-3.0], [0.5]], dtype=np.float32)
    obs, reward, terminated, truncated, _ = env.step(torch.from_numpy(actions))
    for i in range(3):
        ref.state = states[i].copy()
        ref_obs, ref_reward, *_ = ref.step(actions[i])
        np.testing.assert_allclose(obs[i].numpy(), ref_obs, rtol=1e-5, atol=1e-5)
        assert reward[i].item() == pytest.approx(ref_reward, rel=1e-5, abs=1e-5)
    assert obs.dtype == torch.float32 and not bool(terminated.any())
    assert not bool(truncated.any())


def test_quick_b1_writes_valid_json(tmp_path: Path) -> None:
    out = tmp_path / "results.json"
    plot = tmp_path / "plot.png"
    proc = _bench(
        "--quick", "--only", "B1", "--json", str(out), "--plot", str(plot), "--no-progress"
    )
    assert proc.returncode == 0, proc.stderr
    assert "B1  NumPy single env" in proc.stdout
    assert "CartPole-v1: time anywrap adds / time Gymnasium adds" in proc.stdout
    report = json.loads(out.read_text())
    assert report["schema"] == "anywrap-bench/1"
    assert report["command"][:3] == ["python", "-m", "benchmarks"]
    assert report["config"]["only"] == ["B1"]
    b1 = report["benchmarks"]["B1"]
    assert b1["status"] == "ok"
    cases = {r["case"]: r for r in b1["rows"]}
    assert set(cases) == {
        f"{env}:{stack}"
        for env in ("Pendulum-v1", "CartPole-v1")
        for stack in ("bare", "gymnasium", "anywrap")
    }
    for r in cases.values():
        assert len(r["samples"]) == 5 and r["seconds_per_step"] > 0
    for env in ("Pendulum-v1", "CartPole-v1"):
        summary = b1["summary"][env]
        assert summary["anywrap_added_over_gymnasium_added"] == pytest.approx(
            summary["anywrap_added_s"] / summary["gymnasium_added_s"]
        )
    assert b1["summary"]["CartPole-v1"]["clip_action"] is False
    assert not plot.exists()  # no B3 / B4 in this run, so no plot


def test_device_cuda_fails_clearly_without_gpu(tmp_path: Path) -> None:
    torch = pytest.importorskip("torch")
    if torch.cuda.is_available():
        pytest.skip("this machine has a GPU")
    json_path = str(tmp_path / "r.json")
    proc = _bench("--device", "cuda", "--only", "B5", "--json", json_path, "--no-progress")
    assert proc.returncode == 2
    assert "no usable CUDA GPU" in proc.stderr
    assert "torch.cuda.is_available() is False" in proc.stderr
    assert not (tmp_path / "r.json").exists()


def test_a_benchmark_whose_library_does_not_import_is_not_available(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A GPU host may have PyTorch and not JAX: the JAX benchmarks are reported
    # as not available (naming the library), and the devices are resolved
    # without importing it, also for --device cuda, which would otherwise stop
    # at the import before saying anything about the GPU.
    from benchmarks.suite.runner import run_suite

    monkeypatch.setitem(sys.modules, "jax", None)  # `import jax` raises ImportError
    for device in ("cpu", "cuda"):
        report = run_suite(Settings(quick=True, device=device), ["B3", "B4"], progress=False)
        for bid in ("B3", "B4"):
            res = report["benchmarks"][bid]
            assert res["status"] == "not available", res
            assert res["reason"].startswith("jax: "), res["reason"]
            assert not res["rows"]
        assert report["machine"]["jax_device"] is None


GPU_CHECK = Path(__file__).resolve().parents[2] / "benchmarks" / "gpu_check.sh"


def _gpu_check(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHON": sys.executable, "OUT": str(tmp_path / "out")}
    env.update(STEP_TIMEOUT="120", BENCH_TIMEOUT="120")
    return subprocess.run(
        ["bash", str(GPU_CHECK), *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )


def test_gpu_check_script_reports_each_step_on_a_machine_without_gpu(tmp_path: Path) -> None:
    # The script that a GPU machine runs must not rot where CI runs: here every
    # GPU step is a SKIP, the no-sync tests pass, and the CUDA benchmark fails
    # with bench's own message, so the script exits 1.
    torch = pytest.importorskip("torch")
    pytest.importorskip("jax")
    if torch.cuda.is_available():
        pytest.skip("this machine has a GPU")
    proc = _gpu_check(tmp_path, "--quick")
    out = proc.stdout
    assert proc.returncode == 1, out + proc.stderr
    for line in (
        "[SKIP] torch-cuda six-wrapper vector stack, compiled: torch.cuda.is_available() is False",
        "[SKIP] torch-cuda six-wrapper vector stack, eager: torch.cuda.is_available() is False",
        "[SKIP] jax-gpu six-wrapper vector stack: no JAX GPU backend",
        "[PASS] pytest tests/contracts/test_no_sync_stacks.py: ",
        "[FAIL] python -m benchmarks --device cuda: exit 2; error: python -m benchmarks "
        "--device cuda: no usable CUDA GPU",
        "[SKIP] benchmarks/device_ops.py --device cuda: no CUDA device for PyTorch",
        "[SKIP] benchmarks/shell_overhead.py --jax: no JAX GPU backend",
        "[SKIP] benchmarks/device_ops.py --jax --envs 16: no JAX GPU backend",
        "[SKIP] benchmarks/device_ops.py --jax --envs 4096: no JAX GPU backend",
        "== summary: 1 passed, 1 failed, 7 skipped ==",
    ):
        assert line in out, (line, out)
    assert (tmp_path / "out" / "pytest_no_sync.txt").is_file()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--bogus"], "unknown argument --bogus"),
        (["--wheels"], "--wheels expects a folder of .whl files"),
        (["--wheels", "no-such-folder"], "--wheels expects a folder of .whl files"),
        (["--wheels", "EMPTY"], "no .whl file in"),
    ],
)
def test_gpu_check_script_refuses_bad_arguments(
    tmp_path: Path, args: list[str], message: str
) -> None:
    (tmp_path / "empty").mkdir()
    args = [str(tmp_path / "empty") if a == "EMPTY" else a for a in args]
    proc = _gpu_check(tmp_path, *args)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert message in proc.stderr
    assert "[PASS]" not in proc.stdout  # nothing ran


def test_b4_rows_and_verdicts_use_the_same_statistic() -> None:
    from benchmarks.suite.b4_functional import bench_b4
    from benchmarks.suite.catalog import Context

    class Runner:  # functional_bench.run's layout: medians and within-round ratios disagree
        @staticmethod
        def run(num_envs, steps, reps, consumer):
            return {
                "num_envs": num_envs,
                "consumer": consumer,
                "bare_steps_per_s": 1000.0,
                "anywrap_steps_per_s": 570.0,  # a median of its own rounds
                "peer_steps_per_s": 600.0,
                "anywrap_vs_bare": 0.95,  # the median of the within-round ratios
                "anywrap_vs_peer": 1.01,
                "peer_vs_bare": 0.94,
            }

    ctx = Context(settings=Settings(quick=True, reps=1), progress=_no_progress)
    res = bench_b4.__wrapped__(ctx, Runner, "B4 title")  # type: ignore[attr-defined]
    anywrap_rows = [r for r in res["rows"] if r["case"] == "anywrap"]
    assert anywrap_rows and all(r["ratio"] == pytest.approx(1 / 0.95) for r in anywrap_rows)
    sum_verdicts = [v for v in res["verdicts"] if "trajectory" not in v]
    assert sum_verdicts and all(
        "0.95x the bare" in v and "1.05x bare, as in the table" in v for v in sum_verdicts
    )


def test_the_episode_end_script_runs_every_case(capsys: pytest.CaptureFixture[str]) -> None:
    """benchmarks/episode_end.py, shrunk to a few calls: four cases, each with
    Gymnasium's time, anywrap's and their ratio."""
    import importlib.util

    path = Path(__file__).resolve().parents[2] / "benchmarks" / "episode_end.py"
    spec = importlib.util.spec_from_file_location("episode_end", path)
    assert spec is not None and spec.loader is not None
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    script.CALLS, script.ROUNDS = 50, 1
    script.main()
    rows = capsys.readouterr().out.strip().splitlines()[1:]
    assert len(rows) == 4
    for row in rows:
        gym_us, ours_us, ratio = row.split()[-3:]
        assert gym_us.endswith("us") and ours_us.endswith("us")
        assert math.isfinite(float(ratio))


def test_the_wrapper_steps_script_runs_every_wrapper(capsys: pytest.CaptureFixture[str]) -> None:
    """benchmarks/wrapper_steps.py, shrunk to a few steps: one row per wrapper with
    Gymnasium's added time, anywrap's and their ratio; an unknown name is refused."""
    import importlib.util

    path = Path(__file__).resolve().parents[2] / "benchmarks" / "wrapper_steps.py"
    spec = importlib.util.spec_from_file_location("wrapper_steps", path)
    assert spec is not None and spec.loader is not None
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    script.WARMUP = 2
    for args in (["--steps", "5"], ["--steps", "250", "--single"]):  # 250: past an episode
        script.main(args)
        rows = capsys.readouterr().out.strip().splitlines()[1:]
        assert [row.split()[0] for row in rows] == list(script.WRAPPERS)
        for row in rows:
            fields = row.split()
            assert fields[2] == "us" and fields[4] == "us"
            assert math.isfinite(float(fields[1])) and math.isfinite(float(fields[3]))
    with pytest.raises(SystemExit):
        script.main(["NoSuchWrapper"])
    assert "unknown wrapper(s) ['NoSuchWrapper']" in capsys.readouterr().err


def test_b9_rows_and_verdicts_are_the_median_ratio_of_alternated_pairs(monkeypatch) -> None:
    from benchmarks.suite import b9_first_run
    from benchmarks.suite.catalog import Context

    order = []
    times = {("short", True): [4.0, 3.0], ("short", False): [2.0, 3.0]}
    times |= {(c, on): [2.0, 2.0] for c in ("4096", "third") for on in (True, False)}

    def fake(case, on):
        order.append((case, on))
        seconds = times[(case, on)].pop(0)
        return {"seconds": seconds, "compiled": 0, "compile_seconds": 0.0, "sources": []}

    monkeypatch.setattr(b9_first_run, "run_script", fake)
    ctx = Context(settings=Settings(reps=2), progress=_no_progress)
    res = b9_first_run.bench_b9(ctx)
    assert order[:2] == [("short", True), ("short", False)]  # on and off alternate
    assert res["summary"]["short"] == pytest.approx((4 / 2 + 3 / 3) / 2)
    assert res["summary"]["4096"] == 1.0 and res["summary"]["third"] == 1.0
    assert "short: compile on / off: 1.50" in res["verdicts"][0] and "MISSED" in res["verdicts"][0]
    assert all("MET" in v for v in res["verdicts"][1:])


def test_b9_script_runs_in_a_fresh_process_and_a_short_run_compiles_nothing() -> None:
    """The short case as a user runs it: 300 steps, compile on (the default); its
    process reports what was compiled (nothing: a short run never waits for it)."""
    pytest.importorskip("torch")
    from benchmarks.suite.b9_first_run import run_script

    report = run_script("short", True)
    assert report["compiled"] == 0 and report["seconds"] == report["wall"] > 0


def test_b9_rows_show_the_verdicts_statistic(monkeypatch) -> None:
    """The table's ratio column is the verdict's median of pair ratios, not a ratio of
    medians (they differ here: pairs 4/2 and 3/3 give 1.5; medians 3.5/2.5 give 1.4)."""
    from benchmarks.suite import b9_first_run
    from benchmarks.suite.catalog import Context

    times = {("short", True): [4.0, 3.0], ("short", False): [2.0, 3.0]}
    times |= {(c, on): [2.0, 2.0] for c in ("4096", "third") for on in (True, False)}

    def fake(case, on):
        return {"seconds": times[(case, on)].pop(0), "compiled": 0, "compile_seconds": 0.0}

    monkeypatch.setattr(b9_first_run, "run_script", fake)
    res = b9_first_run.bench_b9(Context(settings=Settings(reps=2), progress=_no_progress))
    row = next(
        r for r in res["rows"] if r["label"] == "short: compile on (ANYWRAP_TORCH_COMPILE=1)"
    )
    assert row["ratio"] == res["summary"]["short"] == 1.5
