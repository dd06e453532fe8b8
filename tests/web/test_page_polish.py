"""The web app as a first-time player meets it, in a real headless Chromium against a
real daemon: a board before Start, the players named as a real client names them, one
move-log format, hints that go once the turn changes, an end-of-game panel whose
"Review" and "New game" work, and a page that says why the server refused it."""

from __future__ import annotations

import re
import socket
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.conftest import DaemonProcess
from tests.web.conftest import CHROMIUM, CHROMIUM_FLAGS, WAIT_MS
from tests.web.pages import (
    open_app,
    play_by_clicks,
    state,
    take_turn,
    wait_my_turn_or_end,
)

NAME = r"(You|Bot \(random\))"
LOG_LINE = re.compile(
    r"^(Game \d+ — score \d+-\d+(, Crawford game)?"
    rf"|Opening roll: You \d, Bot \(random\) \d"
    rf"|{NAME} [1-6]-[1-6]: (no legal play|…|(bar|\d+)/(off|\d+)\*?( (bar|\d+)/(off|\d+)\*?)*)"
    rf"|{NAME} (offers? to resign \(\d points?\)|accepts? the resignation|rejects? the resignation"
    rf"|doubles? to \d+|takes?|drops?)"
    rf"|{NAME} wins? \d points? \(.*\))$")


def checkers(page: Any) -> int:
    return int(page.locator("[data-testid=board] circle.checker").count())


def test_a_first_game_against_the_bot(web_daemon: DaemonProcess,
                                      new_page: Callable[[], Any], tmp_path: Path) -> None:
    page = new_page()
    open_app(page, web_daemon.endpoints["web"])
    # a board is drawn before Start: the starting position of the variant chosen
    assert state(page)["mode"] == "idle"
    assert page.get_attribute("[data-testid=board]", "data-variant") == "jacquet"
    assert checkers(page) == 10  # two stacks of 15: five drawn each, with the count
    page.select_option("[data-testid=variant]", "backgammon")
    page.wait_for_selector("[data-testid=board][data-variant=backgammon]")
    assert checkers(page) == 30
    page.screenshot(path=str(tmp_path / "before-start.png"))

    page.select_option("[data-testid=level]", "random")
    page.click("[data-testid=start]")
    page.wait_for_selector("body[data-mode=match][data-status=playing]")
    first_match = state(page)["matchId"]
    # the players are named as a real client names them
    assert page.inner_text("[data-testid=players]") == "You v Bot (random)"
    text = page.inner_text("body")
    assert "you (you)" not in text and "bot:random" not in text

    hinted = False
    for _ in range(8):
        wait_my_turn_or_end(page)
        if state(page)["phase"] == "move":
            if not hinted:
                page.keyboard.press("h")
                page.wait_for_selector("[data-testid=play-row]")
                page.screenshot(path=str(tmp_path / "hint.png"))
            play_by_clicks(page)
            if not hinted:
                # the play is made: the turn changed, the hint of the last one is gone
                assert page.locator("[data-testid=play-row]").count() == 0
                hinted = True
        else:
            take_turn(page)
        assert page.locator("[data-testid=play-row]").count() == 0
    assert hinted

    # one move-log format, each line led by the player's name
    lines = [li.strip() for li in page.locator("[data-testid=history] li").all_inner_texts()]
    assert len(lines) >= 6, lines
    for line in lines:
        assert LOG_LINE.match(line), (line, lines)
    assert any(line.startswith("You ") for line in lines)
    assert any(line.startswith("Bot (random) ") for line in lines)

    # resign a backgammon (the bot accepts at once): the end-of-game panel
    assert page.is_hidden("[data-testid=game-over]")
    wait_my_turn_or_end(page)
    page.select_option("[data-testid=resign-points]", "3")
    page.click("[data-testid=resign]")
    page.wait_for_selector("[data-testid=game-over]:visible")
    assert page.inner_text("[data-testid=result]") == \
        "Bot (random) wins the game (backgammon, by resignation, 3 points)"
    assert page.is_enabled("[data-testid=new-game]") and page.is_enabled("[data-testid=review]")
    assert LOG_LINE.match(page.locator("[data-testid=history] li").last.inner_text())
    page.screenshot(path=str(tmp_path / "game-over.png"))

    # Review: the finished game analysed move by move, with the players' names
    page.click("[data-testid=review]")
    page.wait_for_selector("[data-testid=review-row]")
    summary = page.inner_text("[data-testid=review-summary]")
    assert "You" in summary and "Bot (random)" in summary
    rows = page.locator("[data-testid=review-row]").all_inner_texts()
    assert rows and all(re.search(NAME, row) for row in rows), rows
    page.screenshot(path=str(tmp_path / "review.png"), full_page=True)

    # New game: the same game against the same bot again
    page.click("[data-testid=new-game]")
    page.wait_for_function(
        "m => document.body.dataset.matchId !== m && document.body.dataset.status === 'playing'",
        arg=first_match)
    assert page.is_hidden("[data-testid=game-over]")
    assert page.get_attribute("[data-testid=board]", "data-variant") == "backgammon"
    assert page.inner_text("[data-testid=players]") == "You v Bot (random)"
    assert page.locator("[data-testid=play-row]").count() == 0
    assert not page.js_errors


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_a_page_from_an_origin_not_allowed_says_why(
        start_jacquetd: Callable[..., DaemonProcess], chromium: Any, tmp_path: Path) -> None:
    """The page is opened under a host name the daemon does not allow (Chromium maps the
    name to loopback): the server refuses its WebSocket with the reason in the close
    frame, and the page shows it. Once the origin is allowed, the same page connects
    (its Content-Security-Policy lets it reach its own host, whatever the name)."""
    port = free_port()
    allowed = start_jacquetd("--workers", "1", "--tcp", "off", "--gnubg", "off", "--db", "off",
                             "--ws", f"127.0.0.1:{port}",
                             "--ws-origin", f"http://allowed.test:{port}")
    browser = chromium.browser_type.launch(
        executable_path=CHROMIUM, headless=True,
        args=[*CHROMIUM_FLAGS,
              "--host-resolver-rules=MAP refused.test 127.0.0.1, MAP allowed.test 127.0.0.1"])
    try:
        page = browser.new_page(viewport={"width": 1300, "height": 900})
        page.set_default_timeout(WAIT_MS)
        errors: list[str] = []
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.goto(f"http://refused.test:{port}/")
        page.wait_for_selector("body[data-conn=refused]")
        assert state(page).get("refused") == "origin_not_allowed"
        status = page.inner_text("#status")
        assert "does not accept connections from this page's address" in status, status
        assert "origin_not_allowed" in status and "--ws-origin" in status, status
        assert checkers(page) == 10  # the board is drawn all the same
        page.screenshot(path=str(tmp_path / "origin-refused.png"))
        assert "event=ws_refused" in allowed.log_text()

        page.goto(f"http://allowed.test:{port}/")
        page.wait_for_selector("body[data-conn=open]")
        assert not errors, errors
    finally:
        browser.close()
