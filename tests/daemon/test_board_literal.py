"""The daemon's board literal of a rules-core position (compact play records) is the
protocol's `format_board` of its structured form, and reads back to it."""

from __future__ import annotations

import random

import pytest
from jacquetd_protocol.positions import format_board, parse_board

from jacquetd.daemon.positions import board_literal_of, literal_frame
from jacquetd.rules import Position, legal_plays


def board_literal(pos: Position) -> str:
    """The literal as the daemon writes one per play: the frame shared by a roll's plays,
    then the sides and the primed flags."""
    return board_literal_of(literal_frame(pos.variant, pos.dice, pos.cube, pos.match),
                            pos.me, pos.opp, pos.primed)


@pytest.mark.parametrize("variant", ["jacquet", "jacquet-be", "backgammon"])
@pytest.mark.parametrize("setup", [{}, {"cube": True}, {"cube": True, "match_length": 7}])
def test_board_literal_is_format_board(variant: str, setup: dict[str, object]) -> None:
    rng = random.Random(variant)
    pos = Position.initial(variant, **setup)  # type: ignore[arg-type]
    seen = 0
    for _ in range(120):
        if rng.random() < 0.3:
            pos = pos.with_dice((rng.randint(1, 6), rng.randint(1, 6)))
        literal = board_literal(pos)
        assert literal == format_board(pos.to_dict())
        assert parse_board(literal) == pos.to_dict()
        seen += 1
        plays = legal_plays(pos.with_dice((rng.randint(1, 6), rng.randint(1, 6))))
        after = rng.choice(plays).after
        if after.me[0] >= 15 or after.opp[0] >= 15:
            pos = Position.initial(variant, **setup)  # type: ignore[arg-type]
        else:
            pos = after
    assert seen == 120
