"""The league against the real daemon's `luck` command: luck-adjusted figures end to end."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.clients.test_league import levels, run_league, write_league

__all__ = ["levels"]  # the module-scoped fixture, shared


def test_luck_adjusted_points_from_the_real_daemon(tmp_path: Path, levels: list[str]) -> None:
    """The rules server is `jacquetd stdio`, which offers `luck` (the bots' roll luck):
    every game gets its luck figures and the standings their luck-adjusted points."""
    path = write_league(tmp_path / "real-luck.toml", [
        {"name": "lvl-a", "level": levels[0]}, {"name": "lvl-b", "level": levels[1]}],
        variant="backgammon")
    result = run_league(path)
    st = result.standings
    assert result.finished and st.luck_available and not result.notes, result.notes
    games = [g for m in result.matches for g in m["games"]]
    assert games and all(g["luck"] is not None for g in games)
    assert any(abs(x) > 1e-6 for g in games for x in g["luck"])
    for line in st.lines:
        assert line.luck_adjusted_ppg is not None


def _outcomes(result: object) -> list[tuple[object, ...]]:
    return [(m["job"], tuple(m["score"]), m["record"])
            for m in result.matches]  # type: ignore[attr-defined]


def test_luck_false_in_the_league_file_plays_the_same_games_without_judging_luck(
        tmp_path: Path, levels: list[str]) -> None:
    engines = [{"name": "lvl-a", "level": levels[0]}, {"name": "lvl-b", "level": levels[1]}]
    judged = run_league(write_league(tmp_path / "on.toml", engines, variant="backgammon"))
    off = run_league(write_league(tmp_path / "off.toml", engines, variant="backgammon",
                                  luck=False))
    games = [g for m in off.matches for g in m["games"]]
    assert games and all(g["luck"] is None for g in games)
    assert not off.standings.luck_available and not off.luck_judged
    assert any("luck not judged" in note for note in off.notes)
    assert _outcomes(off) == _outcomes(judged)  # the results are the same games
    assert "Luck was not judged" in (tmp_path / "off.html").read_text()


def test_no_luck_on_the_command_line(tmp_path: Path, levels: list[str]) -> None:
    path = write_league(tmp_path / "cli.toml", [
        {"name": "lvl-a", "level": levels[0]}, {"name": "lvl-b", "level": levels[1]}],
        variant="backgammon")
    proc = subprocess.run([sys.executable, "-m", "jacquetd_clients.league.cli", "run",
                           str(path), "--no-luck", "--quiet"], capture_output=True,
                          text=True, timeout=240, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "luck-adjusted: not judged" in proc.stdout
    journal = [json.loads(line) for line in path.with_suffix(".results.jsonl").read_text()
               .splitlines()]
    games = [g for e in journal if e["type"] == "match" for g in e["games"]]
    assert games and all(g["luck"] is None for g in games)
