"""`jacquet-analyze` run as a program (`python -m jacquetd_clients.analyze`) on three kinds
of file: a match GNU Backgammon played and saved (SGF), the same match as the real gnubg
exports it (`.mat`), and our own records of hosted matches between bots (jacquet with the
cube, jacquet-be). Each file's terminal summary, `--json` and `--html` are read back: the
summary's figures are the JSON's, the HTML parses, holds the equity graph and one board
per marked decision, and fetches nothing. Ctrl-C in a terminal (pexpect) cancels the
analysis and the report covers the prefix done; a malformed file is refused before any
engine starts."""

from __future__ import annotations

import asyncio
import json
import re
import subprocess
import sys
import time
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pexpect
import pytest
from jacquetd_clients.analyze import replay_boards
from jacquetd_clients.client import JacquetClient
from jacquetd_protocol.match_files import read_match_file
from jacquetd_protocol.records import parse_record

from tests.conftest import DaemonProcess
from tests.interchange.gnubg_cli import find_gnubg, run_gnubg
from tests.matches.test_daemon_matches import Player

REPO = Path(__file__).parents[2]
SGF = REPO / "tests" / "interchange" / "data" / "gnubg" / "analysed-3.sgf"
MARKS = ("doubtful", "error", "blunder")


def analyze(*args: str, timeout: float = 300.0) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "jacquetd_clients.analyze", *args],
                          capture_output=True, text=True, cwd=REPO, timeout=timeout)


class Page(HTMLParser):
    """What the checks read of the report: the tags, their attributes and the text."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))

    def handle_data(self, data: str) -> None:
        self.text.append(data)

    def having(self, tag: str, cls: str) -> list[dict[str, str | None]]:
        return [a for t, a in self.tags if t == tag and cls in (a.get("class") or "").split()]


def _row(summary_text: str, label: str) -> list[str]:
    """The two players' figures of a row of the terminal summary."""
    for line in summary_text.splitlines():
        if line.startswith(label + " ") and re.match(rf"{re.escape(label)}\s{{2,}}", line):
            return line[len(label):].split()
    raise AssertionError(f"no row {label!r} in:\n{summary_text}")


def check_terminal(text: str, report: dict[str, Any]) -> None:
    """The summary's figures are the JSON's, at the precision shown; the marked decisions
    are listed, one line each."""
    s0, s1 = report["analysis"]["summary"]
    for label, fmt, key in (("checker decisions", "{}", "decisions"),
                            ("forced moves", "{}", "forced"),
                            ("checker loss", "{:.3f}", "loss"),
                            ("cube decisions", "{}", "cube_decisions"),
                            ("cube loss", "{:.3f}", "cube_loss"),
                            ("error rate (per decision)", "{:.4f}", "error_rate"),
                            ("PR", "{:.2f}", "pr"),
                            ("luck", "{:+.3f}", "luck")):
        shown = ["n/a" if s[key] is None else fmt.format(s[key]) for s in (s0, s1)]
        assert _row(text, label) == shown, label
    marks = _row(text, "doubtful/errors/blunders")
    assert marks == ["/".join(str(s["marks"][m]) for m in MARKS) for s in (s0, s1)]
    marked = [e for e in report["analysis"]["moves"] + report["analysis"]["cube"]
              if e["mark"]]
    assert f"Marked decisions ({len(marked)}):" in text
    listed = text.split(f"Marked decisions ({len(marked)}):")[1].strip().splitlines()
    assert len(listed) == (len(marked) + 1 if marked else 0)  # a heading, then one each
    names = report["players"]
    for line, entry in zip(listed[1:], sorted(marked, key=lambda e: (e["game"], e["index"])),
                           strict=True):
        assert line.split()[0] == str(entry["game"])
        assert names[entry["side"]] in line and f"{entry['loss']:.3f}" in line
        assert line.split()[-1] == entry["mark"]


def check_html(page_text: str, report: dict[str, Any]) -> Page:
    page = Page()
    page.feed(page_text)
    page.close()
    assert not re.search(r"https?://|//[a-z0-9.-]+\.[a-z]{2,}/", page_text), "an external URL"
    for tag, attrs in page.tags:
        assert tag not in ("script", "link", "img", "iframe"), tag
        assert "src" not in attrs and "href" not in attrs, (tag, attrs)
    assert [a for t, a in page.tags if t == "svg" and a.get("id") == "equity-graph"]
    marked = [e for e in report["analysis"]["moves"] + report["analysis"]["cube"]
              if e["mark"]]
    assert len(page.having("svg", "board")) == len(marked)
    assert len(page.having("section", "decision")) == len(marked)
    assert len(page.having("circle", "mark")) == len(marked)  # each one a dot on the graph
    text = "".join(page.text)
    for name in report["players"]:
        assert name in text
    for entry in marked:
        if "move" in entry:
            assert entry["best"] in text or entry["best"] == ""
    s0, s1 = report["analysis"]["summary"]
    assert f"{s0['pr']:.2f}" in text and f"{s1['pr']:.2f}" in text
    return page


def review(path: Path, *extra: str, tmp: Path) -> tuple[dict[str, Any], str, Page]:
    """`--json --html` and the terminal summary of `path`, each checked; the JSON."""
    html_path = tmp / (path.stem + ".html")
    both = analyze(str(path), "--json", "--html", str(html_path), *extra)
    assert both.returncode == 0, both.stderr[-3000:]
    report = json.loads(both.stdout)
    assert report["analysis"]["done"] == report["analysis"]["total"] > 0
    assert "stopped" not in report["analysis"]
    page = check_html(html_path.read_text(encoding="utf-8"), report)
    terminal = analyze(str(path), *extra)
    assert terminal.returncode == 0, terminal.stderr[-3000:]
    check_terminal(terminal.stdout, report)
    return report, terminal.stdout, page


def _connect(daemon: DaemonProcess) -> tuple[str, str]:
    return "--connect", daemon.zmq


def test_a_gnubg_sgf_and_the_same_match_as_gnubg_exports_it_to_mat(
        jacquetd_server: DaemonProcess, tmp_path: Path) -> None:
    """The SGF gnubg saved and the `.mat` the real gnubg exports of it are the same match:
    their reviews agree figure for figure. The SGF is reviewed by an engine the program
    spawns itself, the `.mat` by the shared daemon (`--connect`)."""
    sgf, _text, _page = review(SGF, tmp=tmp_path)
    assert sgf["analysis"]["format"] == "sgf" and sgf["players"] == ["gnubg", "root"]
    assert sgf["variant"] == "backgammon" and sgf["length"] == 3
    if find_gnubg() is None:
        pytest.skip("GNU Backgammon is not installed: no real .mat to read")
    mat = tmp_path / "analysed-3.mat"
    out = run_gnubg([f"load match {SGF}", f"export match mat {mat}"], tmp_path / "home")
    assert mat.exists(), out[-2000:]
    from_mat, _text, _page = review(mat, *_connect(jacquetd_server), tmp=tmp_path)
    assert from_mat["analysis"]["format"] == "mat"
    for key in ("summary", "moves", "cube", "games"):
        assert from_mat["analysis"][key] == sgf["analysis"][key], key


def _hosted_record(daemon: DaemonProcess, tmp: Path, variant: str, length: int,
                   seed: int, seat0: str = "random") -> Path:
    """Our record (`match_export`) of a hosted match, a bot (`seat0`, by default the
    random one) against the heuristic one, with the cube."""
    client = Player(daemon, "tcp")
    try:
        made = client.call("match_new", variant=variant, length=length, seed=seed,
                           seat0=seat0, seat1="heuristic", cube=True,
                           name0="Ann <&> \"Q\"", name1="bob")
        mid = str(made["match_id"])
        for _ in range(600):
            if client.call("match_state", match_id=mid)["status"] != "playing":
                break
            time.sleep(0.1)
        else:
            raise AssertionError("the bots' match did not end")
        record = client.call("match_export", match_id=mid)["record"]
    finally:
        client.close()
    path = tmp / f"{variant}-{length}-{seat0}.jmat"
    path.write_text(record, encoding="utf-8")
    return path


def test_our_record_of_a_jacquet_match_with_its_boards(jacquetd_server: DaemonProcess,
                                                       tmp_path: Path) -> None:
    """A jacquet match to 3 with the cube (a random bot: many marked decisions, checker
    and cube): every one drawn, the names (with HTML's special characters) escaped."""
    path = _hosted_record(jacquetd_server, tmp_path, "jacquet", 3, seed=5)
    report, text, page = review(path, *_connect(jacquetd_server), tmp=tmp_path)
    analysis = report["analysis"]
    assert analysis["format"] == "jacquet-match/1" and report["variant"] == "jacquet"
    assert report["players"] == ["Ann <&> \"Q\"", "bob"]
    assert sum(analysis["summary"][0]["marks"].values()) > 0  # the random bot erred
    raw = path.with_suffix(".html").read_text(encoding="utf-8")
    assert "Ann &lt;&amp;&gt; &quot;Q&quot;" in raw and "Ann <&>" not in raw
    assert page.having("rect", "cube")  # the cube is drawn on the boards
    assert "Ann <&> \"Q\"" in text


def test_our_jacquet_be_record_at_one_ply_one_game(jacquetd_server: DaemonProcess,
                                                   tmp_path: Path) -> None:
    """`--plies 1` and `--game`, on a jacquet-be money game; the thresholds are options."""
    path = _hosted_record(jacquetd_server, tmp_path, "jacquet-be", 0, seed=8)
    report, _text, _page = review(path, "--plies", "1", "--game", "1",
                                  *_connect(jacquetd_server), tmp=tmp_path)
    analysis = report["analysis"]
    assert analysis["plies"] == 1 and {m["game"] for m in analysis["moves"]} == {1}
    assert all(m["plies"] == 1 for m in analysis["moves"] if not m["forced"])
    assert all(m["units"] == "money" for m in analysis["moves"])
    strict = analyze(str(path), "--json", "--doubtful", "0.01", "--error", "0.02",
                     "--blunder", "0.5", *_connect(jacquetd_server))
    assert strict.returncode == 0, strict.stderr[-2000:]
    assert json.loads(strict.stdout)["analysis"]["thresholds"] == {
        "doubtful": 0.01, "error": 0.02, "blunder": 0.5}


CUBE_BLUNDERS = """; [Format "jacquet-match/1"]
; [Variant "backgammon"]
; [Length "0"]
; [Cube "on"]
; [Player0 "ann"]
; [Player1 "bob"]

game 1 score 0 0
opening 6 5
0 move 24/18 18/13
1 double 2
0 drop
1 wins 1 drop drop
"""


def test_cube_errors_are_listed_and_drawn(jacquetd_server: DaemonProcess,
                                          tmp_path: Path) -> None:
    """A double after the opening move and the pass of it, both blunders in a money game:
    listed as cube decisions, each drawn, the pass with the double offered."""
    path = tmp_path / "cube.jmat"
    path.write_text(CUBE_BLUNDERS, encoding="utf-8")
    report, text, page = review(path, *_connect(jacquetd_server), tmp=tmp_path)
    cube = report["analysis"]["cube"]
    assert [(c["side"], c["action"], c["best"], c["mark"]) for c in cube] == [
        (1, "double", "no_double", "blunder"), (0, "pass", "take", "blunder")]
    assert re.search(r"^1\s+2\s+bob\s+cube\s+double\s+no double\s+\S+\s+blunder$", text,
                     re.M), text
    assert re.search(r"^1\s+2\s+ann\s+cube\s+pass\s+take\s+\S+\s+blunder$", text, re.M)
    assert len(page.having("svg", "board")) == 2
    captions = [t for t in page.text if "on roll" in t]
    assert len(captions) == 2 and "offered" not in captions[0] and "offered" in captions[1]
    assert all(t.startswith("bob (dark, bottom) on roll") for t in captions)


def test_the_boards_are_the_positions_the_engine_judged(jacquetd_server: DaemonProcess,
                                                        tmp_path: Path) -> None:
    """The replay that draws the boards gives, before every move of the record, the
    position the engine analysed: its legal plays with those dice are as many as the
    analysis counted (`choices`), the move made among them; before a cube decision the
    side on turn may double (no dice yet), and a take or a pass answers a pending double.
    and each double raises the cube the replay has to the value the record says. On our
    jacquet record with the cube and on gnubg's backgammon match."""
    records = [_hosted_record(jacquetd_server, tmp_path, "jacquet", 3, seed=11,
                              seat0="heuristic"), SGF]

    async def check(path: Path) -> int:
        text = path.read_text(encoding="utf-8")
        record = read_match_file(text)
        engine = await JacquetClient.connect(jacquetd_server.zmq, timeout=0)
        async with engine:
            analysis = await engine.request("analyze_record", record=text)
            wanted = {(e["game"], e["index"]) for e in analysis["moves"] + analysis["cube"]}
            boards = await replay_boards(engine, record, wanted)
            assert set(boards) == {f"{g}:{i}" for g, i in wanted}
            for entry in analysis["moves"]:
                board = boards[f"{entry['game']}:{entry['index']}"]
                assert board["on_roll"] == entry["side"]
                position = board["position"]
                assert sorted(position["dice"]) == sorted(entry["dice"])
                plays = await engine.legal_moves(position)
                assert len(plays) == entry["choices"], entry
                assert entry["move"] in {p["move"] for p in plays}, entry
            for entry in analysis["cube"]:
                board = boards[f"{entry['game']}:{entry['index']}"]
                cube = board["position"]["cube"]
                assert board["position"]["dice"] == []
                if entry["action"] in ("double", "no_double"):
                    assert board["on_roll"] == entry["side"]
                    assert cube["owner"] in ("centre", "on_roll") and not cube["pending"]
                else:
                    assert board["on_roll"] == 1 - entry["side"] and cube["pending"]
            for rec in record.games:  # the score before the game, seen by the side on roll
                for key, board in boards.items():
                    if key.startswith(f"{rec.number}:"):
                        me = board["on_roll"]
                        assert board["position"]["match"] == {
                            "length": 3, "score": [rec.score[me], rec.score[1 - me]],
                            "crawford": rec.crawford}, key
            doubles = 0
            for rec in record.games:  # each double raises the cube the replay has to V
                for i, action in enumerate(rec.actions):
                    if action.kind == "double":
                        doubles += 1
                        cube = boards[f"{rec.number}:{i}"]["position"]["cube"]
                        assert 2 * cube["value"] == action.value, (rec.number, i)
                        assert cube["owner"] == ("centre" if action.value == 2 else "on_roll")
            return doubles

    assert asyncio.run(check(records[0])) > 0  # the bots doubled: the cubes are checked
    asyncio.run(check(records[1]))


def test_ctrl_c_cancels_and_the_summary_covers_the_prefix(jacquetd_server: DaemonProcess,
                                                          tmp_path: Path) -> None:
    """In a terminal: the progress bar runs; Ctrl-C (sent to the terminal, so to its whole
    foreground process group) makes the program send `cancel`; the engine it spawned, in a
    session of its own, answers with the decisions done and stays up: the summary says how
    far it got, and the HTML report has the board of every decision marked so far."""
    path = _hosted_record(jacquetd_server, tmp_path, "jacquet", 3, seed=5)
    total = len(parse_record(path.read_text(encoding="utf-8")).games[0].actions)
    child = pexpect.spawn(sys.executable, ["-m", "jacquetd_clients.analyze", str(path),
                                           "--plies", "1", "--html",
                                           str(tmp_path / "part.html")],
                          cwd=str(REPO), encoding="utf-8", timeout=300, dimensions=(40, 160))
    try:
        while True:  # until a few marked decisions are in
            child.expect(rf"\[#*\.+\] (\d+)/{total} actions, (\d+) marked")
            if int(child.match.group(2)) >= 3:
                break
        child.sendintr()
        child.expect("interrupted; stopping after the decision in hand")
        child.expect(rf"analysed at 1 plies, (\d+) of {total} actions \(stopped early")
        done = int(child.match.group(1))
        child.expect(r"Marked decisions \((\d+)\)")
        marked = int(child.match.group(1))
        child.expect(rf"interrupted: the analysis covers (\d+) of {total} actions")
        assert int(child.match.group(1)) == done
        child.expect(pexpect.EOF)
    finally:
        child.close(force=True)
    assert child.exitstatus == 130
    assert 0 < done < total and marked >= 3
    page = Page()
    page.feed((tmp_path / "part.html").read_text(encoding="utf-8"))
    assert "stopped early" in "".join(page.text)
    assert len(page.having("svg", "board")) == len(page.having("section", "decision")) == marked


def test_a_malformed_file_is_refused_before_any_engine_starts(tmp_path: Path) -> None:
    bad = tmp_path / "bad.jmat"
    bad.write_text('; [Variant "backgammon"]\n\ngame 1 score 0 0\nopening 6 5\n0 move 24/13\n'
                   "7 88: 1/2\n")
    done = analyze(str(bad), "--daemon", "/nonexistent/engine", timeout=60)
    assert done.returncode == 2
    assert "bad.jmat: line 6" in done.stderr, done.stderr
    missing = analyze(str(tmp_path / "none.mat"), "--daemon", "/nonexistent/engine")
    assert missing.returncode == 2 and "none.mat" in missing.stderr
    engine = analyze(str(SGF), "--daemon", "/nonexistent/engine")
    assert engine.returncode == 4 and "cannot start the engine" in engine.stderr


def test_a_league_s_records_are_reviewed_each_then_by_player(jacquetd_server: DaemonProcess,
                                                             tmp_path: Path) -> None:
    """A directory of records (a league's `.records` folder): each match is reviewed, then
    every player over all of them, by name, whichever side it sat on."""
    folder = tmp_path / "league.records"
    folder.mkdir()
    for seed, seat0 in ((5, "random"), (6, "heuristic")):
        made = _hosted_record(jacquetd_server, tmp_path, "jacquet-be", 1, seed=seed,
                              seat0=seat0)
        made.rename(folder / f"m{seed}.txt")
    done = analyze(str(folder), "--json", *_connect(jacquetd_server))
    assert done.returncode == 0, done.stderr
    whole = json.loads(done.stdout)
    assert [r["file"] for r in whole["files"]] == ["m5.txt", "m6.txt"]
    rows = {r["player"]: r for r in whole["players"]}
    assert set(rows) == {"Ann <&> \"Q\"", "bob"} and rows["bob"]["matches"] == 2
    for name, row in rows.items():
        sides = [(r, r["players"].index(name)) for r in whole["files"]]
        summaries = [r["analysis"]["summary"][side] for r, side in sides]
        assert row["decisions"] == sum(s["decisions"] for s in summaries)
        assert row["loss"] == pytest.approx(sum(s["loss"] for s in summaries), abs=1e-6)
        decided = row["decisions"] + row["cube_decisions"]
        assert row["pr"] == pytest.approx(
            500 * (row["loss"] + row["cube_loss"]) / decided, abs=0.01)
    text = analyze(str(folder), *_connect(jacquetd_server))
    assert text.returncode == 0 and "== m5.txt" in text.stdout and "== m6.txt" in text.stdout
    assert "All 2 records, by player:" in text.stdout
    refused = analyze(str(folder), "--html", str(tmp_path / "x.html"))
    assert refused.returncode == 2 and "--html and --game take one record" in refused.stderr


def test_a_hosted_match_is_reviewed_by_its_id(jacquetd_server: DaemonProcess,
                                              tmp_path: Path) -> None:
    """`--match ID` reviews the match the daemon at `--connect` hosts, as its record file
    would be; an unknown id is refused, naming it."""
    path = _hosted_record(jacquetd_server, tmp_path, "jacquet", 1, seed=9)
    mid = parse_record(path.read_text(encoding="utf-8")).headers["Match"]
    by_id = analyze("--match", mid, "--json", *_connect(jacquetd_server))
    assert by_id.returncode == 0, by_id.stderr
    by_file = analyze(str(path), "--json", *_connect(jacquetd_server))
    assert json.loads(by_id.stdout)["analysis"] == json.loads(by_file.stdout)["analysis"]
    unknown = analyze("--match", "0123456789abcdef", *_connect(jacquetd_server))
    assert unknown.returncode == 2 and "match 0123456789abcdef" in unknown.stderr
    alone = analyze("--match", mid)
    assert alone.returncode == 2 and "--match needs --connect" in alone.stderr
