"""RecordHTML for jitted rollouts, ``anywrap.functional``'s (loaded on first use): a scan
stacks ``info["trajectory"]`` on the device, :func:`write_report` brings it to the host
once and writes the report."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from anywrap.functional.core import FunctionalEnv, Step, Wrapper
from anywrap.record.describe import describe_env
from anywrap.record.frames import FrameEncoder
from anywrap.record.layout import Layout, select_sub_envs
from anywrap.record.report import RESET, STEP, build_report, split_tracks, write_html
from anywrap.transforms.time_limit import select_rows
from anywrap.tree import flatten_with_paths, tree_map
from anywrap.xp import to_numpy

__all__ = ["RecordTrajectory", "Trajectory", "write_report"]


class Trajectory(NamedTuple):
    """One step of a rollout; ``obs`` is the observation the action led to (the final one
    where an episode ended)."""

    obs: Any
    action: Any
    reward: jax.Array
    terminated: jax.Array
    truncated: jax.Array


class RecordTrajectory(Wrapper):
    """Adds ``info["trajectory"]``, a :class:`Trajectory`, for :func:`write_report`; place it
    outermost to record what the agent saw and did.

    Example:
        >>> import jax, gymnax, tempfile
        >>> from anywrap import functional as F
        >>> env = F.RecordTrajectory(F.from_gymnax(gymnax.make("Pendulum-v1")[0], num_envs=4))
        >>> obs0, state = env.reset(jax.random.key(0))
        >>> def body(state, key):
        ...     step = env.step(state, jax.random.uniform(key, (4, 1), minval=-2, maxval=2))
        ...     return step.state, step.info["trajectory"]
        >>> rollout = jax.jit(lambda s, k: jax.lax.scan(body, s, jax.random.split(k, 50)))
        >>> state, traj = rollout(state, jax.random.key(1))
        >>> traj.reward.shape
        (50, 4)
        >>> path = tempfile.mkdtemp() + "/rollout.html"
        >>> F.write_report(path, traj, env=env, initial_obs=obs0, seed=0).name
        'rollout.html'
    """

    def step(self, state: Any, action: Any) -> Step:
        s = self.env.step(state, action)
        obs, final = s.obs, s.info.get("final_obs")
        if final is not None:
            obs = select_rows(jnp.logical_or(s.terminated, s.truncated), final, s.obs)
        traj = Trajectory(obs, action, s.reward, s.terminated, s.truncated)
        return s._replace(info={**s.info, "trajectory": traj})


def _host(tree: Any) -> Any:
    return tree_map(lambda x: np.asarray(to_numpy(x)), tree)


def write_report(
    path: str | os.PathLike[str],
    trajectory: Any,
    *,
    env: FunctionalEnv | None = None,
    initial_obs: Any = None,
    info: dict[str, Any] | None = None,
    frames: Any = None,
    sub_envs: int | Sequence[int] | None = None,
    seed: Any = None,
    env_id: str | None = None,
    title: str | None = None,
    fps: float = 30.0,
    max_dims: int = 64,
    frame_format: str = "webp",
    frame_quality: int = 75,
    max_frame_side: int | None = 512,
) -> Path:
    """Write the HTML report of a rollout collected inside ``jax.lax.scan``.

    Args:
        path: The ``.html`` file to write.
        trajectory: A stacked :class:`Trajectory` (time axis ``T``, then batch axis ``N``).
        env: The functional env, for the report's env id and wrapper stack.
        initial_obs: The observation ``reset`` returned; it becomes row 0.
        info: Extra numbers to chart, ``{name: array (T,) or (T, N)}``.
        frames: Frames you rendered yourself, uint8 ``(rows, H, W, 3)`` or
            ``(rows, N, H, W, 3)``, one per row (``T``, or ``T + 1`` with ``initial_obs``).
        sub_envs: For a batch, which envs the report holds: a count or indices
            (default: the first four).
        seed, env_id, title, fps: Shown in the report (default: none, ``env``'s id, the
            file name, 30 frames a second at 1x).
        max_dims: Leaves with more values per env are charted as mean, min, max.
        frame_format, frame_quality, max_frame_side: As in :class:`anywrap.RecordHTML`.
    """
    for name in Trajectory._fields:
        if not hasattr(trajectory, name):
            raise TypeError(
                f"write_report: expected a Trajectory (fields obs, action, reward, "
                f"terminated, truncated), got {type(trajectory).__qualname__} without {name!r}"
            )
    traj = _host(Trajectory(*(getattr(trajectory, n) for n in Trajectory._fields)))
    reward = np.asarray(traj.reward)
    if reward.ndim not in (1, 2):
        raise ValueError(
            "write_report: expected the reward to be (T,) or (T, N) (a scan's stacked "
            f"steps), got shape {reward.shape}"
        )
    steps = reward.shape[0]
    batch = reward.shape[1] if reward.ndim == 2 else None
    select = [0] if batch is None else select_sub_envs("write_report", sub_envs, batch)
    k = 1 if batch is None else len(select)

    def at(tree: Any, t: int) -> Any:
        return tree_map(lambda x: x[t], tree)

    obs_layout = Layout("obs", at(traj.obs, 0), batch, select, max_dims)
    act_layout = Layout("action", at(traj.action, 0), batch, select, max_dims)
    head = 0 if initial_obs is None else 1
    rows = steps + head
    obs = np.full((rows, k, obs_layout.width), np.nan)
    action = np.full((rows, k, act_layout.width), np.nan)
    kind = np.full((rows, k), STEP, np.int8)
    if initial_obs is not None:
        obs[0] = obs_layout.row(_host(initial_obs))
        kind[0] = RESET
    for t in range(steps):
        obs[head + t] = obs_layout.row(at(traj.obs, t))
        action[head + t] = act_layout.row(at(traj.action, t))

    def per_env(x: Any) -> np.ndarray:
        a = np.asarray(x, dtype=np.float64).reshape(steps, -1)
        a = a[:, select] if batch is not None else a
        return np.concatenate([np.full((head, k), np.nan), a])

    rew, term, trunc = (per_env(v) for v in (traj.reward, traj.terminated, traj.truncated))
    leaves = flatten_with_paths(_host(info or {}))
    info_labels = ["info." + ".".join(str(q) for q in p) for p, _ in leaves]
    info_cols = [per_env(leaf) for _, leaf in leaves]
    info_arr = np.stack(info_cols, axis=-1) if info_cols else np.zeros((rows, k, 0))
    track_frames: list[list[bytes | None]] | None = None
    mime = "image/webp"
    if frames is not None:
        encoder = FrameEncoder(frame_format, frame_quality, max_frame_side)
        mime = encoder.mime
        stack = [np.asarray(to_numpy(f)) for f in frames]
        if len(stack) != rows:
            raise ValueError(
                f"write_report: expected {rows} frames (one per row), got {len(stack)}"
            )
        track_frames = [
            [encoder.encode(f if batch is None else f[i]) for f in stack] for i in select
        ]
    tracks = split_tracks(
        select,
        kind=kind,
        obs=obs,
        action=action,
        reward=rew,
        terminated=term,
        truncated=trunc,
        info=info_arr,
        frames=track_frames,
    )
    found_id, wrappers = describe_env(env) if env is not None else ("functional env", [])
    path = Path(path)
    mode = getattr(env, "autoreset_mode", None)
    data = build_report(
        tracks,
        obs_labels=obs_layout.labels,
        action_labels=act_layout.labels,
        info_labels=info_labels,
        title=title or path.stem,
        env_id=env_id or found_id,
        wrappers=["anywrap.functional.write_report", *wrappers],
        seed=seed,
        kind="functional",
        num_envs=batch,
        autoreset_mode=None if mode is None else str(getattr(mode, "value", mode)),
        fps=fps,
        wall_time=None,
        first_step=0,
        steps=[max(0, r - head + 1) for r in range(rows)],
        frame_mime=mime,
        notes=[] if frames is not None else ["no frames: a compiled rollout cannot render"],
    )
    return write_html(path, data)
