"""Helpers shared by the rules tests: building positions by point lists, random games."""

from __future__ import annotations

import random
from collections.abc import Iterator

from jacquetd.rules import Position, generate
from jacquetd.rules.movegen import position_after


def side(spec: dict[int, int]) -> list[int]:
    """26 counts from {point: count}; the rest of the 15 checkers are borne off."""
    counts = [0] * 26
    for point, n in spec.items():
        counts[point] += n
    counts[0] += 15 - sum(counts)
    return counts


def pos(variant: str, me: dict[int, int], opp: dict[int, int], dice: tuple[int, int] | None = None,
        **kw: object) -> Position:
    p = Position.validated(variant, side(me), side(opp), dice or (), **kw)  # type: ignore[arg-type]
    return p


def results(p: Position) -> set[tuple[tuple[int, ...], tuple[int, ...]]]:
    return {(r.me, r.opp) for r in generate(p)}


def random_positions(variant: str, seed: int, count: int) -> Iterator[Position]:
    """Positions with dice from seeded random games of `variant` (random legal plays)."""
    rng = random.Random(seed)
    made = 0
    while made < count:
        p = Position.initial(variant)
        while made < count:
            p = p.with_dice((rng.randint(1, 6), rng.randint(1, 6)))
            yield p
            made += 1
            raw = rng.choice(generate(p))
            p = position_after(p, raw.me, raw.opp)
            if p.game_over():
                break


ALL_ROLLS = [(a, b) for a in range(1, 7) for b in range(1, a + 1)]


def last_checkers_with_a_blot() -> Iterator[Position]:
    """Every roll where the mover's last one or two checkers can hit on the way off (G7).

    The opponent has one blot on a point of the mover's home board and the rest
    of its checkers on its own 6-point; bearing off the last checker with one die
    then competes with a hit that plays both, a case random games rarely reach.
    """
    for mine in [{a: 1} for a in range(2, 7)] + [{a: 1, b: 1} for a in range(2, 7)
                                                   for b in range(1, a)]:
        for blot in range(1, max(mine)):
            if blot in mine:
                continue
            me = [0] * 26
            for q, n in mine.items():
                me[q] = n
            me[0] = 15 - sum(me)
            opp = [0] * 26
            opp[25 - blot] = 1
            opp[6] = 14
            for roll in ALL_ROLLS:
                yield Position.validated("backgammon", me, opp, roll)
