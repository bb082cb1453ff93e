"""Every page of the site in a real browser: Debian's chromium, headless, driven by Playwright.

Each page must load with no console error, no failed request and no request
to anywhere but the local server (those are blocked, and recorded); every
internal link on it must answer. Screenshots of the home page and of an API
page go to ``test-artifacts/``. ``make test`` installs chromium (apt) and
Playwright (the dev extra); Playwright's own browser download is not used.
"""

from __future__ import annotations

import functools
import http.server
import os
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urldefrag, urljoin, urlsplit

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))  # blocks.py, site_build.py
from blocks import ROOT

pytest_plugins = ["site_build"]  # the ``site`` fixture: the site, built once

sync_api = pytest.importorskip("playwright.sync_api")

ARTIFACTS = ROOT / "test-artifacts"
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


class Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture(scope="module")
def served(site) -> Iterator[str]:
    """The built site on a local port: its base URL."""
    assert site.returncode == 0, site.log[-4000:]
    handler = functools.partial(Quiet, directory=str(site.html))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/"
    server.shutdown()
    server.server_close()


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    if not os.path.exists(CHROMIUM):
        pytest.skip(f"no chromium at {CHROMIUM} (make test installs Debian's)")
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        yield b
        b.close()


class Visitor:
    """One browser tab that loads pages and records what goes wrong on each."""

    def __init__(self, browser: Any, base: str) -> None:
        self.base = base
        self.found: dict[str, list] = {}
        self.context = browser.new_context(viewport={"width": 1280, "height": 900})
        self.context.route("**/*", self._route)
        self.page = page = self.context.new_page()
        page.on("console", self._console)
        page.on("pageerror", lambda e: self.found["errors"].append(f"page error: {e}"))
        page.on("response", self._response)
        page.on("requestfailed", self._failed)

    def _route(self, r: Any) -> None:
        if r.request.url.startswith((self.base, "data:", "blob:")):
            r.continue_()
        else:  # nothing may leave the machine: blocked, and recorded
            self.found["remote"].append(r.request.url)
            r.abort()

    def _console(self, m: Any) -> None:
        if m.type == "error":
            self.found["errors"].append(f"console {m.type}: {m.text}")

    def _response(self, r: Any) -> None:
        if r.status >= 400:
            self.found["failed"].append(f"{r.status} {r.url}")

    def _failed(self, r: Any) -> None:
        if r.url.startswith(self.base):
            self.found["failed"].append(f"{r.failure} {r.url}")

    def visit(self, url: str, screenshot: Path | None = None) -> dict[str, list]:
        """Load ``url``; what went wrong there, and the internal links on the page."""
        self.found = {"errors": [], "remote": [], "failed": [], "links": []}
        response = self.page.goto(url, wait_until="load")
        assert response is not None and response.ok, (url, response and response.status)
        self.page.wait_for_load_state("networkidle")
        hrefs = self.page.eval_on_selector_all("a[href]", "els => els.map(e => e.href)")
        self.found["links"] = sorted({urldefrag(h)[0] for h in hrefs if h.startswith(self.base)})
        if screenshot is not None:
            ARTIFACTS.mkdir(exist_ok=True)
            self.page.screenshot(path=str(screenshot))
        return self.found

    def close(self) -> None:
        self.context.close()


def test_every_page_loads_cleanly(site, served, browser):
    pages = [str(p.relative_to(site.html)) for p in site.pages()]
    assert len(pages) > 20, pages
    problems = {}
    links: set[str] = set()
    visitor = Visitor(browser, served)
    for rel in pages:
        found = visitor.visit(urljoin(served, rel))
        links |= set(found.pop("links"))
        bad = {k: v for k, v in found.items() if v}
        if bad:
            problems[rel] = bad
    visitor.close()
    assert not problems, problems
    # Every internal link answers (anchors are checked in test_site.py).
    import urllib.request

    dead = []
    for link in sorted(links):
        try:
            with urllib.request.urlopen(link, timeout=10) as r:
                ok = r.status == 200
        except OSError:
            ok = False
        if not ok:
            dead.append(urlsplit(link).path)
    assert not dead, dead


def test_screenshots(served, browser):
    """The home page and an API page, for a person to look at."""
    for url, name in (
        (served, "docs-home.png"),
        (urljoin(served, "api/vector.html"), "docs-api.png"),
    ):
        visitor = Visitor(browser, served)
        found = visitor.visit(url, screenshot=ARTIFACTS / name)
        visitor.close()
        assert not found["errors"] and not found["remote"], found
        assert (ARTIFACTS / name).stat().st_size > 10_000
