"""The annotated match's writers (`protocol/annotate.py`) on a hand-made record and
analysis: where each annotation goes, in our record and in gnubg's SGF."""

from __future__ import annotations

from typing import Any

from jacquetd_protocol.annotate import annotated, annotated_record, annotated_sgf
from jacquetd_protocol.records import parse_record
from jacquetd_protocol.sgf import parse_sgf

RECORD = """; [Format "jacquet-match/1"]
; [Variant "backgammon"]
; [Length "0"]
; [Cube "on"]

game 1 score 0 0
opening 3 1
0 move 8/5 6/5
1 double 2
0 take
1 64: 24/18 13/9
"""

CHANCES = {"win": 0.6, "win_gammon": 0.2, "win_backgammon": 0.01, "lose_gammon": 0.1,
           "lose_backgammon": 0.005, "equity": 0.3}
ANALYSIS: dict[str, Any] = {
    "plies": 0, "thresholds": {"doubtful": 0.04, "error": 0.08, "blunder": 0.16},
    "moves": [
        {"game": 1, "index": 0, "side": 0, "dice": [3, 1], "move": "8/5 6/5",
         "best": "8/5 6/5", "equity": 0.1, "best_equity": 0.1, "loss": 0.0, "choices": 16,
         "forced": False, "plies": 0, "units": "money", "mark": None, "luck": 0.2},
        {"game": 1, "index": 4, "side": 1, "dice": [6, 4], "move": "24/18 13/9",
         "best": "24/14", "equity": -0.3, "best_equity": -0.1, "loss": 0.2, "choices": 15,
         "forced": False, "plies": 0, "units": "money", "mark": "blunder", "luck": -0.1},
    ],
    "cube": [
        {"game": 1, "index": 1, "side": 1, "action": "double", "best": "no_double",
         "no_double": 0.2, "double_take": 0.1, "double_pass": 1.0, "loss": 0.1,
         "mark": "error", "counted": True, "plies": 0, "units": "money", "chances": CHANCES},
        {"game": 1, "index": 2, "side": 0, "action": "take", "best": "take",
         "no_double": 0.2, "double_take": 0.1, "double_pass": 1.0, "loss": 0.0,
         "mark": None, "counted": True, "plies": 0, "units": "money", "chances": CHANCES},
    ],
    "summary": [{"side": s, "decisions": 1, "forced": 0, "loss": 0.2 * s,
                 "marks": {"doubtful": 0, "error": 0, "blunder": s},
                 "cube_decisions": 1, "cube_marks": {"doubtful": 0, "error": s,
                                                      "blunder": 0},
                 "cube_loss": 0.1 * s, "error_rate": 0.15 * s, "pr": 75.0 * s,
                 "luck": 0.2 - 0.3 * s} for s in (0, 1)],
}


def test_the_record_gets_each_annotation_after_its_action() -> None:
    text = annotated_record(parse_record(RECORD), ANALYSIS)
    lines = text.splitlines()
    assert '; [Analysis "plies=0 doubtful=0.04 error=0.08 blunder=0.16"]' in lines
    summary = next(line for line in lines if line.startswith("; [Summary1 "))
    assert "pr=75.0" in summary and "blunder=1" in summary and "cube_error=1" in summary
    body = lines[lines.index("game 1 score 0 0"):]
    assert body == [
        "game 1 score 0 0",
        "opening 3 1",
        "0 move 8/5 6/5",
        ';@ move side=0 dice=31 move="8/5 6/5" best="8/5 6/5" equity=0.1 best_equity=0.1 '
        "loss=0.0 mark=- choices=16 forced=false plies=0 units=money luck=0.2",
        "1 double 2",
        ";@ cube side=1 action=double best=no_double no_double=0.2 double_take=0.1 "
        "double_pass=1.0 loss=0.1 mark=error counted=true plies=0 units=money",
        "0 take",
        ";@ cube side=0 action=take best=take no_double=0.2 double_take=0.1 double_pass=1.0 "
        "loss=0.0 mark=- counted=true plies=0 units=money",
        "1 64: 24/18 13/9",
        ';@ move side=1 dice=64 move="24/18 13/9" best=24/14 equity=-0.3 best_equity=-0.1 '
        "loss=0.2 mark=blunder choices=15 forced=false plies=0 units=money luck=-0.1",
    ]
    # a reader that skips the comments reads the same match
    assert parse_record(text).games == parse_record(RECORD).games


def test_the_sgf_puts_gnubg_properties_on_the_nodes() -> None:
    sgf = annotated_sgf(parse_record(RECORD), ANALYSIS)
    nodes = sgf.split("\n;")
    assert nodes[1].startswith("W[31hefe]A[0][hefe ]LU[+0.200]C[")
    assert nodes[2].startswith("B[double]DA[E ver 3 0C 1 0.000000 1 0.600000 0.200000 "
                               "0.010000 0.100000 0.005000 0.300000 0.200000 0.600000 ")
    assert "0.300000 0.100000]BC[1]C[" in nodes[2]
    assert nodes[3].startswith("W[take]C[jacquetd 0-ply cube (money): take, right take")
    # Black's 24/18 13/9 is a b..: the best play first, the played one second (A[1])
    assert nodes[4].startswith("B[64aglp]")
    assert "A[1][ak ][aglp ]LU[-0.100]BM[2]C[" in nodes[4]
    assert parse_sgf(sgf).games == parse_record(RECORD).games


def test_only_backgammon_with_the_cube_has_an_sgf() -> None:
    assert set(annotated(parse_record(RECORD), ANALYSIS)) == {"record", "sgf"}
    jacquet = RECORD.replace('"backgammon"', '"jacquet"')
    assert set(annotated(parse_record(jacquet), {"moves": [], "cube": []})) == {"record"}
