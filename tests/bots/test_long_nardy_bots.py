"""The bots of `long-nardy`: every level plays legal moves, the heuristic beats random,
and the shipped network's evaluation knows the variant's results (oin and mars, N9)."""

from __future__ import annotations

import pytest

from jacquetd.bots import get_bot
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


@pytest.mark.parametrize("level", ["neural", "neural-1"])
def test_neural_levels_play_legal_long_nardy_moves(level: str) -> None:
    for seed in range(12):
        pos = random_position("long-nardy", seed, seed * 3)
        if pos.game_over():
            continue
        play = get_bot(level, "long-nardy", seed=seed).choose(pos)
        assert play in legal_plays(pos)


def test_the_network_gives_no_third_result() -> None:
    from jacquetd.bots import analysis
    from jacquetd.rules import Position

    e = analysis.evaluate(Position.initial("long-nardy"))
    assert 0.3 < e.win < 0.7  # the start is close to even for the side on roll
    assert e.win_backgammon == e.lose_backgammon == 0.0  # oin 1, mars 2: nothing beyond
