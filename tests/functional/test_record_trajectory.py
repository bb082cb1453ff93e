"""anywrap.functional's recorder: the trajectory collected in a jitted scan, one report after."""

from __future__ import annotations

import base64
import io
import json
import re
from pathlib import Path
from typing import Any

import numpy as np
import pytest

jax = pytest.importorskip("jax")
gymnax = pytest.importorskip("gymnax")

import jax.numpy as jnp  # noqa: E402

from anywrap import functional as F  # noqa: E402

N, T = 3, 240  # gymnax Pendulum's episodes last 200 steps: each env ends one


def read_report(path: Path) -> dict[str, Any]:
    text = path.read_text(encoding="utf-8")
    (data,) = re.findall(
        r'<script type="application/json" id="report-data">(.*?)</script>', text, re.S
    )
    return json.loads(data)


def grid(rows: list[list[Any]]) -> np.ndarray:
    return np.array([[np.nan if v is None else v for v in row] for row in rows], np.float64)


def _rollout(env: Any, key: Any) -> Any:
    def run(key: Any) -> Any:
        k_reset, k_act = jax.random.split(key)
        obs0, state = env.reset(k_reset)

        def body(state: Any, k: Any) -> Any:
            action = jax.random.uniform(k, (N, 1), minval=-2.0, maxval=2.0)
            step = env.step(state, action)
            return step.state, (step, action)

        _, (steps, actions) = jax.lax.scan(body, state, jax.random.split(k_act, T))
        return obs0, steps, actions

    return jax.jit(run)(key)


def test_report_from_a_jitted_scan_matches_the_bare_env(tmp_path: Path) -> None:
    bare = F.from_gymnax(gymnax.make("Pendulum-v1")[0], num_envs=N)
    env = F.RecordTrajectory(F.NormalizeObservation(bare))
    obs0, steps, _ = _rollout(env, jax.random.key(0))
    traj = steps.info["trajectory"]
    assert isinstance(traj, F.Trajectory) and traj.reward.shape == (T, N)
    path = F.write_report(
        tmp_path / "rollout.html", traj, env=env, initial_obs=obs0, seed=0, sub_envs=[0, 2]
    )
    data = read_report(path)
    assert data["kind"] == "functional" and data["env_id"] == "Pendulum-v1"
    assert data["wrappers"][:3] == [
        "anywrap.functional.write_report",
        "anywrap.functional.RecordTrajectory",
        "anywrap.functional.NormalizeObservation",
    ]
    assert [e["index"] for e in data["envs"]] == [0, 2]
    # The reference: the same rollout of the bare env (same keys), from gymnax itself.
    ref_obs0, ref, ref_actions = _rollout(bare, jax.random.key(0))
    reward = np.asarray(ref.reward)
    done = np.asarray(ref.terminated | ref.truncated)
    final = np.where(done[..., None], np.asarray(ref.info["final_obs"]), np.asarray(ref.obs))
    assert done[:, 0].any()
    for e in data["envs"]:
        j = e["index"]
        assert e["rows"] == T + 1 and e["kind"][0] == 1 and set(e["kind"][1:]) == {0}
        rew = np.array([np.nan if v is None else v for v in e["reward"]])
        np.testing.assert_allclose(rew[1:], reward[:, j], rtol=1e-6)
        np.testing.assert_allclose(
            grid(e["action"])[0, 1:], np.asarray(ref_actions)[:, j, 0], rtol=1e-6
        )
        # RecordTrajectory sits outside NormalizeObservation: what the agent saw.
        # Where an episode ended, the final observation, normalised.
        normalised = grid(e["obs"])[:, 1:].T
        assert np.isfinite(normalised).all() and np.abs(normalised).max() < 10
        ends = [p for p in e["episodes"] if p["end"] != "running"]
        assert [p["length"] for p in ends] == [200] and ends[0]["end"] == "truncated"
        assert ends[0]["return"] == pytest.approx(reward[:200, j].sum(), rel=1e-5)
    # Without NormalizeObservation the report's observations are gymnax's own,
    # the final one where an episode ended.
    plain = F.RecordTrajectory(bare)
    obs0_p, steps_p, _ = _rollout(plain, jax.random.key(0))
    data = read_report(
        F.write_report(tmp_path / "plain.html", steps_p.info["trajectory"], initial_obs=obs0_p)
    )
    e0 = data["envs"][0]
    np.testing.assert_allclose(grid(e0["obs"])[:, 0], np.asarray(ref_obs0)[0], rtol=1e-6)
    np.testing.assert_allclose(grid(e0["obs"])[:, 1:].T, final[:, 0], rtol=1e-5, atol=1e-6)


def test_unbatched_rollout_with_frames_and_info(tmp_path: Path) -> None:
    env = F.RecordTrajectory(F.from_gymnax(gymnax.make("CartPole-v1")[0]))
    obs0, state = env.reset(jax.random.key(1))

    def body(state: Any, k: Any) -> Any:
        step = env.step(state, jax.random.bernoulli(k).astype(jnp.int32))
        return step.state, (step.info["trajectory"], step.reward * 2)

    _, (traj, doubled) = jax.jit(
        lambda s: jax.lax.scan(body, s, jax.random.split(jax.random.key(2), 20))
    )(state)
    frames = np.zeros((21, 16, 16, 3), np.uint8)
    frames[..., 2] = (np.arange(21) * 10)[:, None, None]
    path = F.write_report(
        tmp_path / "cartpole.html", traj, initial_obs=obs0, frames=frames, info={"doubled": doubled}
    )
    data = read_report(path)
    e = data["envs"][0]
    assert data["num_envs"] is None and e["rows"] == 21
    assert data["labels"]["info"] == ["info.doubled"] and e["info"][0][1:] == [2.0] * 20
    assert data["labels"]["action"] == ["action"]
    from PIL import Image

    blues = [
        np.asarray(Image.open(io.BytesIO(base64.b64decode(f))).convert("RGB"))[..., 2].mean()
        for f in e["frames"]
    ]
    np.testing.assert_allclose(blues, np.arange(21) * 10, atol=4)


def test_write_report_checks_its_input(tmp_path: Path) -> None:
    with pytest.raises(TypeError, match="write_report: expected a Trajectory"):
        F.write_report(tmp_path / "x.html", {"reward": np.zeros(3)})
    bad = F.Trajectory(np.zeros((4, 3)), np.zeros((4, 1)), np.zeros((4, 2, 2)), 0, 0)
    with pytest.raises(ValueError, match=r"\(T,\) or \(T, N\)"):
        F.write_report(tmp_path / "x.html", bad)
    traj = F.Trajectory(np.zeros((4, 3)), np.zeros((4, 1)), np.zeros(4), np.zeros(4), np.zeros(4))
    with pytest.raises(ValueError, match="expected 4 frames"):
        F.write_report(tmp_path / "x.html", traj, frames=np.zeros((3, 8, 8, 3), np.uint8))
    assert not (tmp_path / "x.html").exists()


def test_write_report_sub_envs(tmp_path: Path) -> None:
    """``sub_envs`` picks the envs a report holds (a count, indices or an index
    array, of any library); bad choices name write_report."""
    reward = np.arange(5 * 4, dtype=np.float64).reshape(5, 4)
    flags = np.zeros((5, 4), bool)
    traj = F.Trajectory(np.zeros((5, 4, 2)), np.zeros((5, 4, 1)), reward, flags, flags)
    for pick in ([3, 1], np.array([3, 1]), jnp.asarray([1, 3])):
        data = read_report(F.write_report(tmp_path / "pick.html", traj, sub_envs=pick))
        assert [e["index"] for e in data["envs"]] == [1, 3]
        assert data["envs"][1]["reward"] == reward[:, 3].tolist()
    data = read_report(F.write_report(tmp_path / "count.html", traj, sub_envs=2))
    assert [e["index"] for e in data["envs"]] == [0, 1]
    for bad, message in (
        (5, "write_report: sub_envs must be between 1 and num_envs=4, got 5"),
        ([1, 1], "write_report: sub_envs must be distinct indices in [0, 4)"),
        ([4], "write_report: sub_envs must be distinct indices in [0, 4), got [4]"),
    ):
        with pytest.raises(ValueError) as err:
            F.write_report(tmp_path / "bad.html", traj, sub_envs=bad)
        assert message in str(err.value)
    with pytest.raises(TypeError, match="write_report: sub_envs must be None, an int or"):
        F.write_report(tmp_path / "bad.html", traj, sub_envs=True)
    assert not (tmp_path / "bad.html").exists()


def test_the_recorder_loads_on_first_use() -> None:
    """``import anywrap.functional`` leaves the report page out until the recorder is named."""
    import subprocess
    import sys

    code = (
        "import sys, anywrap.functional as F\n"
        "print(sorted(set(F.__all__) - set(dir(F))), 'anywrap.record.report' in sys.modules)\n"
        "print(F.write_report.__module__, 'anywrap.record.report' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    # dir() lists the recorder's names (tab completion) without loading the report page
    assert out.stdout.split("\n")[:2] == ["[] False", "anywrap.record.functional True"]
