"""anywrap.vector.FrameStackObservation beyond the contract suite: the vector image
pipeline (grayscale, resize, frame stack) against Gymnasium's single wrappers on each
sub-env, in every autoreset mode and on every backend; one compiled call per wrapper
step on JAX; the saved state; a real Atari env.

Gymnasium has no vector frame stack: its reference is its single-env pipeline on
each sub-env of a SyncVectorEnv in the same mode. Tolerances: NumPy and
array-api-strict are bit for bit; JAX and PyTorch resize within 1 grey level on
under 2% of the pixels (``anywrap.xp.images``'s bound).
"""

from __future__ import annotations

import contextlib
import functools
import re
from functools import partial

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.vector import AutoresetMode
from gymnasium.wrappers import FrameStackObservation as GymFrameStack
from gymnasium.wrappers import GrayscaleObservation as GymGray
from gymnasium.wrappers import ResizeObservation as GymResize
from helpers import (
    assert_same_state,
    flat_state,
    jax_no_host_sync,
    make_backend,
    needs_whole_traces,
    torch_no_host_sync,
)
from image_helpers import (
    ImageReplayVectorEnv,
    count_compiled_calls,
    eager_jax_ops,
    env_fns,
    gym_reference,
    record_image_vector,
    run_replay,
    torch_compiling,
)

import anywrap

pytest.importorskip("cv2")  # Gymnasium's ResizeObservation

GUARDS = {"jax": jax_no_host_sync, "torch": torch_no_host_sync}


def assert_close(got, want, exact, what):
    diff = np.abs(np.asarray(got).astype(int) - np.asarray(want).astype(int))
    assert diff.shape == np.shape(want), what
    assert diff.max() <= (0 if exact else 1) and (diff > 0).mean() <= 0.02, (what, diff.max())


def our_pipeline(envs, size=(84, 84)):
    envs = anywrap.vector.ResizeObservation(anywrap.vector.GrayscaleObservation(envs), size)
    return anywrap.vector.FrameStackObservation(envs, 4)


@functools.cache
def gymnasiums(mode):
    gym_stack = lambda env: GymFrameStack(GymResize(GymGray(env), (84, 84)), 4)  # noqa: E731
    return gym_reference(record_image_vector(3, 12, mode), gym_stack)


@pytest.mark.parametrize("mode", list(AutoresetMode))
@pytest.mark.parametrize("backend_name", ["numpy", "jax", "torch", "array_api_strict"])
def test_the_pipeline_is_gymnasiums_on_each_sub_env(mode, backend_name):
    """Partial resets (DISABLED) and final stacks (SAME_STEP) included; on JAX and
    PyTorch, nothing after the first step is read on the host."""
    b = make_backend(backend_name)
    replay = ImageReplayVectorEnv(record_image_vector(3, 12, mode), b)
    envs = our_pipeline(replay)
    got = [("reset", *envs.reset(seed=0)), ("step", *envs.step(None))]  # compiles
    with GUARDS.get(backend_name, contextlib.nullcontext)():
        got += run_replay(envs, replay)
    want = gymnasiums(mode)
    assert len(got) == len(want)
    finals = 0
    for t, (g, w) in enumerate(zip(got, want)):
        assert isinstance(g[1], b.array_type), type(g[1])
        exact = backend_name in ("numpy", "array_api_strict")
        assert_close(b.to_numpy(g[1]), w[1], exact, f"call {t} obs")
        if g[0] == "step" and w[5] is not None:
            for i in np.flatnonzero(w[6]):
                finals += 1
                assert_close(
                    b.to_numpy(g[5]["final_obs"])[i], w[5][i], exact, f"call {t} final {i}"
                )
    assert (finals > 0) == (mode is AutoresetMode.SAME_STEP)


@pytest.mark.parametrize("mode", [AutoresetMode.NEXT_STEP, AutoresetMode.SAME_STEP])
def test_each_jax_wrapper_step_is_one_compiled_call(mode):
    """Each wrapper's step calls one compiled function (Grayscale and Resize one together,
    held by the outer, where no final observations come), and nothing runs eagerly (an
    eager JAX op goes through ``Primitive.bind``; a cached jitted call does not)."""
    replay = ImageReplayVectorEnv(
        record_image_vector(3, 12, mode, (42, 32, 3)), make_backend("jax")
    )
    envs = our_pipeline(replay, (21, 16))
    envs.reset(seed=0)
    for _ in range(4):
        envs.step(None)  # compile (SAME_STEP: a sub-env ended on step 3)
    compiled: list[str] = []
    count_compiled_calls(envs, replay, compiled)
    with eager_jax_ops() as eager:
        info = envs.step(None)[-1]  # step 5: sub-env 1 ends
    assert ("final_obs" in info) == (mode is AutoresetMode.SAME_STEP)
    alone = ["GrayscaleObservation"] if mode is AutoresetMode.SAME_STEP else []
    assert sorted(compiled) == ["FrameStackObservation", *alone, "ResizeObservation"]
    assert eager == [], eager


@needs_whole_traces
def test_a_compiled_torch_pipeline_is_gymnasiums():
    pytest.importorskip("torch")
    b = make_backend("torch")
    replay = ImageReplayVectorEnv(record_image_vector(3, 12, AutoresetMode.NEXT_STEP), b)
    with torch_compiling() as log:
        got = run_replay(our_pipeline(replay), replay)
        records = log()
    assert [r.reason for r in records if not r.compiled and "cheaper eagerly" not in r.reason] == []
    programs = sorted((r.function, r.signature.partition("@")[0]) for r in records if r.compiled)
    assert programs == [  # the ring buffer's step; the grayscale and resize maps, fused
        ("_push", "uint8[13, 84, 84]"),
        ("stack(grayscale+resize)", "uint8[3, 210, 160, 3]"),
    ]
    want = gymnasiums(AutoresetMode.NEXT_STEP)
    for t, (ours, theirs) in enumerate(zip(got, want, strict=True)):
        assert_close(b.to_numpy(ours[1]), theirs[1], False, f"call {t}")


def test_the_saved_state_is_a_copy_and_a_restored_stack_continues_bit_for_bit():
    def make():
        envs = gym.vector.SyncVectorEnv(env_fns(3, (20, 16, 3)))
        return anywrap.vector.FrameStackObservation(anywrap.vector.GrayscaleObservation(envs), 4)

    a, b = make(), make()
    actions = np.zeros(3, int)
    for env in (a, b):
        env.reset(seed=0)
        for _ in range(5):
            env.step(actions)
    saved = a.state_dict()
    kept = {k: np.array(v) for k, v in saved.items()}
    out_a = [a.step(actions)[0] for _ in range(3)]  # written in place: the dict must not change
    for k in kept:
        np.testing.assert_array_equal(saved[k], kept[k], err_msg=k)
    b.load_state_dict(saved)
    for x, y in zip(out_a, [b.step(actions)[0] for _ in range(3)]):
        np.testing.assert_array_equal(x, y)


class _BadAt(gym.vector.VectorWrapper):
    """Returns ``bad(obs)`` instead of the observation on step ``at``."""

    def __init__(self, env, at, bad):
        super().__init__(env)
        self.at, self.bad, self.t = at, bad, 0

    def step(self, actions):
        out = list(self.env.step(actions))
        self.t += 1
        if self.t == self.at:
            out[0] = self.bad(out[0])
        return tuple(out)


@pytest.mark.parametrize(
    "bad, exc, pattern",
    [
        (lambda o: o.tolist(), TypeError, r"expected an observation array"),
        (lambda o: o[:, :10], ValueError, r"shape \(3, 20, 16, 3\).*\(shape=\(3, 10"),
    ],
)
def test_a_bad_observation_fails_loudly_and_leaves_the_state(bad, exc, pattern):
    """Any dtype is cast, as Gymnasium casts; what is not an array of the frame's shape
    is refused before the ring buffer is written."""
    envs = _BadAt(gym.vector.SyncVectorEnv(env_fns(3, (20, 16, 3))), 2, bad)
    ours = anywrap.vector.FrameStackObservation(envs, 3)
    ours.reset(seed=0)
    ours.step(np.zeros(3, int))
    before = flat_state(ours)
    with pytest.raises(exc) as info:
        ours.step(np.zeros(3, int))
    msg = str(info.value)
    assert "anywrap.vector.FrameStackObservation" in msg and re.search(pattern, msg), msg
    assert_same_state(flat_state(ours), before)


@pytest.mark.filterwarnings("ignore:JAX holds float64")  # Pong's rewards, not the frames
def test_the_atari_pipeline_on_a_real_ale_env():
    """Pong through Gymnasium's wrappers (one per sub-env) and through anywrap's vector
    wrappers on NumPy (bit for bit) and on JAX (within the resize bound)."""
    ale_py = pytest.importorskip("ale_py")
    gym.register_envs(ale_py)
    kw = {"num_envs": 2, "vectorization_mode": "sync"}
    stack = [GymGray, partial(GymResize, shape=(84, 84)), partial(GymFrameStack, stack_size=4)]
    envs = [
        gym.make_vec("ALE/Pong-v5", wrappers=stack, **kw),
        our_pipeline(gym.make_vec("ALE/Pong-v5", **kw)),
        our_pipeline(anywrap.vector.ToJax(gym.make_vec("ALE/Pong-v5", **kw))),
    ]
    outs = [e.reset(seed=3)[0] for e in envs]
    rng = np.random.default_rng(0)
    for t in range(12):
        assert_close(outs[1], outs[0], True, f"step {t}")
        assert_close(np.asarray(outs[2]), outs[0], False, f"step {t} (JAX)")
        a = rng.integers(0, 6, 2)
        outs = [e.step(a)[0] for e in envs]
    assert outs[1].shape == (2, 4, 84, 84) and outs[1].dtype == np.uint8
    for e in envs:
        e.close()
