"""Envs and readers for RecordHTML's tests.

* :func:`read_report`: the JSON a report page carries, parsed back.
* :class:`ArrayEnv` / :class:`ArrayVectorEnv`: small envs whose observations,
  rewards and flags are arrays of a chosen backend, computed without reading
  any device value, with episodes of known lengths.
* :func:`scene_frame`: a 256 x 256 rendered-looking frame (sky, a perspective
  checkerboard floor, three shaded spheres, a little sensor noise).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium.vector import AutoresetMode

_DATA = re.compile(r'<script type="application/json" id="report-data">(.*?)</script>', re.S)


def read_report(path: str | Path) -> dict[str, Any]:
    """The report's data, as the page's ``JSON.parse`` sees it."""
    text = Path(path).read_text(encoding="utf-8")
    found = _DATA.findall(text)
    assert len(found) == 1, "a report holds exactly one data element"
    return json.loads(found[0])


def column(values: Sequence[Any]) -> np.ndarray:
    """A report column (None for gaps) as floats with NaN."""
    return np.array([np.nan if v is None else v for v in values], dtype=np.float64)


def grid(rows: Sequence[Sequence[Any]]) -> np.ndarray:
    """Report columns (lists with None for gaps) as a float array with NaN."""
    return np.array([[np.nan if v is None else v for v in row] for row in rows], np.float64)


# ---------------------------------------------------------------- envs
def _obs_of(t: int, k: float = 0.0) -> np.ndarray:
    return np.array([t, 0.5 * t + k, np.sin(0.3 * t + k)], dtype=np.float32)


class ArrayEnv(gym.Env):
    """Episode ``e`` lasts ``lengths[e % len(lengths)]`` steps; the last step is
    ``terminated`` for even ``e``, ``truncated`` for odd. ``obs = [t, t/2, sin
    0.3t]``, ``reward = t * action[0]``. All as arrays of ``to_backend``; a
    string ``info["note"]`` and a number ``info["t"]`` each step."""

    metadata = {"render_modes": ["rgb_array"], "render_fps": 15}

    def __init__(
        self,
        to_backend: Callable[[Any], Any] = np.asarray,
        lengths: Sequence[int] = (7, 5),
        render_mode: str | None = None,
        note: str = "step",
        frame_size: int = 24,
    ) -> None:
        self.to_backend = to_backend
        self.lengths = list(lengths)
        self.render_mode = render_mode
        self.note = note
        self.frame_size = frame_size
        self.observation_space = gym.spaces.Box(-np.inf, np.inf, (3,), np.float32)
        self.action_space = gym.spaces.Box(-1.0, 1.0, (2,), np.float32)
        self.episode = -1
        self.t = 0

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> Any:
        super().reset(seed=seed)
        self.episode += 1
        self.t = 0
        return self.to_backend(_obs_of(0)), {"note": f"{self.note} reset"}

    def step(self, action: Any) -> Any:
        self.t += 1
        end = self.t >= self.lengths[self.episode % len(self.lengths)]
        odd = self.episode % 2 == 1
        # The reward is computed in the action's library: no device value is read.
        reward = action[0] * float(self.t)
        info = {"note": f"{self.note} {self.t}", "t": self.to_backend(np.float32(self.t))}
        return (
            self.to_backend(_obs_of(self.t)),
            reward,
            self.to_backend(np.bool_(end and not odd)),
            self.to_backend(np.bool_(end and odd)),
            info,
        )

    def render(self) -> np.ndarray:
        """A solid frame whose red channel is 10 * t (to check frames line up with rows)."""
        frame = np.zeros((self.frame_size, self.frame_size, 3), np.uint8)
        frame[..., 0] = min(250, 10 * self.t)
        frame[..., 1] = 80
        return frame


class ArrayVectorEnv(gym.vector.VectorEnv):
    """``num_envs`` copies of :class:`ArrayEnv`'s dynamics in one backend.

    Sub-env ``i`` ends every ``base + 2 * i`` steps (terminated for even
    ``i``, truncated for odd). Autoreset as ``mode`` says: NEXT_STEP (the step
    after a done returns the reset observation, reward 0), SAME_STEP (the
    done step returns the reset observation, ``info["final_obs"]`` the last),
    DISABLED (``reset(options={"reset_mask": m})`` restarts sub-envs).
    Flags are computed from host counters and handed over as arrays; no
    device value is read.
    """

    def __init__(
        self,
        to_backend: Callable[[Any], Any],
        num_envs: int = 3,
        mode: AutoresetMode = AutoresetMode.NEXT_STEP,
        base: int = 4,
    ) -> None:
        self.to_backend = to_backend
        self.num_envs = num_envs
        self.metadata = {"autoreset_mode": mode}
        self.mode = mode
        self.lengths = np.array([base + 2 * i for i in range(num_envs)])
        self.single_observation_space = gym.spaces.Box(-np.inf, np.inf, (3,), np.float32)
        self.single_action_space = gym.spaces.Box(-1.0, 1.0, (1,), np.float32)
        self.observation_space = gym.vector.utils.batch_space(
            self.single_observation_space, num_envs
        )
        self.action_space = gym.vector.utils.batch_space(self.single_action_space, num_envs)
        self.render_mode = None
        self.t = np.zeros(num_envs, np.int64)
        self.pending = np.zeros(num_envs, bool)
        self.log: list[tuple[str, np.ndarray]] = []  # what each call returned, on the host

    def _obs(self) -> np.ndarray:
        return np.stack([_obs_of(int(t), 0.1 * i) for i, t in enumerate(self.t)])

    def reset(self, *, seed: Any = None, options: dict[str, Any] | None = None) -> Any:
        mask = None if options is None else options.get("reset_mask")
        m = np.ones(self.num_envs, bool) if mask is None else np.asarray(mask)
        self.t[m] = 0
        self.pending[m] = False
        obs = self._obs()
        self.log.append(("reset", obs))
        return self.to_backend(obs), {}

    def step(self, actions: Any) -> Any:
        resetting = self.pending.copy()
        self.t = np.where(resetting, 0, self.t + 1)
        done = (~resetting) & (self.t >= self.lengths)
        term = done & (np.arange(self.num_envs) % 2 == 0)
        trunc = done & ~term
        scale = np.where(resetting, 0.0, self.t).astype(np.float32)
        # reward = action[:, 0] * scale, in the actions' library: no device value is read.
        reward = actions[:, 0] * self.to_backend(scale)
        final = self._obs()
        info: dict[str, Any] = {"t": self.to_backend(self.t.astype(np.float32))}
        if self.mode is AutoresetMode.SAME_STEP:
            info["final_obs"] = self.to_backend(final)
            info["_final_obs"] = self.to_backend(done)
            self.t = np.where(done, 0, self.t)
        elif self.mode is AutoresetMode.NEXT_STEP:
            self.pending = done
        obs = self._obs()
        self.log.append(("step", obs, scale, term, trunc, final))
        return (
            self.to_backend(obs),
            reward,
            self.to_backend(term),
            self.to_backend(trunc),
            info,
        )


# ---------------------------------------------------------------- frames
def scene_frame(t: int, size: int = 256) -> np.ndarray:
    """A frame like a 3-D simulator's: sky gradient, perspective checkerboard,
    three shaded moving spheres, and sensor noise (sigma 2.5 levels)."""
    y, x = np.mgrid[0:size, 0:size].astype(np.float32) / size
    sky = np.stack([0.35 + 0.3 * y, 0.55 + 0.25 * y, 0.85 + 0.1 * y], -1)
    horizon = 0.45
    depth = 1.0 / np.maximum(y - horizon, 1e-3)
    u = (x - 0.5) * depth * 0.6 + 0.05 * t
    v = depth * 0.3 + 0.1 * t
    check = (np.floor(u * 4) + np.floor(v * 4)) % 2
    shade = np.clip(1.5 * (y - horizon) + 0.4, 0, 1)[..., None]
    floor = np.stack([0.3 + 0.4 * check, 0.3 + 0.35 * check, 0.25 + 0.3 * check], -1) * shade
    img = np.where((y > horizon)[..., None], floor, sky)
    colors = np.array([[0.9, 0.3, 0.2], [0.2, 0.7, 0.3], [0.3, 0.4, 0.9]])
    for k in range(3):
        cx = 0.5 + 0.3 * np.sin(0.05 * t + 2 * k)
        cy = 0.5 + 0.15 * np.cos(0.07 * t + k)
        r = 0.08 + 0.03 * k
        d2 = ((x - cx) ** 2 + (y - cy) ** 2) / r**2
        nz = np.sqrt(np.clip(1 - d2, 0, 1))
        light = 0.2 + 0.8 * np.clip(nz * 0.7 + (cx - x) / r * 0.3 + (cy - y) / r * 0.3, 0, 1)
        img = np.where((d2 < 1)[..., None], light[..., None] * colors[k], img)
    img = img + np.random.default_rng(t).normal(0, 0.01, img.shape)
    return (np.clip(img, 0, 1) * 255).astype(np.uint8)


class SceneEnv(gym.Env):
    """A 256 x 256 ``rgb_array`` env of :func:`scene_frame` (precomputed, cycled)."""

    metadata = {"render_modes": ["rgb_array"], "render_fps": 30}

    def __init__(self, length: int = 1000, distinct: int = 40) -> None:
        self.render_mode = "rgb_array"
        self.length = length
        self.frames = [scene_frame(7 * t) for t in range(distinct)]
        self.observation_space = gym.spaces.Box(-1.0, 1.0, (8,), np.float32)
        self.action_space = gym.spaces.Box(-1.0, 1.0, (2,), np.float32)
        self.t = 0

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> Any:
        super().reset(seed=seed)
        self.t = 0
        return np.zeros(8, np.float32), {}

    def step(self, action: Any) -> Any:
        self.t += 1
        obs = np.sin(0.01 * self.t * np.arange(1, 9)).astype(np.float32)
        return obs, float(np.cos(0.02 * self.t)), False, self.t >= self.length, {}

    def render(self) -> np.ndarray:
        return self.frames[self.t % len(self.frames)]


# ---------------------------------------------------------------- Gymnasium's RecordVideo
