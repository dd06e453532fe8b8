"""The league against the real daemon's `luck` command: luck-adjusted figures end to end."""

from __future__ import annotations

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
