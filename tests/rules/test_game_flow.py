"""Game and match flow: openings (J2, B2), the cube (C1-C3), Crawford (C5), replay by seed."""

from __future__ import annotations

import random

import pytest

from jacquetd.rules import DiceSource, Game, GameStateError, Match


def play_out(game: Game, rng: random.Random) -> None:
    while game.phase != "over":
        if game.phase == "roll":
            game.roll()
        game.play(rng.choice(game.legal_plays()))


def test_J2_jacquet_opening_winner_rolls_again() -> None:
    g = Game("jacquet", dice=DiceSource(script=[(3, 3), (5, 2), (6, 4)]))
    assert g.start() == (5, 2)
    assert g.turn == 0 and g.phase == "roll"
    assert g.roll() == (6, 4)


def test_B2_belgian_opening_dice_are_played() -> None:
    g = Game("jacquet-be", dice=DiceSource(script=[(2, 6)]))
    g.start()
    assert g.turn == 1 and g.phase == "move" and g.position().dice == (6, 2)


def test_C2_double_take_redouble_and_drop() -> None:
    g = Game("backgammon", dice=DiceSource(script=[(6, 1)]))
    g.start()
    g.play("13/7 8/7")
    assert g.turn == 1 and g.may_double()
    g.double()
    assert g.phase == "double" and g.position().cube is not None
    assert g.position().cube.pending  # type: ignore[union-attr]
    g.take()
    assert g.cube_value == 2 and g.cube_owner == 0 and not g.may_double()
    g.roll((3, 1))
    g.play("8/5 6/5")
    assert g.may_double()
    g.double()
    g.drop()
    assert g.result is not None and g.result.winner == 0 and g.result.points == 2


def test_C1_no_cube_in_jacquet_by_default() -> None:
    g = Game("jacquet", dice=DiceSource(script=[(5, 2)]))
    g.start()
    assert not g.may_double()
    with pytest.raises(GameStateError):
        g.double()


def test_C3_resignation_scores_times_cube() -> None:
    g = Game("backgammon", dice=DiceSource(seed=1))
    g.start()
    g.resign(1, 2)
    g.answer_resign(True)
    assert g.result is not None and g.result.winner == 0 and g.result.points == 2


def test_C5_crawford_game_has_no_doubling() -> None:
    m = Match("backgammon", length=3, seed=7)
    m.score = [2, 0]
    g = m.new_game()
    assert g.match is not None and g.match.crawford
    g.start()
    if g.phase == "move":
        g.play(g.legal_plays()[0])
    assert not g.may_double()


def test_same_seed_same_match() -> None:
    def run(seed: int) -> list[list[str]]:
        m = Match("jacquet", length=3, seed=seed)
        rng = random.Random(seed)
        while not m.over:
            g = m.new_game()
            g.start()
            play_out(g, rng)
            m.record_result()
        return [g.history for g in m.games]

    assert run(11) == run(11)
    assert run(11) != run(12)


def test_resignation_blocks_play_until_answered_and_respects_the_variant() -> None:
    g = Game("jacquet-be", dice=DiceSource(seed=3))
    g.start()
    with pytest.raises(GameStateError) as err:
        g.resign(0, 3)
    assert err.value.rule == "B8"
    g.resign(g.turn, 2)
    assert g.phase == "resign"
    with pytest.raises(GameStateError):
        g.play(g.position().to_id())
    g.answer_resign(False)
    assert g.phase == "move"
