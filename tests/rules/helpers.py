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
