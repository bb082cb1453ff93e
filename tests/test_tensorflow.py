"""TensorFlow: registered through anywrap.xp.register_backend (an entry point), converted
through DLPack."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

tf = pytest.importorskip("tensorflow")
import anywrap  # noqa: E402
import anywrap.backends.tensorflow as tfb  # noqa: E402
from anywrap import convert as C  # noqa: E402
from anywrap import xp as axp  # noqa: E402
from anywrap.transforms import episodes, moments, returns  # noqa: E402

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
        from anywrap.xp._jax import SMALL_HOST_COPY

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


def test_update_moments_on_tensorflow_matches_numpy() -> None:
    rng = np.random.default_rng(0)
    m_np = moments.init_moments((3,), xp=np, dtype=np.float32)
    m_tf = moments.init_moments((3,), xp=TX, dtype=TX.float32)
    for _ in range(4):
        batch = rng.normal(size=(6, 3)).astype(np.float32)
        batch[2, 1] = np.nan
        m_np = moments.update_moments(m_np, batch)
        m_tf = moments.update_moments(m_tf, tf.constant(batch))
    for a, b in zip(m_tf, m_np):
        assert isinstance(a, tf.Tensor)
        np.testing.assert_allclose(a.numpy(), b, rtol=1e-6)


def test_update_returns_on_tensorflow_matches_numpy() -> None:
    rng = np.random.default_rng(1)
    s_np = returns.init_returns((4,), xp=np, acc_dtype=np.float32, stats_dtype=np.float64)
    s_tf = returns.init_returns((4,), xp=TX, acc_dtype=TX.float32, stats_dtype=TX.float64)
    for _ in range(6):
        r = rng.normal(size=4).astype(np.float32)
        term = rng.random(4) < 0.3
        trunc = rng.random(4) < 0.2
        kw = {"gamma": 0.99, "skip_after_done": True}
        s_np = returns.update_returns(s_np, r, term, trunc, **kw)
        s_tf = returns.update_returns(
            s_tf, tf.constant(r), tf.constant(term), tf.constant(trunc), **kw
        )
    np.testing.assert_allclose(s_tf.accumulated.numpy(), s_np.accumulated, rtol=1e-6)
    # G is float32, so its batch moments carry float32 rounding, summed in
    # another order by NumPy (which skips masked rows) than by TensorFlow.
    np.testing.assert_allclose(s_tf.rms.var.numpy(), s_np.rms.var, rtol=1e-7)
    scaled = returns.scale_reward(s_tf, tf.constant([1.0], tf.float32), 1e-8)
    assert scaled.dtype == tf.float32


def test_step_episodes_on_tensorflow_matches_numpy() -> None:
    rng = np.random.default_rng(2)
    e_np = episodes.init_episodes((5,), xp=np, buffer_length=4)
    e_tf = episodes.init_episodes((5,), xp=TX, buffer_length=4)
    for step in range(8):
        r = rng.normal(size=5).astype(np.float32)
        term = rng.random(5) < 0.4
        trunc = np.zeros(5, dtype=bool)
        now = 0.1 * step
        e_np, o_np = episodes.step_episodes(e_np, r, term, trunc, now=now)
        e_tf, o_tf = episodes.step_episodes(
            e_tf, tf.constant(r), tf.constant(term), tf.constant(trunc), now=now
        )
        for a, b in zip(o_tf, o_np):
            np.testing.assert_allclose(np.asarray(a), b, rtol=1e-6)
    for a, b in zip(e_tf, e_np):
        np.testing.assert_allclose(np.asarray(a), b, rtol=1e-6)


def test_core_shells_run_on_tensorflow() -> None:
    """The six core single-env shells, stacked on an env that returns tf tensors."""
    env = TinyTFEnv()
    env = anywrap.ClipAction(env)
    env = anywrap.RecordEpisodeStatistics(env)
    env = anywrap.NormalizeObservation(env)
    env = anywrap.TransformObservation(env, lambda o: o * 2.0, env.observation_space)
    env = anywrap.NormalizeReward(env)
    env = anywrap.TransformReward(env, lambda r: r * 0.5)
    obs, _ = env.reset(seed=0)
    assert isinstance(obs, tf.Tensor)
    episodes_seen = 0
    for _ in range(8):
        obs, reward, term, trunc, info = env.step(tf.constant([3.0, -3.0], tf.float32))
        assert isinstance(obs, tf.Tensor) and obs.dtype == tf.float32
        assert bool(np.all(np.isfinite(np.asarray(obs))))
        assert np.isfinite(float(np.asarray(reward)))
        # tf tensors are not host values: the statistics come every step, with a mask.
        if "episode" in info and bool(np.asarray(info.get("_episode", True))):
            episodes_seen += 1
            assert float(np.asarray(info["episode"]["l"])) == 4
        if bool(np.asarray(term)) or bool(np.asarray(trunc)):
            obs, _ = env.reset()
    assert episodes_seen == 2
    inner = env.unwrapped
    np.testing.assert_array_equal(np.asarray(inner.action), [1.0, -1.0])  # ClipAction ran


@pytest.mark.parametrize("mode", ["NextStep", "Disabled"])
def test_vector_shells_on_tensorflow_give_the_numpy_numbers(mode) -> None:
    """The six vector shells over a vector env replayed as tf tensors."""
    from gymnasium.vector import AutoresetMode
    from helpers import (
        ReplayVectorEnv,
        make_backend,
        record_vector_trajectory,
        run_vector,
        vector_stack,
    )

    traj = record_vector_trajectory(autoreset_mode=AutoresetMode(mode))
    tfb_ = make_backend("tensorflow")
    got = run_vector(vector_stack(ReplayVectorEnv(traj, tfb_)))
    want = run_vector(vector_stack(ReplayVectorEnv(traj, make_backend("numpy"))))
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
