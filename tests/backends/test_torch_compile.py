"""PyTorch's compiled path: :func:`anywrap.xp.set_compile` and ``anywrap.backends.torch_compile``.

The suite runs eagerly (``conftest.py`` sets ``ANYWRAP_TORCH_COMPILE=0``); the
tests here switch compilation on, compiling a signature on its second call
(the first runs eagerly, as a user's first calls would). The references are
those of the eager tests: Gymnasium's wrappers run side by side on NumPy, and
Gymnasium's ``RunningMeanStd`` fed the same batches.

Tolerances: a compiled program may sum and divide in another order than the
eager kernels (TorchInductor vectorises reductions), so values agree within
rounding of the dtype they are computed in. The vector return accumulator
``G`` is float32 (as Gymnasium's), so the float64 rewards scaled by its
statistics agree to float32 rounding (1e-6 relative) where the eager path
agrees to 1e-9.
"""

from __future__ import annotations

import os
import subprocess
import sys
import warnings
from collections import Counter

import gymnasium as gym
import numpy as np
import pytest
from array_envs import BackendVectorEnv
from gymnasium.vector import AutoresetMode
from gymnasium.wrappers.utils import RunningMeanStd
from helpers import (
    GYM_VECTOR,
    ReplayEnv,
    ReplayVectorEnv,
    make_backend,
    needs_whole_traces,
    record_single_trajectory,
    record_vector_trajectory,
    run_single,
    run_vector,
    torch_no_host_sync,
    vector_stack,
)

import anywrap
from anywrap import xp as axp
from anywrap.tree import Structure
from anywrap.xp import switch

torch = pytest.importorskip("torch")

STEP_TRANSFORMS = {"stack(step_episodes+normalize_observation+<lambda>+normalize_reward+<lambda>)"}
"""What the six-wrapper vector stack compiles on its step path: one program for the five
wrappers after the env's step (ClipAction's clip, before it, is one operation: it stays
eager, see test_a_one_operation_transform_stays_eager)."""

REWARD_RTOL = 1e-6
"""float64 rewards scaled by statistics of the float32 accumulator: float32 rounding."""


@pytest.fixture
def compiled(monkeypatch):
    """Compilation on, each signature compiled on its second call; the log from here.
    Programs compiled by earlier tests are not shared with this one, and the toy
    transforms here (two to five calls) compile as a longer one would."""
    from anywrap.backends import torch_compile

    monkeypatch.setattr(torch_compile, "_shared", {})
    monkeypatch.setattr(torch_compile, "SMALL_PROGRAM", 2)
    previous = axp.set_compile(True, after_calls=2)
    start = len(axp.compile_log())
    try:
        yield lambda: axp.compile_log()[start:]
    finally:
        axp.set_compile(previous, after_calls=switch.AFTER_CALLS)


def assert_compiled(records, names):
    """Every transform in ``names`` was compiled, and nothing was refused (a transform
    of one or two operations stays eager by design, and says so)."""
    refused = [
        (r.function, r.reason)
        for r in records
        if not r.compiled and "cheaper eagerly" not in (r.reason or "")
    ]
    assert not refused
    compiled_names = {r.function for r in records if r.compiled}
    assert names <= compiled_names, compiled_names


# ----------------------------------------------------------------- numbers
@pytest.fixture(params=["vector", "scalar"])
def build(request, monkeypatch):
    """Each CPU build, named by the environment: the rule keeps scalar kernels for the
    programs that write bools and vector kernels for the others, and both builds must
    give the same numbers."""
    monkeypatch.setenv(switch.KERNELS_VAR, request.param)
    return request.param


@pytest.mark.parametrize("mode", [AutoresetMode.NEXT_STEP, AutoresetMode.DISABLED])
def test_compiled_vector_stack_matches_gymnasium(compiled, build, mode):
    traj = record_vector_trajectory(autoreset_mode=mode)
    numpy_backend, torch_backend = make_backend("numpy"), make_backend("torch")
    ref_stack = vector_stack(ReplayVectorEnv(traj, numpy_backend), lib=GYM_VECTOR)
    stack = vector_stack(ReplayVectorEnv(traj, torch_backend))
    ref, out = run_vector(ref_stack), run_vector(stack)
    assert len(out) == len(ref) == len(traj.events)
    ends = 0
    for i, (got, want) in enumerate(zip(out, ref)):
        assert isinstance(got[1], torch.Tensor)
        np.testing.assert_allclose(got[1].numpy(), want[1], rtol=1e-5, atol=1e-5, err_msg=i)
        if got[0] == "step":
            np.testing.assert_allclose(got[2].numpy(), want[2], rtol=REWARD_RTOL, err_msg=i)
            if "episode" in want[5]:
                m = want[5]["_episode"]
                ends += int(m.sum())
                np.testing.assert_array_equal(got[5]["_episode"].numpy(), m)
                ep, want_ep = got[5]["episode"], want[5]["episode"]
                np.testing.assert_allclose(ep["r"].numpy()[m], want_ep["r"][m], rtol=1e-9)
                np.testing.assert_array_equal(ep["l"].numpy()[m], want_ep["l"][m])
    assert ends >= 5
    ours, theirs = stack.env, ref_stack.env  # NormalizeReward, below TransformReward
    np.testing.assert_allclose(ours.return_rms.var.numpy(), theirs.return_rms.var, rtol=REWARD_RTOL)
    assert_compiled(compiled(), STEP_TRANSFORMS)
    assert {r.kernels for r in compiled() if r.compiled} == {f"{build} ({switch.KERNELS_VAR})"}


@needs_whole_traces
def test_compiled_single_stack_matches_gymnasium(compiled):
    traj = record_single_trajectory()
    ref_env = ReplayEnv(traj, make_backend("numpy"))
    env = ReplayEnv(traj, make_backend("torch"))

    def stack(e, lib, clip):
        e = lib.RecordEpisodeStatistics(e)
        e = lib.ClipAction(e)
        e = lib.NormalizeObservation(e)
        e = lib.TransformObservation(e, lambda o: clip(o, -5.0, 5.0), None)
        e = lib.NormalizeReward(e, gamma=0.99)
        return lib.TransformReward(e, lambda r: clip(r, -5.0, 5.0))

    ref = run_single(stack(ref_env, gym.wrappers, np.clip))
    out = run_single(stack(env, anywrap, torch.clamp))
    assert len(out) == len(ref)
    for i, (got, want) in enumerate(zip(out, ref)):
        assert isinstance(got[1], torch.Tensor)
        np.testing.assert_allclose(got[1].numpy(), want[1], rtol=1e-5, atol=1e-5, err_msg=i)
        if got[0] == "step":
            np.testing.assert_allclose(float(got[2]), want[2], rtol=1e-9, err_msg=i)
            if "episode" in want[5]:
                assert float(got[5]["episode"]["r"]) == pytest.approx(want[5]["episode"]["r"])
    records = compiled()
    assert_compiled(records, {"normalize_observation", "normalize_reward"})


@needs_whole_traces
def test_compiled_same_step_learns_final_observations(compiled):
    """SAME_STEP with learn_final_obs: the compiled normalize_observation_with_final
    learns exactly Gymnasium's RunningMeanStd fed the same batches."""

    def make(mode):
        return gym.make_vec(
            "CartPole-v1", 4, vectorization_mode="sync", vector_kwargs={"autoreset_mode": mode}
        )

    shadow = make(AutoresetMode.SAME_STEP)
    envs = anywrap.vector.NormalizeObservation(
        BackendVectorEnv(make(AutoresetMode.SAME_STEP), make_backend("torch")),
        learn_final_obs=True,
    )
    ref = RunningMeanStd(shape=(4,), dtype=np.float32)
    obs, _ = envs.reset(seed=3)
    raw, _ = shadow.reset(seed=3)
    ref.update(raw)
    rng = np.random.default_rng(0)
    finals = 0
    for _ in range(60):
        actions = rng.integers(0, 2, size=4)
        obs, _, _, _, info = envs.step(torch.as_tensor(actions))
        raw, _, _, _, raw_info = shadow.step(actions)
        if "final_obs" in raw_info:
            m = raw_info["_final_obs"]
            rows = np.stack([f for f, k in zip(raw_info["final_obs"], m) if k])
            finals += len(rows)
            ref.update(np.concatenate([raw, rows]))  # one batch: the obs and the finals
            want = (rows - ref.mean) / np.sqrt(ref.var + envs.epsilon)
            got = info["final_obs"].numpy()[m]
            np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
        else:
            ref.update(raw)
        want_obs = (raw - ref.mean) / np.sqrt(ref.var + envs.epsilon)
        np.testing.assert_allclose(obs.numpy(), want_obs, rtol=1e-5, atol=1e-5)
    assert finals > 0
    np.testing.assert_allclose(envs.obs_rms.var.numpy(), ref.var, rtol=2e-5, atol=1e-6)
    assert_compiled(compiled(), {"normalize_observation_with_final"})


# ------------------------------------------------------------- no host sync
@needs_whole_traces
def test_compiled_stacks_never_sync(compiled):
    """Compilation included: tracing and compiling run outside the guard's view,
    and the compiled programs read no value on the host. (The first reset and step,
    where the state and the action bounds move to the tensors' device once, run
    before the guard.)"""
    axp.set_compile(True, after_calls=1)
    traj = record_vector_trajectory(num_envs=6, num_steps=40)
    vector = vector_stack(ReplayVectorEnv(traj, make_backend("torch")))
    single_traj = record_single_trajectory()
    single = anywrap.RecordEpisodeStatistics(ReplayEnv(single_traj, make_backend("torch")))
    single = anywrap.NormalizeReward(anywrap.NormalizeObservation(single))
    run_vector(vector, steps=1)
    run_single(single, steps=1)
    with torch_no_host_sync():
        run_vector(vector)
        run_single(single)
    assert_compiled(compiled(), STEP_TRANSFORMS | {"normalize_observation"})


# ------------------------------------------------------------- compile once
@needs_whole_traces
def test_each_transform_compiles_once_per_signature_over_a_long_run(compiled):
    """450 steps of 32 torch Pendulums (two truncations, the wall clock passed at every
    step as a float, resets with and without a mask): one compilation per transform
    and signature, each made the first time its signature comes twice."""
    from anywrap.demo import cleanrl_stack, torch_pendulum_vector_env

    env = cleanrl_stack(torch_pendulum_vector_env(32), anywrap.vector, torch.clamp)
    gen = torch.Generator().manual_seed(0)
    env.reset(seed=0)
    env.reset(seed=1)
    seen = {}
    for t in range(450):
        env.step(torch.rand(32, 1, generator=gen) * 6 - 3)
        if t in (100, 300):  # masked resets: new signatures, compiled on their 2nd call
            env.reset(options={"reset_mask": torch.arange(32) % 2 == 0})
            env.reset(options={"reset_mask": torch.arange(32) % 3 == 0})
        seen[t] = len(compiled())
    records = compiled()
    counts = Counter((r.function, r.signature) for r in records)
    assert counts and max(counts.values()) == 1, counts
    assert_compiled(records, STEP_TRANSFORMS | {"reset_episodes"})
    assert seen[1] == seen[99] and seen[100] == seen[449], seen  # nothing new in between
    step_records = Counter(r.function for r in records[: seen[1]] if r.compiled)
    assert all(step_records[name] == 1 for name in STEP_TRANSFORMS), step_records
    assert len(records) > seen[99]  # the masked resets did compile their signatures


def test_a_float_argument_is_an_input_not_a_constant(compiled):
    """``now`` changes at every step: the program takes it as a tensor (no new
    compilation) and uses the value it is given."""
    add = axp.Compiled(lambda x, now: x + axp.namespace(x).asarray(now, dtype=x.dtype))
    x = torch.zeros(3, dtype=torch.float64)
    for now in (0.5, 1.25, 3.0, 1e9 + 0.125):
        np.testing.assert_array_equal(add(x, now=now).numpy(), np.full(3, now))
    assert [r.function.rsplit(".", 1)[-1] for r in compiled()] == ["<lambda>"]


def test_a_tensor_passed_twice_then_apart(compiled):
    """The trace gets distinct inputs, so a program traced with one tensor in two
    places still reads each argument from its own input later."""
    pair = axp.Compiled(lambda a, b: (a + 1, b * 2))
    t = torch.arange(3.0)
    for _ in range(2):
        pair(t, t)
    a, b = pair(t, t + 10)
    assert a.tolist() == [1.0, 2.0, 3.0] and b.tolist() == [20.0, 22.0, 24.0]


def test_calls_are_counted_by_tree_until_a_signature_can_be_due(compiled, monkeypatch):
    """No signature is made (0.5 us a tensor) before the tree's ``after_calls``-th call;
    that call's signature is compiled then, and a later signature counts its own calls."""
    from anywrap.backends import torch_compile

    made = []

    def signature(structure, flat):
        made.append(len(flat))
        return real(structure, flat)

    real = torch_compile._signature
    monkeypatch.setattr(torch_compile, "_signature", signature)
    axp.set_compile(True, after_calls=4)
    program = torch_compile.TorchProgram(lambda x, y: (x + y) * y - x / (y + 1))
    x, wide = torch.arange(3.0), torch.arange(5.0)
    for _ in range(3):
        program(x, x)
    assert made == [] and not program._signatures and not compiled()
    program(x, x)  # the tree's 4th call: its signature, compiled
    assert made == [2] and [(r.signature, r.compiled) for r in compiled()] == [
        ("float32[3]@cpu, float32[3]@cpu", True)
    ]
    outs = [program(wide, wide) for _ in range(3)]  # a new signature: eager, counted
    assert len(compiled()) == 1
    outs.append(program(wide, wide))  # its own 4th call
    assert [r.signature for r in compiled()][1:] == ["float32[5]@cpu, float32[5]@cpu"]
    assert all(torch.allclose(o, (wide + wide) * wide - wide / (wide + 1)) for o in outs)


def test_auto_runs_cpu_tensors_eagerly_without_a_signature(compiled):
    """``auto`` (the default) never compiles CPU tensors: such a call goes straight to
    the transform, and no signature is made for it; ``True`` then makes one."""
    from anywrap.backends.torch_compile import TorchProgram

    program = TorchProgram(lambda x, y: (x + y, x * y))
    x = torch.arange(3.0)
    axp.set_compile(None)
    for _ in range(3):
        s, p = program(x, x)
    assert s.tolist() == [0.0, 2.0, 4.0] and p.tolist() == [0.0, 1.0, 4.0]
    assert not program._signatures and not compiled()
    axp.set_compile(True, after_calls=2)
    for _ in range(2):
        program(x, x)
    assert len(program._signatures) == 1 and len(compiled()) == 1


def test_a_transform_that_reads_a_value_runs_eagerly_with_one_warning(compiled):
    branchy = axp.Compiled(lambda x: x * 2 if bool(x.sum() > 0) else x - 1)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        outs = [branchy(torch.ones(2)).tolist(), branchy(-torch.ones(2)).tolist()]
        outs += [branchy(torch.ones(2)).tolist(), branchy(-torch.ones(2)).tolist()]
    assert outs == [[2.0, 2.0], [-2.0, -2.0]] * 2
    messages = [str(w.message) for w in caught if issubclass(w.category, RuntimeWarning)]
    assert len(messages) == 1 and "could not be compiled" in messages[0], messages
    (record,) = compiled()
    assert not record.compiled and record.reason


def test_a_one_operation_transform_stays_eager(compiled):
    """ClipAction's clip is one kernel (two operations once TorchInductor's
    decompositions split the clamp): the compiled call's fixed cost would exceed it."""
    from functools import partial

    from anywrap.transforms.actions import clip_action

    clip = axp.Compiled(partial(clip_action, dtype=torch.float32), 0)
    low, high = torch.tensor([-1.0]), torch.tensor([1.0])
    for _ in range(3):
        out = clip(torch.tensor([[-3.0], [0.5], [2.0]]), low, high)
    assert out.tolist() == [[-1.0], [0.5], [1.0]]
    (record,) = compiled()
    assert record.function == "clip_action" and not record.compiled
    assert "2 torch call(s): cheaper eagerly" in record.reason


def test_the_stacks_clip_stays_eager_and_its_normalisers_compile():
    """Under ``torch.compile`` a compiled call costs about what ten eager calls do
    (TorchDynamo's frame and guards): ClipAction's clip and cast (two or three calls) stays
    eager at the default threshold, the normalisers (tens of calls) compile."""
    from anywrap import vector
    from anywrap.backends import torch_compile
    from anywrap.demo import torch_pendulum_vector_env

    previous = axp.set_compile(True, after_calls=2)
    start = len(axp.compile_log())
    shared, torch_compile._shared = torch_compile._shared, {}
    try:
        env = vector.NormalizeObservation(vector.ClipAction(torch_pendulum_vector_env(4)))
        env.reset(seed=0)
        for _ in range(4):
            env.step(torch.zeros(4, 1))
    finally:
        torch_compile._shared = shared
        axp.set_compile(previous, after_calls=switch.AFTER_CALLS)
    records = {r.function: r for r in axp.compile_log()[start:]}
    assert not records["_clip_cast"].compiled
    assert "torch call(s): cheaper eagerly" in records["_clip_cast"].reason
    assert records["normalize_observation"].compiled


def test_a_transform_holding_a_callback_stays_eager(compiled):
    """A distributed reduce (or any function that is not anywrap's) would be baked in
    as it ran while tracing: such a transform runs eagerly, and calls it every time."""
    from functools import partial

    from anywrap.transforms.moments import init_moments, update_moments

    calls = []

    def reduce(x):
        calls.append(1)
        return x

    update = axp.Compiled(partial(update_moments, reduce=reduce), 0)
    m = init_moments((2,), xp=torch, dtype=torch.float64)
    for _ in range(3):
        m = update(m, torch.ones((4, 2), dtype=torch.float64))
    assert compiled() == [] and len(calls) >= 3
    np.testing.assert_allclose(m.mean.numpy(), 12 / (12 + 1e-4))


# ------------------------------------------------------- the two CPU builds
def test_the_cpu_build_follows_a_rule_not_a_timing(compiled, monkeypatch):
    """Scalar kernels for a program that writes bool tensors, vector kernels for one
    that writes floats only; nothing is timed, so every run keeps the same build."""
    monkeypatch.delenv(switch.KERNELS_VAR, raising=False)
    floats = axp.Compiled(lambda x, y: ((x * 2 + y).exp(), x - y))
    flags = axp.Compiled(lambda x, y: (x * 2 + y, x > y))
    for _ in range(3):
        out, _ = floats(torch.arange(8.0), torch.ones(8))
        _, above = flags(torch.arange(8.0), torch.ones(8))
    np.testing.assert_allclose(out.numpy(), np.exp(2 * np.arange(8.0) + 1), rtol=1e-6)
    assert above.tolist() == [False, False] + [True] * 6
    assert [r.kernels for r in compiled()] == [
        "vector (float outputs)",
        "scalar (writes bool tensors)",
    ]


def test_the_scalar_build_picks_no_vector_instructions():
    """``SCALAR_OPTIONS`` must turn TorchInductor's vectorisation off: with it, no
    vector instruction set is picked (on a machine that has one)."""
    from torch._inductor import config
    from torch._inductor.cpu_vec_isa import pick_vec_isa

    from anywrap.backends.torch_compile import SCALAR_OPTIONS

    assert pick_vec_isa(), "this machine has no vector instruction set to turn off"
    with config.patch(SCALAR_OPTIONS):
        assert not pick_vec_isa()


@pytest.mark.parametrize("build", ["vector", "scalar"])
def test_the_environment_can_name_one_cpu_build(compiled, monkeypatch, build):
    """``ANYWRAP_TORCH_CPU_KERNELS`` compiles the build it names, whatever the rule says."""
    monkeypatch.setenv(switch.KERNELS_VAR, build.upper())
    step = axp.Compiled(lambda x, y: (x * 2 + y, (x > y).sum()))
    for _ in range(3):
        out, above = step(torch.arange(8.0), torch.ones(8))
    assert out.tolist() == [2.0 * i + 1 for i in range(8)] and int(above) == 6
    (record,) = compiled()
    assert record.compiled and record.kernels == f"{build} ({switch.KERNELS_VAR})"


def test_a_wrong_cpu_build_name_is_an_error_at_the_compiling_call(compiled, monkeypatch):
    monkeypatch.setenv(switch.KERNELS_VAR, "avx512")
    step = axp.Compiled(lambda x, y: (x * 2 + y, (x > y).sum()))
    step(torch.ones(2), torch.ones(2))  # the first call runs eagerly: nothing compiled
    with pytest.raises(ValueError, match="ANYWRAP_TORCH_CPU_KERNELS='avx512'"):
        step(torch.ones(2), torch.ones(2))


# ---------------------------------------------------- the state fed back
def test_a_state_fed_back_is_checked_by_identity(compiled, monkeypatch):
    """A wrapper's state goes round its program: once the program has seen its own
    outputs come back, it checks them by identity and checks only the other leaves
    in full. Any change in those, or a state from elsewhere, takes the full check."""
    from anywrap.backends import torch_compile as _torch_compile

    full = Counter()
    signature = _torch_compile._signature

    def counted(structure, flat):
        full["checks"] += 1
        return signature(structure, flat)

    monkeypatch.setattr(_torch_compile, "_signature", counted)
    step = axp.Compiled(lambda s, x, now: (s[0] + x, s[1] * 2 + now, (s[0] * x).sum()))

    def eager(s, x, now):
        return s[0] + x, s[1] * 2 + now, (s[0] * x).sum()

    state = (torch.zeros(8, dtype=torch.float64), torch.ones(3))
    want = state
    for t in range(10):
        x = torch.full((8,), float(t), dtype=torch.float64)
        *state_out, total = step(state, x, 0.5)
        *want_out, want_total = eager(want, x, 0.5)
        state, want = tuple(state_out), tuple(want_out)
        assert float(total) == float(want_total)
    torch.testing.assert_close(state, want, rtol=0, atol=0)
    # The first call only counts; then the compiling call, one run, one to learn; then none.
    assert full["checks"] == 3

    # A non-fed leaf of another dtype, shape or kind is checked in full.
    for x, now in [
        (torch.ones(8, dtype=torch.float32), 0.5),
        (torch.ones(4, dtype=torch.float64), 0.5),
        (torch.ones(8, dtype=torch.float64), 1),
    ]:
        before = full["checks"]
        s0 = (torch.zeros(x.shape[0], dtype=torch.float64), torch.ones(3))
        got = step((s0[0] if x.shape[0] != 8 else state[0], state[1]), x, now)
        ref = eager((s0[0] if x.shape[0] != 8 else state[0], state[1]), x, now)
        torch.testing.assert_close(got, ref, rtol=0, atol=0)
        assert full["checks"] == before + 1
        state = tuple(got[:2]) if x.shape[0] == 8 and x.dtype == torch.float64 else state

    # A state that did not come out of the program (a checkpoint loaded), and one of
    # another shape in a fed slot: checked in full, and right.
    for s in [
        (torch.ones(8, dtype=torch.float64), torch.ones(3)),
        (torch.ones(5, dtype=torch.float64), torch.ones(3)),
    ]:
        before = full["checks"]
        x = torch.ones(s[0].shape[0], dtype=torch.float64)
        torch.testing.assert_close(step(s, x, 0.5), eager(s, x, 0.5), rtol=0, atol=0)
        assert full["checks"] == before + 1


def test_a_program_keeps_only_the_outputs_that_come_back(compiled):
    """The check by identity keeps the fed outputs alive (their ids must not pass to
    other tensors), and nothing else: an output the caller drops (a normalised
    batch, a report) is freed at once, as eagerly."""
    import weakref

    step = axp.Compiled(lambda s, x: (s + x, x * 2 + s))
    state = torch.zeros(4)
    dropped = []
    for t in range(6):
        state, out = step(state, torch.full((4,), float(t)))
        dropped.append(weakref.ref(out))
        del out
    assert dropped[-1]() is None and dropped[-2]() is None
    assert state.tolist() == [15.0] * 4 and [r.compiled for r in compiled()] == [True]


# ------------------------------------------------------------------ switch
def test_switch_off_runs_eagerly_and_back_on_compiles(compiled):
    double = axp.Compiled(lambda x: x * 2)
    axp.set_compile(False)
    for _ in range(3):
        assert double(torch.ones(2)).tolist() == [2.0, 2.0]
    assert compiled() == []
    axp.set_compile(True, after_calls=1)  # a wrapper built while it was off compiles now
    assert double(torch.ones(2)).tolist() == [2.0, 2.0]
    assert [r.function.rsplit(".", 1)[-1] for r in compiled()] == ["<lambda>"]


def test_set_compile_checks_its_arguments():
    with pytest.raises(TypeError, match="expected enabled to be a bool or None, got 1"):
        axp.set_compile(1)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="positive int, got 0"):
        axp.set_compile(True, after_calls=0)


@pytest.mark.parametrize(
    ("value", "setting"),
    [
        ("0", False),
        ("off", False),
        ("False", False),
        ("1", True),
        ("yes", True),
        ("", None),
        ("auto", None),
    ],
)
def test_environment_variable(monkeypatch, value, setting):
    monkeypatch.setenv(switch.ENV_VAR, value)
    monkeypatch.setattr(switch, "_setting", switch._UNREAD)  # read again, as in a fresh process
    assert switch.compile_setting() is setting
    assert axp.compile_enabled() is (setting is not False)
    assert switch.compiles_on_cpu() is (setting is True)


def test_by_default_cpu_tensors_stay_eager_and_set_compile_true_compiles_them(monkeypatch):
    """The default (auto) compiles on accelerators only: on a CPU the compiled CleanRL
    stack is no faster than the eager one (docs/performance.md). ``set_compile(True)``
    compiles CPU tensors too, and ``set_compile`` returns the setting it replaced."""
    from anywrap.backends import torch_compile

    monkeypatch.setattr(torch_compile, "_shared", {})
    monkeypatch.setattr(torch_compile, "SMALL_PROGRAM", 2)
    start = len(axp.compile_log())
    previous = axp.set_compile(None, after_calls=2)
    try:
        step = axp.Compiled(lambda x, y: (x * 3 + y).exp() - y)
        for _ in range(4):
            step(torch.ones(3), torch.zeros(3))
        assert axp.compile_log()[start:] == []  # auto: eager on the CPU, no record
        assert axp.set_compile(True, after_calls=2) is None
        for _ in range(4):
            step(torch.ones(3), torch.zeros(3))
        assert [r.compiled for r in axp.compile_log()[start:]] == [True]
    finally:
        axp.set_compile(previous, after_calls=switch.AFTER_CALLS)


def test_environment_variable_refuses_other_values(monkeypatch):
    monkeypatch.setenv(switch.ENV_VAR, "sometimes")
    monkeypatch.setattr(switch, "_setting", switch._UNREAD)
    with pytest.raises(ValueError, match="ANYWRAP_TORCH_COMPILE='sometimes'"):
        axp.compile_enabled()
    # set_compile comes first (the documented order): it overrides the variable, which it
    # reported instead of setting (as compile_enabled() after it).
    assert axp.set_compile(False) is None and axp.compile_enabled() is False


def test_environment_variable_in_a_fresh_process():
    """``ANYWRAP_TORCH_COMPILE=0`` keeps a fresh process eager from its first call."""
    code = (
        "import torch; from anywrap import xp; "
        "f = xp.Compiled(lambda x: x + 1); [f(torch.ones(1)) for _ in range(100)]; "
        "print(xp.compile_enabled(), len(xp.compile_log()))"
    )
    src = os.path.join(os.path.dirname(__file__), os.pardir, os.pardir, "src")
    proc = subprocess.run(
        [sys.executable, "-c", code],
        env={**os.environ, switch.ENV_VAR: "0", "PYTHONPATH": src},
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    assert proc.stdout.split()[-2:] == ["False", "0"], proc.stderr


# --------------------------------------------------------------- Structure
def test_structure_leaves_and_rebuilds_one_structure_only():
    from anywrap.transforms.moments import Moments

    tree = ((Moments(1, 2, 3, 4), [5, None]), {"now": 6.0, "mask": None})
    s = Structure(tree)
    assert s.size == 8
    assert s.leaves(tree) == [1, 2, 3, 4, 5, None, 6.0, None]
    assert s.unflatten(list(range(8))) == ((Moments(0, 1, 2, 3), [4, 5]), {"now": 6, "mask": 7})
    assert type(s.unflatten(list(range(8)))[0][0]) is Moments
    assert s.leaves(((Moments(1, 2, 3, 4), [5]), {"now": 6.0, "mask": None})) is None
    assert s.leaves(((Moments(1, 2, 3, 4), (5, 6)), {"now": 6.0, "mask": None})) is None
    assert s.leaves(((Moments(1, 2, 3, 4), [5, 6]), {"now": 6.0})) is None
    assert s.leaves(((tuple(range(4)), [5, 6]), {"now": 6.0, "mask": None})) is None
    # a dict's leaves follow the structure's key order, whatever the order given
    assert s.leaves(((Moments(1, 2, 3, 4), [5, 6]), {"mask": 8, "now": 7})) == [
        *range(1, 7),
        7,
        8,
    ]
    with pytest.raises(TypeError, match="not a dict"):
        from types import MappingProxyType

        Structure(MappingProxyType({"a": 1}))
    a, b = Structure(tree), Structure(((Moments(7, 8, 9, 0), [1, 2]), {"now": 0.5, "mask": 3}))
    assert a.key == b.key and hash(a.key) == hash(b.key)  # one structure, other leaves
    assert Structure(((Moments(1, 2, 3, 4), (5, 6)), {"now": 6.0, "mask": None})).key != a.key


# ------------------------------------------------- what a user waits for
def test_a_short_run_never_compiles_by_default():
    """The default compiles a signature on its 2000th call: a run of 1500 steps (a
    debugging run, an evaluation, a short training iteration) never waits for it."""
    assert switch.AFTER_CALLS == switch.compile_after_calls() == 2000
    previous = axp.set_compile(True)
    start = len(axp.compile_log())
    try:
        step = axp.Compiled(lambda x, y: (x * 2 + y).exp() - y)
        for _ in range(1500):
            step(torch.ones(4), torch.ones(4))
        assert axp.compile_log()[start:] == []
    finally:
        axp.set_compile(previous)


@needs_whole_traces
def test_a_second_stack_of_the_same_shapes_shares_the_programs(compiled):
    """Programs are shared by (transform, signature): a second stack, or an evaluation
    stack beside a training one, compiles nothing and gives the same numbers."""
    from anywrap.demo import cleanrl_stack, torch_pendulum_vector_env

    def run():
        envs = cleanrl_stack(torch_pendulum_vector_env(16), anywrap.vector, torch.clamp)
        obs, _ = envs.reset(seed=0)
        outs = []
        for _ in range(6):
            obs, reward, *_ = envs.step(torch.zeros((16, 1)))
            outs.append((obs.clone(), reward.clone()))
        return outs

    first = run()
    made = compiled()
    assert_compiled(made, STEP_TRANSFORMS)
    assert {r.source for r in made if r.compiled} <= {"compiled", "cache"}
    second = run()
    again = compiled()[len(made) :]
    shared = {r.function for r in again if r.source == "shared"}
    assert shared >= STEP_TRANSFORMS and all(r.seconds == 0.0 for r in again if r.compiled)
    for (o1, r1), (o2, r2) in zip(first, second):  # the first ran eagerly one step longer
        torch.testing.assert_close(o2, o1, rtol=1e-5, atol=1e-5)
        torch.testing.assert_close(r2, r1, rtol=1e-5, atol=1e-5)


def test_a_program_from_torchinductors_cache_says_so(compiled):
    """Where TorchInductor's kernel cache has every kernel of the program (here:
    compiled earlier in this process, and no longer shared), no compiler runs and
    the log says "cache"."""
    from anywrap.backends import torch_compile

    def fn(x, y):
        return (x * 3 - y).exp() + y

    for _ in range(2):
        torch_compile._shared.clear()
        step = axp.Compiled(fn)
        for _ in range(3):
            step(torch.arange(5.0), torch.ones(5))
    first, second = [r.source for r in compiled() if r.function.endswith("fn")]
    assert first in ("compiled", "cache") and second == "cache"


def test_the_first_compile_is_announced_once(compiled, monkeypatch):
    from anywrap.backends import torch_compile

    monkeypatch.setattr(torch_compile, "_announced", False)
    heard = []
    listener = lambda event, function, signature: heard.append((event, function))  # noqa: E731
    switch.add_listener(listener)
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            one = axp.Compiled(lambda x: (x * 2).exp() + x)
            two = axp.Compiled(lambda x: (x * 3).exp() - x)
            for _ in range(3):
                one(torch.ones(3))
                two(torch.ones(3))
    finally:
        switch.remove_listener(listener)
    notices = [w for w in caught if issubclass(w.category, switch.CompileNotice)]
    assert len(notices) == 1, [str(w.message) for w in caught]
    text = str(notices[0].message)
    assert "float32[3]@cpu" in text and "ANYWRAP_TORCH_COMPILE=0" in text
    assert [e for e, _ in heard] == ["start", "done", "start", "done"]


# ------------------------------------------------------- public API only
def test_a_pytorch_newer_than_any_tested_compiles_the_default_path(compiled, monkeypatch):
    """The compiled path checks no version and uses public entry points only: told
    it runs on a PyTorch newer than any tested, the default path still compiles
    each step transform whole, with Gymnasium's numbers."""
    monkeypatch.setattr(torch, "__version__", "9.99.0")
    from anywrap.demo import torch_pendulum_vector_env

    class Seen(gym.vector.VectorWrapper):  # keeps the raw observations for the reference
        def reset(self, **kwargs):
            obs, info = self.env.reset(**kwargs)
            self.raw = obs.numpy().copy()
            return obs, info

        def step(self, actions):
            out = self.env.step(actions)
            self.raw = out[0].numpy().copy()
            return out

    seen = Seen(torch_pendulum_vector_env(8))
    envs = anywrap.vector.NormalizeObservation(seen)
    ref = RunningMeanStd(shape=(3,), dtype=np.float32)
    envs.reset(seed=0)
    ref.update(seen.raw)
    for _ in range(5):
        obs = envs.step(torch.zeros((8, 1)))[0]
        ref.update(seen.raw)
        want = (seen.raw - ref.mean) / np.sqrt(ref.var + 1e-8)
        np.testing.assert_allclose(obs.numpy(), want, rtol=1e-5, atol=1e-5)
    records = compiled()
    assert_compiled(records, {"normalize_observation"})
    assert {r.path for r in records if r.compiled} == {"torch.compile"}


def test_a_compiler_that_fails_leaves_the_transform_eager_with_one_warning(compiled, monkeypatch):
    """``torch.compile`` failing (no C++ compiler on the machine): eager, with one
    warning naming PyTorch's version, and the same numbers."""

    def broken(*args, **kwargs):
        raise RuntimeError("no compiler here")

    monkeypatch.setattr(torch, "compile", broken)
    eager = axp.Compiled(lambda x, y: (x * 3 + y).exp() - y)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for _ in range(4):
            out = eager(torch.arange(4.0), torch.ones(4))
    np.testing.assert_allclose(out.numpy(), np.exp(3 * np.arange(4.0) + 1) - 1, rtol=1e-6)
    eager_warnings = [str(w.message) for w in caught if "runs eagerly" in str(w.message)]
    assert len(eager_warnings) == 1 and f"PyTorch {torch.__version__}" in eager_warnings[0]
    assert not compiled()[-1].compiled and compiled()[-1].path is None


OFFSET = 1.0
"""A module global that the transform below reads (see the test)."""


def _shifted(x):
    return (x * 2.0 + OFFSET).exp() - OFFSET


def test_a_program_reads_module_globals_once_as_jax_jit_does(compiled, monkeypatch):
    """TorchDynamo's guards on module globals are left out (they were most of the cost
    of a call): a program reads a global once, when traced, as ``jax.jit`` does. A
    PyTorch before 2.8 has no guard filter: there the guard sees the new value."""
    program = axp.Compiled(_shifted)
    x = torch.arange(3.0)
    for _ in range(3):
        program(x)
    monkeypatch.setattr(sys.modules[__name__], "OFFSET", 5.0)
    after = program(x)
    filtered = tuple(int(v) for v in torch.__version__.split(".")[:2]) >= (2, 8)
    offset = 1.0 if filtered else 5.0
    want = np.exp(2 * np.arange(3.0) + offset) - offset
    np.testing.assert_allclose(after.numpy(), want, rtol=1e-6)
    assert [r.compiled for r in compiled()] == [True]


def test_a_program_guards_its_tensors_and_the_global_state_only(compiled, monkeypatch):
    """The signature fixes the trees, their constants and the transform's closure, so a
    program keeps TorchDynamo's guards on its tensors and on the global state (grad mode,
    autocast, ...) and drops the rest; a guard type a release adds is kept. (Guard filters
    came with PyTorch 2.8: before it, every guard stays.)"""
    from anywrap.backends import torch_compile

    offered: list[tuple[str, bool, bool]] = []
    real = torch_compile._guards_kept

    def spy(entries):
        kept = real(entries)
        offered.extend((e.guard_type, bool(e.is_global), k) for e, k in zip(entries, kept))
        return kept

    monkeypatch.setattr(torch_compile, "_guards_kept", spy)
    program = axp.Compiled(lambda s, x, k: ((s[0] + x * k).exp() - s[1], s[1] + 1.0))
    state = (torch.zeros(4), torch.ones(4))
    for _ in range(3):
        out, _ = program(state, torch.arange(4.0), 3.0)
    np.testing.assert_allclose(out.numpy(), np.exp(3 * np.arange(4.0)) - 1, rtol=1e-6)
    if tuple(int(v) for v in torch.__version__.split(".")[:2]) < (2, 8):
        assert offered == []
        return
    kept = {t for t, g, k in offered if k}
    assert {"TENSOR_MATCH", "GLOBAL_STATE"} <= kept, offered
    assert not kept & torch_compile._DROPPED_GUARDS, offered
    assert {t for t, _, k in offered if not k} & {"TYPE_MATCH", "SEQUENCE_LENGTH"}, offered

    class Entry:
        guard_type, is_global = "A_GUARD_OF_A_LATER_RELEASE", False

    assert real([Entry()]) == [True]


def test_a_pytorch_without_guard_filters_keeps_the_inductor_options(compiled, monkeypatch):
    """``guard_filter_fn`` came with PyTorch 2.8: where ``torch.compile`` refuses it,
    the program is compiled with the other options first (then with the defaults,
    where a release refuses one of those too)."""
    real = torch.compile
    seen = []

    def older(fn, **kwargs):
        options = kwargs.get("options") or {}
        if "guard_filter_fn" in options:
            raise RuntimeError("Unexpected optimization option guard_filter_fn")
        seen.append(options)
        return real(fn, **kwargs)

    monkeypatch.setattr(torch, "compile", older)
    program = axp.Compiled(lambda x, y: (x * 3 + y).exp() - y)
    for _ in range(3):
        out = program(torch.arange(4.0), torch.ones(4))
    np.testing.assert_allclose(out.numpy(), np.exp(3 * np.arange(4.0) + 1) - 1, rtol=1e-6)
    assert [r.compiled for r in compiled()] == [True]
    assert seen and seen[0]["size_asserts"] is False, seen  # next: the release's defaults


@needs_whole_traces
def test_the_step_transforms_trace_whole(compiled):
    """``fullgraph=True``: the CleanRL stack's step transforms compile as one graph
    each (a graph break, such as ``torch.result_type`` from the dtype promotion or a
    generator, would refuse the compile and leave the transform eager)."""
    from anywrap.demo import cleanrl_stack, torch_pendulum_vector_env

    axp.set_compile(True, after_calls=1)
    envs = cleanrl_stack(torch_pendulum_vector_env(16), anywrap.vector, torch.clamp)
    envs.reset(seed=0)
    for _ in range(3):
        envs.step(torch.zeros((16, 1)))
    assert_compiled(compiled(), STEP_TRANSFORMS)
