"""Players' names in `.mat` and SGF files: written as gnubg writes names (no `:`, no
spaces, at most 31 bytes), the full names kept in a comment that our readers restore."""

from __future__ import annotations

from jacquetd_protocol.mat import GNUBG_NAME_BYTES, format_mat, gnubg_name, parse_mat
from jacquetd_protocol.records import Action, GameRecord, GameResult, MatchRecord
from jacquetd_protocol.sgf import format_sgf, parse_sgf


def _record(p0: str, p1: str) -> MatchRecord:
    game = GameRecord(1, (0, 0), opening=(3, 1),
                      actions=[Action(0, "move", move="8/5 6/5"), Action(1, "double", value=2),
                               Action(0, "drop")],
                      result=GameResult(1, 1, "drop", "drop"))
    return MatchRecord({"Variant": "backgammon", "Length": "1", "Cube": "on",
                        "Player0": p0, "Player1": p1}, [game])


NAMES = [("bot:heuristic", "bot:neural"), ("Ann Smith, jr.", "x" * 80),
         ('say "hi" [now] \\ ok', "Jürgen:Ω"), ("", ""), ("bot:neural", "bot:neural"),
         ("é" * 40, "tab\there")]


def test_names_are_written_as_gnubg_writes_them_and_read_back_whole() -> None:
    for p0, p1 in NAMES:
        rec = _record(p0, p1)
        mat, sgf = format_mat(rec), format_sgf(rec)
        names_line = mat.split(" Game 1\n", 1)[1].splitlines()[0]
        left, right = names_line.split(" : 0")[:2]
        written = (left.strip(), right.strip())
        assert written[0] != written[1], written
        for name in written:
            assert name and ":" not in name and " " not in name and "," not in name
            assert len(name.encode("utf-8")) <= GNUBG_NAME_BYTES
        assert f"PW[{written[0]}]PB[{written[1]}]" in sgf
        expected = (p0, p1)
        assert parse_mat(mat).players == expected, mat
        assert parse_sgf(sgf).players == expected, sgf


def test_gnubg_name() -> None:
    assert gnubg_name("bot:heuristic", 0) == "bot_heuristic"
    assert gnubg_name("  Ann  Smith ", 1) == "Ann_Smith"
    assert gnubg_name(":::", 1) == "Player1"
    assert gnubg_name("é" * 40, 0) == "é" * 15  # 30 bytes: whole characters only


def test_a_foreign_mat_without_name_tags_keeps_its_names() -> None:
    mat = format_mat(_record("ann", "bob"))
    plain = "\n".join(line for line in mat.splitlines() if "[Player" not in line)
    assert parse_mat(plain).players == ("ann", "bob")
