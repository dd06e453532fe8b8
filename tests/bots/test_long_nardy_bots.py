"""The bots that need no network in `long-nardy`: `random` and `heuristic` play legal
moves and the heuristic beats random; the neural levels refuse the variant (no network
is shipped for it) with an error a peer sees as `bad_argument`."""

from __future__ import annotations

import pytest

from jacquetd.bots import get_bot
from jacquetd.engine_errors import Unsupported
from jacquetd.rules import DiceSource, Game, legal_plays

from .conftest import random_position


@pytest.mark.parametrize("level", ["random", "heuristic"])
def test_bots_play_legal_long_nardy_moves(level: str) -> None:
    for seed in range(30):
        pos = random_position("long-nardy", seed, seed * 3)
        if pos.game_over():
            continue
        play = get_bot(level, "long-nardy", seed=seed).choose(pos)
        assert play in legal_plays(pos)


def test_heuristic_beats_random_in_long_nardy() -> None:
    games = 30
    won = 0
    for seed in range(games):
        game = Game("long-nardy", dice=DiceSource(seed))
        game.start()
        heuristic_side = seed % 2
        bots = {heuristic_side: get_bot("heuristic", "long-nardy"),
                1 - heuristic_side: get_bot("random", "long-nardy", seed=seed)}
        while game.phase != "over":
            if game.phase == "roll":
                game.roll()
            game.play(bots[game.turn].choose(game.position()))
        assert game.result is not None and game.result.name in ("oin", "mars")
        won += game.result.winner == heuristic_side
    assert won >= games - 3, won


def test_neural_levels_refuse_long_nardy() -> None:
    from jacquetd.bots import analysis
    from jacquetd.rules import Position

    with pytest.raises(Unsupported) as err:
        analysis.evaluate(Position.initial("long-nardy"))
    assert err.value.field == "position" and "long-nardy" in str(err.value)
