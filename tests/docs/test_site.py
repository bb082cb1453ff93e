"""The site builds with no warning, holds an entry for every public name, and stays local."""

from __future__ import annotations

import html.parser
import importlib
import re
import sys
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))  # site_build.py

pytest_plugins = ["site_build"]  # the ``site`` fixture: the site, built once

NAMESPACES = ("anywrap", "anywrap.vector", "anywrap.functional")


class Links(html.parser.HTMLParser):
    """The ids of a page, the links it follows and the resources it loads."""

    LOADS = {"script": "src", "img": "src", "iframe": "src", "source": "src", "link": "href"}

    def __init__(self) -> None:
        super().__init__()
        self.ids: set[str] = set()
        self.links: list[str] = []
        self.loads: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if a.get("id"):
            self.ids.add(a["id"] or "")
        if tag == "a" and a.get("href"):
            self.links.append(a["href"] or "")
        if tag in self.LOADS and a.get(self.LOADS[tag]):
            if tag == "link" and (a.get("rel") or "") in ("canonical",):
                return
            self.loads.append(a[self.LOADS[tag]] or "")


def parse(page: Path) -> Links:
    links = Links()
    links.feed(page.read_text())
    return links


def is_remote(url: str) -> bool:
    parts = urlsplit(url)
    return bool(parts.scheme and parts.scheme not in ("data", "blob", "about")) or url.startswith(
        "//"
    )


def test_builds_with_no_warning(site):
    assert site.returncode == 0, site.log[-6000:]
    assert "WARNING" not in site.log, site.log[-6000:]


def entries(site) -> set[str]:
    """Every documented object's id (``anywrap.vector.ClipAction``) in the API pages."""
    ids: set[str] = set()
    for page in (site.html / "api").glob("*.html"):
        ids |= parse(page).ids
    return ids


@pytest.mark.parametrize("namespace", NAMESPACES)
def test_every_public_name_has_an_entry(site, namespace):
    ids = entries(site)
    module = importlib.import_module(namespace)
    # A module's entry is its own page (``module-anywrap.xp``).
    missing = [
        name
        for name in module.__all__
        if f"{namespace}.{name}" not in ids and f"module-{namespace}.{name}" not in ids
    ]
    assert not missing, f"no API entry for {namespace}.{missing}"


def test_every_public_wrapper_is_in_the_wrapper_table(site):
    import anywrap

    table = (site.html / "wrappers.html").read_text()
    wrappers = [name for name in anywrap.__all__ if name[0].isupper()]
    missing = [name for name in wrappers if f'<span class="pre">{name}</span>' not in table]
    assert not missing, missing


def test_wrapper_entries_show_their_example(site):
    """Each wrapper's entry holds the runnable example of its docstring."""
    import gymnasium as gym

    from anywrap import functional

    bases = (gym.Wrapper, gym.vector.VectorWrapper, functional.Wrapper)
    without = []
    for namespace in NAMESPACES:
        module = importlib.import_module(namespace)
        page = (site.html / "api" / f"{namespace.removeprefix('anywrap.')}.html").read_text()
        for name in module.__all__:
            obj = getattr(module, name)
            if not (isinstance(obj, type) and issubclass(obj, bases)) or obj is functional.Wrapper:
                continue
            start = page.index(f'id="{namespace}.{name}"')
            end = page.find('<dl class="py ', start + 1)
            entry = page[start : end if end > 0 else len(page)]
            if "&gt;&gt;&gt;" not in entry:
                without.append(f"{namespace}.{name}")
    assert not without, without


def test_nothing_is_loaded_from_elsewhere(site):
    """No page loads a script, style, image or frame from another host."""
    remote = {}
    for page in site.pages():
        loads = [url for url in parse(page).loads if is_remote(url)]
        if loads:
            remote[str(page.relative_to(site.html))] = loads
    assert not remote, remote
    for css in site.html.rglob("*.css"):
        urls = re.findall(r"url\(\s*['\"]?([^)'\"]+)", css.read_text())
        assert not [u for u in urls if is_remote(u)], (css, urls)


def test_internal_links_lead_somewhere(site):
    """Every internal link names a page that exists, and an anchor that page has."""
    ids = {page: parse(page).ids for page in site.pages()}
    broken = []
    for page in site.pages():
        for href in parse(page).links:
            if is_remote(href) or href.startswith("mailto:"):
                continue
            parts = urlsplit(href)
            target = (page.parent / unquote(parts.path)).resolve() if parts.path else page
            if target.is_dir():
                target = target / "index.html"
            if not target.exists():
                broken.append(f"{page.relative_to(site.html)} -> {href}")
            elif parts.fragment and target in ids and unquote(parts.fragment) not in ids[target]:
                broken.append(f"{page.relative_to(site.html)} -> {href} (no such anchor)")
    assert not broken, broken


def test_the_live_report_is_in_the_site(site):
    report = site.html / "examples" / "pendulum-episode-0.html"
    assert report.is_file()
    assert report.stat().st_size < 1_000_000
    page = (site.html / "guide" / "record-html.html").read_text()
    assert '<iframe class="anywrap-report" src="../examples/pendulum-episode-0.html"' in page
