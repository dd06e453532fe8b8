"""Long Nardy in the web app, in a real headless Chromium against a real daemon: a whole
game against the bot played through the page, with a hint on the way and the game's
review at its end, and the head rule's refusal (RULES.md N5) shown with its rule id.

The plays are chosen by the test from the daemon's own `legal_moves` (asked over a
WebSocket connection of its own, as any client would) and entered as a person does:
by clicking checkers and destinations, or by typing the move (key "m", the move, Enter).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from websockets.sync.client import ClientConnection, connect

from tests.conftest import DaemonProcess
from tests.web.conftest import WAIT_MS
from tests.web.pages import open_app, play_by_clicks, state, wait_change

MAX_TURNS = 400  # a bound: a Long Nardy game between these players is far shorter
CLICKED_TURNS = 3  # the first plays are made by clicks on the board, the others typed


class Daemon:
    """The test's own connection to the daemon (JSON over its WebSocket endpoint)."""

    def __init__(self, conn: ClientConnection) -> None:
        self.conn = conn
        self.next_id = 0

    def request(self, cmd: str, **args: Any) -> dict[str, Any]:
        self.next_id += 1
        self.conn.send(json.dumps({"id": self.next_id, "cmd": cmd, **args}))
        while True:
            reply = json.loads(self.conn.recv(timeout=WAIT_MS / 1000))
            if reply.get("id") == self.next_id and not reply.get("partial"):
                break
        assert reply["ok"], reply
        result: dict[str, Any] = reply["result"]
        return result

    def match_state(self, page: Any) -> dict[str, Any]:
        """The match the page shows, as a watcher sees it."""
        return self.request("match_state", match_id=state(page)["matchId"])


@pytest.fixture
def daemon_client(web_daemon: DaemonProcess) -> Iterator[Daemon]:
    with connect(f"ws://{web_daemon.endpoints['ws']}/ws", open_timeout=30) as conn:
        yield Daemon(conn)


def start_long_nardy(page: Any, level: str, *, length: int) -> None:
    page.select_option("[data-testid=variant]", "long-nardy")
    page.select_option("[data-testid=level]", level)
    page.fill("[data-testid=length]", str(length))
    page.click("[data-testid=start]")
    page.wait_for_selector("body[data-mode=match][data-status=playing]")


# This page may act: the match is over, or it is its turn to roll, or to move (the
# page's own turn builder is ready, or there is nothing to build: a typed move needs none).
MAY_ACT = """() => {
    const d = document.body.dataset;
    if (d.status !== 'playing') return true;
    if (d.toAct !== d.you) return false;
    return !document.getElementById('roll').disabled || d.phase === 'move';
}"""


def wait_may_act(page: Any) -> None:
    page.wait_for_function(MAY_ACT, timeout=WAIT_MS)


def roll(page: Any) -> None:
    last = state(page)["lastEvent"]
    page.keyboard.press("Escape")  # out of the move field, if a typed move left it there
    page.keyboard.press("r")
    wait_change(page, last)


def type_move(page: Any, move: str) -> None:
    page.keyboard.press("Escape")
    page.keyboard.press("m")
    page.keyboard.type(move)
    page.keyboard.press("Enter")


def first_legal_play(daemon: Daemon, page: Any) -> str:
    st = daemon.match_state(page)
    assert st["phase"] == "move" and st["to_act"] == int(state(page)["you"]), st
    plays = daemon.request("legal_moves", position=st["position"])["plays"]
    move: str = plays[0]["move"] or "pass"
    return move


@pytest.mark.slow
def test_a_whole_long_nardy_game_against_the_bot(web_daemon: DaemonProcess,
                                                 daemon_client: Daemon,
                                                 new_page: Callable[[], Any],
                                                 tmp_path: Path) -> None:
    page = new_page()
    open_app(page, web_daemon.endpoints["web"])
    start_long_nardy(page, "random", length=0)
    board = page.locator("[data-testid=board]")
    assert board.get_attribute("data-variant") == "long-nardy"
    assert page.locator("[data-testid=board] circle.checker").count() > 0
    assert "long-nardy, money game" in page.inner_text("[data-testid=match-info]")
    moves = clicked = 0
    for _ in range(MAX_TURNS):
        wait_may_act(page)
        if state(page)["status"] != "playing":
            break
        if page.is_enabled("[data-testid=roll]"):
            roll(page)
            continue
        if clicked < CLICKED_TURNS:
            page.wait_for_selector("rect.hit.source")
            play_by_clicks(page)
            clicked += 1
        else:
            move = first_legal_play(daemon_client, page)
            if moves == CLICKED_TURNS:  # the hint ranks this turn's plays, by the network
                page.keyboard.press("Escape")
                page.keyboard.press("h")
                page.wait_for_selector("[data-testid=play-row]")
                assert page.locator(".bars").count() >= 1
            last = state(page)["lastEvent"]
            type_move(page, move)
            wait_change(page, last)
            assert not page.locator("#status.error").count(), page.inner_text("#status")
        moves += 1
        if moves == CLICKED_TURNS:
            page.screenshot(path=str(tmp_path / "long-nardy-early.png"))
    page.wait_for_selector("[data-testid=board][data-variant=long-nardy]")
    page.screenshot(path=str(tmp_path / "long-nardy-over.png"))
    s = state(page)
    assert s["status"] == "over", s
    assert moves > 10, moves
    # the end says who won and how (N9: oin, 1 point; mars, 2), in the status line,
    # the end-of-game panel and the move log
    assert re.search(r"match over: (you win|Bot \(random\) wins)", page.inner_text("#status"))
    result = page.inner_text("[data-testid=result]")
    assert re.search(r"(You win|Bot \(random\) wins) the game \((oin|mars), [12] points?\)",
                     result), result
    history = page.inner_text("[data-testid=history]")
    assert re.search(r"(You win|Bot \(random\) wins) [12] points? \((oin|mars)\)", history), \
        history[-300:]
    final = daemon_client.match_state(page)
    assert final["status"] == "over"
    # the result on the page is the daemon's: its winner and its points
    winner = "You win" if final["winner"] == int(s["you"]) else "Bot (random) wins"
    assert result.startswith(winner), (final["winner"], result)
    points = final["score"][final["winner"]]
    assert f"({'oin' if points == 1 else 'mars'}, {points} point" in result, (final, result)
    # Review: the finished game analysed move by move
    page.click("[data-testid=review]")
    page.wait_for_selector("[data-testid=review-row]")
    assert "You" in page.inner_text("[data-testid=review-summary]")
    assert not page.js_errors


def test_the_head_rule_refusal_is_shown_with_its_rule_id(web_daemon: DaemonProcess,
                                                         daemon_client: Daemon,
                                                         new_page: Callable[[], Any],
                                                         tmp_path: Path) -> None:
    page = new_page()
    open_app(page, web_daemon.endpoints["web"])
    start_long_nardy(page, "heuristic", length=1)
    for _ in range(MAX_TURNS):
        wait_may_act(page)
        assert state(page)["status"] == "playing", "the game ended before a non-double roll"
        if page.is_enabled("[data-testid=roll]"):
            roll(page)
            continue
        st = daemon_client.match_state(page)
        a, b = st["position"]["dice"]
        head = st["position"]["on_roll"][24]
        if a != b and head >= 2:
            break
        # a double (which may let two leave on a first turn): play it and try the next roll
        last = state(page)["lastEvent"]
        type_move(page, first_legal_play(daemon_client, page))
        wait_change(page, last)
    else:
        pytest.fail("no non-double roll came")
    # two checkers off the head in one turn: refused, naming N5
    last = state(page)["lastEvent"]
    type_move(page, f"24/{24 - a} 24/{24 - b}")
    page.wait_for_selector("#status.error")
    text = page.inner_text("#status")
    assert re.search(r"illegal_move \(rule N5\)", text), text
    page.screenshot(path=str(tmp_path / "long-nardy-head-rule.png"))
    # nothing was played: the same turn, still ours to move
    s = state(page)
    assert s["lastEvent"] == last and s["phase"] == "move" and s["toAct"] == s["you"], s
    assert daemon_client.match_state(page)["position"]["on_roll"][24] == head
    # one checker off the head with the same dice is a legal play (one of the daemon's:
    # the way on from the head may be held by the opponent, whose checkers the dice place)
    plays = [p["move"] for p in daemon_client.request(
        "legal_moves", position=daemon_client.match_state(page)["position"])["plays"]]
    one_off = [m for m in plays if m and m.count("24/") == 1]
    assert one_off, plays
    type_move(page, one_off[0])
    wait_change(page, last)
    assert not page.locator("#status.error").count(), page.inner_text("#status")
    mine = [line for line in page.inner_text("[data-testid=history]").splitlines()
            if line.startswith(f"You {a}-{b}: ")]
    assert len(mine) == 1 and mine[0].count("24/") == 1, mine
    assert not page.js_errors
