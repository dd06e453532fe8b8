"""The league manager against real daemons (`jacquetd stdio`, spawned by the league)."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from jacquetd_clients import SimpleClient
from jacquetd_clients.league import League, LeagueOptions, load_league
from jacquetd_clients.league.config import LeagueConfigError
from jacquetd_clients.league.engines import find_gnubg
from jacquetd_protocol.records import parse_record

HERE = Path(__file__).parent
REPO = HERE.parents[1]
ENGINE = HERE / "first_engine.py"
DAEMON = [sys.executable, "-m", "jacquetd", "stdio"]


@pytest.fixture(scope="module")
def levels() -> list[str]:
    """Two of the daemon's bot levels (the same one twice if it has only one)."""
    with SimpleClient.spawn(DAEMON, timeout=30) as daemon:
        found = [str(x) for x in daemon.server["levels"]]
    preferred = [lv for lv in ("random", "heuristic", "neural") if lv in found] or found
    return (preferred * 2)[:2]


def toml_list(words: list[str]) -> str:
    return "[" + ", ".join(json.dumps(w) for w in words) + "]"


def toml_value(v: Any) -> str:
    if isinstance(v, dict):
        return "{" + ", ".join(f"{k} = {toml_value(x)}" for k, x in v.items()) + "}"
    if isinstance(v, list):
        return "[" + ", ".join(toml_value(x) for x in v) + "]"
    return json.dumps(v)


def write_league(path: Path, engines: list[dict[str, Any]], **settings: Any) -> Path:
    lines = [f"{k} = {toml_value(v)}" for k, v in {"name": "t", "variant": "jacquet",
                                                   "games": 2, "time_ms": 20, "seed": 11,
                                                   **settings}.items()]
    lines += ["[daemon]", f"command = {toml_list(DAEMON)}"]
    for e in engines:
        lines.append("[[engines]]")
        for k, v in e.items():
            lines.append(f"{k} = {toml_list(v) if isinstance(v, list) else json.dumps(v)}")
    path.write_text("\n".join(lines) + "\n")
    return path


def three_engines(levels: list[str]) -> list[dict[str, Any]]:
    return [{"name": "lvl-a", "level": levels[0]},
            {"name": "lvl-b", "level": levels[1], "plies": 0},
            {"name": "first", "command": [sys.executable, str(ENGINE)]}]


def run_league(path: Path, **options: Any) -> Any:
    config = load_league(path)
    opts = LeagueOptions(results=path.with_suffix(".jsonl"),
                         report=path.with_suffix(".html"), records_dir=path.parent / "rec",
                         progress=False, log_dir=path.parent / "logs", **options)
    return asyncio.run(asyncio.wait_for(League(config, opts).run(), 240))


def totals(results: Path) -> dict[str, Any]:
    out = {}
    for line in results.read_text().splitlines():
        entry = json.loads(line)
        if entry["type"] == "match":
            assert entry["job"] not in out, "a match counted twice"
            out[entry["job"]] = (entry["players"], entry["score"],
                                 [(g["winner"], g["points"], g["moves"]) for g in entry["games"]])
    return out


def test_league_of_three_engines_plays_to_the_end(tmp_path: Path, levels: list[str]) -> None:
    path = write_league(tmp_path / "three.toml", three_engines(levels))
    result = run_league(path, concurrency=2)
    st = result.standings
    assert result.finished and st.matches == 6 and st.games == 6
    assert {x.name: x.games for x in st.lines} == {"lvl-a": 4, "lvl-b": 4, "first": 4}
    assert sum(x.wins for x in st.lines) == 6 and not st.faults
    page = path.with_suffix(".html").read_text()
    for name in ("lvl-a", "lvl-b", "first"):
        assert name in page
    assert "<svg" in page and page.count("<details>") == 6
    records = sorted((tmp_path / "rec").iterdir())
    assert len(records) == 6
    for rec in records:
        parsed = parse_record(rec.read_text())
        assert parsed.games and parsed.games[0].result is not None
        assert parsed.variant == "jacquet"


def test_a_variant_the_daemon_does_not_play_is_refused_at_start(tmp_path: Path,
                                                               levels: list[str]) -> None:
    # which variants exist is the daemon's to say (`hello`), not the league file's reader
    path = write_league(tmp_path / "chess.toml", three_engines(levels)[:2], variant="chess")
    with pytest.raises(LeagueConfigError, match=r"variant: the daemon plays jacquet, "
                       r"jacquet-be, backgammon.* \(got 'chess'\)"):
        run_league(path)
    assert not path.with_suffix(".html").exists()


def test_a_league_of_long_nardy_needs_nothing_else_to_learn(tmp_path: Path) -> None:
    # the variant is one the daemon plays: its rules come from the daemon's hello
    path = write_league(tmp_path / "nardy.toml", [{"name": "h", "level": "heuristic"},
                                                  {"name": "r", "level": "random"}],
                        variant="long-nardy", games=2)
    result = run_league(path)
    assert result.finished and result.standings.games == 2 and not result.standings.faults
    assert {g["name"] for m in result.matches for g in m["games"]} <= {"oin", "mars"}


def test_killed_league_resumes_to_the_same_totals(tmp_path: Path, levels: list[str]) -> None:
    engines = three_engines(levels)
    whole = write_league(tmp_path / "whole.toml", engines)
    cut = write_league(tmp_path / "cut.toml", engines)
    run_league(whole)
    expected = totals(whole.with_suffix(".jsonl"))
    assert len(expected) == 6

    cmd = [sys.executable, "-m", "jacquetd_clients.league.cli", "run", str(cut), "-q",
           "--results", str(cut.with_suffix(".jsonl"))]
    proc = subprocess.Popen(cmd, cwd=REPO, start_new_session=True,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    journal = cut.with_suffix(".jsonl")
    deadline = time.monotonic() + 120
    try:
        while time.monotonic() < deadline and proc.poll() is None:
            if journal.exists() and journal.read_text().count('"type":"match"') >= 2:
                break
            time.sleep(0.05)
        assert proc.poll() is None, "the league finished before it could be killed"
    finally:
        os.killpg(proc.pid, signal.SIGKILL)  # the league, its daemon and its engines
        proc.wait(10)
    partial = totals(journal)
    assert 2 <= len(partial) < 6
    with open(journal, "ab") as f:  # as if the kill had cut a line in half
        f.write(b'{"type":"match","job":"lvl-a~lvl-b#0:0","pla')
    done = subprocess.run([*cmd, "--resume"], cwd=REPO, capture_output=True, text=True,
                          timeout=240)
    assert done.returncode == 0, done.stderr[-2000:]
    assert totals(journal) == expected
    assert "6 matches, 6 games" in done.stdout


def test_crashing_hanging_and_illegal_engines_lose_and_are_replaced(
        tmp_path: Path, levels: list[str]) -> None:
    engine = [sys.executable, str(ENGINE)]
    path = write_league(tmp_path / "faults.toml", [
        {"name": "steady", "level": levels[0]},
        {"name": "crashy", "command": [*engine, "--crash-after", "4"]},
        {"name": "hangy", "command": [*engine, "--hang-after", "4"]},
        {"name": "cheat", "command": [*engine, "--illegal-after", "3"]},
    ], format="gauntlet", games=2)
    result = run_league(path, move_timeout=1.0)
    st = result.standings
    assert result.finished and st.matches == 6
    kinds = {(f["engine"], f["fault"]) for f in st.faults}
    assert {("crashy", "crash"), ("hangy", "hang"), ("cheat", "illegal")} <= kinds
    for name in ("crashy", "hangy", "cheat"):
        line = st.line(name)
        assert line.forfeits == 2 and line.losses == 2  # lost both games, both by forfeit
    events = [json.loads(x) for x in path.with_suffix(".jsonl").read_text().splitlines()]
    assert sum(e["type"] == "event" for e in events) == 6
    assert "Faults" in path.with_suffix(".html").read_text()


@pytest.mark.skipif(not Path(find_gnubg(None)).exists(), reason="gnubg is not installed")
def test_gnubg_plays_backgammon_through_its_external_interface(
        tmp_path: Path, levels: list[str]) -> None:
    path = write_league(tmp_path / "bg.toml", [
        {"name": "ours", "level": levels[0]},
        {"name": "gnubg", "gnubg": find_gnubg(None), "plies": 0},
    ], variant="backgammon", games=2)
    result = run_league(path)
    st = result.standings
    assert result.finished and st.games == 2 and not st.faults
    assert st.line("gnubg").games == 2


def stand_in_league(path: Path, engines: list[dict[str, Any]], *daemon_flags: str,
                    **settings: Any) -> Path:
    """A league whose rules server is the test engine (quick, and able to offer `luck`)."""
    write_league(path, engines, **settings)
    stand_in = toml_list([sys.executable, str(ENGINE), *daemon_flags])
    text = path.read_text().replace(f"command = {toml_list(DAEMON)}", f"command = {stand_in}")
    path.write_text(text)
    return path


def test_luck_adjusted_points_when_the_server_judges_luck(tmp_path: Path) -> None:
    path = stand_in_league(tmp_path / "luck.toml", [
        {"name": "first", "level": "first"},
        {"name": "rand", "command": [sys.executable, str(ENGINE), "--random", "5"]},
    ], "--luck", games=2)
    result = run_league(path)
    st = result.standings
    assert result.finished and st.luck_available and not result.notes
    for line in st.lines:
        assert line.luck_adjusted_ppg is not None
    games = [g for m in result.matches for g in m["games"]]
    assert all(g["luck"] is not None for g in games)
    # the luck of a dice pair cancels: the same stream is played from both seats
    first = st.line("first")
    assert first.luck_adjusted_ppg == pytest.approx(first.ppg - first.luck_sum / first.games)
    assert "luck-adj" in path.with_suffix(".html").read_text()


def test_sprt_stops_as_soon_as_decided(tmp_path: Path) -> None:
    path = stand_in_league(tmp_path / "sprt.toml", [
        {"name": "steady", "level": "first"},
        {"name": "crashy", "command": [sys.executable, str(ENGINE), "--crash-after", "1"]},
    ], sprt={"engines": ["steady", "crashy"], "elo0": 0, "elo1": 200, "max_games": 60})
    result = run_league(path, move_timeout=5.0)
    s = result.standings.sprt
    assert result.stopped_by_sprt and result.finished
    assert s is not None and s["decision"] == "H1" and s["losses"] == 0
    assert s["wins"] == result.standings.games < 60
    assert s["llr"] >= s["upper"]


@pytest.mark.skipif(not Path(find_gnubg(None)).exists(), reason="gnubg is not installed")
def test_gnubg_reads_our_match_score_the_right_way_round() -> None:
    from jacquetd_clients.league.config import EngineSpec
    from jacquetd_clients.league.engines import GnubgPlayer, fibs_board

    opening = [0, 0, 0, 0, 0, 0, 5, 0, 3, 0, 0, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0]

    async def go() -> list[float]:
        gnubg = GnubgPlayer(EngineSpec("gnubg", gnubg=find_gnubg(None), plies=0))
        await gnubg.start()
        try:
            out = []
            for score in ([2, 0], [0, 2]):
                pos = {"variant": "backgammon", "on_roll": opening, "opponent": opening,
                       "dice": [], "primed": [False, False],
                       "cube": {"value": 1, "owner": "centre", "pending": False},
                       "match": {"length": 5, "score": score, "crawford": False}}
                line = await gnubg._ask(f"evaluation fibsboard {fibs_board(pos)} plies 0")
                out.append(float(line.split()[-1]))  # match winning chance of the side on roll
            return out
        finally:
            await gnubg.close()

    leading, trailing = asyncio.run(go())
    assert leading > 0.6 > 0.4 > trailing


def test_demo_finishes_within_a_minute(tmp_path: Path) -> None:
    started = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "jacquetd_clients.league.cli", "demo", "-q",
                           "--out", str(tmp_path)], cwd=REPO, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert time.monotonic() - started < 60
    assert "12 matches, 12 games" in done.stdout
    page = (tmp_path / "demo.report.html").read_text()
    for line in done.stdout.splitlines()[2:5]:
        assert line.split()[0] in page  # every engine of the standings is in the report
