"""Text forms: move notation, compact ids, the ASCII board; parse/format round trips."""

from __future__ import annotations

import contextlib

import pytest
from hypothesis import given
from hypothesis import strategies as st

from jacquetd.rules import (
    AmbiguousMoveError,
    IllegalMoveError,
    MoveSyntaxError,
    Position,
    PositionError,
    apply_move,
    legal_plays,
    parse_move,
    render_board,
)
from jacquetd.rules.movegen import Step, format_steps
from jacquetd.rules.notation import Segment

from .helpers import pos


def test_parse_move_forms() -> None:
    assert parse_move("24/18 18/13") == [Segment(24, 18, False), Segment(18, 13, False)]
    assert parse_move("24/18/13") == parse_move("24/18 18/13")
    assert parse_move("bar/22*") == [Segment(25, 22, True)]
    assert parse_move("25/22*") == parse_move("bar/22*")
    assert parse_move("6/off") == [Segment(6, 0, False)] == parse_move("6/0")
    assert parse_move("13/7(2)") == [Segment(13, 7, False)] * 2
    assert parse_move("pass") == [] == parse_move("")


@pytest.mark.parametrize("text", ["24", "24/26", "x/3", "3/5", "13/7(9)", "a" * 300, "24-18"])
def test_parse_move_rejects_non_notation(text: str) -> None:
    with pytest.raises(MoveSyntaxError):
        parse_move(text)


def test_format_parse_round_trip_of_canonical_spellings() -> None:
    steps = (Step(25, 22, 3, True), Step(13, 7, 6, False), Step(6, 0, 6, False))
    text = format_steps(steps)
    assert text == "bar/22* 13/7 6/off"
    assert [(s.src, s.dst, s.hit) for s in parse_move(text)] == [
        (s.src, s.dst, s.hit) for s in steps]


def test_any_legal_spelling_is_accepted() -> None:
    p = Position.initial("backgammon").with_dice((6, 6))
    play = apply_move(p, "24/18(2) 13/7(2)")
    assert apply_move(p, "13/7 24/18 13/7 24/18") == play
    assert apply_move(p, "24/18 24/18 13/7 13/7") == play
    assert play.move == "24/18 24/18 13/7 13/7"


def test_hit_marks_disambiguate() -> None:
    # a blot on 18 (opponent's 7) and 19 open: 24/13 can go by either
    p = pos("backgammon", {24: 2, 13: 4, 8: 3, 6: 6}, {7: 1, 13: 5, 8: 3, 5: 6}, (6, 5))
    hit = apply_move(p, "24/18*/13")
    quiet = apply_move(p, "24/19/13")
    assert hit.hits == 1 and quiet.hits == 0
    assert apply_move(p, "24/13") == quiet  # no mark written: the play without a hit
    with pytest.raises(IllegalMoveError):
        apply_move(p, "24/13*")  # nothing to hit on 13


def test_ambiguous_spelling_lists_candidates() -> None:
    # two blots, on 18 and 19: 24/13 hits either way; unmarked and marked '*' at the end fit both
    p = pos("backgammon", {24: 2, 13: 4, 8: 3, 6: 6}, {7: 1, 6: 1, 13: 5, 8: 3, 4: 5}, (6, 5))
    with pytest.raises(AmbiguousMoveError) as err:
        apply_move(p, "24/13")
    assert len(err.value.candidates) == 2
    assert apply_move(p, "24/18*/13").move != apply_move(p, "24/19*/13").move


def test_illegal_moves_name_their_rule() -> None:
    p = Position.initial("backgammon").with_dice((6, 5))
    with pytest.raises(IllegalMoveError) as err:
        apply_move(p, "24/18 24/18")
    assert err.value.rule == "G6"
    with pytest.raises(IllegalMoveError) as err:
        apply_move(p, "13/8 6/0")
    assert err.value.rule == "B7"


def test_position_id_is_one_safe_token() -> None:
    p = Position.initial("jacquet").with_dice((6, 5))
    token = p.to_id()
    assert token.replace("-", "").replace("_", "").isalnum()
    assert Position.from_id(token) == p


@given(st.text(max_size=80))
def test_position_id_decoder_never_crashes(text: str) -> None:
    with contextlib.suppress(PositionError):
        Position.from_id(text)


@given(st.binary(min_size=30, max_size=48))
def test_position_id_decoder_rejects_random_bytes_cleanly(raw: bytes) -> None:
    import base64

    token = base64.urlsafe_b64encode(raw).decode().rstrip("=")
    try:
        p = Position.from_id(token)
    except PositionError:
        return
    assert Position.from_id(p.to_id()) == p


def test_board_text_shows_both_sides_and_the_id() -> None:
    p = legal_plays(Position.initial("jacquet").with_dice((6, 5)))[0].after
    text = render_board(p)
    assert "15O" in text and "14X" in text and p.to_id() in text
