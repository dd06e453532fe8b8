"""Match files against the real GNU Backgammon: a backgammon match hosted by jacquetd,
exported as `.mat` and as SGF, is imported by gnubg, whose own re-export has the same
rolls, plays, cube actions and final score; a match gnubg played and saved is read by
`analyze_record`."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from jacquetd_protocol.mat import mat_move, parse_mat, turns
from jacquetd_protocol.records import MatchRecord, parse_record
from jacquetd_protocol.sgf import parse_sgf

from tests.conftest import DaemonProcess
from tests.daemon.wire import TcpClient
from tests.interchange.gnubg_cli import NO_GNUBG, find_gnubg, run_gnubg
from tests.matches.scripted import decide
from tests.matches.test_daemon_matches import Player

pytestmark = pytest.mark.skipif(find_gnubg() is None, reason=NO_GNUBG)


def _story(record: MatchRecord) -> list[Any]:
    """What every format keeps of a match: per game the score before it, who opened with
    which dice, each turn's side, roll (as a set), play and cube action, and the result;
    then the final score."""
    games = []
    for g in record.games:
        steps = []
        for act in turns(g):
            if act[0] == "move":
                dice = act[2]
                assert isinstance(dice, tuple)
                play = sorted(mat_move(str(act[3])).split())  # gnubg orders the steps its way
                steps.append(("move", act[1], tuple(sorted(dice)), play))
            else:
                steps.append((act[0], act[1]))
        result = (g.result.winner, g.result.points) if g.result else None
        games.append((tuple(g.score), tuple(sorted(g.opening or ())), steps, result))
    return [games, record.score]


def _host_a_match(daemon: DaemonProcess, seed: int, length: int,
                  names: tuple[str, str] = ("ann", "bob")) -> tuple[Player, str]:
    ann = Player(daemon, "tcp")
    new = ann.call("match_new", variant="backgammon", length=length, seed=seed,
                   name0=names[0], name1=names[1])
    mid, tokens = new["match_id"], new["tokens"]
    for _ in range(5000):
        state = ann.call("match_state", match_id=mid)
        if state["status"] != "playing":
            break
        side = state["to_act"] if state["to_act"] is not None else 0
        cmd, extra = decide(state, side, seed)
        cube = state["cube_state"]
        if cmd == "match_double" and cube and cube["value"] >= 2:
            cmd, extra = decide({**state, "may": [[m for m in may if m != "double"]
                                                  for may in state["may"]]}, side, seed)
        ann.call(cmd, match_id=mid, token=tokens[side], **extra)
    assert ann.call("match_state", match_id=mid)["status"] == "over"
    return ann, mid


@pytest.fixture
def daemon(start_jacquetd: Callable[..., DaemonProcess], tmp_path: Path) -> DaemonProcess:
    return start_jacquetd("--workers", "1", "--gnubg", "off", "--db",
                          str(tmp_path / "matches.sqlite3"))


def _through_gnubg(mat: str, sgf: str, tmp_path: Path, expected: list[Any],
                   score: tuple[int, int], names: tuple[str, str] = ("ann", "bob"),
                   full: tuple[str, str] | None = None) -> None:
    """gnubg imports the `.mat` and loads the SGF; its re-exports tell the same match,
    under `names` (as gnubg shows them); our readers find the `full` names in them."""
    tmp_path.mkdir(parents=True, exist_ok=True)
    (tmp_path / "ours.mat").write_text(mat)
    (tmp_path / "ours.sgf").write_text(sgf)
    out_mat = run_gnubg([f"import mat {tmp_path / 'ours.mat'}",
                         f"export match mat {tmp_path / 'from-mat.mat'}",
                         f"save match {tmp_path / 'from-mat.sgf'}", "show score"],
                        tmp_path / "home1")
    for output in (out_mat,):
        assert "not a valid" not in output and "overflow" not in output, output[-2000:]
    out_sgf = run_gnubg([f"load match {tmp_path / 'ours.sgf'}",
                         f"export match mat {tmp_path / 'from-sgf.mat'}", "show score"],
                        tmp_path / "home2")
    assert "overflow" not in out_sgf, out_sgf[-2000:]
    again = []
    for name, output in (("from-mat.mat", out_mat), ("from-sgf.mat", out_sgf)):
        path = tmp_path / name
        assert path.exists(), output[-2000:]
        again.append(parse_mat(path.read_text()))
        assert _story(again[-1]) == expected, name
    again.append(parse_sgf((tmp_path / "from-mat.sgf").read_text()))
    assert _story(again[-1]) == expected
    a, b = score
    shown = f"{names[0]} {a}, {names[1]} {b}"
    assert shown in out_mat and shown in out_sgf, (shown, out_mat[-500:], out_sgf[-500:])
    if full is not None:  # gnubg kept the comment that holds the full names
        assert [r.players for r in again] == [full] * 3


@pytest.mark.slow
def test_gnubg_imports_our_mat_and_sgf_and_exports_the_same_match(
        daemon: DaemonProcess, tmp_path: Path) -> None:
    seen: set[str] = set()
    for seed in (20261201, 777, 31337, 4242, 99):
        # names as players give them: a colon, spaces, a comma (gnubg's .mat reader reads
        # each as the end of a name, or a rating)
        ann, mid = _host_a_match(daemon, seed, length=5, names=("ann", "Bob: the 2nd, jr"))
        try:
            ours = parse_record(ann.call("match_export", match_id=mid)["record"])
            mat = ann.call("match_export", match_id=mid, format="mat")
            sgf = ann.call("match_export", match_id=mid, format="sgf")
        finally:
            ann.close()
        assert (mat["format"], sgf["format"]) == ("mat", "sgf")
        expected = _story(ours)
        # our own readers give the match back
        assert _story(parse_mat(mat["record"])) == expected
        assert _story(parse_sgf(sgf["record"])) == expected
        _through_gnubg(mat["record"], sgf["record"], tmp_path / str(seed), expected,
                       ours.score, names=("ann", "Bob_the_2nd_jr"),
                       full=("ann", "Bob: the 2nd, jr"))
        seen |= {g.result.reason for g in ours.games if g.result is not None}
        seen |= {a.kind for g in ours.games for a in g.actions}
        if {"bear-off", "drop", "resign", "take", "reject"} <= seen:
            break
    # the matches tried covered every way a game goes on and ends
    assert {"bear-off", "drop", "resign", "take"} <= seen, seen


@pytest.mark.slow
def test_a_hosted_bot_match_goes_through_gnubg_with_its_rolls_plays_cube_and_score(
        daemon: DaemonProcess, tmp_path: Path) -> None:
    """Bot seats are named `bot:heuristic` and `bot:neural`: gnubg 1.07 crashed on such
    names in a `.mat` (buffer overflow); written as gnubg writes names, the match goes
    through its import and re-export unchanged, and the full names come back."""
    client = Player(daemon, "tcp")
    cube_seen = False
    try:
        for seed in (5, 6, 7, 8):
            new = client.call("match_new", variant="backgammon", length=5, seed=seed,
                              seat0="bot:heuristic", seat1="bot:neural", bot_time_ms=300)
            mid = new["match_id"]
            for _ in range(3000):
                if client.call("match_state", match_id=mid)["status"] != "playing":
                    break
                time.sleep(0.1)
            assert client.call("match_state", match_id=mid)["status"] == "over"
            ours = parse_record(client.call("match_export", match_id=mid)["record"])
            assert ours.players == ("bot:heuristic", "bot:neural")
            mat = client.call("match_export", match_id=mid, format="mat")["record"]
            sgf = client.call("match_export", match_id=mid, format="sgf")["record"]
            assert "bot:" not in mat.split("point match", 1)[1] and "PW[bot_heuristic]" in sgf
            expected = _story(ours)
            assert parse_mat(mat).players == parse_sgf(sgf).players == ours.players
            _through_gnubg(mat, sgf, tmp_path / str(seed), expected, ours.score,
                           names=("bot_heuristic", "bot_neural"), full=ours.players)
            cube_seen = any(a.kind == "double" for g in ours.games for a in g.actions)
            if cube_seen:
                break
    finally:
        client.close()
    assert cube_seen  # at least one of the matches had a cube action


def test_analyze_record_reads_a_match_gnubg_played_and_saved(
        jacquetd_server: DaemonProcess, tmp_path: Path) -> None:
    out = run_gnubg(["set seed 4711", "set player 0 gnu", "set player 1 gnu",
                     *(f"set player {p} {what} evaluation plies 0" for p in (0, 1)
                       for what in ("chequerplay", "cubedecision")),
                     "set analysis chequerplay evaluation plies 0",
                     "set analysis cubedecision evaluation plies 0",
                     "new match 3",
                     # gnubg stores each player's evaluations and its analysis in its SGF
                     # (about 250 KB for this match): a record has room for it
                     "analyse match",
                     f"save match {tmp_path / 'gnubg.sgf'}",
                     f"export match mat {tmp_path / 'gnubg.mat'}"], tmp_path / "home")
    assert "has won the match" in out or (tmp_path / "gnubg.sgf").exists(), out[-2000:]
    client = Player(jacquetd_server, "tcp")
    assert client.tcp is not None
    client.tcp.close()  # a first analysis may build the bear-off tables: allow minutes
    client.tcp = TcpClient(jacquetd_server.tcp, timeout=300.0)
    try:
        assert len((tmp_path / "gnubg.sgf").read_bytes()) > 256 << 10
        for name in ("gnubg.mat", "gnubg.sgf"):
            text = (tmp_path / name).read_text()
            record = parse_mat(text) if name.endswith(".mat") else parse_sgf(text)
            result = client.call("analyze_record", record=text, luck=False,
                                 timeout_ms=300_000)
            assert result["format"] == name.rsplit(".", 1)[1]
            assert [g["game"] for g in result["games"]] == [g.number for g in record.games]
            played = sum(1 for g in record.games for a in g.actions if a.kind == "move")
            assert 0 < len(result["moves"]) <= played
            assert all(m["loss"] >= 0 for m in result["moves"])
            assert max(record.score) == 3
            finals = [g["result"] for g in result["games"]]
            assert all(f is not None and " wins " in f for f in finals), finals
    finally:
        client.close()
