"""Shared helpers for the bots tests: random reachable positions of every variant."""

from __future__ import annotations

import random

from jacquetd.rules import Cube, MatchState, Position, legal_plays

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


def bear_off_position(me: tuple[int, ...], opp: tuple[int, ...],
                      match: MatchState | None = None, cube: Cube | None = None) -> Position:
    """A backgammon position where each side has only the checkers of its `home` (counts
    on points 1-6) left, the rest borne off."""
    sides = []
    for home in (me, opp):
        side = [0] * 26
        side[1:7] = home
        side[0] = 15 - sum(home)
        sides.append(side)
    return Position.validated("backgammon", sides[0], sides[1], match=match, cube=cube)


def race(me_points: dict[int, int], opp_points: dict[int, int], *,
         cube: Cube | None = None, match: MatchState | None = None) -> Position:
    """A backgammon position with checkers on the given points ({point: count}) and
    the rest of each side's fifteen borne off."""
    sides = []
    for points in (me_points, opp_points):
        side = [0] * 26
        for point, count in points.items():
            side[point] += count
        side[0] = 15 - sum(side)
        sides.append(side)
    return Position.validated("backgammon", sides[0], sides[1], cube=cube or Cube(),
                              match=match)
