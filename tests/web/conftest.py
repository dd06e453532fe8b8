"""Fixtures of the browser tests: a daemon hosting matches, and a headless Chromium.

The browser is the system's Chromium (Debian package `chromium`), driven by Playwright
for Python; no browser is ever downloaded. Without it the browser tests are skipped,
saying why.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import DaemonProcess

CHROMIUM = os.environ.get("JACQUETD_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
CHROMIUM_FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync", "--no-first-run"]
WAIT_MS = 60_000  # the longest a page waits for the daemon (a loaded machine, a bot's turn)


@pytest.fixture
def web_daemon(start_jacquetd: Callable[..., DaemonProcess], tmp_path: Path) -> DaemonProcess:
    """A private daemon with a match database, its web app on a free loopback port."""
    return start_jacquetd("--workers", "1", "--tcp", "off", "--gnubg", "off",
                          "--db", str(tmp_path / "matches.sqlite3"), "--seed", "11")


@pytest.fixture(scope="module")
def chromium() -> Iterator[Any]:
    """Headless Chromium (the system's), or a skip naming what is missing.

    One per test module, not per session: Playwright's sync API keeps an event loop
    running in this thread while it is open, and tests of other modules that run in
    the same process afterwards (in any order) call `asyncio.run`."""
    if not os.path.exists(CHROMIUM):
        pytest.skip(f"no Chromium at {CHROMIUM}: install the Debian package `chromium`")
    sync_api = pytest.importorskip(
        "playwright.sync_api", reason="Playwright for Python is not installed (extra `web`)")
    with sync_api.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True,
                                     args=CHROMIUM_FLAGS)
        yield browser
        browser.close()


@pytest.fixture
def new_page(chromium: Any) -> Iterator[Callable[[], Any]]:
    """Factory of pages, each in a browser context of its own (its own storage)."""
    contexts: list[Any] = []

    def make() -> Any:
        context = chromium.new_context(viewport={"width": 1300, "height": 900},
                                       accept_downloads=True)
        contexts.append(context)
        page = context.new_page()
        page.set_default_timeout(WAIT_MS)
        errors: list[str] = []
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.js_errors = errors
        return page

    yield make
    for context in contexts:
        context.close()
