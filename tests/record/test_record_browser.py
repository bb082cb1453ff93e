"""RecordHTML reports in a real browser: Debian's chromium, headless, driven by Playwright.

``make test`` installs both (chromium with apt where /usr/bin/chromium is
missing, Playwright with the dev extra); Playwright's own browser download
is not used. Screenshots go to ``test-artifacts/``.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.vector import AutoresetMode
from record_envs import ArrayVectorEnv

import anywrap

sync_api = pytest.importorskip("playwright.sync_api")

CHROMIUM = os.environ.get("ANYWRAP_CHROMIUM", "/usr/bin/chromium")
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"
HOSTILE = "</script><script>window.__pwned=1</script>"


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    if not os.path.exists(CHROMIUM):
        pytest.skip(f"no chromium at {CHROMIUM} (make test installs Debian's)")
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        yield b
        b.close()


class _Note(gym.Wrapper):
    """Adds a hostile string to every info."""

    def reset(self, **kwargs: Any) -> Any:
        obs, info = self.env.reset(**kwargs)
        return obs, {**info, "note": f"{HOSTILE} reset"}

    def step(self, action: Any) -> Any:
        obs, reward, term, trunc, info = self.env.step(action)
        return obs, reward, term, trunc, {**info, "note": f"{HOSTILE} step"}


def _pendulum_report(folder: Path) -> Path:
    env = gym.make("Pendulum-v1", render_mode="rgb_array")
    env.unwrapped.spec = dataclasses.replace(env.unwrapped.spec)
    env.unwrapped.spec.id = f"Pendulum{HOSTILE}-v1"
    env = anywrap.RecordHTML(_Note(env), folder, report_length=60)
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    for _ in range(60):
        env.step(rng.uniform(-2, 2, 1).astype(np.float32))
    env.close()
    (path,) = env.report_paths
    return path


def _open(browser: Any, path: Path) -> tuple[Any, list[str], list[str]]:
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    problems: list[str] = []
    requests: list[str] = []

    def console(m: Any) -> None:
        # Errors and warnings, less Chromium's hint about this test's own pixel reads.
        if m.type in ("error", "warning") and "willReadFrequently" not in m.text:
            problems.append(f"{m.type}: {m.text}")

    page.on("console", console)
    page.on("pageerror", lambda e: problems.append(f"pageerror: {e}"))
    page.on("request", lambda r: requests.append(r.url))
    page.goto(path.as_uri())
    _wait_for(page, "window.anywrapReport !== undefined")
    return page, problems, requests


def _wait_for(page: Any, condition: str, timeout: float = 5.0) -> None:
    """Poll ``condition`` (Playwright's wait_for_function evaluates a string,
    which the page's Content-Security-Policy refuses, as it should)."""
    import time

    end = time.monotonic() + timeout
    while not page.evaluate(f"() => {condition}"):
        assert time.monotonic() < end, f"timed out waiting for {condition}"
        page.wait_for_timeout(50)


# Pixels of each chart's canvas that are neither blank nor the grid's pale grey.
_DRAWN = """() => window.anywrapReport.charts.map(u => {
  const c = u.ctx.canvas, d = u.ctx.getImageData(0, 0, c.width, c.height).data;
  let n = 0;
  for (let i = 0; i < d.length; i += 4) {
    const [r, g, b, a] = [d[i], d[i + 1], d[i + 2], d[i + 3]];
    if (a > 200 && Math.max(r, g, b) - Math.min(r, g, b) > 60) n++;
  }
  return n;
})"""


def test_single_env_report_in_chromium(browser: Any, tmp_path: Path) -> None:
    path = _pendulum_report(tmp_path)
    page, problems, requests = _open(browser, path)
    data = page.evaluate("window.anywrapReport.data")
    # Every chart draws: reward, return, the action, three observations.
    drawn = page.evaluate(_DRAWN)
    assert len(drawn) == 2 + len(data["labels"]["action"]) + len(data["labels"]["obs"]) + len(
        data["labels"]["info"]
    )
    assert len(drawn) == 6 and min(drawn) > 50, drawn
    assert page.locator("canvas").count() == len(drawn)
    # Text from the env is text: shown as written, never run.
    assert page.inner_text("#env-id") == f"Pendulum{HOSTILE}-v1"
    assert page.evaluate("window.__pwned") is None
    assert HOSTILE in page.inner_text("#now")
    # The player advances frames when played, and the frame shown changes.
    assert page.evaluate("window.anywrapReport.frame()") == 0
    speeds = page.eval_on_selector_all("#speed option", "os => os.map(o => +o.value)")
    assert speeds == [0.25, 0.5, 1, 2, 4, 8]
    first_src = page.get_attribute("#frame", "src")
    assert first_src and first_src.startswith("data:image/webp;base64,")
    page.click("#play")
    _wait_for(page, "window.anywrapReport.frame() >= 8")
    page.click("#play")  # pause
    frame = page.evaluate("window.anywrapReport.frame()")
    assert page.get_attribute("#frame", "src") != first_src
    assert page.input_value("#scrub") == str(frame)
    # Scrubbing moves the player and every chart's cursor; hovering a chart shows its value.
    page.fill("#scrub", "40")
    page.dispatch_event("#scrub", "input")
    assert page.evaluate("window.anywrapReport.frame()") == 40
    assert page.evaluate("window.anywrapReport.charts.map(u => u.cursor.idx)") == [40] * len(drawn)
    reward = data["envs"][0]["reward"][40]
    assert f"row 40: {reward:.3f}"[:14] in page.inner_text(".chart .val >> nth=0")
    box = page.locator(".chart .u-over").first.bounding_box()
    page.mouse.move(box["x"] + box["width"] * 0.25, box["y"] + box["height"] / 2)
    hovered = page.evaluate("window.anywrapReport.charts[0].cursor.idx")
    assert hovered not in (None, 40) and f"row {hovered}:" in page.inner_text(
        ".chart .val >> nth=0"
    )
    # Every chart shows the hovered step; a click moves the player there.
    assert page.evaluate("window.anywrapReport.charts.map(u => u.cursor.idx)") == [hovered] * 6
    page.mouse.click(box["x"] + box["width"] * 0.25, box["y"] + box["height"] / 2)
    assert page.evaluate("window.anywrapReport.frame()") == hovered
    page.mouse.move(5, 5)
    page.fill("#scrub", "40")
    page.dispatch_event("#scrub", "input")
    page.keyboard.press("ArrowRight")
    assert page.evaluate("window.anywrapReport.frame()") == 41
    assert problems == []
    assert requests == [path.as_uri()]  # the page itself, nothing else
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "record-html-pendulum.png"), full_page=True)
    page.close()


def test_vector_report_in_chromium_chooses_sub_envs(browser: Any, tmp_path: Path) -> None:
    env = ArrayVectorEnv(np.asarray, num_envs=3, mode=AutoresetMode.NEXT_STEP)
    envs = anywrap.vector.RecordHTML(env, tmp_path, step_trigger=lambda t: t == 0, report_length=40)
    envs.reset(seed=0)
    rng = np.random.default_rng(0)
    for _ in range(40):
        envs.step(rng.uniform(-1, 1, (3, 1)).astype(np.float32))
    envs.close()
    path = envs.report_paths[0]
    page, problems, requests = _open(browser, path)
    drawn = page.evaluate(_DRAWN)
    assert len(drawn) == 2 + 1 + 3 + 1 and min(drawn) > 20, drawn
    assert page.locator("#noframe").is_visible() and not page.locator("#frame").is_visible()
    buttons = page.locator("#envs button")
    assert buttons.count() == 3
    obs_chart = 3  # reward, return, action[0], then obs[0]
    before = page.evaluate(f"window.anywrapReport.charts[{obs_chart}].data[1]")
    buttons.nth(2).click()
    after = page.evaluate(f"window.anywrapReport.charts[{obs_chart}].data[1]")
    data = page.evaluate("window.anywrapReport.data")
    assert before == data["envs"][0]["obs"][0] and after == data["envs"][2]["obs"][0]
    assert "env 2" in page.inner_text("#envs button.on")
    assert page.locator("#episodes tr.ep").count() == len(data["envs"][2]["episodes"])
    # A dashed red line marks where the chosen sub-env's episode ended (terminated).
    ends = [r for r, t in enumerate(data["envs"][2]["terminated"]) if t]
    assert ends
    red = page.evaluate(
        """(r) => {
      const u = window.anywrapReport.charts[0], x = Math.round(u.valToPos(r, "x", true));
      const d = u.ctx.getImageData(x - 1, u.bbox.top, 3, u.bbox.height).data;
      let n = 0;
      for (let i = 0; i < d.length; i += 4) if (d[i] > 180 && d[i + 1] < 120 && d[i + 2] < 120) n++;
      return n;
    }""",
        ends[0],
    )
    assert red > 10, red
    # Playing without frames still advances the rows.
    page.click("#play")
    _wait_for(page, "window.anywrapReport.frame() >= 5")
    assert problems == [] and requests == [path.as_uri()]
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "record-html-vector.png"), full_page=True)
    page.close()
