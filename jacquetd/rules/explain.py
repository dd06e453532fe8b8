"""Why a single step is illegal: the readable twin of the generator's step rules.

`step_violation` answers, for one checker moved by one die, which RULES.md
rule forbids it (or None when it is legal). The generator keeps its own fast
inline checks; a property test holds the two in agreement.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from .geometry import (
    MIDPOINT,
    block_breach,
    closed_in_start_table,
    forbidden_closure,
    in_courier_phase,
    lowest_opposing,
)
from .variants import Variant, opponent_point_map


class Violation(NamedTuple):
    rule: str | None
    message: str


def step_violation(v: Variant, me: Sequence[int], opp: Sequence[int], src: int, die: int,
                   floor: int | None = None) -> Violation | None:
    """The rule that forbids moving a checker of `me` from `src` by `die`, or None.

    With N5 (`long-nardy`), `floor` is the turn's `geometry.head_floor`; left out, the
    die is taken for the turn's first (no checker has left the head yet).
    """
    if not 0 < src <= 25 or me[src] == 0:
        where = "the bar" if src == 25 else f"point {src}"
        return Violation("G1", f"no checker of the side on roll on {where}")
    if me[25] and src != 25:
        return Violation("J5", "checkers on the bar must enter before any other checker moves")
    table = opponent_point_map(v)
    dst = src - die
    if v.head_rule and src == 24 and floor is not None and me[24] <= floor:
        return Violation("N5", "only one checker may leave the head (24-point) per turn; "
                               "two on a side's first turn with 6-6, 4-4 or 3-3")
    if v.courier and in_courier_phase(me):
        courier_points = [q for q in range(1, 26) if me[q] and q != 24]
        if courier_points and src not in courier_points:
            return Violation(
                "J6", f"only the courier (on {courier_points[0]}) may move until it reaches "
                      "the finishing table")
    if dst <= 0:
        if any(me[7:26]):
            rule = "J9" if v.bear_off == "rearmost" else v.cite("B7")
            return Violation(rule, "bearing off needs all 15 checkers in the finishing table")
        highest = max(q for q in range(1, 7) if me[q])
        if v.bear_off == "rearmost" and src != highest:
            return Violation("J9", f"only the rearmost checker (on point {highest}) may be "
                                   "borne off")
        if v.bear_off == "standard" and dst < 0 and src != highest:
            return Violation(v.cite("B7"), f"a die larger than the point bears off only from "
                                           f"the highest point ({highest})")
        after = list(me)
        after[src] -= 1
        after[0] += 1
        if v.closures and forbidden_closure(after) is not None:
            return Violation("B5", "the move would leave a forbidden closure")
        return None
    n = opp[table[dst]]
    if n and not v.hitting:
        return Violation(v.cite("B3"), f"point {dst} holds an opposing checker")
    if n >= 2:
        return Violation("J3", f"point {dst} is held by two or more opposing checkers")
    if v.midpoint_limit and dst == MIDPOINT and me[MIDPOINT] >= 2:
        return Violation("J8", "a third checker on the midpoint (13-point)")
    after = list(me)
    after[src] -= 1
    after[dst] += 1
    if v.start_limit and closed_in_start_table(after) > 2 >= closed_in_start_table(me):
        return Violation("J7", "a third closed point in the starting table (points 24-19)")
    if v.closures:
        run = forbidden_closure(after)
        if run is not None:
            return Violation("B5", f"a forbidden closure on points {'-'.join(map(str, run))}")
    if v.six_block and me[dst] == 0 and block_breach(after, dst, lowest_opposing(opp)):
        return Violation("N6", f"landing on {dst} makes a block of six or more points with "
                               "no opposing checker ahead of it")
    return None
