"""The league's pure parts: the league file, the schedule, ratings, SPRT, the journal,
standings and the report."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from jacquetd_clients.league.config import LeagueConfigError, load_league, parse_league
from jacquetd_clients.league.journal import Journal, JournalError
from jacquetd_clients.league.ratings import Sprt, bradley_terry, expected_score, wins_matrix
from jacquetd_clients.league.report import render
from jacquetd_clients.league.schedule import schedule
from jacquetd_clients.league.standings import compute, format_table

ENGINES = [{"name": "a", "level": "random"}, {"name": "b", "level": "heuristic", "plies": 0},
           {"name": "c", "command": ["python3", "engine.py"]}]


def test_league_file_defaults_and_values(tmp_path: Path) -> None:
    path = tmp_path / "l.toml"
    path.write_text('name = "x"\nvariant = "jacquet-be"\ngames = 3\ntime_ms = 20\n'
                    '[daemon]\nconnect = "tcp://127.0.0.1:1"\n'
                    '[[engines]]\nname = "a"\nlevel = "random"\n'
                    '[[engines]]\nname = "b"\ncommand = "python3 e.py --x"\nplies = 1\n')
    config = load_league(path)
    assert config.variant == "jacquet-be" and config.games == 3 and config.swap
    assert config.match_length == 0 and not config.cube and config.format == "round-robin"
    assert config.engine("b").command == ("python3", "e.py", "--x")
    assert config.engine("b").kind == "command" and config.engine("a").kind == "level"
    assert config.daemon_connect == "tcp://127.0.0.1:1"
    assert config.base_dir == str(tmp_path.resolve())
    # the fingerprint ignores how the league is run, not what it plays
    same = parse_league({"name": "x", "variant": "jacquet-be", "games": 3, "time_ms": 20,
                         "concurrency": 4, "engines": [
                             {"name": "a", "level": "random"},
                             {"name": "b", "command": ["python3", "e.py", "--x"], "plies": 1}]},
                        base_dir=str(tmp_path.resolve()))
    assert same.fingerprint() == config.fingerprint()
    assert parse_league({"engines": ENGINES, "seed": 2}).fingerprint() != parse_league(
        {"engines": ENGINES, "seed": 3}).fingerprint()


@pytest.mark.parametrize(("data", "message"), [
    ({"engines": ENGINES[:1]}, "at least two"),
    ({"engines": [ENGINES[0], ENGINES[0]]}, "unique"),
    ({"engines": [{"name": "a"}, ENGINES[1]]}, "exactly one of"),
    ({"engines": ENGINES, "variant": "Chess!"}, "variant"),
    ({"engines": ENGINES, "format": "swiss"}, "format"),
    ({"engines": ENGINES, "games": 0}, "games"),
    ({"engines": ENGINES, "games": "4"}, "games"),
    ({"engines": ENGINES, "challenger": "z"}, "challenger"),
    ({"engines": [*ENGINES, {"name": "g", "gnubg": True}]}, "backgammon"),
    ({"engines": ENGINES, "sprt": {"engines": ["a", "a"]}}, "sprt.engines"),
    ({"engines": ENGINES, "sprt": {"engines": ["a", "b"], "elo0": 10, "elo1": 5}}, "elo1"),
])
def test_league_file_errors(data: dict[str, Any], message: str) -> None:
    with pytest.raises(LeagueConfigError, match=message):
        parse_league(data)


def test_bad_toml_is_a_config_error(tmp_path: Path) -> None:
    path = tmp_path / "bad.toml"
    path.write_text("games = [\n")
    with pytest.raises(LeagueConfigError, match=r"bad\.toml"):
        load_league(path)


def test_schedule_round_robin_pairs_share_dice() -> None:
    config = parse_league({"engines": ENGINES, "games": 4, "seed": 9})
    jobs = schedule(config)
    assert len(jobs) == 3 * 4 and len({j.id for j in jobs}) == len(jobs)
    by_pair: dict[str, list[Any]] = {}
    for job in jobs:
        by_pair.setdefault(job.pair, []).append(job)
    for pair in by_pair.values():
        assert len(pair) == 2 and pair[0].seed == pair[1].seed
        assert pair[0].players == tuple(reversed(pair[1].players))
    assert len({j.seed for j in jobs}) == 6
    assert [j.round for j in jobs] == sorted(j.round for j in jobs)  # balanced order
    assert schedule(config) == jobs  # deterministic


def test_schedule_gauntlet_odd_games_and_sprt() -> None:
    gauntlet = schedule(parse_league({"engines": ENGINES, "format": "gauntlet",
                                      "challenger": "c", "games": 3}))
    assert {frozenset(j.players) for j in gauntlet} == {frozenset("ca"), frozenset("cb")}
    assert len(gauntlet) == 6
    single = schedule(parse_league({"engines": ENGINES, "games": 2, "swap": False}))
    assert len(single) == 6 and len({j.seed for j in single}) == 6
    sprt = schedule(parse_league({"engines": ENGINES, "sprt": {"engines": ["b", "a"],
                                                               "max_games": 10}}))
    assert len(sprt) == 10 and all(set(j.players) == {"a", "b"} for j in sprt)


def test_bradley_terry_recovers_strengths() -> None:
    rng = np.random.default_rng(1)
    true = np.array([150.0, 0.0, -150.0])
    names = ["x", "y", "z"]
    results = []
    for _ in range(3000):
        i, j = rng.choice(3, size=2, replace=False)
        p = expected_score(true[i] - true[j])
        results.append((names[i], names[j]) if rng.random() < p else (names[j], names[i]))
    r = bradley_terry(names, wins_matrix(names, results), prior=0)
    assert abs(r.elo.sum()) < 1e-6
    for i in range(3):
        low, high = r.interval(i)
        assert low < true[i] < high
        assert 3 < r.se[i] < 20
    los = r.los()
    assert los[0, 1] > 0.99 and los[2, 0] < 0.01
    assert np.allclose(los + los.T, 1.0)


def test_bradley_terry_unbeaten_stays_finite_and_symmetric_is_even() -> None:
    r = bradley_terry(["a", "b"], np.array([[0, 5], [0, 0]]))
    assert np.isfinite(r.elo).all() and r.elo[0] > 100
    even = bradley_terry(["a", "b", "c"], np.array([[0, 3, 3], [3, 0, 3], [3, 3, 0]]))
    assert np.allclose(even.elo, 0.0, atol=1e-6)
    empty = bradley_terry(["a", "b"], np.zeros((2, 2)))
    assert np.allclose(empty.elo, 0.0)


def test_sprt_decides_both_ways() -> None:
    test = Sprt(elo0=0, elo1=100, alpha=0.05, beta=0.05)
    lower, upper = test.bounds
    assert lower == pytest.approx(-upper)
    assert test.decide(0, 0) is None
    assert test.decide(30, 5) == "H1"
    assert test.decide(5, 30) == "H0"
    assert test.llr(10, 10) < 0  # an even score favours "not stronger by 100"


def match(job: str, players: tuple[str, str], winner: int, points: int = 1,
          fault: str | None = None, luck: list[float] | None = None) -> dict[str, Any]:
    return {"type": "match", "job": job, "pair": job.split(":")[0], "seed": 1,
            "players": list(players), "score": [points if winner == 0 else 0,
                                                points if winner == 1 else 0],
            "winner": winner, "record": f"; [Match \"{job}\"]\n",
            "games": [{"winner": winner, "points": points, "result": points,
                       "reason": "forfeit" if fault else "bear-off", "name": "single",
                       "moves": 50, "cube": 1, "fault": fault, "fault_message": fault,
                       "luck": luck}]}


def test_journal_resume_drops_cut_line_and_duplicates(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    header = {"league": "t", "fingerprint": "f1"}
    j = Journal(path, header, resume=False)
    j.append(match("a~b#0:0", ("a", "b"), 0))
    j.append(match("a~b#0:1", ("b", "a"), 1))
    j.close()
    with open(path, "ab") as f:  # a duplicate, then a line cut short by a kill
        f.write((json.dumps(match("a~b#0:1", ("b", "a"), 1)) + "\n").encode())
        f.write(b'{"type": "match", "job": "a~c')
    with pytest.raises(JournalError, match="--resume"):
        Journal(path, header, resume=False)
    with pytest.raises(JournalError, match="different league"):
        Journal(path, {"league": "t", "fingerprint": "other"}, resume=True)
    j = Journal(path, header, resume=True)
    assert j.done_jobs() == {"a~b#0:0", "a~b#0:1"} and len(j.matches()) == 2
    j.append(match("a~c#0:0", ("a", "c"), 0))
    j.close()
    lines = path.read_bytes().splitlines()
    assert all(json.loads(x) for x in lines)  # the cut line is gone, every line whole
    assert len(Journal(path, header, resume=True).matches()) == 3


def test_standings_and_report() -> None:
    matches = [match("a~b#0:0", ("a", "b"), 0, 2, luck=[0.5, -0.5]),
               match("a~b#0:1", ("b", "a"), 1, 1, luck=[0.0, 0.2]),
               match("a~c#0:0", ("a", "c"), 1, 1, fault="hang", luck=[0.1, 0.0]),
               match("b~c#0:0", ("b", "c"), 0, 3, luck=[0.0, 0.0])]
    st = compute(["a", "b", "c"], matches, (Sprt(0, 50), "a", "b"))
    a, b, c = st.line("a"), st.line("b"), st.line("c")
    assert (a.games, a.wins, a.losses, a.points_won, a.points_lost) == (3, 2, 1, 3, 1)
    assert a.ppg == pytest.approx(2 / 3)
    # a's luck: +1.0 (game 1), +0.2 (game 2), +0.1 (game 3) -> adjusted (3 - 1 - 1.3) / 3
    assert a.luck_adjusted_ppg == pytest.approx((3 - 1 - 1.3) / 3)
    assert b.forfeits == 0 and a.forfeits == 1 and st.faults[0]["engine"] == "a"
    assert c.ppg == pytest.approx((1 - 3) / 2)
    assert st.head_to_head[("a", "b")] == [2, 0, 3, 0]
    assert st.sprt is not None and st.sprt["wins"] == 2 and st.sprt["decision"] is None
    text = format_table(st)
    assert "luck-adj" in text and "SPRT a vs b" in text
    config = parse_league({"engines": ENGINES, "name": "unit <league>"})
    page = render(config, st, matches, finished=True, elapsed_s=1.0)
    assert page.count("<svg") == 2 and "unit &lt;league&gt;" in page
    for name in ("a", "b", "c"):
        assert f">{name}</text>" in page
    assert page.count("<details>") == len(matches)


def test_luck_unavailable_is_reported_not_faked() -> None:
    st = compute(["a", "b"], [match("a~b#0:0", ("a", "b"), 0)])
    assert st.line("a").luck_adjusted_ppg is None and not st.luck_available
    assert "unavailable" in format_table(st)
    page = render(parse_league({"engines": ENGINES[:2]}), st, [], finished=False)
    assert "n/a" in page and "unavailable" in page


OPENING = [0, 0, 0, 0, 0, 0, 5, 0, 3, 0, 0, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0]


def test_fibs_board_for_gnubg() -> None:
    from jacquetd_clients.league.engines import fibs_board, gnubg_move

    pos = {"variant": "backgammon", "on_roll": OPENING, "opponent": OPENING, "dice": [3, 1],
           "primed": [False, False]}
    fields = fibs_board(pos).split(":")  # "board", names, then GNUBG.md's fields 3-52
    # GNUBG.md's worked example of the opening position, slots 0..25
    assert ":".join(fields[6:32]) == "0:-2:0:0:0:0:5:0:3:0:0:0:-5:5:0:0:0:-3:0:-5:0:0:0:0:2:0"
    assert fields[3] == "9999" and fields[32:37] == ["1", "3", "1", "0", "0"]
    assert fields[38:40] == ["1", "1"]  # no cube: still "may double", or gnubg answers `beaver`
    assert len(fields) == 53
    cubed = dict(pos, dice=[], cube={"value": 2, "owner": "opponent", "pending": False},
                 match={"length": 5, "score": [3, 1], "crawford": False})
    f = fibs_board(cubed).split(":")
    assert f[3:6] == ["5", "1", "3"]  # the scores, the opponent's first (gnubg's reading)
    assert f[33:35] == ["0", "0"] and f[37:41] == ["2", "0", "1", "0"]
    crawford = dict(cubed, cube={"value": 1, "owner": "centre", "pending": False},
                    match={"length": 5, "score": [4, 1], "crawford": True})
    f = fibs_board(crawford).split(":")
    assert f[38:40] == ["1", "1"] and f[51:53] == ["0", "0"]  # not post-Crawford; Crawford
    assert gnubg_move("25/22* 6/0 ") == "bar/22* 6/off"
    assert gnubg_move("24/18 24/18 13/7 13/7") == "24/18 24/18 13/7 13/7"
    assert gnubg_move("") == ""
