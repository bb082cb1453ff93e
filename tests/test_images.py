"""The image wrappers: GrayscaleObservation, ResizeObservation, FrameStackObservation,
MaxAndSkipObservation (single and vector), their transforms and their xp operations.

References: Gymnasium 1.4's own wrappers run side by side (with OpenCV), OpenCV
itself, and per-env deques written here. Tolerances: NumPy is exact; JAX and
PyTorch resize within 1 grey level (the documented bound of
``anywrap.xp.images``), on under 2% of the pixels.
"""

from __future__ import annotations

import contextlib
import re
from collections import deque
from functools import partial

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.vector import AutoresetMode
from gymnasium.wrappers import (
    FrameStackObservation as GymFrameStack,
)
from gymnasium.wrappers import (
    GrayscaleObservation as GymGray,
)
from gymnasium.wrappers import (
    MaxAndSkipObservation as GymMaxSkip,
)
from gymnasium.wrappers import (
    ResizeObservation as GymResize,
)
from helpers import (
    assert_same_state,
    flat_state,
    jax_no_host_sync,
    make_backend,
    torch_no_host_sync,
)
from image_helpers import (
    ImageEnv,
    ImageReplayVectorEnv,
    env_fns,
    gym_reference,
    record_image_vector,
    run_replay,
)

import anywrap
from anywrap.transforms import frames as fr
from anywrap.transforms.images import grayscale, resize
from anywrap.xp.images import resize_separable

cv2 = pytest.importorskip("cv2")

MODES = list(AutoresetMode)
RESIZE_BOUND = (1, 0.02)  # max grey levels off, fraction of pixels off (JAX, PyTorch)


def assert_images_close(got, want, backend_name, what=""):
    got = np.asarray(got).astype(np.int64)
    want = np.asarray(want).astype(np.int64)
    assert got.shape == want.shape, (what, got.shape, want.shape)
    if backend_name in ("numpy", "array_api_strict"):
        np.testing.assert_array_equal(got, want, err_msg=what)
        return
    diff = np.abs(got - want)
    bound, fraction = RESIZE_BOUND
    assert diff.max() <= bound, (what, diff.max())
    assert (diff > 0).mean() <= fraction, (what, (diff > 0).mean())


# ------------------------------------------------------------------ grayscale
@pytest.mark.parametrize("backend_name", ["numpy", "jax", "torch", "array_api_strict"])
def test_grayscale_of_every_colour_is_gymnasiums(backend_name):
    """All 2^24 colours, against Gymnasium's wrapper (float64 sum, truncated)."""
    b = make_backend(backend_name)
    gym_gray = GymGray(ImageEnv(shape=(256, 256, 3)))
    c = np.arange(256, dtype=np.uint8)
    g, bl = np.meshgrid(c, c, indexing="ij")
    fn = grayscale
    if backend_name == "jax":
        import jax

        fn = jax.jit(grayscale)
    for r0 in range(0, 256, 32):  # 32 red levels per call: 2M colours
        img = np.stack(
            [
                np.broadcast_to(
                    np.arange(r0, r0 + 32, dtype=np.uint8)[:, None, None], (32, 256, 256)
                ),
                np.broadcast_to(g, (32, 256, 256)),
                np.broadcast_to(bl, (32, 256, 256)),
            ],
            axis=-1,
        )
        want = np.stack([gym_gray.observation(im) for im in img])
        got = b.to_numpy(fn(b.to_backend(img)))
        np.testing.assert_array_equal(got, want, err_msg=f"red {r0}..{r0 + 31}")


def test_grayscale_keep_dim_and_a_quirk_of_gymnasium():
    rgb = np.full((2, 2, 3), 43, np.uint8)
    assert GymGray(ImageEnv(shape=(2, 2, 3))).observation(rgb)[0, 0] == 42  # float64 rounding
    out = grayscale(rgb, keep_dim=True)
    assert out.shape == (2, 2, 1) and out.dtype == np.uint8 and out[0, 0, 0] == 42


# --------------------------------------------------------------------- resize
SIZES = [
    ((210, 160), (84, 84)),  # Atari: a ratio that is not whole
    ((96, 96), (64, 64)),
    ((210, 160), (105, 80)),  # whole-number ratios: OpenCV's integer shortcut
    ((120, 90), (40, 30)),
    ((64, 64), (84, 84)),  # growing: OpenCV's fixed-point bilinear
    ((50, 60), (49, 61)),  # one side grows
    ((84, 84), (84, 84)),
]


@pytest.mark.parametrize("src, dst", SIZES)
@pytest.mark.parametrize("channels", [1, 3])
def test_opencvs_arithmetic_written_out_is_opencv(src, dst, channels):
    """The generic resize (the one every backend shares), on NumPy, against cv2.resize."""
    rng = np.random.default_rng(hash((src, dst, channels)) % 2**32)
    x = rng.integers(0, 256, (3, *src, channels), dtype=np.uint8)
    want = np.stack([cv2.resize(im, dst[::-1], interpolation=cv2.INTER_AREA) for im in x])
    got = resize_separable(x, dst, "area")
    np.testing.assert_array_equal(got.reshape(want.shape), want)


@pytest.mark.parametrize("backend_name", ["numpy", "jax", "torch", "array_api_strict"])
@pytest.mark.parametrize("src, dst", SIZES[:5])
def test_resize_on_every_backend_is_within_the_bound_of_opencv(backend_name, src, dst):
    b = make_backend(backend_name)
    rng = np.random.default_rng(7)
    x = rng.integers(0, 256, (4, *src), dtype=np.uint8)
    want = np.stack([cv2.resize(im, dst[::-1], interpolation=cv2.INTER_AREA) for im in x])
    got = resize(b.to_backend(x), dst, channels=False)
    assert isinstance(got, b.array_type)
    assert_images_close(b.to_numpy(got), want, backend_name, f"{src}->{dst}")


@pytest.mark.parametrize("backend_name", ["jax", "torch"])
def test_bilinear_is_the_backends_antialiased_resize(backend_name):
    """``interpolation="bilinear"``: each backend's own filter, which agrees with the
    triangle taps written out (NumPy) to 1 grey level, and is not OpenCV's area filter."""
    b = make_backend(backend_name)
    x = ImageEnv(shape=(210, 160, 3)).reset()[0][None]
    want = resize(x, (84, 84), channels=True, method="bilinear")
    got = b.to_numpy(resize(b.to_backend(x), (84, 84), channels=True, method="bilinear"))
    assert np.abs(got.astype(int) - want).max() <= 1
    area = cv2.resize(x[0], (84, 84), interpolation=cv2.INTER_AREA)
    assert np.abs(got[0].astype(int) - area).max() > 5


# ------------------------------------------------------------- frame stacks
def _deque_reference(events, depth, pad):
    """Per-env deques, Gymnasium's way: ``events`` are (kind, obs, mask/done)."""
    n = events[0][1].shape[0]
    queues = [None] * n
    out = []
    for kind, obs, flags in events:
        stacks = []
        for i in range(n):
            start = kind == "reset" and (flags is None or flags[i])
            start = start or (kind == "start" and flags[i])
            if start:
                p = obs[i] if pad is None else pad
                queues[i] = deque([p] * (depth - 1) + [obs[i]], maxlen=depth)
            elif kind == "reset":  # left out of a partial reset: the stack stays
                pass
            else:
                queues[i].append(obs[i])
            stacks.append(np.stack(list(queues[i])))
        out.append(np.stack(stacks))
    return out


@pytest.mark.parametrize("depth", [1, 3, 5])
@pytest.mark.parametrize("pad_with_first", [True, False])
def test_ring_buffer_reads_what_deques_hold(backend, depth, pad_with_first):
    """Random steps, episode starts and partial resets, against per-env deques."""
    rng = np.random.default_rng(depth)
    n, frame = 5, (2, 3)
    pad = np.full(frame, -7, np.int16)
    xp = backend.xp
    state = fr.init_frame_stack(
        n,
        depth,
        frame,
        xp=xp,
        dtype=xp.int16,
        device=backend.device,
        padding=None if pad_with_first else backend.to_backend(pad),
    )
    events, outs = [], []
    for t in range(30):
        obs = rng.integers(-100, 100, (n, *frame)).astype(np.int16)
        r = rng.random()
        if t == 0 or r < 0.1:
            mask = None if t == 0 else rng.random(n) < 0.5
            m = None if mask is None else backend.to_backend(mask)
            state, out = fr.reset_frame_stack(
                state, backend.to_backend(obs), m, pad_with_first=pad_with_first
            )
            events.append(("reset", obs, mask))
        else:
            start = rng.random(n) < 0.2
            state, out = fr.push_frame(
                state,
                backend.to_backend(obs),
                pad_with_first=pad_with_first,
                start=backend.to_backend(start),
            )
            events.append(("start", obs, start))
        outs.append(backend.to_numpy(out))
    want = _deque_reference(events, depth, None if pad_with_first else pad)
    for t, (w, g) in enumerate(zip(want, outs)):
        np.testing.assert_array_equal(g, w, err_msg=f"call {t}")


def test_a_step_writes_one_frame_per_env_in_place():
    n, depth, frame = 3, 16, (4, 4)
    state = fr.init_frame_stack(n, depth, frame, xp=np, dtype=np.uint8)
    state, _ = fr.reset_frame_stack(state, np.ones((n, *frame), np.uint8), pad_with_first=True)
    before = state.frames.copy()
    buffer = state.frames
    state, out = fr.push_frame(state, np.full((n, *frame), 9, np.uint8), pad_with_first=True)
    assert state.frames is buffer  # written in place, not copied
    changed = np.any(state.frames != before, axis=(1, 2))
    assert changed.sum() == n  # one row per env
    assert out.shape == (n, depth, *frame) and not np.shares_memory(out, state.frames)
    # memory: each frame once, the padding frame, two int32 pointers and a flag per env
    frame_bytes = 16
    assert fr.frame_stack_bytes(state) == (n * depth + 1) * frame_bytes + n * (4 + 4 + 1)


# ----------------------------------------------- the wrappers against Gymnasium
def gym_pipeline(env, skip=None, padding="reset"):
    if skip:
        env = GymMaxSkip(env, skip)
    env = GymGray(env)
    env = GymResize(env, (84, 84))
    return GymFrameStack(env, 4, padding_type=padding)


def our_pipeline(env, skip=None, padding="reset"):
    if skip:
        env = anywrap.MaxAndSkipObservation(env, skip)
    env = anywrap.GrayscaleObservation(env)
    env = anywrap.ResizeObservation(env, (84, 84))
    return anywrap.FrameStackObservation(env, 4, padding_type=padding)


@pytest.mark.parametrize("padding", ["reset", "zero", "custom"])
@pytest.mark.parametrize("skip", [None, 3])
def test_single_pipeline_is_gymnasiums_bit_for_bit(padding, skip):
    pad = np.full((84, 84), 200, np.uint8) if padding == "custom" else padding
    ref, ours = gym_pipeline(ImageEnv(0, 5), skip, pad), our_pipeline(ImageEnv(0, 5), skip, pad)
    assert ours.observation_space == ref.observation_space
    a, _ = ref.reset(seed=0)
    b, _ = ours.reset(seed=0)
    np.testing.assert_array_equal(b, a)
    for t in range(14):
        ra, rb = ref.step(t % 3), ours.step(t % 3)
        np.testing.assert_array_equal(rb[0], ra[0], err_msg=f"step {t}")
        assert rb[1:4] == ra[1:4] and type(rb[1]) is type(ra[1])
        if ra[2] or ra[3]:
            a, _ = ref.reset()
            b, _ = ours.reset()
            np.testing.assert_array_equal(b, a)


def test_max_and_skip_keeps_gymnasiums_stale_buffer():
    """An episode that ends before the last two steps returns older frames."""
    ref, ours = GymMaxSkip(ImageEnv(1, 2), 4), anywrap.MaxAndSkipObservation(ImageEnv(1, 2), 4)
    for env in (ref, ours):
        env.reset(seed=0)
    outs = [(ref.step(0), ours.step(0)) for _ in range(3)]
    for a, b in outs:
        np.testing.assert_array_equal(b[0], a[0])
        assert a[1:4] == b[1:4]
    assert outs[0][0][2] is True  # ends at the second of four steps


def our_vector_pipeline(envs, padding="reset"):
    envs = anywrap.vector.GrayscaleObservation(envs)
    envs = anywrap.vector.ResizeObservation(envs, (84, 84))
    return anywrap.vector.FrameStackObservation(envs, 4, padding_type=padding)


def _gym_single(padding):
    return lambda env: GymFrameStack(GymResize(GymGray(env), (84, 84)), 4, padding_type=padding)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("backend_name", ["numpy", "jax", "torch", "array_api_strict"])
def test_vector_pipeline_is_gymnasiums_per_sub_env(mode, backend_name):
    """Every autoreset mode, partial resets included, against Gymnasium's single
    wrappers on each sub-env (exact on NumPy, within the resize bound elsewhere)."""
    traj = record_image_vector(3, 12, mode)
    want = gym_reference(traj, _gym_single("reset"))
    b = make_backend(backend_name)
    replay = ImageReplayVectorEnv(traj, b)
    got = run_replay(our_vector_pipeline(replay), replay)
    assert len(got) == len(want)
    finals = 0
    for t, (g, w) in enumerate(zip(got, want)):
        assert isinstance(g[1], b.array_type), type(g[1])
        assert_images_close(b.to_numpy(g[1]), w[1], backend_name, f"call {t} obs")
        if g[0] == "step" and w[5] is not None:
            for i, m in enumerate(w[6]):
                if m:
                    finals += 1
                    assert_images_close(
                        b.to_numpy(g[5]["final_obs"])[i],
                        w[5][i],
                        backend_name,
                        f"call {t} final_obs {i}",
                    )
    assert (finals > 0) == (mode is AutoresetMode.SAME_STEP)


def test_vector_grayscale_and_resize_are_gymnasiums_vector_wrappers():
    envs = [gym.vector.SyncVectorEnv(env_fns(3)) for _ in range(2)]
    ref = gym.wrappers.vector.ResizeObservation(
        gym.wrappers.vector.GrayscaleObservation(envs[0], keep_dim=True), (30, 40)
    )
    ours = anywrap.vector.ResizeObservation(
        anywrap.vector.GrayscaleObservation(envs[1], keep_dim=True), (30, 40)
    )
    assert ours.single_observation_space == ref.single_observation_space
    assert ours.observation_space == ref.observation_space
    np.testing.assert_array_equal(ours.reset(seed=0)[0], ref.reset(seed=0)[0])
    for _ in range(6):
        a = np.zeros(3, int)
        np.testing.assert_array_equal(ours.step(a)[0], ref.step(a)[0])


@pytest.mark.parametrize("mode", [AutoresetMode.NEXT_STEP, AutoresetMode.SAME_STEP])
@pytest.mark.parametrize("backend_name", ["numpy", "jax", "torch", "array_api_strict"])
def test_vector_max_and_skip_is_gymnasiums_until_each_episode_ends(mode, backend_name):
    """Up to and including its first episode end, each sub-env's outputs are those of
    Gymnasium's single wrapper on that sub-env alone (stale-buffer quirk included)."""
    n, skip, calls = 4, 3, 6
    b = make_backend(backend_name)
    replay = ImageReplayVectorEnv(record_image_vector(n, skip * calls, mode), b)
    ours = anywrap.vector.MaxAndSkipObservation(replay, skip)
    refs = [GymMaxSkip(f(), skip) for f in env_fns(n)]
    obs, _ = ours.reset(seed=0)
    for i, r in enumerate(refs):
        np.testing.assert_array_equal(b.to_numpy(obs)[i], r.reset(seed=0)[0])
    live = np.ones(n, bool)
    for t in range(calls):
        obs, rew, term, trunc, info = (  # the recording's actions are those of the refs below
            b.to_numpy(x) if i < 4 else x for i, x in enumerate(ours.step(None))
        )
        for i in np.flatnonzero(live):
            actions = [a % 3 for a in range(t * skip * n + i, (t + 1) * skip * n, n)]
            o, r, te, tr, _ = _gym_skip(refs[i], actions)
            if mode is AutoresetMode.SAME_STEP and (te or tr):
                np.testing.assert_array_equal(b.to_numpy(info["final_obs"])[i], o)
            else:
                np.testing.assert_array_equal(obs[i], o, err_msg=f"call {t} env {i}")
            assert (float(rew[i]), bool(term[i]), bool(trunc[i])) == (r, te, tr), (t, i)
            live[i] = not (te or tr)
    assert not live.any()


def _gym_skip(env, actions):
    """Gymnasium's MaxAndSkipObservation.step, fed the recorded action of each repeat
    (the recording's actions differ between repeats; the wrapper sees them the same)."""
    queue = iter(actions)
    inner = env.env
    step = inner.step
    inner.step = lambda _a: step(next(queue))
    try:
        return env.step(None)
    finally:
        inner.step = step


@pytest.mark.parametrize("mode", [AutoresetMode.NEXT_STEP, AutoresetMode.SAME_STEP])
def test_vector_max_and_skip_keeps_every_reward(mode):
    """Each call's rewards add up to the env's, call after call: rewards of steps
    after an episode's end arrive with the next call."""
    n, skip, calls = 3, 4, 8
    raw = gym.vector.SyncVectorEnv(env_fns(n), autoreset_mode=mode)
    seen = []

    class Spy(gym.vector.VectorWrapper):
        def step(self, actions):
            out = self.env.step(actions)
            seen.append(np.array(out[1]))
            return out

    ours = anywrap.vector.MaxAndSkipObservation(Spy(raw), skip)
    ours.reset(seed=0)
    total = np.zeros(n)
    for _ in range(calls):
        total += ours.step(np.zeros(n, int))[1]
    pending = anywrap.xp.to_numpy(ours.state_dict()["pending"])
    np.testing.assert_allclose(total + pending, np.sum(seen, axis=0), rtol=1e-12)


# -------------------------------------------------------------- contracts
def _guard(backend_name):
    return jax_no_host_sync if backend_name == "jax" else torch_no_host_sync


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("backend_name", ["jax", "torch"])
def test_no_host_sync_on_the_step_path(mode, backend_name):
    b = make_backend(backend_name)
    traj = record_image_vector(3, 12, mode, (42, 32, 3))
    replay = ImageReplayVectorEnv(traj, b)
    envs = anywrap.vector.GrayscaleObservation(replay)
    envs = anywrap.vector.ResizeObservation(envs, (21, 16))
    envs = anywrap.vector.FrameStackObservation(envs, 4)
    envs.reset(seed=0)
    envs.step(None)  # compile outside the guard
    with _guard(backend_name)():
        out = run_replay(envs, replay)
    assert all(isinstance(c[1], b.array_type) for c in out)


@pytest.mark.parametrize("mode", [AutoresetMode.NEXT_STEP, AutoresetMode.SAME_STEP])
@pytest.mark.parametrize("backend_name", ["jax", "torch"])
def test_vector_max_and_skip_reads_nothing_on_the_host(mode, backend_name):
    b = make_backend(backend_name)
    traj = record_image_vector(3, 12, mode, (42, 32, 3))
    replay = ImageReplayVectorEnv(traj, b)
    envs = anywrap.vector.MaxAndSkipObservation(replay, 3)
    envs.reset(seed=0)
    envs.step(None)
    with _guard(backend_name)():
        for _ in range(3):
            obs, reward, *_ = envs.step(None)
    assert isinstance(obs, b.array_type) and isinstance(reward, b.array_type)


# ------------------------------------------------------------ bad input
def _raises(exc, pattern, fn, *args, **kwargs):
    with pytest.raises(exc) as info:
        fn(*args, **kwargs)
    assert re.search(pattern, str(info.value)), str(info.value)


def test_bad_spaces_and_arguments_name_the_wrapper():
    rgb = ImageEnv(shape=(20, 16, 3))
    disc = gym.make("CartPole-v1")
    floats = gym.wrappers.TransformObservation(
        ImageEnv(shape=(20, 16, 3)),
        lambda o: o / 255.0,
        gym.spaces.Box(0.0, 1.0, (20, 16, 3), np.float64),
    )
    _raises(
        ValueError,
        r"anywrap.GrayscaleObservation: .*3 channels.*\(4,\)",
        anywrap.GrayscaleObservation,
        disc,
    )
    _raises(
        TypeError,
        r"anywrap.GrayscaleObservation: expected a Box",
        anywrap.GrayscaleObservation,
        gym.make("FrozenLake-v1"),
    )
    _raises(
        ValueError,
        r"anywrap.ResizeObservation: .*0 to 255 and dtype uint8.*float64",
        anywrap.ResizeObservation,
        floats,
        (8, 8),
    )
    _raises(
        TypeError, r"anywrap.ResizeObservation: .*tuple", anywrap.ResizeObservation, rgb, [8, 8]
    )
    _raises(
        ValueError,
        r"anywrap.ResizeObservation: .*length 2",
        anywrap.ResizeObservation,
        rgb,
        (8, 8, 3),
    )
    _raises(ValueError, r"anywrap.ResizeObservation: .*> 0", anywrap.ResizeObservation, rgb, (8, 0))
    _raises(
        ValueError, r"interpolation", anywrap.ResizeObservation, rgb, (8, 8), interpolation="cubic"
    )
    _raises(
        ValueError,
        r"anywrap.FrameStackObservation: .*stack_size.*at least 1",
        anywrap.FrameStackObservation,
        rgb,
        0,
    )
    _raises(
        TypeError,
        r"anywrap.FrameStackObservation: .*integer",
        anywrap.FrameStackObservation,
        rgb,
        2.0,
    )
    _raises(
        ValueError,
        r"anywrap.FrameStackObservation: .*padding_type.*'bogus'",
        anywrap.FrameStackObservation,
        rgb,
        2,
        padding_type="bogus",
    )
    _raises(
        ValueError,
        r"padding_type",
        anywrap.FrameStackObservation,
        rgb,
        2,
        padding_type=np.zeros((3, 3, 3), np.uint8),
    )
    _raises(
        ValueError,
        r"anywrap.MaxAndSkipObservation: .*skip.*at least 2",
        anywrap.MaxAndSkipObservation,
        rgb,
        1,
    )
    vec = gym.vector.SyncVectorEnv(env_fns(2, (20, 16, 3)), autoreset_mode=AutoresetMode.DISABLED)
    _raises(
        ValueError,
        r"anywrap.vector.MaxAndSkipObservation: .*DISABLED",
        anywrap.vector.MaxAndSkipObservation,
        vec,
        4,
    )
    _raises(
        ValueError,
        r"anywrap.vector.GrayscaleObservation: .*3 channels",
        anywrap.vector.GrayscaleObservation,
        gym.make_vec("CartPole-v1", 2),
    )


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


_SHAPE = (lambda o: o[:, :10], ValueError, r"shape \(3, 20, 16(, 3)?\).*\(shape=\(3, 10")
_DTYPE = (lambda o: o.astype(np.float32), ValueError, r"dtype uint8.*float32")
_LIST = (lambda o: o.tolist(), TypeError, r"expected an observation array")


@pytest.mark.parametrize(
    "wrapper, bad, exc, pattern",
    [
        ("GrayscaleObservation", *_SHAPE),
        ("GrayscaleObservation", *_DTYPE),
        ("GrayscaleObservation", *_LIST),
        ("FrameStackObservation", *_SHAPE),  # any dtype is cast, as Gymnasium casts
        ("FrameStackObservation", *_LIST),
        ("MaxAndSkipObservation", *_SHAPE),
        ("MaxAndSkipObservation", *_LIST),
    ],
)
def test_bad_observations_fail_loudly_and_leave_the_state(wrapper, bad, exc, pattern):
    env = _BadAt(gym.vector.SyncVectorEnv(env_fns(3, (20, 16, 3))), 3, bad)
    args = {"FrameStackObservation": (3,), "MaxAndSkipObservation": (2,)}.get(wrapper, ())
    ours = getattr(anywrap.vector, wrapper)(env, *args)
    ours.reset(seed=0)
    if wrapper != "MaxAndSkipObservation":  # it steps twice per call: its 2nd call is bad
        ours.step(np.zeros(3, int))
    ours.step(np.zeros(3, int))
    before = flat_state(ours)
    with pytest.raises(exc) as info:
        ours.step(np.zeros(3, int))
    msg = str(info.value)
    assert f"anywrap.vector.{wrapper}" in msg and re.search(pattern, msg), msg
    assert_same_state(flat_state(ours), before)


def test_state_dict_is_a_copy_and_a_restored_stack_continues_bit_for_bit():
    def make():
        inner = gym.vector.SyncVectorEnv(env_fns(3, (20, 16, 3)))
        return anywrap.vector.FrameStackObservation(anywrap.vector.GrayscaleObservation(inner), 4)

    a, b = make(), make()
    for env in (a, b):
        env.reset(seed=0)
    acts = np.zeros(3, int)
    for _ in range(5):
        a.step(acts)
        b.step(acts)
    saved = a.state_dict()
    kept = {k: np.array(v) for k, v in saved.items()}
    out_a = [a.step(acts)[0] for _ in range(3)]  # written in place: the dict must not change
    for k in kept:
        np.testing.assert_array_equal(saved[k], kept[k], err_msg=k)
    b.load_state_dict(saved)
    out_b = [b.step(acts)[0] for _ in range(3)]
    for x, y in zip(out_a, out_b):
        np.testing.assert_array_equal(x, y)


def _count_calls(compiled_fn, name, calls):
    """Replace ``compiled_fn``'s jitted functions by counting ones."""
    for tp, jitted in list(compiled_fn._by_type.items()):
        assert hasattr(jitted, "_cache_size"), name  # a jax.jit function

        def counted(*a, _fn=jitted, **k):
            calls.append(name)
            return _fn(*a, **k)

        compiled_fn._by_type[tp] = counted


@pytest.mark.parametrize("mode", [AutoresetMode.NEXT_STEP, AutoresetMode.SAME_STEP])
def test_each_jax_wrapper_step_is_one_compiled_call(mode, monkeypatch):
    """Each wrapper's step calls one compiled function, and nothing runs eagerly
    (an eager JAX op goes through ``Primitive.bind``; a cached jitted call does not)."""
    from jax._src import core as jcore

    from anywrap.xp import Compiled

    replay = ImageReplayVectorEnv(
        record_image_vector(3, 12, mode, (42, 32, 3)), make_backend("jax")
    )
    envs = anywrap.vector.GrayscaleObservation(replay)
    envs = anywrap.vector.ResizeObservation(envs, (21, 16))
    envs = anywrap.vector.FrameStackObservation(envs, 4)
    envs.reset(seed=0)
    for _ in range(4):
        envs.step(None)  # compile (SAME_STEP: a sub-env ended on step 3)
    compiled, eager = [], []
    layer = envs
    while layer is not replay:
        for c in vars(layer).values():
            if isinstance(c, Compiled):
                _count_calls(c, type(layer).__name__, compiled)
        layer = layer.env
    real = jcore.Primitive.bind
    monkeypatch.setattr(
        jcore.Primitive,
        "bind",
        lambda self, *a, **k: (eager.append(self.name), real(self, *a, **k))[1],
    )
    info = envs.step(None)[-1]  # step 5: sub-env 1 ends
    monkeypatch.undo()
    assert ("final_obs" in info) == (mode is AutoresetMode.SAME_STEP)
    assert sorted(compiled) == sorted(
        ["GrayscaleObservation", "ResizeObservation", "FrameStackObservation"]
    ), compiled
    assert eager == [], eager


# ---------------------------------------------------------------- Atari
@pytest.mark.filterwarnings("ignore:JAX holds float64")  # Pong's rewards, not the frames
def test_the_atari_pipeline_on_a_real_ale_env():
    """Pong through Gymnasium's wrappers (one per sub-env) and through anywrap's vector
    wrappers on NumPy (bit for bit) and on JAX (within the resize bound)."""
    ale_py = pytest.importorskip("ale_py")
    gym.register_envs(ale_py)
    kw = {"num_envs": 2, "vectorization_mode": "sync"}
    ref = gym.make_vec(
        "ALE/Pong-v5",
        wrappers=[
            GymGray,
            partial(GymResize, shape=(84, 84)),
            partial(GymFrameStack, stack_size=4),
        ],
        **kw,
    )
    ours = our_vector_pipeline(gym.make_vec("ALE/Pong-v5", **kw))
    on_jax = our_vector_pipeline(anywrap.vector.ToJax(gym.make_vec("ALE/Pong-v5", **kw)))
    outs = [e.reset(seed=3)[0] for e in (ref, ours, on_jax)]
    rng = np.random.default_rng(0)
    for t in range(12):
        np.testing.assert_array_equal(outs[1], outs[0], err_msg=f"step {t}")
        assert_images_close(np.asarray(outs[2]), outs[0], "jax", f"step {t}")
        a = rng.integers(0, 6, 2)
        outs = [e.step(a)[0] for e in (ref, ours, on_jax)]
    assert outs[1].shape == (2, 4, 84, 84) and outs[1].dtype == np.uint8
    for e in (ref, ours, on_jax):
        e.close()


class _DeviceImageEnv(gym.Env):
    """:class:`ImageEnv`'s frames, pre-rendered in a backend; flags and rewards are
    Python values, as Gymnasium's single envs return them."""

    metadata: dict = {"render_modes": []}

    def __init__(self, backend, length, steps, shape=(42, 32, 3)):
        src = ImageEnv(0, length, shape)
        self.observation_space, self.action_space = src.observation_space, src.action_space
        self.frames, self.flags = [], []
        for _ in range(3):
            self.frames.append([backend.to_backend(src.reset(seed=0)[0])])
            self.flags.append([])
            for _ in range(steps):
                o, r, te, tr, _ = src.step(0)
                self.frames[-1].append(backend.to_backend(o))
                self.flags[-1].append((r, te, tr))
        self.episode = -1

    def reset(self, *, seed=None, options=None):
        self.episode += 1
        self.t = 0
        return self.frames[self.episode][0], {}

    def step(self, action):
        self.t += 1
        r, te, tr = self.flags[self.episode][self.t - 1]
        return self.frames[self.episode][self.t], r, te, tr, {}


@pytest.mark.parametrize("backend_name", ["jax", "torch", "array_api_strict"])
def test_single_pipeline_on_device_is_gymnasiums_and_reads_nothing(backend_name):
    b = make_backend(backend_name)

    def stack(env):
        env = anywrap.MaxAndSkipObservation(env, 2)
        env = anywrap.GrayscaleObservation(env, keep_dim=True)
        env = anywrap.ResizeObservation(env, (21, 16))
        return anywrap.FrameStackObservation(env, 3, padding_type="zero")

    def gym_stack(env):
        env = GymGray(GymMaxSkip(env, 2), keep_dim=True)
        return GymFrameStack(GymResize(env, (21, 16)), 3, padding_type="zero")

    ours, ref = stack(_DeviceImageEnv(b, 5, 12)), gym_stack(ImageEnv(0, 5, (42, 32, 3)))
    got, want = [ours.reset(seed=0)[0]], [ref.reset(seed=0)[0]]
    ours.step(0)  # compile outside the guard
    ref.step(0)
    guard = _guard(backend_name) if backend_name != "array_api_strict" else contextlib.nullcontext
    with guard():
        for _ in range(5):
            out = ours.step(0)
            got.append(out[0])
            assert type(out[1]) is float and type(out[2]) is bool
    want += [ref.step(0)[0] for _ in range(5)]
    for t, (g, w) in enumerate(zip(got, want)):
        assert isinstance(g, b.array_type)
        assert_images_close(b.to_numpy(g), w, backend_name, f"call {t}")
