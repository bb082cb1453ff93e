"""The page: escaping, nothing loaded from the network, the vendored chart library, sizes."""

from __future__ import annotations

import base64
import hashlib
import io
import re
from importlib import resources
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
import pytest
from record_envs import ArrayEnv, SceneEnv, read_report

import anywrap
from anywrap.record.report import RESET, STEP, Track, json_for_html, render_html

HOSTILE = "</script><script>window.__pwned=1</script><!--"


def hostile_env(**kwargs: Any) -> gym.Env:
    """An env whose id and info strings try to close the data element."""
    env = ArrayEnv(note=HOSTILE, **kwargs)
    env.spec = gym.envs.registration.EnvSpec(id="Hostile-v0")
    env.spec.id = f"Hostile{HOSTILE}-v0"  # as a user-registered id could read
    return env


def _report(tmp_path: Path, **kwargs: Any) -> Path:
    env = anywrap.RecordHTML(hostile_env(**kwargs), tmp_path, frames="render_mode" in kwargs)
    env.reset(seed=0)
    for _ in range(7):
        env.step(np.array([0.5, -0.5], np.float32))
    env.close()
    (path,) = env.report_paths
    return path


def test_env_text_cannot_close_the_script(tmp_path: Path) -> None:
    path = _report(tmp_path)
    text = path.read_text(encoding="utf-8")
    # The page's own elements only: the data, uPlot and the page's script.
    assert len(re.findall(r"<script", text, re.I)) == 3
    assert len(re.findall(r"</script", text, re.I)) == 3
    assert "<!--" not in text
    assert HOSTILE not in text
    data = read_report(path)
    assert data["env_id"] == f"Hostile{HOSTILE}-v0"
    notes = data["envs"][0]["text"][data["labels"]["text"].index("info.note")]
    assert notes[1] == f"{HOSTILE} 1" and notes[0] == f"{HOSTILE} reset"
    title = re.search(r"<title>(.*?)</title>", text, re.S)
    assert title is not None and "<" not in title.group(1)


def test_json_for_html_round_trips_every_unsafe_character() -> None:
    import json

    value = {"s": "a<b>c&d\u2028e\u2029f</script>", "n": [1.5, None]}
    text = json_for_html(value)
    assert not set("<>&\u2028\u2029") & set(text)
    assert json.loads(text) == value


def _scripts_and_styles(text: str) -> tuple[list[str], list[str]]:
    scripts = re.findall(r"<script>(.*?)</script>", text, re.S)
    styles = re.findall(r"<style>(.*?)</style>", text, re.S)
    return scripts, styles


def test_nothing_is_loaded_from_the_network(tmp_path: Path) -> None:
    text = _report(tmp_path, render_mode="rgb_array").read_text(encoding="utf-8")
    scripts, styles = _scripts_and_styles(text)
    markup = re.sub(r"<(script|style)[^>]*>.*?</\1>", "", text, flags=re.S)
    # No element loads anything: no src / href / srcset in the markup, no url()
    # or @import in the styles, no script fetches (frames are data: URLs).
    assert not re.search(r"\s(src|href|action|poster|srcset|data)\s*=", markup, re.I)
    assert "http:" not in markup and "https:" not in markup
    for css in styles:
        assert not re.search(r"url\s*\(|@import", css, re.I)
    for code in scripts:
        for api in (
            "fetch(",
            "XMLHttpRequest",
            "import(",
            "WebSocket",
            "EventSource",
            "sendBeacon",
        ):
            assert api not in code, api
    # The Content-Security-Policy forbids any load and runs only these scripts.
    csp = re.search(r'http-equiv="Content-Security-Policy" content="([^"]*)"', text)
    assert csp is not None
    policy = csp.group(1).replace("&#x27;", "'")
    assert "default-src 'none'" in policy and "img-src data:" in policy

    def digest(s: str) -> str:
        return "'sha256-" + base64.b64encode(hashlib.sha256(s.encode()).digest()).decode() + "'"

    script_src = re.search(r"script-src ([^;]*)", policy)
    style_src = re.search(r"style-src ([^;]*)", policy)
    assert script_src and style_src
    assert sorted(script_src.group(1).split()) == sorted(digest(s) for s in scripts)
    assert style_src.group(1).split() == [digest(s) for s in styles]
    assert "unsafe" not in policy


def test_uplot_is_inlined_with_its_version_and_licence(tmp_path: Path) -> None:
    vendor = resources.files("anywrap.record").joinpath("vendor")
    version = vendor.joinpath("UPLOT_VERSION").read_text().strip()
    js = vendor.joinpath("uPlot.iife.min.js").read_text()
    licence = vendor.joinpath("LICENSE-uPlot.txt").read_text()
    assert re.fullmatch(r"\d+\.\d+\.\d+", version)
    assert f"(v{version})" in js[:200]  # the build's own banner
    assert "The MIT License" in licence and f"uPlot {version}" in licence
    assert "npm pack" in (Path(str(vendor)) / "refresh.sh").read_text()
    text = _report(tmp_path).read_text(encoding="utf-8")
    assert licence.strip().splitlines()[-1] in text and js in text
    assert read_report(_report(tmp_path / "b"))["version"] == 1


def test_track_returns_restart_at_each_episode() -> None:
    # NEXT_STEP: a reset row (kind RESET) starts the next episode. Rewards 1 each
    # step: the return counts the steps since the episode began.
    kind = np.array([RESET, STEP, STEP, STEP, RESET, STEP, STEP])
    term = np.array([0, 0, 0, 1, 0, 0, 0], bool)
    track = Track.from_steps(
        0,
        kind=kind,
        obs=np.zeros((7, 1)),
        action=np.zeros((7, 1)),
        reward=np.ones(7),
        terminated=term,
        truncated=np.zeros(7, bool),
    )
    assert track.returns().tolist() == [0, 1, 2, 3, 0, 1, 2]
    assert [(e["first"], e["last"], e["length"], e["end"]) for e in track.episodes()] == [
        (0, 3, 3, "terminated"),
        (4, 6, 2, "running"),
    ]
    # SAME_STEP: the step after a done is the next episode's first step.
    same = Track.from_steps(
        0,
        kind=np.full(6, STEP),
        obs=np.zeros((6, 1)),
        action=np.zeros((6, 1)),
        reward=np.array([1.0, 2.0, 3.0, 4.0, 5.0, 6.0]),
        terminated=np.zeros(6, bool),
        truncated=np.array([0, 1, 0, 0, 1, 0], bool),
    )
    assert same.returns().tolist() == [1, 3, 3, 7, 12, 6]
    assert [e["return"] for e in same.episodes()] == [3, 12, 6]


def test_non_finite_values_become_gaps(tmp_path: Path) -> None:
    track = Track.from_steps(
        0,
        kind=np.array([STEP, STEP, STEP]),
        obs=np.array([[np.nan], [np.inf], [2.0]]),
        action=np.zeros((3, 1)),
        reward=np.array([1.0, -np.inf, 1.0]),
        terminated=np.zeros(3, bool),
        truncated=np.zeros(3, bool),
    )
    from anywrap.record.report import build_report

    data = build_report([track], obs_labels=["o"], action_labels=["a"], title="t", env_id="e")
    assert data["envs"][0]["obs"] == [[None, None, 2.0]]
    assert data["envs"][0]["reward"] == [1.0, None, 1.0]
    render_html(data)  # strict JSON: would raise on NaN


def test_a_1000_step_256px_episode_stays_under_10_mb(tmp_path: Path) -> None:
    """Sizes are reported by `pytest -s`: WebP at quality 75, base64 in the page."""
    env = anywrap.RecordHTML(SceneEnv(length=1000), tmp_path)
    env.reset(seed=0)
    done = False
    while not done:
        _, _, term, trunc, _ = env.step(np.zeros(2, np.float32))
        done = term or trunc
    env.close()
    (path,) = env.report_paths
    size = path.stat().st_size
    data = read_report(path)
    frames = data["envs"][0]["frames"]
    assert len(frames) == 1001 and all(frames)
    frame_bytes = [len(base64.b64decode(f)) for f in frames]
    print(f"\n1000 steps at 256x256: {size / 1e6:.2f} MB, {np.mean(frame_bytes):.0f} B per frame")
    assert size < 10e6
    # The frames are real pictures of the scene, not blanks: decoded, they are
    # close to what the env rendered (WebP at quality 75 plus the noise).
    from PIL import Image

    img = np.asarray(Image.open(io.BytesIO(base64.b64decode(frames[5]))).convert("RGB"))
    assert img.shape == (256, 256, 3)
    assert np.abs(img.astype(float) - env.env.unwrapped.frames[5].astype(float)).mean() < 6


@pytest.mark.parametrize(
    "fmt, magic", [("webp", b"RIFF"), ("jpeg", b"\xff\xd8"), ("png", b"\x89PNG")]
)
def test_frame_formats(tmp_path: Path, fmt: str, magic: bytes) -> None:
    env = anywrap.RecordHTML(
        ArrayEnv(render_mode="rgb_array"), tmp_path, frame_format=fmt, frame_quality=90
    )
    env.reset(seed=0)
    for _ in range(7):
        env.step(np.zeros(2, np.float32))
    env.close()
    data = read_report(env.report_paths[0])
    assert data["frame_mime"] == f"image/{fmt}"
    assert all(base64.b64decode(f).startswith(magic) for f in data["envs"][0]["frames"])


def test_frames_are_shrunk_to_max_frame_side(tmp_path: Path) -> None:
    from PIL import Image

    env = anywrap.RecordHTML(
        ArrayEnv(render_mode="rgb_array", frame_size=100), tmp_path, max_frame_side=40
    )
    env.reset(seed=0)
    env.step(np.zeros(2, np.float32))
    env.close()
    f = read_report(env.report_paths[0])["envs"][0]["frames"][0]
    assert Image.open(io.BytesIO(base64.b64decode(f))).size == (40, 40)


@pytest.mark.parametrize("batch", [None, 2])
def test_random_seeds_in_info_are_not_charted(batch: int | None) -> None:
    """Issue 34: Breakout's report charted ``info.seeds.0`` and ``info.seeds.1`` (ALE's
    seeds, near 3e9) as time series, on an axis that read only "0"."""
    from anywrap.record.buffers import Row
    from anywrap.record.info import InfoColumns

    cols = InfoColumns(batch=batch, select=None, cap=16)
    shape = () if batch is None else (batch,)
    seed = np.full(shape, 3_141_592_653, np.uint32)
    info = {"lives": np.full(shape, 5), "seeds": (seed, seed), "episode_frame_number": seed}
    cols.record(Row(clock=0.0, step=0, obs=None), info)
    assert cols.labels(cols.numbers) == ["info.lives", "info.episode_frame_number"]
