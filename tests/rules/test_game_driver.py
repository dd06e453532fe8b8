"""The game driver: games and matches played to the end by players (rolls, moves, the cube,
resignations, scoring, Crawford), as the rules core's `Game` and `Match` apply them."""

from __future__ import annotations

import random
from collections.abc import Sequence

import pytest

from jacquetd.rules import (
    DiceSource,
    Game,
    GameStateError,
    Match,
    Play,
    Position,
    RawPlay,
    find_variant,
    generate_raw,
)
from jacquetd.rules.driver import Chooser, Flow, play_game, play_match
from jacquetd.rules.scoring import game_result


class Random(Chooser):
    """Chooses uniformly with its own generator; records what it was asked."""

    def __init__(self, seed: int = 0) -> None:
        self.rng = random.Random(seed)
        self.numbers: list[int] = []
        self.asked_double: list[bool] = []

    def choose(self, rolled: Position, plays: Sequence[RawPlay], number: int) -> RawPlay:
        assert len(plays) > 1 and rolled.dice
        self.numbers.append(number)
        return plays[self.rng.randrange(len(plays))]


class Doubler(Random):
    """Doubles whenever it may; takes or drops as told."""

    def __init__(self, seed: int = 0, *, takes: bool = True) -> None:
        super().__init__(seed)
        self.takes = takes

    def double(self, game: Game, side: int) -> bool:
        assert game.may_double() and game.turn == side
        self.asked_double.append(bool(game.match and game.match.crawford))
        return True

    def take(self, game: Game, side: int) -> bool:
        assert game.phase == "double" and game.turn != side
        return self.takes


class Resigner(Random):
    """Offers to resign `value` on its first turn; accepts offers when `accepts_offers`."""

    def __init__(self, value: int, *, accepts_offers: bool = True) -> None:
        super().__init__()
        self.value = value
        self.accepts_offers = accepts_offers
        self.offered = False

    def resigns(self, game: Game, side: int) -> int:
        if self.offered:
            return 0
        self.offered = True
        return self.value

    def accepts(self, game: Game, side: int, result: int) -> bool:
        return self.accepts_offers


@pytest.mark.parametrize("variant", ["jacquet", "jacquet-be", "backgammon"])
def test_a_game_is_played_to_its_result_by_the_rules_tables(variant: str) -> None:
    moves: list[tuple[int, Play, bool]] = []
    game = Game(variant, cube_enabled=False, dice=DiceSource(7))
    result = play_game(game, (Random(1), Random(2)),
                       on_move=lambda g, side, play, forced: moves.append((side, play, forced)))
    side, last, _ = moves[-1]
    assert result.reason == "bear-off" and result.winner == side
    assert last.raw.me[0] == 15
    expected = game_result(find_variant(variant), last.raw.me, last.raw.opp, game.primed[side])
    assert (result.result, result.points) == (expected, expected)
    assert game.history[-1] == f"{side} wins {expected}"


def test_the_same_dice_play_the_same_game() -> None:
    def one() -> list[str]:
        game = Game("backgammon", dice=DiceSource(99))
        play_game(game, (Random(3), Random(4)))
        return game.history

    assert one() == one()


def test_a_forced_roll_is_played_without_asking_and_numbers_count_every_move() -> None:
    forced = 0
    game = Game("jacquet", dice=DiceSource(5))

    def count(g: Game, side: int, play: Play, was_forced: bool) -> None:
        nonlocal forced
        forced += was_forced

    a, b = Random(1), Random(2)
    play_game(game, (a, b), on_move=count)
    moves = sum(1 for h in game.history if " move " in h)
    assert len(a.numbers) + len(b.numbers) + forced == moves
    assert sorted(a.numbers + b.numbers) == sorted(set(a.numbers + b.numbers))
    assert max(a.numbers + b.numbers) < moves


def test_a_dropped_double_ends_the_game_at_the_cube_before_it() -> None:
    game = Game("backgammon", dice=DiceSource(1))
    result = play_game(game, (Doubler(takes=False), Doubler(takes=False)))
    assert (result.reason, result.points, result.result) == ("drop", 1, 1)
    assert game.cube_value == 1


def test_taken_doubles_raise_the_cube_and_only_its_owner_redoubles() -> None:
    game = Game("backgammon", dice=DiceSource(2))
    result = play_game(game, (Doubler(5), Doubler(6)))
    doubles = [h for h in game.history if h.endswith(" double")]
    takes = [h for h in game.history if h.endswith(" take")]
    assert len(doubles) == len(takes) >= 2
    # every double after the first is offered by the side that took the one before
    for before, after in zip(takes, doubles[1:], strict=False):
        assert before.split()[0] == after.split()[0]
    assert game.cube_value == 2 ** len(takes)
    assert result.points == result.result * game.cube_value


def test_an_accepted_resignation_scores_its_value_times_the_cube() -> None:
    game = Game("jacquet", dice=DiceSource(3))
    result = play_game(game, (Resigner(2), Resigner(2)))
    assert result.reason == "resign" and result.points == 2 and result.name == "marcia"
    assert result.winner == 1 - int(game.history[1].split()[0])


def test_a_rejected_resignation_plays_on() -> None:
    game = Game("jacquet", dice=DiceSource(3))
    result = play_game(game, (Resigner(1, accepts_offers=False),
                              Resigner(1, accepts_offers=False)))
    assert result.reason == "bear-off"
    assert sum(1 for h in game.history if h.endswith(" reject")) == 2


def test_a_resignation_past_the_variant_is_refused() -> None:
    game = Game("jacquet-be", dice=DiceSource(3))
    with pytest.raises(GameStateError) as refused:
        play_game(game, (Resigner(3), Resigner(3)))
    assert refused.value.rule == "B8"


def test_a_match_is_scored_and_its_crawford_game_has_no_double() -> None:
    a, b = Doubler(1, takes=False), Doubler(2, takes=False)
    match = Match("backgammon", 5, cube_enabled=True, seed=11)
    winner = play_match(match, (a, b))
    assert winner is not None and match.score[winner] >= 5 > match.score[1 - winner]
    assert sum(r.points for r in (g.result for g in match.games) if r) == sum(match.score)
    crawford = [g for g in match.games if g.match is not None and g.match.crawford]
    assert len(crawford) == 1
    assert not any(a.asked_double + b.asked_double)  # nobody was asked in it
    assert not any(h.endswith(" double") for h in crawford[0].history)
    assert match.games[0].history != match.games[1].history


def test_a_match_replays_from_its_seed() -> None:
    def one() -> list[list[str]]:
        match = Match("jacquet", 7, seed=21)
        play_match(match, (Random(1), Random(2)))
        return [g.history for g in match.games]

    assert one() == one()


def test_a_game_past_its_move_bound_is_stopped() -> None:
    game = Game("jacquet", dice=DiceSource(4))
    with pytest.raises(GameStateError, match="passed 10 moves"):
        play_game(game, (Random(), Random()), max_moves=10)


# ---- the step-wise loop ----------------------------------------------------------------------


def _reference_game(game: Game, players: tuple[Chooser, Chooser]) -> None:
    """The game loop written out in one piece, as the rules read (J2/B2, C2, C5, J12):
    each turn the side on turn may resign, then double, then rolls; a roll with one
    legal play is played without asking."""
    if game.phase == "opening":
        game.start()
    moves = 0
    while game.result is None:
        side = game.turn
        if game.phase == "roll":
            offered = players[side].resigns(game, side)
            if offered:
                game.resign(side, offered)
                game.answer_resign(players[1 - side].accepts(game, 1 - side, offered))
                if game.result is not None:
                    break
            if game.cube_enabled and game.may_double() and players[side].double(game, side):
                game.double()
                if players[1 - side].take(game, 1 - side):
                    game.take()
                else:
                    game.drop()
                    break
            game.roll()
        rolled = game.position()
        raws = generate_raw(rolled.rules, rolled.me, rolled.opp, rolled.dice)
        raw = raws[0] if len(raws) == 1 else players[side].choose(rolled, raws, moves)
        game.make(Play(rolled, raw))
        moves += 1


class Sometimes(Random):
    """Doubles, takes, resigns and accepts at random (its own generator)."""

    def double(self, game: Game, side: int) -> bool:
        return self.rng.random() < 0.2

    def take(self, game: Game, side: int) -> bool:
        return self.rng.random() < 0.7

    def resigns(self, game: Game, side: int) -> int:
        return 1 if self.rng.random() < 0.01 else 0

    def accepts(self, game: Game, side: int, result: int) -> bool:
        return self.rng.random() < 0.5


def _players(kind: type[Random], seed: int) -> tuple[Random, Random]:
    return kind(2 * seed), kind(2 * seed + 1)


@pytest.mark.parametrize("variant", ["jacquet", "jacquet-be", "backgammon"])
@pytest.mark.parametrize("kind", [Random, Sometimes])
def test_the_step_wise_loop_plays_the_games_of_the_loop_in_one_piece(
        variant: str, kind: type[Random]) -> None:
    for seed in range(6):
        ours = Game(variant, cube_enabled=True, dice=DiceSource(seed))
        play_game(ours, _players(kind, seed))
        theirs = Game(variant, cube_enabled=True, dice=DiceSource(seed))
        _reference_game(theirs, _players(kind, seed))
        assert ours.history == theirs.history
        assert ours.result == theirs.result


def test_a_match_played_step_by_step_is_the_match_played_game_by_game() -> None:
    for seed in range(4):
        ours = Match("backgammon", 5, cube_enabled=True, seed=seed)
        play_match(ours, _players(Sometimes, seed))
        theirs = Match("backgammon", 5, cube_enabled=True, seed=seed)
        players = _players(Sometimes, seed)
        while not theirs.over:
            _reference_game(theirs.new_game(), players)
            theirs.record_result()
        assert [g.history for g in ours.games] == [g.history for g in theirs.games]
        assert ours.score == theirs.score
        assert [g.match for g in ours.games] == [g.match for g in theirs.games]


def test_the_flow_names_the_pending_decision_and_who_may_take_it() -> None:
    match = Match("backgammon", 3, cube_enabled=True, seed=5)
    flow = Flow(match, autoplay="pass")
    steps = [flow.advance(), flow.advance()]
    assert [s.kind for s in steps if s] == ["game_start", "opening"]
    assert flow.advance() is None
    kind, side = flow.pending() or ("", None)
    assert kind == "move" and side == match.games[0].turn  # the opening dice are played
    assert flow.may(side) == ["move", "resign"] and flow.may(1 - side) == ["resign"]
    with pytest.raises(GameStateError) as refused:
        flow.apply(side, "double")
    assert refused.value.rule == "C2"
    flow.apply(side, "resign", value=1)
    assert flow.pending() == ("accept", 1 - side) and flow.to_act() == 1 - side
    flow.apply(1 - side, "accept")
    assert [s.kind for s in iter(flow.advance, None)] == ["game_over", "game_start", "opening"]
    assert match.score[1 - side] == 1 and len(match.games) == 2


@pytest.mark.parametrize("variant", ["jacquet", "jacquet-be", "backgammon"])
def test_a_position_before_the_roll_may_double_exactly_when_its_game_may(variant: str) -> None:
    """C2/C5: `Position.may_double` (what a record's analysis reads) agrees with
    `Game.may_double` at every turn of cube matches, owned cubes and Crawford games
    included."""
    answers: list[bool] = []

    class Checker(Doubler):
        def resigns(self, game: Game, side: int) -> int:
            answers.append(game.may_double())
            assert game.position().may_double() == answers[-1]
            return 0

        def double(self, game: Game, side: int) -> bool:
            return self.rng.random() < 0.3

    for seed in range(4):
        match = Match(variant, 5, cube_enabled=True, seed=seed)
        play_match(match, (Checker(seed), Checker(seed + 100)))
    assert True in answers and False in answers
