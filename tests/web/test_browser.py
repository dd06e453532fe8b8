"""The web app in a real headless Chromium: games played through the page by clicks and
keys against a real daemon (tests/web/conftest.py starts both)."""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import DaemonProcess
from tests.web.pages import (
    open_app,
    state,
    take_turn,
    wait_any_turn,
    wait_change,
    wait_my_turn_or_end,
)

MAX_TURNS = 400  # a bound: no game between these players comes near it


def start_bot_game(page: Any, variant: str, *, length: int = 0, cube: bool = False) -> None:
    page.select_option("[data-testid=variant]", variant)
    page.select_option("[data-testid=level]", "random")
    page.fill("[data-testid=length]", str(length))
    if cube:
        page.check("[data-testid=cube]")
    page.click("[data-testid=start]")
    page.wait_for_selector("body[data-mode=match][data-status=playing]")


@pytest.mark.slow
def test_a_whole_game_against_the_bot_by_clicks(web_daemon: DaemonProcess,
                                                new_page: Callable[[], Any],
                                                tmp_path: Path) -> None:
    page = new_page()
    open_app(page, web_daemon.endpoints["web"])
    start_bot_game(page, "backgammon")
    moves = 0
    for _ in range(MAX_TURNS):
        wait_my_turn_or_end(page)
        if state(page)["status"] != "playing":
            break
        if take_turn(page) == "move":
            moves += 1
            if moves == 1:
                page.screenshot(path=str(tmp_path / "bot-game-first-move.png"))
    s = state(page)
    page.screenshot(path=str(tmp_path / "bot-game-over.png"))
    assert s["status"] == "over", s
    assert moves > 5
    assert re.search(r"match over: (you win|Bot \(random\) wins)", page.inner_text("#status"))
    # the record of the game, exported from the page
    page.click("[data-testid=export]")
    page.wait_for_function("() => document.getElementById('record').value.length > 0")
    record = page.input_value("[data-testid=record]")
    assert "jacquet-match" in record.lower() or "game 1" in record, record[:300]
    assert not page.js_errors


def test_jacquet_board_hint_and_keyboard_move(web_daemon: DaemonProcess,
                                              new_page: Callable[[], Any],
                                              tmp_path: Path) -> None:
    page = new_page()
    open_app(page, web_daemon.endpoints["web"])
    start_bot_game(page, "jacquet", length=3)
    board = page.locator("[data-testid=board]")
    assert board.get_attribute("data-variant") == "jacquet"
    # point numbers 1-24 and both pip counts are drawn
    assert page.locator("text.pointnum").count() == 24
    assert page.locator("text.pips").count() == 2
    wait_my_turn_or_end(page)
    last = state(page)["lastEvent"]
    page.keyboard.press("r")  # roll, by key
    wait_change(page, last)
    page.wait_for_selector("rect.hit.source")
    assert page.locator("g.die").count() == 2
    page.screenshot(path=str(tmp_path / "jacquet-rolled.png"))
    # an illegal move typed is explained with its rule id
    page.keyboard.press("m")
    page.keyboard.type("24/1")
    page.keyboard.press("Enter")
    page.wait_for_selector("#status.error")
    assert re.search(r"illegal_move \(rule [A-Z]+\d+\)", page.inner_text("#status")), \
        page.inner_text("#status")
    # the hint, asked for by key, ranks plays with their equity and bars
    page.keyboard.press("Escape")
    page.keyboard.press("h")
    page.wait_for_selector("[data-testid=play-row]")
    assert page.locator(".bars").count() >= 1
    best = page.locator("[data-testid=play-row] b").first.inner_text()
    page.screenshot(path=str(tmp_path / "jacquet-hint.png"))
    # the move made with the keyboard alone
    last = state(page)["lastEvent"]
    page.keyboard.press("m")
    page.keyboard.type(best)
    page.keyboard.press("Enter")
    wait_change(page, last)
    history = page.inner_text("[data-testid=history]")
    assert best.replace("*", "") in history.replace("*", ""), (best, history)
    # the evaluation of the position, asked for once the bot has played (an evaluation
    # is of one moment: the bot's move would take it away)
    wait_my_turn_or_end(page)
    page.keyboard.press("Escape")
    page.keyboard.press("e")
    page.wait_for_selector("[data-testid=evaluation]")
    assert "equity" in page.inner_text("[data-testid=evaluation]")
    assert not page.js_errors


@pytest.mark.slow
def test_a_hosted_match_between_two_browsers_with_the_cube_and_a_watcher(
        web_daemon: DaemonProcess, new_page: Callable[[], Any], tmp_path: Path) -> None:
    host, other, watcher, intruder = new_page(), new_page(), new_page(), new_page()
    url = web_daemon.endpoints["web"]
    open_app(host, url)
    host.click("#tab-host")
    host.select_option("#host-variant", "backgammon")
    host.fill("#host-length", "2")
    host.check("#host-cube")
    host.click("[data-testid=host-create]")
    host.wait_for_selector("[data-testid=seat1-link]")
    match_id = host.inner_text("[data-testid=host-id]")
    seat0 = host.inner_text("[data-testid=seat0-link]")
    token1 = host.inner_text("[data-testid=token1]")
    # a wrong token is refused on the page
    open_app(intruder, url)
    intruder.click("#tab-host")
    intruder.fill("[data-testid=join-id]", match_id)
    intruder.fill("[data-testid=join-token]", "not-the-token")
    intruder.click("[data-testid=join-button]")
    intruder.wait_for_selector("#status.error")
    assert "forbidden" in intruder.inner_text("#status")
    intruder.screenshot(path=str(tmp_path / "wrong-token.png"))
    # side 0 follows its link; side 1 joins with the match id and its token
    host.goto(seat0)
    host.wait_for_selector("body[data-mode=match][data-you='0']")
    open_app(other, url)
    other.click("#tab-host")
    other.fill("[data-testid=join-id]", match_id)
    other.fill("[data-testid=join-token]", token1)
    other.click("[data-testid=join-button]")
    other.wait_for_selector("body[data-mode=match][data-you='1']")
    open_app(watcher, f"{url}#w={match_id}")
    watcher.wait_for_selector("body[data-mode=watch][data-status=playing]")
    doubled = taken = reloaded = False
    for turns in range(1, MAX_TURNS + 1):
        page = wait_any_turn([host, other])
        if state(page)["status"] != "playing":
            break
        done = take_turn(page, double=not doubled)
        if done == "double":
            doubled = True
            other_page = other if page is host else host
            wait_my_turn_or_end(other_page)
            assert other_page.is_enabled("[data-testid=take]")
            other_page.screenshot(path=str(tmp_path / "double-offered.png"))
            assert take_turn(other_page) == "take"
            taken = True
            host.wait_for_selector("g.cube[data-cube='2']")
        if turns == 6 and not reloaded:
            before = int(state(watcher)["lastEvent"])
            watcher.reload()
            watcher.wait_for_selector("body[data-mode=watch]")
            assert int(state(watcher)["lastEvent"]) >= before
            # a player reloads too: the page's address keeps the match and the seat
            other.reload()
            other.wait_for_selector("body[data-mode=match][data-you='1']")
            reloaded = True
    assert doubled and taken and reloaded
    host.wait_for_selector("body[data-status=over]")
    other.wait_for_selector("body[data-status=over]")
    # the watcher, reloaded mid-match, followed it to its end
    watcher.wait_for_selector("body[data-status=over]")
    assert state(watcher)["lastEvent"] == state(host)["lastEvent"]
    for name, page in (("seat0", host), ("seat1", other), ("watcher", watcher)):
        page.screenshot(path=str(tmp_path / f"hosted-{name}-over.png"))
        assert not page.js_errors, (name, page.js_errors)
    assert "match over" in host.inner_text("#status")


def test_position_editor(web_daemon: DaemonProcess, new_page: Callable[[], Any],
                         tmp_path: Path) -> None:
    page = new_page()
    open_app(page, web_daemon.endpoints["web"])
    page.click("#tab-editor")
    page.wait_for_selector("body[data-phase=editor]")
    page.select_option("[data-testid=ed-variant]", "backgammon")
    page.wait_for_selector("[data-testid=board][data-variant=backgammon]")
    page.wait_for_function("() => document.getElementById('ed-id').textContent.length > 8")
    start_id = page.inner_text("[data-testid=ed-id]")
    # paste a board literal, ask for the legal plays and the analysis
    page.fill("[data-testid=ed-text]", "backgammon/24:2,13:5,8:3,6:5/24:2,13:5,8:3,6:5/-/00")
    page.click("[data-testid=ed-load]")
    page.wait_for_function("id => document.getElementById('ed-id').textContent === id",
                           arg=start_id)
    page.fill("[data-testid=ed-dice]", "31")
    page.click("[data-testid=ed-legal]")
    # the table's title (the button's own label, "Legal plays", matches a bare text=)
    page.wait_for_selector("#analysis h3:has-text('legal plays')")
    assert page.locator("[data-testid=play-row]").count() >= 10
    page.click("[data-testid=ed-analyze]")
    page.wait_for_selector("#analysis h3:has-text('Analysis')")
    assert page.locator("[data-testid=play-row] b").first.inner_text() == "8/5 6/5"
    # set up a position by clicks: a checker added changes the id; an incomplete side
    # is explained with the rule broken
    page.click("rect.hit[data-point='20']")
    page.wait_for_selector("#status.error")
    assert "bad_position" in page.inner_text("#status")
    page.check("input[name=ed-mode][value=remove]")
    page.click("rect.hit[data-point='20']")
    page.wait_for_function("id => document.getElementById('ed-id').textContent === id",
                           arg=start_id)
    page.screenshot(path=str(tmp_path / "editor.png"))
    assert not page.js_errors


def test_a_wrong_server_token_is_refused_on_the_page(start_jacquetd: Callable[..., DaemonProcess],
                                                     new_page: Callable[[], Any],
                                                     tmp_path: Path) -> None:
    token_file = tmp_path / "ws.token"
    token_file.write_text("s3cret-token-for-the-web-app\n")
    daemon = start_jacquetd("--workers", "1", "--tcp", "off", "--gnubg", "off", "--db", "off",
                            "--ws-token-file", str(token_file))
    page = new_page()
    page.goto(daemon.endpoints["web"])
    page.wait_for_selector("body[data-conn=refused]")
    # the reason comes from the server's close frame (a browser shows nothing else)
    assert state(page).get("refused") == "token_required"
    assert "needs an access token" in page.inner_text("#status")
    assert page.locator("[data-testid=board] circle.checker").count() > 0
    page.fill("[data-testid=server-token]", "a-wrong-token-of-some-length")
    page.click("#token-form button")
    page.wait_for_function(
        "() => document.getElementById('status').textContent.includes('refused')")
    assert "the server refused the access token" in page.inner_text("#status")
    assert state(page).get("refused") == "token_refused"
    page.screenshot(path=str(tmp_path / "server-token-refused.png"))
    page.fill("[data-testid=server-token]", "s3cret-token-for-the-web-app")
    page.click("#token-form button")
    page.wait_for_selector("body[data-conn=open]")
    time.sleep(0.1)
    assert not page.js_errors


def test_a_resignation_offered_and_accepted_in_the_page(web_daemon: DaemonProcess,
                                                        new_page: Callable[[], Any],
                                                        tmp_path: Path) -> None:
    first, second = new_page(), new_page()
    url = web_daemon.endpoints["web"]
    open_app(first, url)
    first.click("#tab-host")
    first.select_option("#host-variant", "jacquet")
    first.fill("#host-length", "3")
    first.click("[data-testid=host-create]")
    first.wait_for_selector("[data-testid=seat1-link]")
    links = [first.inner_text(f"[data-testid=seat{i}-link]") for i in (0, 1)]
    first.goto(links[0])
    open_app(second, links[1])
    first.wait_for_selector("body[data-mode=match][data-you='0']")
    second.wait_for_selector("body[data-mode=match][data-you='1']")
    resigner = wait_any_turn([first, second])
    answerer = second if resigner is first else first
    resigner.select_option("[data-testid=resign-points]", "2")
    resigner.click("[data-testid=resign]")
    answerer.wait_for_selector("[data-testid=accept]:enabled")
    assert "resigns (marcia" in answerer.inner_text("#status")
    answerer.screenshot(path=str(tmp_path / "resignation-offered.png"))
    answerer.click("[data-testid=accept]")
    for page in (first, second):
        page.wait_for_function("() => document.body.dataset.game === '2'"
                               " || document.body.dataset.status === 'over'")
    assert "score 0-2" in answerer.inner_text("[data-testid=match-info]") or \
        "score 2-0" in answerer.inner_text("[data-testid=match-info]")
    assert not first.js_errors and not second.js_errors
