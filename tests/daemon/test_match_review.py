"""Match review (`analyze_record` with `plies`, the marks and the per-player summary),
against a real daemon: hosted matches of every variant played with the cube by bots that
double and take, analysed at 0 and 1 plies, money and match: the summary sums its moves,
a forced move and the best play are never errors, every double is judged and answered;
partials stream and a cancel returns a prefix; a hand-built blunder is marked with its
cost at 0, 1 and 2 plies."""

from __future__ import annotations

import time
from typing import Any

import pytest
from jacquetd_protocol.errors import ProtocolError
from jacquetd_protocol.messages import Partial

from tests.conftest import DaemonProcess
from tests.daemon.wire import TcpClient
from tests.matches.test_daemon_matches import Player

VARIANTS = ("jacquet", "jacquet-be", "backgammon", "long-nardy")


def _client(daemon: DaemonProcess) -> Player:
    client = Player(daemon, "tcp")
    assert client.tcp is not None
    client.tcp.close()  # a first analysis may build the bear-off tables: allow minutes
    client.tcp = TcpClient(daemon.tcp, timeout=300.0)
    return client


def _finished_match(client: Player, variant: str, length: int, seed: int) -> str:
    """A hosted match between two bots that use the cube, played to its end."""
    made = client.call("match_new", variant=variant, length=length, seed=seed,
                       seat0="heuristic", seat1="heuristic", cube=True)
    mid = str(made["match_id"])
    for _ in range(600):
        if client.call("match_state", match_id=mid)["status"] != "playing":
            return mid
        time.sleep(0.1)
    raise AssertionError("the bots' match did not end")


def _check_sums(result: dict[str, Any], money: bool) -> None:
    moves = result["moves"]
    limits = result["thresholds"]
    assert limits == {"doubtful": 0.04, "error": 0.08, "blunder": 0.16}
    for side, summary in enumerate(result["summary"]):
        mine = [m for m in moves if m["side"] == side]
        chosen = [m for m in mine if not m["forced"]]
        assert summary["side"] == side
        assert summary["decisions"] == len(chosen)
        assert summary["forced"] == len(mine) - len(chosen)
        assert summary["loss"] == pytest.approx(sum(m["loss"] for m in chosen), abs=1e-5)
        cubes = [c for c in result["cube"] if c["side"] == side and c["counted"]]
        assert summary["cube_decisions"] == len(cubes)
        assert summary["cube_loss"] == pytest.approx(sum(c["loss"] for c in cubes), abs=1e-5)
        total = summary["loss"] + summary["cube_loss"]
        count = len(chosen) + len(cubes)
        rate = total / count if count else 0.0
        assert summary["error_rate"] == pytest.approx(rate, abs=1e-5)
        assert summary["pr"] == pytest.approx(500 * summary["error_rate"], abs=0.01)
        for name in ("doubtful", "error", "blunder"):
            assert summary["marks"][name] == sum(1 for m in chosen if m["mark"] == name)
            assert summary["cube_marks"][name] == sum(1 for c in cubes if c["mark"] == name)
        luck = sum(m["luck"] for m in mine)
        assert summary["luck"] == pytest.approx(luck, abs=1e-5)
        assert summary["luck_per_game"] == pytest.approx(luck / len(result["games"]),
                                                         abs=1e-5)
    units = "money" if money else "match"
    for c in result["cube"]:
        assert c["units"] == units and c["loss"] >= 0
        if c["action"] == c["best"]:
            assert c["loss"] == 0 and c["mark"] is None
        double = min(c["double_take"], c["double_pass"])
        cost = {"double": c["no_double"] - double, "no_double": double - c["no_double"],
                "take": c["double_take"] - c["double_pass"],
                "pass": c["double_pass"] - c["double_take"]}[c["action"]]
        assert c["loss"] == pytest.approx(max(0.0, cost), abs=2e-6)
    for m in moves:
        assert m["plies"] == result["plies"] or m["forced"]
        assert m["units"] == units
        if m["forced"]:
            assert m["loss"] == 0 and m["mark"] is None and m["choices"] == 1
        if m["move"] == m["best"]:
            assert m["loss"] == 0 and m["mark"] is None
        expected = None
        for name in ("doubtful", "error", "blunder"):
            if m["loss"] >= limits[name]:
                expected = name
        assert m["mark"] == expected or m["forced"]


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("length", [0, 3])
def test_a_bots_match_reviewed_at_0_and_1_plies(jacquetd_server: DaemonProcess,
                                                 variant: str, length: int) -> None:
    client = _client(jacquetd_server)
    try:
        mid = _finished_match(client, variant, length, seed=11)
        record = client.call("match_export", match_id=mid)["record"]
        doubles = sum(" double " in line for line in record.splitlines())
        assert doubles  # the cube in play in every variant: the bots doubled
        for plies in (0, 1):
            result = client.call("analyze_record", match_id=mid, plies=plies,
                                 timeout_ms=300_000)
            assert result["plies"] == plies
            assert result["moves"]
            _check_sums(result, money=length == 0)
            actions = [c["action"] for c in result["cube"]]  # every double judged, answered
            assert actions.count("double") == doubles
            assert actions.count("take") + actions.count("pass") == doubles
    finally:
        client.close()


BLUNDER = """; [Format "jacquet-match/1"]
; [Variant "backgammon"]
; [Length "0"]
; [Cube "on"]

game 1 score 0 0
opening 6 5
0 move {move}
"""


def test_a_known_blunder_is_marked_with_its_cost(jacquetd_server: DaemonProcess) -> None:
    """The opening 65 played 8/2 8/3 in place of the running 24/13, the cube in the game:
    at 0 plies its cost is the difference of the two plays' cubeful values, each what the
    opponent's right cube decision (`cube`) on the position it leaves gives the mover, and
    a blunder; the thresholds are settings; the best play loses nothing."""
    client = _client(jacquetd_server)
    try:
        ranking = client.call("analyze", position="start:backgammon", dice=[6, 5], plies=0,
                              max_plays=100)["plays"]

        def cubeful(move: str) -> float:
            after = next(p["position"] for p in ranking if p["move"] == move)
            assert (after["cube"]["value"], after["cube"]["owner"]) == (1, "centre")
            theirs = client.call("cube", position=after)
            right = (theirs["no_double"] if theirs["action"] != "double"
                     else min(theirs["double_take"], theirs["double_drop"]))
            return -float(right)

        result = client.call("analyze_record", record=BLUNDER.format(move="8/2 8/3"),
                             timeout_ms=300_000)
        (entry,) = result["moves"]
        assert entry["best"] == ranking[0]["move"] == "24/18 18/13"
        cost = cubeful("24/18 18/13") - cubeful("8/2 8/3")
        cubeless = ranking[0]["equity"] - next(p["equity"] for p in ranking
                                               if p["move"] == "8/2 8/3")
        assert cost > 0.16 and abs(cost - cubeless) > 0.01  # the cube counts
        assert entry["loss"] == pytest.approx(cost, abs=1e-5)
        assert entry["mark"] == "blunder" and not entry["forced"]
        assert result["summary"][0]["marks"] == {"doubtful": 0, "error": 0, "blunder": 1}
        assert result["summary"][0]["pr"] == pytest.approx(500 * cost, abs=0.01)
        assert result["summary"][1]["decisions"] == 0
        raised = client.call("analyze_record", record=BLUNDER.format(move="8/2 8/3"),
                             blunder=1.0, error=0.3, timeout_ms=300_000)
        assert raised["thresholds"] == {"doubtful": 0.04, "error": 0.3, "blunder": 1.0}
        assert raised["moves"][0]["mark"] == "error"
        for plies in (1, 2):
            deeper = client.call("analyze_record", record=BLUNDER.format(move="8/2 8/3"),
                                 plies=plies, timeout_ms=300_000)
            assert deeper["plies"] == plies and deeper["moves"][0]["plies"] == plies
            assert deeper["moves"][0]["mark"] == "blunder"
        best = client.call("analyze_record", record=BLUNDER.format(move="24/13"), plies=1,
                           timeout_ms=300_000)
        assert best["moves"][0]["loss"] == 0 and best["moves"][0]["mark"] is None
    finally:
        client.close()


def test_plies_beyond_two_are_refused(jacquetd_server: DaemonProcess) -> None:
    client = _client(jacquetd_server)
    try:
        with pytest.raises(ProtocolError) as caught:
            client.call("analyze_record", record=BLUNDER.format(move="24/13"), plies=3)
        assert caught.value.code == "bad_argument" and caught.value.field == "plies"
    finally:
        client.close()


def test_partials_stream_progress_and_cancel_returns_a_prefix(
        jacquetd_server: DaemonProcess) -> None:
    """With `partials`, each decision's entries arrive as they are analysed; a `cancel`
    ends the analysis `ok` with `stopped` and the decisions done, a prefix of the whole."""
    client = _client(jacquetd_server)
    try:
        mid = _finished_match(client, "backgammon", 3, seed=11)
        whole = client.call("analyze_record", match_id=mid, plies=1, timeout_ms=300_000)
        assert "stopped" not in whole and whole["done"] == whole["total"] > 0
        rid = client.send("analyze_record", 50, match_id=mid, plies=1, partials=True,
                          timeout_ms=300_000)
        seen: list[dict[str, Any]] = []
        final = None
        while final is None:
            msg = client.recv(300.0)
            if isinstance(msg, Partial):
                assert msg.id == rid
                seen.append(msg.result)
                if len(seen) == 5:
                    client.send("cancel", 51, target=rid)
            elif msg.id == rid:
                final = msg
        assert final.ok and final.result is not None, final
        result = final.result
        assert result["stopped"] is True
        assert 5 <= result["done"] < result["total"] == whole["total"]
        assert len(result["moves"]) < len(whole["moves"])
        assert result["moves"] == whole["moves"][:len(result["moves"])]
        assert result["cube"] == whole["cube"][:len(result["cube"])]
        streamed = [m for p in seen for m in p["moves"]]
        assert streamed == result["moves"][:len(streamed)]
        dones = [p["done"] for p in seen]
        assert dones == sorted(dones) and all(p["total"] == whole["total"] for p in seen)
        _check_sums(result, money=False)
    finally:
        client.close()


CUBE_TURN = BLUNDER.format(move="24/13") + "1 31: 8/5 6/5\n"


@pytest.mark.parametrize("at_poll", [1, 6])
def test_a_cancel_inside_a_decision_drops_that_decision(at_poll: int) -> None:
    """`cancelled` is polled inside a decision's search too, not only between decisions:
    a cancel that comes while side 1's cube decision is searched two rolls deep ends the
    analysis there, with the decisions before it and without the one cut short."""
    from jacquetd_protocol.records import parse_record

    from jacquetd.daemon.record_analysis import analyze_record

    seen = {"reported": False, "polls": 0}

    def report(partial: dict[str, Any]) -> None:  # the first move is done
        seen["reported"] = True

    def cancelled() -> bool:
        # the first poll after the first move's partial is the one between two decisions;
        # the cancel comes after it, during the cube decision's search
        if seen["reported"]:
            seen["polls"] += 1
        return seen["polls"] > at_poll

    record = parse_record(CUBE_TURN)
    whole = analyze_record(record, plies=2, luck=False)
    assert [c["side"] for c in whole["cube"]] == [1] and len(whole["moves"]) == 2
    cut = analyze_record(record, plies=2, luck=False, cancelled=cancelled, report=report)
    assert cut["stopped"] is True and cut["cube"] == []
    assert cut["moves"] == whole["moves"][:1] and cut["done"] == 1
