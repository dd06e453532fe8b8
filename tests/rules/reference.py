"""A deliberately naive second implementation of legal plays, for differential tests.

It follows RULES.md literally: every order of the dice, every checker that
`step_violation` lets move, no memo and no shortcuts; then G7 (most dice, else
the higher die) and J10 (most borne off); N5's head limit is the turn's, passed to
every step. It shares nothing with the fast
generator but the single-step rules of `explain.py`, which a property test
holds equal to the generator's own inline checks.
"""

from __future__ import annotations

from itertools import permutations

from jacquetd.rules import Position
from jacquetd.rules.explain import step_violation
from jacquetd.rules.geometry import head_floor
from jacquetd.rules.variants import opponent_point_map

Key = tuple[tuple[int, ...], tuple[int, ...]]


def reference_results(p: Position) -> set[Key]:
    v = p.rules
    table = opponent_point_map(v)
    d1, d2 = p.dice
    dice = [d1] * 4 if d1 == d2 else [d1, d2]
    floor = head_floor(p.me, p.dice) if v.head_rule else None
    found: dict[Key, tuple[int, int]] = {}  # key -> (dice used, first die used)

    def walk(me: list[int], opp: list[int], todo: tuple[int, ...], used: int, first: int) -> None:
        moved = False
        if todo and me[0] < 15:
            die = todo[0]
            for src in range(25, 0, -1):
                if not me[src] or step_violation(v, me, opp, src, die, floor) is not None:
                    continue
                moved = True
                m2, o2 = me.copy(), opp.copy()
                dst = max(src - die, 0)
                m2[src] -= 1
                m2[dst] += 1
                if dst and o2[table[dst]]:
                    o2[table[dst]] -= 1
                    o2[25] += 1
                walk(m2, o2, todo[1:], used + 1, first or die)
        if not moved:
            key = (tuple(me), tuple(opp))
            total = len(dice) if me[0] == 15 else used
            best = found.get(key)
            if best is None or total > best[0]:
                found[key] = (total, first)

    for order in set(permutations(dice)):
        walk(list(p.me), list(p.opp), order, 0, 0)
    most = max(u for u, _ in found.values())
    keys = {k for k, (u, _) in found.items() if u == most}
    if most == 1 and d1 != d2:
        higher = {k for k in keys if found[k][1] == max(d1, d2)}
        if higher:
            keys = higher
    if v.most_borne_off and keys:
        off = max(k[0][0] for k in keys)
        keys = {k for k in keys if k[0][0] == off}
    return keys
