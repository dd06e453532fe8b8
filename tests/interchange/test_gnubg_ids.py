"""gnubg Position IDs and Match IDs against GNU Backgammon itself (the PyPI `gnubg`
module, in-process): the same ids on random positions, and gnubg's ids read back."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from jacquetd.rules import Position, PositionError
from jacquetd.rules.gnubg_id import (
    decode_key,
    gnubg_id,
    match_fields,
    parse_gnubg_id,
    position_id,
)
from jacquetd.rules.position import CubeOwner
from tests.interchange.positions import random_positions

gnubg: Any = pytest.importorskip("gnubg", reason="the PyPI package gnubg (extra `test`) "
                                 "computes gnubg's own ids in-process")

POSITIONS = random_positions(1200, seed=20261201)


def _board(pos: Position) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """gnubg's board: (side not on roll, side on roll), points 1-24 then the bar."""
    return tuple(pos.opp[1:26]), tuple(pos.me[1:26])


def _gnubg_says(pos: Position, on_roll_player: int) -> str:
    """gnubg's `PositionID:MatchID` of `pos`, the side on roll being `on_roll_player`."""
    cube = pos.cube
    assert cube is not None
    me, opp = on_roll_player, 1 - on_roll_player
    owner = {CubeOwner.CENTRE: -1, CubeOwner.ON_ROLL: me, CubeOwner.OPPONENT: opp}[cube.owner]
    m = pos.match
    score = [0, 0]
    if m is not None:
        score[me], score[opp] = m.score
    ci = gnubg.cubeinfo(cube.value, owner, me, m.length if m else 0, tuple(score),
                        int(bool(m and m.crawford)), 0)
    pi = gnubg.posinfo(opp if cube.pending else me, 0, int(cube.pending),
                       2 if pos.game_over() else 1, tuple(pos.dice) or (0, 0))
    return str(gnubg.gnubgid(_board(pos), ci, pi))


def test_the_sample_covers_every_kind_of_position() -> None:
    kinds = {
        "match": sum(p.match is not None for p in POSITIONS),
        "money": sum(p.match is None for p in POSITIONS),
        "crawford": sum(bool(p.match and p.match.crawford) for p in POSITIONS),
        "owned cube": sum(p.cube is not None and p.cube.value > 1 for p in POSITIONS),
        "pending double": sum(p.cube is not None and p.cube.pending for p in POSITIONS),
        "dice": sum(bool(p.dice) for p in POSITIONS),
        "bar": sum(bool(p.me[25] or p.opp[25]) for p in POSITIONS),
        "finished": sum(p.game_over() for p in POSITIONS),
    }
    assert len(POSITIONS) >= 1000
    assert min(kinds.values()) >= 20, kinds


def test_our_ids_are_gnubgs_ids() -> None:
    wrong = [(p.to_id(), gnubg_id(p), _gnubg_says(p, 1)) for p in POSITIONS
             if gnubg_id(p) != _gnubg_says(p, 1)]
    assert not wrong, f"{len(wrong)} of {len(POSITIONS)} differ, first: {wrong[:3]}"


def test_gnubg_reads_our_position_ids() -> None:
    for p in POSITIONS:
        assert tuple(map(tuple, gnubg.positionfromid(position_id(p)))) == _board(p)


@pytest.mark.parametrize("on_roll_player", [0, 1])
def test_gnubgs_ids_read_back_as_the_same_position(on_roll_player: int) -> None:
    for p in POSITIONS:
        text = _gnubg_says(p, on_roll_player)
        assert _dice_sorted(parse_gnubg_id(text)) == _dice_sorted(p), text
        assert gnubg_id(parse_gnubg_id(text)) == gnubg_id(p)


def _dice_sorted(pos: Position) -> Position:
    """The position with its dice higher first: ids keep the roll, not the order rolled."""
    return replace(pos, dice=tuple(sorted(pos.dice, reverse=True)))


def test_a_position_id_alone_is_money_play_before_the_roll() -> None:
    pos = parse_gnubg_id("4HPwATDgc/ABMA")
    assert pos == Position.initial("backgammon")
    assert decode_key("4HPwATDgc/ABMA")[0] == Position.initial("backgammon").me


def test_every_match_id_field() -> None:
    # A published example: 3-point match, Crawford game, score 2-1, player 1 rolled 5-3.
    assert match_fields("8IluACAACAAE") == {
        "cube": 0, "owner": 3, "move": 1, "crawford": 1, "state": 1, "turn": 1,
        "doubled": 0, "resigned": 0, "die1": 5, "die2": 3, "length": 3, "score0": 2,
        "score1": 1, "jacoby": 1}


@pytest.mark.parametrize(("text", "words"), [
    ("4HPwATDgc/ABM", "14-character Position ID"),
    ("4HPwATDgc/ABMA:8IluACAACAA", "14-character Position ID"),
    ("//////////////", "more than 15 checkers"),
    ("4HPwATDgc/ABMA:8IluACAACAAM", "past bit 66"),
])
def test_bad_gnubg_ids_are_refused_with_the_reason(text: str, words: str) -> None:
    with pytest.raises(PositionError, match=words):
        parse_gnubg_id(text)


def _with(fields: dict[str, int]) -> str:
    from jacquetd.rules.gnubg_id import _LAYOUT, _put, _to_b64

    return _to_b64(_put([(w, fields[n]) for n, w in _LAYOUT]), 9)


@pytest.mark.parametrize(("change", "words"), [
    ({"resigned": 2}, "resignation is offered"),
    ({"state": 3}, "ended by a resignation"),
    ({"state": 4}, "ended by a dropped double"),
    ({"doubled": 1}, "also the one to answer"),
    ({"owner": 2}, "cube owner 2"),
    ({"die1": 7}, "dice"),
    ({"die2": 0}, "dice"),
])
def test_match_ids_a_position_cannot_hold_are_refused(change: dict[str, int],
                                                     words: str) -> None:
    fields = match_fields("8IluACAACAAE") | change
    with pytest.raises(PositionError, match=words):
        parse_gnubg_id("4HPwATDgc/ABMA:" + _with(fields))
