"""TensorFlow: registered through anywrap.xp.register_backend (an entry point), converted
through DLPack."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.wrappers.utils import RunningMeanStd

tf = pytest.importorskip("tensorflow")
import anywrap  # noqa: E402
import anywrap.backends.tensorflow as tfb  # noqa: E402
from anywrap import convert as C  # noqa: E402
from anywrap import xp as axp  # noqa: E402
from anywrap.transforms import moments  # noqa: E402
from anywrap.transforms import normalize_reward as returns  # noqa: E402
from anywrap.transforms import record_episode_statistics as episodes  # noqa: E402

TX = tfb.namespace


def host_pointer(t: object) -> int:
    return int(np.from_dlpack(t).ctypes.data)


def test_registered_through_public_path() -> None:
    t = tf.zeros((2,), dtype=tf.float32)
    assert axp.namespace(t) is TX
    assert "CPU" in str(axp.device(t))


class TinyTFEnv(gym.Env):  # type: ignore[type-arg]
    """A hand-made environment that returns TensorFlow tensors."""

    observation_space = gym.spaces.Box(-10.0, 10.0, (3,), np.float32)
    action_space = gym.spaces.Box(-1.0, 1.0, (2,), np.float32)

    def reset(self, *, seed: int | None = None, options: dict | None = None):  # type: ignore[no-untyped-def]
        super().reset(seed=seed)
        self.t = 0
        self.obs = tf.constant([1.0, -2.0, 3.0], dtype=tf.float32)
        return self.obs, {"flag": tf.constant([True, False])}

    def step(self, action):  # type: ignore[no-untyped-def]
        self.action = action
        self.t += 1
        self.obs = self.obs * 0.5 + tf.cast(self.t, tf.float32)
        reward = tf.reduce_sum(tf.convert_to_tensor(action)) + 1.0
        return self.obs, reward, tf.constant(self.t % 4 == 0), tf.constant(False), {}


@pytest.mark.parametrize("to", ["numpy", "torch", "jax"])
def test_conversion_from_tensorflow_is_zero_copy(to: str) -> None:
    if to != "numpy":
        pytest.importorskip(to)
    env = TinyTFEnv()
    w = C.ArrayConversion(env, to=to)
    obs, info = w.reset(seed=0)
    assert C.library_of(obs) == to
    np.testing.assert_array_equal(np.asarray(C.to_library(obs, "numpy")), [1.0, -2.0, 3.0])
    ptr = (
        obs.ctypes.data
        if to == "numpy"
        else obs.data_ptr()
        if to == "torch"
        else obs.unsafe_buffer_pointer()
    )
    if to == "jax":  # JAX copies small host buffers (SMALL_HOST_COPY) and shares larger ones
        from anywrap.backends.jax import SMALL_HOST_COPY

        big = tf.zeros((SMALL_HOST_COPY // 4 + 64,), dtype=tf.float32)
        assert C.to_library(big, "jax").unsafe_buffer_pointer() == host_pointer(big)
    else:
        assert ptr == host_pointer(env.obs)
    assert str(info["flag"].dtype).endswith("bool")
    action = C.to_library(np.array([0.25, 0.25], dtype=np.float32), to)
    _, reward, *_ = w.step(action)
    assert isinstance(env.action, tf.Tensor) and reward == 1.5


def test_to_tensorflow_from_numpy_env() -> None:
    w = C.ToTensorFlow(gym.make("CartPole-v1"))
    obs, _ = w.reset(seed=0)
    assert isinstance(obs, tf.Tensor) and obs.dtype == tf.float32
    obs, reward, term, _trunc, _ = w.step(tf.constant(1))
    assert isinstance(obs, tf.Tensor) and reward == 1.0 and type(term) is bool


def test_numpy_to_tensorflow_is_zero_copy_and_keeps_dtypes() -> None:
    for dtype in (np.float32, np.float64, np.int64, np.bool_, np.uint8):
        raw = np.zeros(8 * np.dtype(dtype).itemsize + 64, dtype=np.uint8)
        off = -raw.ctypes.data % 64  # TensorFlow shares only 64-byte aligned buffers
        a = raw[off : off + 8 * np.dtype(dtype).itemsize].view(dtype)
        t = C.to_library(a, "tf")
        assert t.dtype.as_numpy_dtype == dtype
        assert host_pointer(t) == a.ctypes.data
    ro = np.ones(3)
    ro.flags.writeable = False
    assert C.to_library(ro, "tensorflow").dtype == tf.float64  # copied, still converted
    for a in (np.asarray(3), np.ones((2, 3))[:, 1]):  # copied: 0-d and strided keep their shape
        assert C.to_library(a, "tf").shape == a.shape


def test_update_moments_on_tensorflow_matches_gymnasium() -> None:
    """Against Gymnasium's float32 RunningMeanStd fed the finite rows."""
    rng = np.random.default_rng(0)
    m_tf = moments.init_moments((3,), xp=TX, dtype=TX.float32)
    ref = RunningMeanStd(shape=(3,), dtype=np.float32)
    for _ in range(4):
        batch = rng.normal(size=(6, 3)).astype(np.float32)
        batch[2, 1] = np.nan
        m_tf = moments.update_moments(m_tf, tf.constant(batch))
        ref.update(batch[np.isfinite(batch).all(axis=1)])
    for a in m_tf:
        assert isinstance(a, tf.Tensor)
    np.testing.assert_allclose(m_tf.mean.numpy(), ref.mean, rtol=1e-6)
    np.testing.assert_allclose(m_tf.var.numpy(), ref.var, rtol=1e-6)
    assert float(moments.total_count(m_tf).numpy()) == pytest.approx(ref.count, rel=1e-12)


def test_update_returns_on_tensorflow_matches_gymnasium() -> None:
    """Against Gymnasium's vector NormalizeReward (NEXT_STEP) on the same rewards and flags."""
    from gymnasium.wrappers.vector import NormalizeReward
    from helpers import ReplayVectorEnv, VectorTrajectory, make_backend, run_vector

    rng = np.random.default_rng(1)
    steps, n = 6, 4
    rewards = rng.normal(size=(steps, n)).astype(np.float32)
    term, trunc = rng.random((steps, n)) < 0.3, rng.random((steps, n)) < 0.2
    s_tf = returns.init_returns((n,), xp=TX, acc_dtype=TX.float32, stats_dtype=TX.float64)
    for t in range(steps):
        s_tf = returns.update_returns(
            s_tf,
            tf.constant(rewards[t]),
            tf.constant(term[t]),
            tf.constant(trunc[t]),
            gamma=0.99,
            skip_after_done=True,
        )
    traj = VectorTrajectory.from_arrays(
        np.zeros((steps + 1, n, 1), np.float32), rewards, term, trunc
    )
    ref = NormalizeReward(ReplayVectorEnv(traj, make_backend("numpy")), gamma=0.99)
    run_vector(ref)
    np.testing.assert_allclose(s_tf.accumulated.numpy(), ref.accumulated_reward, rtol=1e-6)
    np.testing.assert_allclose(s_tf.rms.var.numpy(), ref.return_rms.var, rtol=1e-7)
    assert float(moments.total_count(s_tf.rms).numpy()) == pytest.approx(ref.return_rms.count)
    scaled = returns.scale_reward(s_tf, tf.constant([1.0], tf.float32), 1e-8)
    assert scaled.dtype == tf.float32
    np.testing.assert_allclose(scaled.numpy(), 1.0 / np.sqrt(ref.return_rms.var + 1e-8), rtol=1e-6)


def test_step_episodes_on_tensorflow_matches_a_plain_oracle() -> None:
    """Per env, in plain Python: the step after an end restarts the return, length
    and clock there (NEXT_STEP); the reported time is ``round(now - start, 6)``."""
    rng = np.random.default_rng(2)
    n = 5
    e_tf = episodes.init_episodes((n,), xp=TX, buffer_length=4)
    ret, length, start, prev = [0.0] * n, [0] * n, [0.0] * n, [False] * n
    finished: list[tuple[float, int]] = []
    for step in range(8):
        r = rng.normal(size=n).astype(np.float32)
        term = rng.random(n) < 0.4
        now = 0.1 * step
        e_tf, o_tf = episodes.step_episodes(
            e_tf, tf.constant(r), tf.constant(term), tf.constant(np.zeros(n, bool)), now=now
        )
        for i in range(n):
            if prev[i]:
                ret[i], length[i], start[i] = 0.0, 0, now
            else:
                ret[i], length[i] = ret[i] + float(r[i]), length[i] + 1
            prev[i] = bool(term[i])
        finished += [(ret[i], length[i]) for i in range(n) if term[i]]
        np.testing.assert_array_equal(o_tf.done.numpy(), term)
        np.testing.assert_allclose(o_tf.returns.numpy(), np.where(term, ret, 0.0), rtol=1e-6)
        np.testing.assert_array_equal(o_tf.lengths.numpy(), np.where(term, length, 0))
        elapsed = np.round(now - np.array(start), 6)
        np.testing.assert_allclose(o_tf.times.numpy(), np.where(term, elapsed, 0.0), atol=1e-6)
    size = int(e_tf.recent_size.numpy())
    assert size == min(4, len(finished))
    newest_first = finished[::-1][:size]
    np.testing.assert_allclose(e_tf.recent_returns.numpy()[:size], [r for r, _ in newest_first])
    np.testing.assert_array_equal(e_tf.recent_lengths.numpy()[:size], [k for _, k in newest_first])
    assert float(e_tf.episode_count.numpy()) == len(finished)


class TinyNumpyEnv(gym.Env):  # type: ignore[type-arg]
    """:class:`TinyTFEnv`'s dynamics in NumPy, for Gymnasium's wrappers."""

    observation_space = TinyTFEnv.observation_space
    action_space = TinyTFEnv.action_space

    def reset(self, *, seed: int | None = None, options: dict | None = None):  # type: ignore[no-untyped-def]
        super().reset(seed=seed)
        self.t = 0
        self.obs = np.array([1.0, -2.0, 3.0], dtype=np.float32)
        return self.obs, {}

    def step(self, action):  # type: ignore[no-untyped-def]
        self.t += 1
        self.obs = self.obs * np.float32(0.5) + np.float32(self.t)
        reward = float(np.sum(action, dtype=np.float32) + np.float32(1.0))
        return self.obs, reward, self.t % 4 == 0, False, {}


def core_stack(env: gym.Env, lib: object) -> gym.Env:  # type: ignore[type-arg]
    env = lib.ClipAction(env)
    env = lib.RecordEpisodeStatistics(env)
    env = lib.NormalizeObservation(env)
    env = lib.TransformObservation(env, lambda o: o * 2.0, env.observation_space)
    env = lib.NormalizeReward(env)
    return lib.TransformReward(env, lambda r: r * 0.5)


def test_core_shells_on_tensorflow_give_gymnasiums_numbers() -> None:
    """The six core single-env shells, stacked on an env that returns tf tensors,
    against Gymnasium's wrappers on the same dynamics in NumPy."""
    env = core_stack(TinyTFEnv(), anywrap)
    ref = core_stack(TinyNumpyEnv(), gym.wrappers)
    obs, _ = env.reset(seed=0)
    want, _ = ref.reset(seed=0)
    assert isinstance(obs, tf.Tensor)
    np.testing.assert_allclose(obs.numpy(), want, rtol=1e-6, atol=1e-6)
    episodes_seen = 0
    for _ in range(8):
        obs, reward, term, trunc, info = env.step(tf.constant([3.0, -3.0], tf.float32))
        w_obs, w_reward, w_term, _, w_info = ref.step(np.array([3.0, -3.0], np.float32))
        assert isinstance(obs, tf.Tensor) and obs.dtype == tf.float32
        np.testing.assert_allclose(obs.numpy(), w_obs, rtol=1e-6, atol=1e-6)
        np.testing.assert_allclose(float(np.asarray(reward)), w_reward, rtol=1e-6)
        assert bool(np.asarray(term)) == w_term
        # tf tensors are not host values: the statistics come every step, with a mask.
        ended = "episode" in info and bool(np.asarray(info.get("_episode", True)))
        assert ended == ("episode" in w_info)
        if ended:
            episodes_seen += 1
            assert float(np.asarray(info["episode"]["l"])) == w_info["episode"]["l"] == 4
            np.testing.assert_allclose(
                float(np.asarray(info["episode"]["r"])), w_info["episode"]["r"], rtol=1e-6
            )
        if bool(np.asarray(term)) or bool(np.asarray(trunc)):
            env.reset()
            ref.reset()
    assert episodes_seen == 2
    np.testing.assert_array_equal(np.asarray(env.unwrapped.action), [1.0, -1.0])  # clipped


@pytest.mark.parametrize("mode", ["NextStep", "Disabled"])
def test_vector_shells_on_tensorflow_give_gymnasiums_numbers(mode) -> None:
    """The six vector shells over a vector env replayed as tf tensors, against
    Gymnasium's wrappers on a NumPy replay (``GYM_VECTOR``)."""
    from gymnasium.vector import AutoresetMode
    from helpers import (
        GYM_VECTOR,
        ReplayVectorEnv,
        make_backend,
        record_vector_trajectory,
        run_vector,
        vector_stack,
    )

    traj = record_vector_trajectory(autoreset_mode=AutoresetMode(mode))
    tfb_ = make_backend("tensorflow")
    got = run_vector(vector_stack(ReplayVectorEnv(traj, tfb_)))
    want = run_vector(vector_stack(ReplayVectorEnv(traj, make_backend("numpy")), GYM_VECTOR))
    episodes = 0
    for g, w in zip(got, want, strict=True):
        assert isinstance(g[1], tf.Tensor)
        np.testing.assert_allclose(tfb_.to_numpy(g[1]), w[1], rtol=1e-5, atol=1e-6)
        if g[0] == "step":
            assert isinstance(g[2], tf.Tensor)
            np.testing.assert_allclose(tfb_.to_numpy(g[2]), w[2], rtol=1e-5, atol=1e-6)
            if "episode" in w[5]:
                episodes += 1
                mask = w[5]["_episode"]
                np.testing.assert_array_equal(tfb_.to_numpy(g[5]["_episode"]), mask)
                np.testing.assert_allclose(
                    tfb_.to_numpy(g[5]["episode"]["r"])[mask], w[5]["episode"]["r"][mask]
                )
    assert episodes > 0


def test_random_keys_are_tensorflows_generators_and_survive_their_data() -> None:
    """A key for a tf tensor is a ``tf.random.Generator``: seeded, its uniforms in [0, 1),
    float32, and a key rebuilt from its data draws what the key draws next."""
    from anywrap.xp import random

    key = random.new_key(tf.zeros(2), random.derive_seed(0, "test"))
    assert isinstance(key, tf.random.Generator)
    again = random.new_key(tf.zeros(2), random.derive_seed(0, "test"))
    key, u = random.uniform(key, (1000,))
    assert isinstance(u, tf.Tensor) and u.dtype == tf.float32
    assert 0.0 <= float(tf.reduce_min(u)) and float(tf.reduce_max(u)) < 1.0
    np.testing.assert_array_equal(random.uniform(again, (1000,))[1].numpy(), u.numpy())
    copy = random.key_from_data(key, np.asarray(random.key_data(key)))
    np.testing.assert_array_equal(
        random.uniform(copy, (5,))[1].numpy(), random.uniform(key, (5,))[1].numpy()
    )


@pytest.mark.parametrize(
    "make",
    [
        lambda A, e: A.GrayscaleObservation(e),
        lambda A, e: A.GrayscaleObservation(e, keep_dim=True),
        lambda A, e: A.ResizeObservation(A.GrayscaleObservation(e), (84, 84)),
        lambda A, e: A.ResizeObservation(e, (84, 84)),
        lambda A, e: A.ResizeObservation(e, (37, 51)),
    ],
    ids=["gray", "gray-keep-dim", "gray-resize", "rgb-resize", "rgb-resize-odd"],
)
def test_image_maps_on_tensorflow_give_gymnasiums_frames(make) -> None:
    """Grayscale and area resize of TensorFlow frames: Gymnasium's (OpenCV's) uint8
    values to the bit, as tensors (the grayscale's correction table is int32 now: TF
    compares no int16 with int32)."""
    pytest.importorskip("cv2")

    class Frames(gym.Env):
        observation_space = gym.spaces.Box(0, 255, (210, 160, 3), np.uint8)
        action_space = gym.spaces.Discrete(2)

        def reset(self, *, seed=None, options=None):
            super().reset(seed=seed)
            self.t = 0
            return self._frame(), {}

        def step(self, action):
            return self._frame(), 0.0, False, False, {}

        def _frame(self):
            self.t += 1
            return np.random.default_rng(self.t).integers(0, 256, (210, 160, 3), dtype=np.uint8)

    ours = make(anywrap, anywrap.ToTensorFlow(Frames()))
    theirs = make(gym.wrappers, Frames())
    got, want = ours.reset(seed=0)[0], theirs.reset(seed=0)[0]
    for _ in range(3):
        assert isinstance(got, tf.Tensor)
        np.testing.assert_array_equal(got.numpy(), want)
        got, want = ours.step(0)[0], theirs.step(0)[0]
