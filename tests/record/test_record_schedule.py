"""RecordHTML chooses what to record as Gymnasium's RecordVideo does (run side by side)."""

from __future__ import annotations

import functools
from typing import Any

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.vector import AutoresetMode
from record_envs import ArrayEnv, read_report

import anywrap
from anywrap.record.schedule import capped_cubic_schedule

EPISODE_LENGTHS = (7, 5, 9, 3, 6)


def test_default_schedule_is_record_videos(record_video_clips: Any) -> None:
    from gymnasium.utils.save_video import capped_cubic_video_schedule

    ours = [k for k in range(6000) if capped_cubic_schedule(k)]
    theirs = [k for k in range(6000) if capped_cubic_video_schedule(k)]
    assert ours == theirs


def _run_single(env: gym.Env, episodes: int) -> None:
    rng = np.random.default_rng(0)
    for e in range(episodes):
        env.reset(seed=e)
        done = False
        while not done:
            _, _, term, trunc, _ = env.step(rng.uniform(-1, 1, 2).astype(np.float32))
            done = bool(term) or bool(trunc)
    env.close()


CASES = {
    "default": {},
    "every third episode": {"episode_trigger": lambda k: k % 3 == 0},
    "steps, length 10": {"step_trigger": lambda t: t % 25 == 0, "video_length": 10},
    "episodes, length 4": {"episode_trigger": lambda k: k in (1, 2, 9), "video_length": 4},
    "both triggers": {"episode_trigger": lambda k: k == 2, "step_trigger": lambda t: t == 40},
    "steps, whole episode": {"step_trigger": lambda t: t in (3, 30)},
}


@pytest.mark.parametrize("case", list(CASES))
def test_single_env_records_what_record_video_records(
    case: str, record_video_clips: list[tuple[str, int]], tmp_path: Any
) -> None:
    kwargs = dict(CASES[case])
    gym_env = gym.wrappers.RecordVideo(
        ArrayEnv(lengths=EPISODE_LENGTHS, render_mode="rgb_array"),
        str(tmp_path / "videos"),
        name_prefix="run",
        **kwargs,
    )
    _run_single(gym_env, 12)
    length = kwargs.pop("video_length", 0)
    ours = anywrap.RecordHTML(
        ArrayEnv(lengths=EPISODE_LENGTHS),
        tmp_path / "reports",
        name_prefix="run",
        report_length=length,
        **kwargs,
    )
    _run_single(ours, 12)
    got = [(p.stem, read_report(p)["envs"][0]["rows"]) for p in ours.report_paths]
    assert record_video_clips, "the case must record something"
    assert got == record_video_clips
    assert ours.episode_id == gym_env.episode_id and ours.step_id == gym_env.step_id


def _vector(mode: AutoresetMode, render: bool) -> gym.vector.SyncVectorEnv:
    fns = [
        functools.partial(
            ArrayEnv,
            lengths=EPISODE_LENGTHS[i:] + EPISODE_LENGTHS[:i],
            render_mode="rgb_array" if render else None,
        )
        for i in range(3)
    ]
    return gym.vector.SyncVectorEnv(fns, autoreset_mode=mode)


def _run_vector(envs: Any, steps: int = 70) -> bool:
    """Run; whether a recording was still open when the env closed."""
    rng = np.random.default_rng(1)
    envs.reset(seed=0)
    for _ in range(steps):
        envs.step(rng.uniform(-1, 1, (3, 2)).astype(np.float32))
    open_at_close = envs.recording
    envs.close()
    return open_at_close


VECTOR_CASES = {
    "default": {},
    "every other episode": {"episode_trigger": lambda k: k % 2 == 1},
    "steps, length 6": {"step_trigger": lambda t: t % 20 == 5, "video_length": 6},
}


@pytest.mark.parametrize("mode", [AutoresetMode.NEXT_STEP, AutoresetMode.SAME_STEP])
@pytest.mark.parametrize("case", list(VECTOR_CASES))
def test_vector_env_records_what_record_video_records(
    case: str, mode: AutoresetMode, record_video_clips: list[tuple[str, int]], tmp_path: Any
) -> None:
    """Episodes are sub-env 0's. NEXT_STEP: the same rows as RecordVideo's frames.
    SAME_STEP: one more, the step that ends an episode, whose frame RecordVideo
    leaves out (its render already shows the next episode)."""
    kwargs = dict(VECTOR_CASES[case])
    with (
        pytest.warns(UserWarning, match="same-step")
        if mode is AutoresetMode.SAME_STEP
        else _no_warning()
    ):
        gym_envs = gym.wrappers.vector.RecordVideo(
            _vector(mode, True), str(tmp_path / "videos"), name_prefix="run", **kwargs
        )
    cut = _run_vector(gym_envs)
    length = kwargs.pop("video_length", 0)
    ours = anywrap.vector.RecordHTML(
        _vector(mode, False),
        tmp_path / "reports",
        name_prefix="run",
        report_length=length,
        **kwargs,
    )
    assert _run_vector(ours) == cut
    got = [(p.stem, read_report(p)["envs"][0]["rows"]) for p in ours.report_paths]
    assert record_video_clips
    if mode is AutoresetMode.SAME_STEP:
        # Where sub-env 0 ends an episode, RecordVideo keeps one frame (already
        # the next episode's) and a report two rows: the step, with the final
        # observation, and the next episode's first. So a whole-episode report
        # has one row more (all but one cut short by close()), and a report of
        # report_length steps one more per episode end inside it (not at its end).
        ended = len(record_video_clips) - (1 if cut else 0)
        expected = []
        for i, (name, n) in enumerate(record_video_clips):
            if length == 0:
                expected.append((name, n + (i < ended)))
            else:
                env0 = read_report(tmp_path / "reports" / f"{name}.html")["envs"][0]
                ends = sum(
                    (a or b) and k == 0
                    for a, b, k in zip(env0["terminated"], env0["truncated"], env0["kind"])
                ) - bool(env0["terminated"][-1] or env0["truncated"][-1])
                expected.append((name, n + ends))
        record_video_clips = expected
    assert got == record_video_clips


class _no_warning:
    def __enter__(self) -> None:
        return None

    def __exit__(self, *args: Any) -> None:
        return None
