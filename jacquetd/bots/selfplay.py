"""Fast game loops on raw side arrays, for training and benchmarks.

A game is driven directly by `jacquetd.rules.generate_raw` (no Position
objects). A *chooser* picks one of the legal plays of a turn; the loop keeps
the 'has held a prime' flags (J12), applies the variant's opening (J2: the
winner of the opening throw rolls again; B2 and backgammon: the opening
throw, never a double, is the first turn) and scores the result (J12, B8,
C4) with the cube at 1.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from jacquetd.rules import RawPlay, Variant, generate_raw
from jacquetd.rules.geometry import has_prime

from .evaluator import score_of

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


def play_game(variant: Variant, choosers: tuple[Chooser, Chooser], rng: np.random.Generator,
              *, first: int = 0, on_turn: TurnHook | None = None,
              max_turns: int = 3000) -> tuple[int, int]:
    """Play one game; return (winner index 0/1, points won with the cube at 1).

    A game still running after `max_turns` turns is abandoned as (-1, 0): in
    backgammon two closed boards with a checker on each bar pass for ever.

    `first` is the index of the chooser that opens; `on_turn(player, turn,
    plays, chosen)` is called after every choice (luck accounting uses it).
    """
    sides = [start_side(variant), start_side(variant)]
    flags = [False, False]
    player = first
    dice = opening_roll(variant, rng)
    for _ in range(max_turns):
        me, opp = sides[player], sides[1 - player]
        turn = Turn(me, opp, flags[player], flags[1 - player], dice)
        raws = generate_raw(variant, me, opp, dice)
        k = choosers[player](turn, raws) if len(raws) > 1 else 0
        if on_turn is not None:
            on_turn(player, turn, raws, k)
        rp = raws[k]
        sides[player], sides[1 - player] = rp.me, rp.opp
        if variant.tracks_primes and not flags[player] and has_prime(rp.me):
            flags[player] = True
        if rp.me[0] == 15:
            return player, score_of(variant, rp.me, rp.opp, flags[player])
        player = 1 - player
        dice = roll(rng)
    return -1, 0  # abandoned: both sides passing for ever (closed boards, both on the bar)
