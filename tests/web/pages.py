"""What a person does on the web app's page, as functions of a Playwright page.

Every action goes through the page (clicks and keys); the page's state is read from
the data attributes it keeps on <body> (phase, toAct, you, status, lastEvent).
"""

from __future__ import annotations

import time
from typing import Any

from tests.web.conftest import WAIT_MS


def state(page: Any) -> dict[str, str]:
    data: dict[str, str] = page.evaluate("() => ({...document.body.dataset})")
    return data


def open_app(page: Any, url: str) -> None:
    page.goto(url)
    page.wait_for_selector("body[data-conn=open]")


def my_turn(page: Any) -> bool:
    s = state(page)
    return s.get("status") == "playing" and s.get("toAct") == s.get("you")


def wait_change(page: Any, last_event: str) -> None:
    """Wait until the match moved on from `last_event` (or is over)."""
    page.wait_for_function(
        "last => document.body.dataset.lastEvent !== last"
        " || document.body.dataset.status !== 'playing'", arg=last_event, timeout=WAIT_MS)


CAN_ACT = """() => {
    const d = document.body.dataset;
    if (d.status !== 'playing') return true;
    if (d.toAct !== d.you) return false;
    const on = (id) => !document.getElementById(id).disabled;
    return on('roll') || on('take') || on('double') || (d.phase === 'move'
        && document.querySelector('rect.hit.source, rect.hit.target') !== null);
}"""


def wait_my_turn_or_end(page: Any) -> None:
    """Wait until this page may act (a button or a checker to click) or the match ended."""
    page.wait_for_function(CAN_ACT, timeout=WAIT_MS)


def wait_any_turn(pages: list[Any]) -> Any:
    """The first of `pages` that may act (or sees the match over), polling each in turn:
    a page that has not yet redrawn the other's last action is never waited on alone."""
    deadline = time.monotonic() + WAIT_MS / 1000
    while time.monotonic() < deadline:
        for page in pages:
            if page.evaluate(CAN_ACT):
                return page
        time.sleep(0.05)
    raise TimeoutError(f"no page could act within {WAIT_MS} ms")


def play_by_clicks(page: Any) -> None:
    """Make the play due by clicking checkers and highlighted destinations, then Confirm."""
    for _ in range(12):
        if page.is_enabled("[data-testid=confirm]"):
            break
        target = page.locator("rect.hit.target")
        if target.count():
            target.first.click()
        else:
            page.locator("rect.hit.source").first.click()
    assert page.is_enabled("[data-testid=confirm]"), "the page offered no complete play"
    last = state(page)["lastEvent"]
    page.click("[data-testid=confirm]")
    wait_change(page, last)


def take_turn(page: Any, *, double: bool = False) -> str:
    """Act once when it is this page's turn: roll (or double first), take, or move.
    Returns what was done."""
    last = state(page)["lastEvent"]
    if double and page.is_enabled("[data-testid=double]"):
        page.click("[data-testid=double]")
        wait_change(page, last)
        return "double"
    if page.is_enabled("[data-testid=take]"):
        page.click("[data-testid=take]")
        wait_change(page, last)
        return "take"
    if page.is_enabled("[data-testid=roll]"):
        page.click("[data-testid=roll]")
        wait_change(page, last)
        return "roll"
    if state(page).get("phase") == "move":
        play_by_clicks(page)
        return "move"
    return ""
