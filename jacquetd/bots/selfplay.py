"""Self-play on the engine's game driver, for training and benchmarks.

A game is played by `jacquetd.rules.driver` (the rules core's one game loop)
with the dice of a numpy generator. A *chooser* picks one of the raw legal
plays of a turn (`jacquetd.rules.generate_raw`); the driver keeps the 'has held
a prime' flags (J12), applies the variant's opening (J2: the side that opens
rolls again; B2 and backgammon: the opening throw, never a double, is the first
turn) and scores the result (J12, B8, C4) with the cube at 1. Here the side
that opens is given (`first`): the opening throw only gives the first turn's
dice where the variant plays them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from jacquetd.rules import Game, GameStateError, Play, Position, RawPlay, Variant
from jacquetd.rules.driver import Chooser as Player
from jacquetd.rules.driver import play_game as drive

Side = tuple[int, ...]


@dataclass(frozen=True, slots=True)
class Turn:
    """The state of a turn as a chooser sees it: `me` is on roll and has rolled `dice`."""

    me: Side
    opp: Side
    me_flag: bool
    opp_flag: bool
    dice: tuple[int, int]


Chooser = Callable[[Turn, Sequence[RawPlay]], int]
TurnHook = Callable[[int, Turn, Sequence[RawPlay], int], None]


def start_side(variant: Variant) -> Side:
    side = [0] * 26
    for point, count in variant.start_setup:
        side[point] = count
    return tuple(side)


def roll(rng: np.random.Generator) -> tuple[int, int]:
    a, b = rng.integers(1, 7, size=2)
    return int(a), int(b)


def opening_roll(variant: Variant, rng: np.random.Generator) -> tuple[int, int]:
    """The first turn's dice: a non-double under B2 and in backgammon, any roll under J2."""
    if not variant.opening_plays_opening_dice:
        return roll(rng)
    while True:
        a, b = roll(rng)
        if a != b:
            return a, b


class _Dice:
    """The driver's dice from `rng`: the opening throw makes `first` open (J2: without a
    throw; B2 and backgammon: a roll that is not a double, played as the first turn);
    `last` is the latest roll in the order drawn."""

    def __init__(self, variant: Variant, rng: np.random.Generator, first: int) -> None:
        self.variant = variant
        self.rng = rng
        self.first = first
        self.last = (0, 0)

    def opening(self) -> tuple[int, int]:
        if not self.variant.opening_plays_opening_dice:
            return (2, 1) if self.first == 0 else (1, 2)
        self.last = a, b = opening_roll(self.variant, self.rng)
        high, low = max(a, b), min(a, b)
        return (high, low) if self.first == 0 else (low, high)

    def roll(self) -> tuple[int, int]:
        self.last = roll(self.rng)
        return self.last


class _Seat(Player):
    """A chooser playing one side through the driver; `on_turn` sees every turn."""

    def __init__(self, index: int, chooser: Chooser, dice: _Dice,
                 on_turn: TurnHook | None) -> None:
        self.index = index
        self.chooser = chooser
        self.dice = dice
        self.on_turn = on_turn

    def turn(self, rolled: Position) -> Turn:
        return Turn(rolled.me, rolled.opp, rolled.primed[0], rolled.primed[1], self.dice.last)

    def choose(self, rolled: Position, plays: Sequence[RawPlay], number: int) -> RawPlay:
        turn = self.turn(rolled)
        k = self.chooser(turn, plays)
        if self.on_turn is not None:
            self.on_turn(self.index, turn, plays, k)
        return plays[k]


def play_game(variant: Variant, choosers: tuple[Chooser, Chooser],
              rng: np.random.Generator, *, first: int = 0, on_turn: TurnHook | None = None,
              max_turns: int = 3000) -> tuple[int, int]:
    """Play one game; return (winner index 0/1, points won with the cube at 1).

    A game still running after `max_turns` turns is abandoned as (-1, 0): in
    backgammon two closed boards with a checker on each bar pass for ever.

    `first` is the index of the chooser that opens; `on_turn(player, turn, plays,
    chosen)` is called after every choice, a forced play's included (luck accounting
    uses it).
    """
    dice = _Dice(variant, rng, first)
    seats = (_Seat(0, choosers[0], dice, on_turn), _Seat(1, choosers[1], dice, on_turn))

    def forced(game: Game, side: int, play: Play, was_forced: bool) -> None:
        if was_forced and on_turn is not None:
            on_turn(side, seats[side].turn(play.before), [play.raw], 0)

    game = Game(variant.name, cube_enabled=False, dice=dice)
    try:
        result = drive(game, seats, max_moves=max_turns, on_move=forced)
    except GameStateError:
        return -1, 0  # abandoned: both sides passing for ever (closed boards, both on the bar)
    return result.winner, result.points
