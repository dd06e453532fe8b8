"""Player names chosen to break the page are shown as text in every view of the web app:
a seat, a watcher, the move log, the evaluation and the review of the finished match.

The names are given to `match_new` by a program over the daemon's WebSocket endpoint
(as any client may); three real Chromium pages then show the match: the two seats and a
watcher. The page must neither gain an element from a name (a `<meta http-equiv=refresh>`
navigates the page away, `<img onerror>` and `<a>` add content) nor leave its address."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from websockets.sync.client import connect

from tests.conftest import REPO, DaemonProcess
from tests.web.pages import open_app, state, take_turn, wait_any_turn, wait_change

NAMES = (
    '<img src=x onerror="document.title=1"><a href="/?pwned=2">a</a>',
    '<meta http-equiv=refresh content="1;url=/?pwned=1">',
)

INJECTED = """() => ({
    meta: document.querySelectorAll('body meta').length,
    img: document.querySelectorAll('img').length,
    a: document.querySelectorAll('body a').length,
    title: document.title,
    href: location.href,
})"""


def request(daemon: DaemonProcess, cmd: str, **args: Any) -> dict[str, Any]:
    """One JSON request over the daemon's WebSocket endpoint, as a program sends it."""
    with connect(f"ws://{daemon.endpoints['ws']}/ws", open_timeout=30) as conn:
        conn.send(json.dumps({"id": 1, "cmd": cmd, **args}))
        reply = json.loads(conn.recv(timeout=60))
    assert reply["ok"], reply
    result: dict[str, Any] = reply["result"]
    return result


def assert_nothing_injected(page: Any, url: str, where: str) -> None:
    found = page.evaluate(INJECTED)
    assert found["meta"] == 0 and found["img"] == 0 and found["a"] == 0, (where, found)
    assert found["title"] == "jacquetd", (where, found)
    assert found["href"].startswith(url) and "pwned" not in found["href"], (where, found)


def test_hostile_names_are_text_in_every_view(web_daemon: DaemonProcess,
                                              new_page: Callable[[], Any],
                                              tmp_path: Path) -> None:
    url = web_daemon.endpoints["web"]
    match = request(web_daemon, "match_new", variant="backgammon", length=1,
                    seat0="client", seat1="client", name0=NAMES[0], name1=NAMES[1])
    mid, tokens = match["match_id"], match["tokens"]
    seat0, seat1, watcher = new_page(), new_page(), new_page()
    seats = [seat0, seat1]
    pages = {"seat0": (seat0, f"{url}#m={mid}&t={tokens[0]}"),
             "seat1": (seat1, f"{url}#m={mid}&t={tokens[1]}"),
             "watcher": (watcher, f"{url}#w={mid}")}
    for _name, (page, link) in pages.items():
        open_app(page, link)
    seat0.wait_for_selector("body[data-mode=match][data-you='0']")
    seat1.wait_for_selector("body[data-mode=match][data-you='1']")
    watcher.wait_for_selector("body[data-mode=watch][data-status=playing]")

    # the evaluation names the side on roll: a hostile name on the watcher's page and on
    # the page of the seat not on roll
    on_roll = int(state(watcher)["toAct"])
    for name, (page, _) in pages.items():
        page.click("[data-testid=evaluate]")
        page.wait_for_selector("[data-testid=evaluation]")
        heading = page.inner_text("[data-testid=evaluation]")
        expected = "You" if name == f"seat{on_roll}" else NAMES[on_roll]
        assert heading.startswith(f"Evaluation for {expected} (on roll)"), (name, heading)
        assert_nothing_injected(page, url, f"{name}: evaluation")

    # the seats and the watcher name the players; each seat sees the other's name
    players = {name: page.inner_text("[data-testid=players]")
               for name, (page, _) in pages.items()}
    assert players["seat0"] == f"You v {NAMES[1]}", players
    assert players["seat1"] == f"{NAMES[0]} v You", players
    assert players["watcher"] == f"{NAMES[0]} v {NAMES[1]}", players

    # a few turns played through the pages: the move log names the players
    for _ in range(4):
        page = wait_any_turn(seats)
        take_turn(page)
    last = state(watcher)["lastEvent"]
    for page in seats:
        page.wait_for_function("e => Number(document.body.dataset.lastEvent) >= Number(e)",
                               arg=last)
    history = watcher.inner_text("[data-testid=history]")
    assert NAMES[0] in history and NAMES[1] in history, history
    assert NAMES[0] in seat1.inner_text("[data-testid=history]")
    assert NAMES[1] in seat0.inner_text("[data-testid=history]")

    # the side to act resigns a backgammon; the other accepts: the match is over
    resigner = wait_any_turn(seats)
    answerer = seat1 if resigner is seat0 else seat0
    resigner.select_option("[data-testid=resign-points]", "3")
    resigner.click("[data-testid=resign]")
    answerer.wait_for_selector("[data-testid=accept]:enabled")
    assert NAMES[0 if resigner is seat0 else 1] in answerer.inner_text("#status")
    last = state(answerer)["lastEvent"]
    answerer.click("[data-testid=accept]")
    wait_change(answerer, last)
    winner = 1 if resigner is seat0 else 0
    for name, (page, _) in pages.items():
        page.wait_for_selector("[data-testid=game-over]:visible")
        result = page.inner_text("[data-testid=result]")
        expected = "You win" if name == f"seat{winner}" else f"{NAMES[winner]} wins"
        assert result.startswith(expected), (name, result)
        # the review of the finished match names both players
        page.click("[data-testid=review]")
        page.wait_for_selector("[data-testid=review-row]")
        review = page.inner_text("[data-testid=analysis]")
        for side in (0, 1):
            if name != f"seat{side}":
                assert NAMES[side] in review, (name, side, review[:400])
        assert_nothing_injected(page, url, f"{name}: review")

    time.sleep(1.5)  # longer than the refresh a <meta> name asks for
    for name, (page, _) in pages.items():
        assert_nothing_injected(page, url, name)
        assert page.locator("body[data-mode]").count() == 1
        page.screenshot(path=str(tmp_path / f"hostile-{name}.png"), full_page=True)
        assert not page.js_errors, (name, page.js_errors)

    # a watcher's "New game" leaves the match for the Play tab and its start board
    watcher.click("[data-testid=new-game]")
    watcher.wait_for_selector("body[data-mode=idle]")
    assert "#w=" not in watcher.url and watcher.is_hidden("[data-testid=game-over]")
    assert watcher.locator("[data-testid=board] circle.checker").count() == 10
    assert watcher.inner_text("[data-testid=history]") == ""


def test_the_page_makes_no_element_from_a_string() -> None:
    """The app's scripts never turn a string into markup: elements come from dom.js's
    `h` (text nodes and attributes) and board.js's SVG builder only."""
    sinks = re.compile(r"innerHTML|outerHTML|insertAdjacentHTML|document\.write|"
                       r"createContextualFragment|DOMParser|srcdoc|\beval\(|new Function")
    scripts = sorted((REPO / "jacquetd" / "web").glob("*.js"))
    assert len(scripts) >= 4
    for script in scripts:
        for n, line in enumerate(script.read_text().splitlines(), 1):
            assert not sinks.search(line), f"{script.name}:{n}: {line.strip()}"
