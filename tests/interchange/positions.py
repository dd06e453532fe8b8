"""Random backgammon positions for the id tests: every cube state, money and match scores,
Crawford games, dice, pending doubles and finished games."""

from __future__ import annotations

import random

from jacquetd.rules import Position
from jacquetd.rules.position import Cube, CubeOwner, MatchState


def _side(rng: random.Random, taken: set[int], off_max: int) -> list[int]:
    """15 checkers: some borne off, the rest on points 1-25 not in `taken` (the
    opponent's points, in this side's numbering)."""
    side = [0] * 26
    side[0] = rng.choice([0] * 6 + list(range(off_max + 1)))
    free = [q for q in range(1, 26) if q not in taken]
    spots = rng.sample(free, rng.randint(1, min(8, len(free))))
    for _ in range(15 - side[0]):
        side[rng.choice(spots)] += 1
    return side


def random_position(rng: random.Random) -> Position:
    """A valid random backgammon position."""
    while True:
        opp = _side(rng, set(), 14)
        if rng.random() < 0.05:
            opp = [15] + [0] * 25  # a finished game, the loser on roll
        opp_points = {25 - q for q in range(1, 25) if opp[q]}
        me = _side(rng, opp_points, 14)
        if sum(me) == 15:
            break
    finished = opp[0] == 15
    match = None
    if rng.random() < 0.6:
        length = rng.choice([1, 3, 5, 7, 9, 11, 13, 15, 17, 21, 25, 63])
        score = (rng.randrange(length), rng.randrange(length))
        crawford = (length - 1 in score) and rng.random() < 0.5
        match = MatchState(length, score, crawford)
    value = 1 if (match and match.crawford) else rng.choice([1, 1, 2, 4, 8, 16, 64, 4096])
    owner = CubeOwner.CENTRE if value == 1 else rng.choice([CubeOwner.ON_ROLL,
                                                            CubeOwner.OPPONENT])
    pending = (not finished and owner is not CubeOwner.OPPONENT
               and not (match and match.crawford) and rng.random() < 0.25)
    dice: tuple[int, ...] = ()
    if not pending and not finished and rng.random() < 0.6:
        dice = (rng.randint(1, 6), rng.randint(1, 6))
    return Position.validated("backgammon", me, opp, dice, (False, False),
                              Cube(value, owner, pending), match)


def random_positions(n: int, seed: int) -> list[Position]:
    rng = random.Random(seed)
    return [random_position(rng) for _ in range(n)]
