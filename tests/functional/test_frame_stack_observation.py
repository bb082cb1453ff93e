"""anywrap.functional's image pipeline (GrayscaleObservation, ResizeObservation,
FrameStackObservation): jitted rollouts against Gymnasium's wrappers."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.vector import AutoresetMode

jax = pytest.importorskip("jax")
jnp = jax.numpy
pytest.importorskip("cv2")

from image_helpers import ImageEnv, gym_reference, record_image_vector  # noqa: E402

from anywrap import functional as F  # noqa: E402


class ReplayPixels:
    """A batched SAME_STEP functional env replaying a recorded trajectory."""

    def __init__(self, traj):
        steps = [c for c in traj.calls if c[0] == "step"]
        self.num_envs = traj.num_envs
        self.autoreset_mode = AutoresetMode.SAME_STEP
        self.observation_space = gym.spaces.Box(0, 255, traj.shape, np.uint8)
        self.action_space = gym.spaces.Discrete(3)
        self.obs = jnp.asarray(np.stack([traj.calls[0][1]] + [c[1] for c in steps]))
        self.reward = jnp.asarray(np.stack([c[2] for c in steps]).astype(np.float32))
        self.term = jnp.asarray(np.stack([c[3] for c in steps]))
        self.trunc = jnp.asarray(np.stack([c[4] for c in steps]))
        self.final = jnp.asarray(np.stack([c[5] if c[5] is not None else c[1] for c in steps]))

    def reset(self, key):
        return self.obs[0], jnp.zeros((), jnp.int32)

    def step(self, t, action):
        info = {"final_obs": self.final[t]}
        return F.Step(self.obs[t + 1], t + 1, self.reward[t], self.term[t], self.trunc[t], info)


def gym_single(env):
    return gym.wrappers.FrameStackObservation(
        gym.wrappers.ResizeObservation(gym.wrappers.GrayscaleObservation(env), (84, 84)), 4
    )


def close(got, want):
    diff = np.abs(np.asarray(got).astype(int) - np.asarray(want).astype(int))
    assert diff.max() <= 1 and (diff > 0).mean() <= 0.02, (diff.max(), (diff > 0).mean())


def test_a_jitted_scan_gives_gymnasiums_stacks_and_final_stacks():
    traj = record_image_vector(3, 12, AutoresetMode.SAME_STEP)
    want = gym_reference(traj, gym_single)
    env = F.FrameStackObservation(
        F.ResizeObservation(F.GrayscaleObservation(ReplayPixels(traj)), (84, 84)), 4
    )
    assert env.observation_space == gym_single(ImageEnv()).observation_space

    @jax.jit
    def rollout(key):
        obs0, state = env.reset(key)

        def body(state, _):
            s = env.step(state, jnp.zeros(3, jnp.int32))
            return s.state, (s.obs, s.info["final_obs"])

        state, (obs, final) = jax.lax.scan(body, state, None, length=12)
        return obs0, obs, final, state

    obs0, obs, final, state = rollout(jax.random.key(0))
    close(obs0, want[0][1])
    seen = 0
    for t in range(12):
        w = want[t + 1]
        close(obs[t], w[1])
        if w[5] is not None:
            for i in np.flatnonzero(w[6]):
                close(final[t, i], w[5][i])
                seen += 1
    assert seen > 0
    ring = F.find_state(state, F.FrameStackState).frames
    assert ring.frames.shape == (3 * 4 + 1, 84, 84)  # each frame once, and the padding


class OnePixelEnv:
    """An unbatched DISABLED functional env of ImageEnv's frames (pre-rendered)."""

    num_envs = None
    autoreset_mode = AutoresetMode.DISABLED

    def __init__(self, frames):
        self.frames = jnp.asarray(frames)
        self.observation_space = gym.spaces.Box(0, 255, frames.shape[1:], np.uint8)
        self.action_space = gym.spaces.Discrete(3)

    def reset(self, key):
        return self.frames[0], jnp.zeros((), jnp.int32)

    def step(self, t, action):
        no = jnp.zeros((), bool)
        return F.Step(self.frames[t + 1], t + 1, jnp.zeros(()), no, no, {})


@pytest.mark.parametrize("padding", ["reset", "zero"])
def test_an_unbatched_env_stacks_as_gymnasiums_single_wrapper(padding):
    src = ImageEnv(2, 100, (60, 50, 3))
    frames = [src.reset(seed=0)[0]] + [src.step(0)[0] for _ in range(6)]
    ref = gym.wrappers.FrameStackObservation(
        gym.wrappers.ResizeObservation(
            gym.wrappers.GrayscaleObservation(ImageEnv(2, 100, (60, 50, 3)), keep_dim=True),
            (30, 20),
        ),
        3,
        padding_type=padding,
    )
    env = F.FrameStackObservation(
        F.ResizeObservation(
            F.GrayscaleObservation(OnePixelEnv(np.stack(frames)), keep_dim=True), (30, 20)
        ),
        3,
        padding_type=padding,
    )
    assert env.observation_space == ref.observation_space
    obs, state = jax.jit(env.reset)(jax.random.key(0))
    close(obs, ref.reset(seed=0)[0])
    step = jax.jit(env.step)
    for _ in range(6):
        s = step(state, 0)
        state = s.state
        close(s.obs, ref.step(0)[0])


@pytest.mark.parametrize(("size", "error"), [(0, ValueError), (2.0, TypeError)])
def test_bad_stack_sizes_and_spaces_are_refused_by_name(size, error):
    with pytest.raises(error, match=r"anywrap\.functional\.FrameStackObservation.*stack_size"):
        F.FrameStackObservation(OnePixelEnv(np.zeros((2, 8, 8, 3), np.uint8)), size)
    env = OnePixelEnv(np.zeros((2, 8, 8, 3), np.uint8))
    env.observation_space = gym.spaces.Discrete(3)
    with pytest.raises(TypeError, match=r"anywrap\.functional\.FrameStackObservation.*Box"):
        F.FrameStackObservation(env, 2)
