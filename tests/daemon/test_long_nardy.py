"""Long Nardy (RULES.md section 6) through a real daemon over real sockets: positions,
legal plays, moves refused with their N rule, every bot level, the network's commands
(evaluate, analyze, luck, cube), bot matches with luck, and hosted matches (to 7 points by
default, N10) with their review."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from jacquetd.rules import Position, legal_plays
from tests.conftest import DaemonProcess
from tests.daemon.wire import TcpClient, ZmqClient

START = [0] * 24 + [15, 0]


@pytest.fixture
def zc(jacquetd_server: DaemonProcess) -> Iterator[ZmqClient]:
    client = ZmqClient(jacquetd_server.zmq)
    yield client
    client.close()


def test_hello_lists_long_nardy(zc: ZmqClient) -> None:
    result = zc.call("hello").raise_for_error()
    assert "long-nardy" in result["variants"]


def test_position_and_legal_moves_over_zeromq(zc: ZmqClient) -> None:
    pos = zc.call("position", position="start:long-nardy").raise_for_error()
    assert pos["position"]["variant"] == "long-nardy"
    assert pos["position"]["on_roll"] == START == pos["position"]["opponent"]
    assert Position.from_id(pos["position_id"]) == Position.initial("long-nardy")
    # Ex3: the first turn's 3-3 lets two checkers leave the head (N5)
    got = zc.call("legal_moves", position=pos["position_id"], dice=[3, 3]).raise_for_error()
    want = legal_plays(Position.initial("long-nardy").with_dice((3, 3)))
    assert {p["move"] for p in got["plays"]} == {p.move for p in want}
    assert {tuple(p["position"]["opponent"]) for p in got["plays"]} == {p.raw.me for p in want}
    assert got["count"] == 2


def test_apply_move_and_its_refusals_cite_n_rules(zc: ZmqClient) -> None:
    played = zc.call("apply_move", position="start:long-nardy", dice=[6, 5],
                     move="24/13").raise_for_error()
    assert played["move"] == "24/18 18/13"
    reply = zc.call("apply_move", position="start:long-nardy", dice=[6, 5], move="24/18 24/19")
    assert not reply.ok and reply.error is not None
    assert (reply.error["code"], reply.error["rule"], reply.error["field"]) == (
        "illegal_move", "N5", "move")
    block = [0] * 26
    for q in (19, 18, 17, 16, 15):
        block[q] = 1
    block[14] = 10
    far = [0] * 26
    far[20] = 15
    reply = zc.call("position", position={"variant": "long-nardy", "on_roll": block,
                                          "opponent": far})
    assert not reply.ok and reply.error is not None and reply.error["rule"] == "N6"


def test_text_session_over_tcp(jacquetd_server: DaemonProcess) -> None:
    client = TcpClient(jacquetd_server.tcp)
    try:
        client.send_line("1 legal_moves start:long-nardy 66")
        reply = client.recv_final()
        assert reply.ok and reply.result is not None
        assert [p["move"] for p in reply.result["plays"]] == ["24/18 24/18"]  # Ex1
        client.send_line("2 apply_move start:long-nardy 44 24/20(2) 20/16(2)")
        reply = client.recv_final()
        assert reply.ok and reply.result is not None and reply.result["move"] == (
            "24/20 24/20 20/16 20/16")
        client.send_line("3 best_move start:long-nardy 31 level=heuristic")
        reply = client.recv_final()
        assert reply.ok and reply.result is not None
        legal = {p.move for p in legal_plays(Position.initial("long-nardy").with_dice((3, 1)))}
        assert reply.result["play"]["move"] in legal
    finally:
        client.close()


def test_bot_match_between_random_and_heuristic(zc: ZmqClient) -> None:
    result = zc.call("bot_match", levels=["random", "heuristic"], seed=5,
                     variant="long-nardy", length=3, luck=False).raise_for_error()
    match = result["matches"][0]
    assert max(match["score"]) >= 3
    assert all(g["name"] in ("oin", "mars") for g in match["games"])


def test_the_network_s_commands_serve_long_nardy(zc: ZmqClient) -> None:
    position = "start:long-nardy"
    probs = zc.call("evaluate", position=position).raise_for_error()
    assert 0.0 < probs["win"] < 1.0
    assert probs["win_backgammon"] == probs["lose_backgammon"] == 0.0  # no third result (N9)
    dice = [6, 5]
    legal = {p.move for p in legal_plays(Position.initial("long-nardy").with_dice((6, 5)))}
    for level in ("neural", "neural-1"):
        best = zc.call("best_move", position=position, dice=dice,
                       level=level).raise_for_error()
        assert best["play"]["move"] in legal, (level, best)
    ranked = zc.call("analyze", position=position, dice=dice).raise_for_error()
    assert {entry["move"] for entry in ranked["plays"]} <= legal
    luck = zc.call("luck", position=position, dice=dice).raise_for_error()
    assert isinstance(luck["luck"], float)


def test_bot_match_with_luck_between_neural_and_heuristic(zc: ZmqClient) -> None:
    result = zc.call("bot_match", levels=["neural", "heuristic"], seed=6,
                     variant="long-nardy", length=3).raise_for_error()
    games = result["matches"][0]["games"]
    assert games and all(isinstance(g["luck"], list) for g in games), games


def test_hosted_match_is_to_seven_points_by_default(
        start_jacquetd: Callable[..., Any], tmp_path: Path) -> None:
    daemon = start_jacquetd("--db", str(tmp_path / "m.sqlite3"))
    client = ZmqClient(daemon.zmq)
    try:
        made = client.call("match_new", variant="long-nardy").raise_for_error()
        created = made["events"][0]
        assert (created["variant"], created["length"], created["cube"]) == (
            "long-nardy", 7, False)
        # a resignation is worth mars at most (N9), offered by its name
        mid, tokens = made["match_id"], made["tokens"]
        side = made["to_act"]
        refused = client.call("match_resign", match_id=mid, token=tokens[side], points="3")
        assert not refused.ok and refused.error is not None, refused
        assert (refused.error["code"], refused.error["field"]) == ("bad_argument", "points")
        assert "2 (mars)" in refused.error["message"]
        client.call("match_resign", match_id=mid, token=tokens[side],
                    points="mars").raise_for_error()
        client.call("match_resign", match_id=mid, token=tokens[1 - side],
                    answer="accept").raise_for_error()
        state = client.call("match_state", match_id=mid).raise_for_error()
        assert state["score"][1 - side] == 2 and state["score"][side] == 0
        other = client.call("match_new", variant="long-nardy", length=3,
                            cube=True).raise_for_error()
        assert (other["events"][0]["length"], other["events"][0]["cube"]) == (3, True)
        # two bots play a match to its end; its record names the variant and the result
        bots = client.call("match_new", variant="long-nardy", length=1, seat0="random",
                           seat1="heuristic", seed=4).raise_for_error()
        deadline = time.monotonic() + 60
        while client.call("match_state", match_id=bots["match_id"]).raise_for_error()[
                "status"] != "over":
            assert time.monotonic() < deadline
            time.sleep(0.2)
        record = client.call("match_export", match_id=bots["match_id"]).raise_for_error()
        text = record["record"]
        assert '[Variant "long-nardy"]' in text
        last = text.strip().splitlines()[-1]
        assert last.endswith(("oin", "mars")) and " wins " in last
        # the record reads back and is reviewed: every decision of both players
        review = client.call("analyze_record", record=text).raise_for_error()
        assert review["moves"] and review["done"] == review["total"], review.keys()
        assert [s["decisions"] for s in review["summary"]] != [0, 0]
    finally:
        client.close()
