"""Shared helpers for the bots tests: random reachable positions of every variant."""

from __future__ import annotations

import random

from jacquetd.rules import Position, legal_plays

VARIANT_NAMES = ("jacquet", "jacquet-be", "backgammon")


def random_position(variant: str, seed: int, moves: int) -> Position:
    """The position after `moves` random plays from the start (dice rolled for the next)."""
    rng = random.Random(seed)
    pos = Position.initial(variant).with_dice((rng.randint(1, 6), rng.randint(1, 6)))
    for _ in range(moves):
        plays = legal_plays(pos)
        after = plays[rng.randrange(len(plays))].after
        if after.game_over():
            break
        pos = after.with_dice((rng.randint(1, 6), rng.randint(1, 6)))
    return pos
