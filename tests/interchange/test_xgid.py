"""XGIDs: published examples checked field by field, round trips, refusals."""

from __future__ import annotations

import pytest

from jacquetd.rules import Position, PositionError
from jacquetd.rules.gnubg_id import gnubg_id, parse_gnubg_id
from jacquetd.rules.interchange import foreign_form, foreign_ids, parse_foreign
from jacquetd.rules.position import Cube, CubeOwner, MatchState
from jacquetd.rules.xgid import format_xgid, parse_xgid
from tests.interchange.positions import random_positions


def test_the_opening_position() -> None:
    pos = parse_xgid("XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10")
    assert pos == Position.initial("backgammon")
    assert format_xgid(pos) == "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10"


def test_a_published_pair_gnubg_and_xg_agree() -> None:
    # The same position as gnubg and XG print it: 3-point match, 1-2 (bottom player 1),
    # the Crawford game, the bottom player has rolled 5-3 in the opening position.
    xg = "XGID=-b----E-C---eE---c-e----B-:0:0:1:53:1:2:1:3:10"
    gnu = "4HPwATDgc/ABMA:8IluACAACAAE"
    pos = parse_xgid(xg)
    assert pos == parse_gnubg_id(gnu)
    assert pos.dice == (5, 3)
    assert pos.match == MatchState(3, (1, 2), True)
    assert pos.cube == Cube(1, CubeOwner.CENTRE, False)
    assert format_xgid(pos) == xg
    assert gnubg_id(pos) == gnu


def test_a_published_pair_with_the_top_player_on_turn() -> None:
    # Top player on turn with 4-2 in a 5-point match at 0-0, owning the cube at 2.
    xg = "XGID=-BDB-------------a------e-:1:-1:-1:42:0:0:0:5:8"
    pos = parse_xgid(xg)
    assert pos == parse_gnubg_id("ewMAAD4gAAAAAA:AQGqAAAAAAAE")
    assert pos.dice == (4, 2)
    assert pos.cube == Cube(2, CubeOwner.ON_ROLL, False)
    # top (on turn): 5 on its 1-point (character 24), 1 on its 8-point (character 17)
    assert (pos.me[0], pos.me[1], pos.me[8]) == (9, 5, 1)
    # bottom: 2, 4 and 2 on its points 1, 2 and 3 (characters 1-3)
    assert (pos.opp[0], pos.opp[1], pos.opp[2], pos.opp[3]) == (7, 2, 4, 2)
    # Written back with the side on roll at the bottom: the board turns round.
    assert format_xgid(pos) == "XGID=-E------A-------------bdb-:1:1:1:42:0:0:0:5:10"
    assert parse_xgid(format_xgid(pos)) == pos


def test_a_double_offered() -> None:
    # The bottom player (on turn) has doubled from 2 to 4; the top player must answer.
    pos = parse_xgid("XGID=-b----E-C---eE---c-e----B-:1:1:1:D:0:0:0:0:10")
    assert pos.cube == Cube(2, CubeOwner.ON_ROLL, True)
    assert pos.dice == ()
    assert format_xgid(pos).endswith(":1:1:1:D:0:0:0:0:10")


def test_checkers_on_the_bars() -> None:
    pos = parse_xgid("XGID=a-----D-C---dE---c-e----BA:0:0:1:31:0:0:0:0:10")
    assert pos.me[25] == 1 and pos.opp[25] == 1
    assert parse_xgid(format_xgid(pos)) == pos


def test_round_trips_on_random_positions() -> None:
    for pos in random_positions(400, seed=7):
        text = format_xgid(pos)
        back = parse_xgid(text)
        assert back.me == pos.me and back.opp == pos.opp and back.match == pos.match
        assert back.cube == pos.cube
        assert sorted(back.dice) == sorted(pos.dice)
        assert format_xgid(back) == text
        assert parse_xgid(text.removeprefix("XGID=")) == back


@pytest.mark.parametrize(("text", "words"), [
    ("XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0", "10 fields"),
    ("XGID=-b----E-C---eE---c-e----B-:0:0:2:00:0:0:0:0:10", "field 4"),
    ("XGID=-b----E-C---eE---c-e----B-:0:0:1:B:0:0:0:0:10", "beaver"),
    ("XGID=-b----E-C---eE---c-e----B-:0:0:1:70:0:0:0:0:10", "field 5"),
    ("XGID=-b----E-C---eE---c-e----B-:0:0:1:00:9:0:0:5:10", "C5"),
    ("XGID=-b----E-C---eE---c-e----BB:0:0:1:00:0:0:0:0:10", "17 checkers"),
    ("XGID=-b----E-C---eE---c-e----B-:0:x:1:00:0:0:0:0:10", "field 3"),
])
def test_bad_xgids_are_refused_with_the_reason(text: str, words: str) -> None:
    with pytest.raises(PositionError, match=words):
        parse_xgid(text)


def test_the_forms_are_told_apart_and_refused_for_jacquet() -> None:
    start = Position.initial("backgammon")
    ids = foreign_ids(start)
    assert foreign_form(ids["gnubg_id"]) == "gnubg"
    assert foreign_form(ids["xgid"]) == "xgid"
    assert foreign_form(start.to_id()) is None
    assert foreign_ids(Position.initial("jacquet")) == {}
    for text in ids.values():
        assert parse_foreign(text) == start
        with pytest.raises(PositionError, match="backgammon positions only; jacquet-be"):
            parse_foreign(text, "jacquet-be")
