"""benchmarks/device_ops.py (issue 32's row for what a device sees): it counts the ATen
calls of every case, and its table and plot come from the same figures."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")


def test_device_ops_counts_each_case_and_draws_its_table(tmp_path):
    pytest.importorskip("matplotlib")
    from benchmarks import device_ops

    figures = device_ops.measure(16, rounds=1, compiled=False, torchrl=False, profile_steps=4)
    cases = figures["cases"]
    like = device_ops.LIKE_FOR_LIKE
    assert set(cases) == {"bare", "hand-written", "anywrap eager", like}
    bare = cases["bare"]["ops_per_step"]
    # A wrapper's ops come on top of its env's: a count that missed nested calls or
    # counted another case's would not keep this order.
    assert 0 < bare < cases["hand-written"]["ops_per_step"] < cases["anywrap eager"]["ops_per_step"]
    # The stack without its episode statistics does less than the whole stack.
    assert bare < cases[like]["ops_per_step"] < cases["anywrap eager"]["ops_per_step"]
    for name in ("hand-written", "anywrap eager", like):
        assert cases[name]["added_ops"] == cases[name]["ops_per_step"] - bare
    # Kernels: the same order, each case fewer kernels than ATen calls (a cast is four).
    kernels = {name: r["kernels_per_step"] for name, r in cases.items()}
    assert 0 < kernels["bare"] < kernels["hand-written"] < kernels["anywrap eager"]
    assert all(kernels[name] < r["ops_per_step"] for name, r in cases.items())
    hand_kernels = kernels["hand-written"] - kernels["bare"]
    assert cases[like]["kernels_over_hand"] == pytest.approx(
        (kernels[like] - kernels["bare"]) / hand_kernels
    )
    # The env's own step is timed inside each case: a part of the case's step. With one
    # round the median of the differences is the difference of the figures.
    for name, r in cases.items():
        assert 0 < r["env_us_per_step"] < r["us_per_step"]
        if name != "bare":
            slower = r["env_us_per_step"] - cases["bare"]["env_us_per_step"]
            assert r["env_slower_us"] == pytest.approx(slower)
    text = device_ops.table(figures)
    assert f"anywrap eager {kernels['anywrap eager']:.0f} (+" in text
    for name, r in cases.items():
        assert f"| {name} | {r['ops_per_step']:.0f} |" in text
        assert f"| {r['env_us_per_step']:.0f}" in text.split(f"| {name} |")[1].split("\n")[0]
    device_ops.plot(figures, str(tmp_path / "ops.png"))
    assert (tmp_path / "ops.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_device_ops_env_slowdown_is_a_median_of_differences_as_the_time_added():
    """The hatched part of a bar and the bar use one statistic: the median over rounds of
    (case - reference), not the difference of two medians (here 2.0 against 3.0 µs)."""
    from benchmarks import device_ops

    rounds = {"bare": [1.0, 5.0, 9.0], "case": [3.0, 8.0, 10.0]}  # differences 2, 3, 1
    results = {name: {"ops_per_step": 1.0, "top_ops": [], "reference": "bare"} for name in rounds}
    results["hand-written"] = {"ops_per_step": 2.0, "top_ops": [], "reference": "bare"}
    seconds = {k: [v * 1e-6 for v in vs] for k, vs in rounds.items()}
    seconds["hand-written"] = seconds["case"]
    out = device_ops._summarise(results, seconds, env_times=seconds)["cases"]
    assert out["case"]["env_slower_us"] == pytest.approx(2.0)
    assert out["case"]["added_us"] == pytest.approx(2.0)
    assert out["case"]["env_us_per_step"] == pytest.approx(8.0)


def test_device_ops_counts_the_programs_jax_dispatches():
    """On JAX the count is of XLA programs executed: the hand-written normaliser adds
    two a step (its clip and its one jitted update), and anywrap's stack as many (ClipAction's
    clip, and the five wrappers after the env's step fused into one program)."""
    pytest.importorskip("jax")
    from benchmarks import device_ops

    figures = device_ops.measure_jax(8, rounds=1)
    cases = figures["cases"]
    assert cases["bare"]["ops_per_step"] > 0
    assert cases["hand-written"]["added_ops"] == pytest.approx(2.0)
    assert cases["anywrap"]["added_ops"] == pytest.approx(2.0)
    text = device_ops.table(figures)
    assert "XLA programs/step" in text and "| anywrap |" in text


def test_device_ops_times_the_innermost_env_only():
    """The env's own step is timed on the env at the bottom of the stack, on that one
    instance: no wrapper above it, and not the env's class."""
    import anywrap
    from anywrap import demo
    from benchmarks import device_ops

    inner = demo.torch_pendulum_vector_env(4, "cpu")
    stack = demo.cleanrl_stack(inner, anywrap.vector, torch.clamp)
    case = device_ops._gym_case("stack", stack)
    assert "step" in vars(inner)
    assert all("step" not in vars(w) for w in (stack, stack.env, stack.env.env))
    assert "step" not in vars(demo.torch_pendulum_vector_env(4, "cpu"))
    stack.reset(seed=0)
    case.env_seconds = 0.0
    stack.step(torch.zeros(4, 1))
    assert case.env_seconds > 0


def test_device_ops_times_the_calls_of_the_programs_compiled_meanwhile():
    """Within ``_TimedCompile`` torch.compile's callables add their calls' seconds to the
    case (and keep doing so afterwards); torch.compile itself is put back on exit; the
    table reports the median over rounds."""
    from benchmarks import device_ops

    case = device_ops._Case("compiled", "bare", lambda: None, lambda a: None)
    public = torch.compile
    with device_ops._TimedCompile(case):
        assert torch.compile is not public
        program = torch.compile(lambda x: x * 2.0 + 1.0, backend="eager", fullgraph=True)
    assert torch.compile is public and case.program_seconds == 0.0
    out = program(torch.arange(3.0))
    assert torch.equal(out, torch.tensor([1.0, 3.0, 5.0]))
    first = case.program_seconds
    assert first > 0
    program(torch.arange(3.0))
    assert case.program_seconds > first

    results = {n: {"ops_per_step": 1.0, "top_ops": [], "reference": "bare"} for n in ("bare",)}
    results["hand-written"] = {"ops_per_step": 2.0, "top_ops": [], "reference": "bare"}
    results["compiled"] = {"ops_per_step": 3.0, "top_ops": [], "reference": "bare"}
    seconds = {n: [1e-6, 2e-6, 3e-6] for n in results}
    figures = device_ops._summarise(
        results,
        seconds,
        program_times={"compiled": [9e-6, 1e-6, 4e-6]},
        num_envs=1,
        device="cpu",
        library="torch",
        rounds=3,
        steps=1,
        unit="ATen ops",
    )
    assert figures["cases"]["compiled"]["program_us_per_step"] == pytest.approx(4.0)
    assert "program_us_per_step" not in figures["cases"]["hand-written"]
    assert "compiled: 4 us a step inside torch.compile's programs" in device_ops.table(figures)


def test_device_ops_counts_a_kernel_for_each_op_that_does_work():
    """A cast is four ATen calls (``to``, ``_to_copy``, ``empty_strided``, ``copy_``) and one
    kernel; a view, an allocation and a cast to the same dtype are none; a factory's fill
    is one. The reference is the ops written out here, not the counter's own output."""
    from torch.profiler import ProfilerActivity, profile

    from benchmarks import device_ops

    x = torch.arange(8.0)
    with profile(activities=[ProfilerActivity.CPU]) as prof:
        y = x.to(torch.float64)  # one kernel: the copy
        z = (y + 1.0).reshape(2, 4)  # one: the add (the reshape is a view)
        _ = z.to(torch.float64)  # none: already float64
        _ = torch.zeros(3)  # one: the fill
        _ = torch.empty(5)  # none
    events = prof.events()
    aten = [e for e in events if e.name.startswith("aten::")]
    assert len(aten) > 3  # the calls the kernels are counted among
    assert device_ops.count_kernels(events) == 3
