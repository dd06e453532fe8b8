"""The Review tab in a real headless Chromium against a real daemon: a finished
bot-against-bot match reviewed by its hosted id and by its pasted record, the graph,
a jump from the graph, the summary against the daemon's own, and the exports."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from websockets.sync.client import connect

from tests.conftest import DaemonProcess
from tests.web.conftest import WAIT_MS
from tests.web.pages import open_app


class Ws:
    """The daemon's WebSocket endpoint spoken in JSON, one request at a time."""

    def __init__(self, conn: Any) -> None:
        self.conn = conn
        self.next = 0

    def __call__(self, cmd: str, **args: Any) -> dict[str, Any]:
        self.next += 1
        self.conn.send(json.dumps({"id": self.next, "cmd": cmd, **args}))
        while True:
            reply = json.loads(self.conn.recv(timeout=WAIT_MS / 1000))
            if reply["id"] == self.next and not reply.get("partial"):
                assert reply["ok"], reply
                result: dict[str, Any] = reply["result"]
                return result


def finished_bot_match(ws: Ws, *, length: int = 3) -> str:
    """A hosted backgammon match between two `heuristic` bots (they double and take),
    played to its end."""
    r = ws("match_new", variant="backgammon", length=length, cube=True, seed=3,
           seat0="heuristic", seat1="heuristic")
    deadline = time.monotonic() + WAIT_MS / 1000
    while time.monotonic() < deadline:
        if ws("match_state", match_id=r["match_id"])["status"] == "over":
            return str(r["match_id"])
        time.sleep(0.2)
    raise TimeoutError("the bots' match did not end")


def summary_cells(page: Any) -> dict[tuple[int, str], str]:
    cells = page.eval_on_selector_all(
        "[data-testid=review-summary] td[data-field]",
        "tds => tds.map(td => [Number(td.dataset.side), td.dataset.field, td.dataset.value])")
    return {(side, field): value for side, field, value in cells}


def test_review_a_finished_match_graph_jump_summary_and_export(
        web_daemon: DaemonProcess, new_page: Callable[[], Any], tmp_path: Path) -> None:
    with connect(f"ws://{web_daemon.endpoints['ws']}/ws", open_timeout=10) as conn:
        ws = Ws(conn)
        match_id = finished_bot_match(ws)
        daemon = ws("analyze_record", match_id=match_id, plies=0)
        record = ws("match_export", match_id=match_id)["record"]
    decisions = len(daemon["moves"]) + len(daemon["cube"])
    assert decisions > 4 and daemon["cube"]

    page = new_page()
    open_app(page, web_daemon.endpoints["web"])
    page.click("[data-testid=tab-review]")
    page.fill("[data-testid=rv-id]", match_id)
    page.click("[data-testid=rv-start]")
    page.wait_for_selector("[data-testid=review-graph]")

    # the graph: one point per decision, the first one current
    points = page.locator("[data-testid=graph-point]")
    assert points.count() == decisions
    assert page.locator("[data-testid=graph-point].current").get_attribute("data-index") == "0"
    rows = page.locator("[data-testid=review-row]")
    assert rows.count() == decisions
    first_board = page.inner_html("[data-testid=board]")
    page.screenshot(path=str(tmp_path / "review.png"), full_page=True)

    # a click on a point of the graph jumps there: the board, the list's selection, the text
    target = decisions // 2 + 1
    # (points may overlap: the click goes to the decision nearest to it along the match)
    page.locator(f"[data-testid=graph-point][data-index='{target}']").click(force=True)
    page.wait_for_function("i => document.body.dataset.reviewIndex === String(i)", arg=target)
    selected = page.locator("[data-testid=review-row].selected")
    assert selected.count() == 1 and selected.get_attribute("data-index") == str(target)
    current = page.locator("[data-testid=graph-point].current")
    assert current.get_attribute("data-index") == str(target)
    assert page.get_attribute("[data-testid=board]", "data-decision") == str(target)
    assert page.inner_html("[data-testid=board]") != first_board
    assert page.inner_text("[data-testid=review-position]") == f"{target + 1} / {decisions}"
    page.screenshot(path=str(tmp_path / "review-jump.png"), full_page=True)
    # a move decision shows its played play, as text and as arrows on the board
    move_row = page.locator("[data-testid=review-row][data-kind=move]").nth(3)
    move_row.click()
    index = int(move_row.get_attribute("data-index") or "-1")
    page.wait_for_function("i => document.body.dataset.reviewIndex === String(i)", arg=index)
    moves = sorted(daemon["moves"], key=lambda m: (m["game"], m["index"]))
    played = page.inner_text("[data-testid=review-played]")
    assert moves[3]["move"] in played, (played, moves[3])
    assert page.locator("[data-testid=board] line.arrow.played").count() >= 1
    # the keyboard steps
    page.keyboard.press("ArrowRight")
    page.wait_for_function("i => document.body.dataset.reviewIndex === String(i)", arg=index + 1)
    page.keyboard.press("Home")
    page.wait_for_function("() => document.body.dataset.reviewIndex === '0'")

    # the summary: each player's figures are the daemon's own
    cells = summary_cells(page)
    for entry in daemon["summary"]:
        side = entry["side"]
        for field in ("decisions", "loss", "cube_decisions", "cube_loss", "error_rate", "pr"):
            assert float(cells[(side, field)]) == entry[field], (side, field)
        for mark in ("doubtful", "error", "blunder"):
            assert int(cells[(side, mark)]) == entry["marks"][mark], (side, mark)
        assert float(cells[(side, "luck")]) == entry["luck"]

    # the annotated match downloads, as gnubg's SGF and as our record
    for button, suffix, head in (("rv-export-sgf", ".sgf", "(;FF[4]GM[6]"),
                                 ("rv-export-record", ".jmat", "; [Format")):
        with page.expect_download() as info:
            page.click(f"[data-testid={button}]")
        saved = tmp_path / f"export{suffix}"
        info.value.save_as(saved)
        assert info.value.suggested_filename.endswith(suffix)
        assert saved.read_text().startswith(head)
    assert "A[" in (tmp_path / "export.sgf").read_text()

    # the same match pasted as text: the same decisions
    page.fill("[data-testid=rv-id]", "")
    page.fill("[data-testid=rv-text]", record)
    page.click("[data-testid=rv-start]")
    page.wait_for_function(
        "() => document.querySelector('[data-testid=review-title]')"
        " && document.body.dataset.reviewing === ''")
    assert page.locator("[data-testid=graph-point]").count() == decisions
    assert summary_cells(page) == cells

    # the annotated record, picked as a file: read back, the same review
    page.fill("[data-testid=rv-text]", "")
    page.set_input_files("[data-testid=rv-file]", str(tmp_path / "export.jmat"))
    page.wait_for_function("() => document.getElementById('rv-text').value.includes(';@ move')")
    page.click("[data-testid=rv-start]")
    page.wait_for_function("() => document.body.dataset.reviewing === ''")
    assert page.locator("[data-testid=graph-point]").count() == decisions
    assert summary_cells(page) == cells

    # a deeper analysis cancelled while it runs: the review of what was done
    page.select_option("[data-testid=rv-plies]", "2")
    page.click("[data-testid=rv-start]")
    page.wait_for_function(
        "() => /^[1-9][0-9]* \\/ /.test(document.getElementById('rv-progress-text').textContent)")
    page.click("[data-testid=rv-cancel]")
    page.wait_for_function("() => document.body.dataset.reviewing === ''")
    assert "stopped" in page.inner_text("[data-testid=review-title]")
    assert 0 < page.locator("[data-testid=graph-point]").count() < decisions
    assert not page.js_errors, page.js_errors


def test_review_a_jacquet_record_pasted_and_a_bad_one(
        web_daemon: DaemonProcess, new_page: Callable[[], Any]) -> None:
    with connect(f"ws://{web_daemon.endpoints['ws']}/ws", open_timeout=10) as conn:
        ws = Ws(conn)
        made = ws("match_new", variant="jacquet", length=1, seed=5, seat0="random",
                  seat1="random")
        deadline = time.monotonic() + WAIT_MS / 1000
        while ws("match_state", match_id=made["match_id"])["status"] != "over":
            assert time.monotonic() < deadline, "the bots' match did not end"
            time.sleep(0.2)
        record = ws("match_export", match_id=made["match_id"])["record"]
        daemon = ws("analyze_record", record=record)
    page = new_page()
    open_app(page, web_daemon.endpoints["web"])
    page.click("[data-testid=tab-review]")
    page.fill("[data-testid=rv-text]", record)
    page.click("[data-testid=rv-start]")
    page.wait_for_function("() => document.body.dataset.reviewing === ''")
    assert page.locator("[data-testid=graph-point]").count() == len(daemon["moves"])
    # the first move of each side: its arrows start and end on the board's points
    for row in (page.locator("[data-testid=review-row]").nth(i) for i in (0, 1)):
        row.click()
        page.wait_for_function("i => document.body.dataset.reviewIndex === i",
                               arg=row.get_attribute("data-index"))
        arrows = page.eval_on_selector_all(
            "[data-testid=board] line.arrow.played",
            "ls => ls.map(l => [Number(l.dataset.from), Number(l.dataset.to)])")
        assert arrows and all(0 <= a <= 25 and 0 <= b <= 25 for a, b in arrows), arrows
    assert page.get_attribute("[data-testid=board]", "data-variant") == "jacquet"
    # a record the daemon cannot read: its error, named
    page.fill("[data-testid=rv-text]", "game 1 score 0 0\nopening 3 1\n0 move 24/20\n")
    page.click("[data-testid=rv-start]")
    page.wait_for_selector("#status.error")
    assert page.inner_text("#status").startswith("bad_argument")
    assert not page.js_errors, page.js_errors
