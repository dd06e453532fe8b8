"""A backgammon league writes each match as `.mat` beside its record; the files read
back as the same matches, and GNU Backgammon imports them."""

from __future__ import annotations

from pathlib import Path

import pytest
from jacquetd_protocol.mat import parse_mat, turns
from jacquetd_protocol.match_files import parse_match_file
from jacquetd_protocol.records import parse_record

from jacquetd.matches.records import check
from tests.clients.test_league import run_league, write_league
from tests.interchange.gnubg_cli import find_gnubg, run_gnubg


def test_a_backgammon_league_writes_mat_records(tmp_path: Path) -> None:
    path = write_league(tmp_path / "bg.toml", [{"name": "a", "level": "random"},
                                               {"name": "b", "level": "random"}],
                        variant="backgammon", games=2, match_length=3, cube=True)
    result = run_league(path)
    assert result.finished
    records = sorted((tmp_path / "rec").glob("*.txt"))
    mats = sorted((tmp_path / "rec").glob("*.mat"))
    assert len(records) == 2 and [m.stem for m in mats] == [r.stem for r in records]
    for rec, mat in zip(records, mats, strict=True):
        ours = parse_record(rec.read_text())
        check(ours)  # every result right, the cube counted once
        back = parse_match_file(mat.read_text())
        assert [turns(g) for g in back.games] == [turns(g) for g in ours.games]
        assert back.score == ours.score and max(back.score) >= 3
        if find_gnubg() is None:
            continue
        out = run_gnubg([f"import mat {mat}", f"export match mat {tmp_path / 'again.mat'}"],
                        tmp_path / "home")
        assert "not a valid" not in out
        again = parse_mat((tmp_path / "again.mat").read_text())
        assert again.score == ours.score
        assert len(again.games) == len(ours.games)
        (tmp_path / "again.mat").unlink()


def test_a_jacquet_league_writes_no_mat(tmp_path: Path) -> None:
    path = write_league(tmp_path / "j.toml", [{"name": "a", "level": "random"},
                                              {"name": "b", "level": "random"}], games=1)
    assert run_league(path).finished
    assert list((tmp_path / "rec").glob("*.txt")) and not list((tmp_path / "rec").glob("*.mat"))


pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")
