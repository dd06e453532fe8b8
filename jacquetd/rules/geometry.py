"""Board geometry helpers shared by the generator, the validator and the scorer.

Primes (J12) and closures (B5) are runs of consecutive points along the
circuit of G5, on which point 1 is followed by point 24.
"""

from __future__ import annotations

from collections.abc import Sequence

START_TABLE = range(19, 25)
"""G2: a side's starting table, points 24-19."""
HOME_TABLE = range(1, 7)
"""G2: a side's finishing table, points 6-1."""
MIDPOINT = 13
BAR = 25
OFF = 0

_FULL = (1 << 24) - 1


def point_mask(side: Sequence[int], minimum: int) -> int:
    """Bit q-1 set when point q holds at least `minimum` of the side's checkers."""
    mask = 0
    for q in range(1, 25):
        if side[q] >= minimum:
            mask |= 1 << (q - 1)
    return mask


def has_prime(side: Sequence[int]) -> bool:
    """J12: six consecutive points (G5 circuit), each with two or more checkers."""
    m = point_mask(side, 2)
    if m == 0:
        return False
    m2 = m | (m << 24)  # unroll the circuit so that runs through 1 -> 24 are straight
    run = m2 & (m2 >> 1) & (m2 >> 2) & (m2 >> 3) & (m2 >> 4) & (m2 >> 5)
    return run != 0


def circular_runs(mask: int) -> list[list[int]]:
    """Maximal runs of set points on the G5 circuit, each as a list of point numbers.

    Points are listed from high to low along the route (24 down to 1, then
    wrapping from 1 to 24). A mask with all 24 points set is one run.
    """
    if mask == 0:
        return []
    if mask == _FULL:
        return [list(range(24, 0, -1))]
    # start just after an empty point so that no run is split by the wrap
    start = next(q for q in range(24, 0, -1) if not mask >> (q - 1) & 1)
    runs: list[list[int]] = []
    current: list[int] = []
    q = start
    for _ in range(24):
        q = q - 1 if q > 1 else 24
        if mask >> (q - 1) & 1:
            current.append(q)
        elif current:
            runs.append(current)
            current = []
    if current:
        runs.append(current)
    return runs


_UPPER_HALF = frozenset(range(13, 25))
_TRAY = frozenset(range(1, 7)) | frozenset(range(19, 25))


def closure_permitted(run: Sequence[int]) -> bool:
    """B5: whether a closure (a run of six or more occupied points) is allowed.

    (a) all its points among 24-13, or (b) all among 6-1 and 24-19 and it
    includes points 2 and 1.
    """
    points = set(run)
    if points <= _UPPER_HALF:
        return True
    return points <= _TRAY and 1 in points and 2 in points


def forbidden_closure(side: Sequence[int]) -> list[int] | None:
    """B5: the first forbidden closure the side stands in, or None."""
    for run in circular_runs(point_mask(side, 1)):
        if len(run) >= 6 and not closure_permitted(run):
            return run
    return None


def closed_in_start_table(side: Sequence[int]) -> int:
    """J7: how many of points 24-19 hold two or more of the side's checkers."""
    return sum(1 for q in START_TABLE if side[q] >= 2)


def in_courier_phase(side: Sequence[int]) -> bool:
    """J6: at least 14 on the 24-point, none in the finishing table, none borne off."""
    return side[24] >= 14 and side[0] == 0 and not any(side[1:7])


def pip_count(side: Sequence[int]) -> int:
    """Pips the side still has to travel (the bar counts 25)."""
    return sum(q * side[q] for q in range(1, 26))


def _run_through(side: Sequence[int], q: int) -> list[int]:
    """The maximal run of occupied points (G5 circuit) that contains occupied point q."""
    run = [q]
    p = q
    for _ in range(23):
        p = p + 1 if p < 24 else 1  # toward the start of the route
        if not side[p] or p == q:
            break
        run.append(p)
    p = q
    for _ in range(23):
        p = p - 1 if p > 1 else 24  # toward the end of the route
        if not side[p] or p in run:
            break
        run.append(p)
    return run


def closure_breach(after: Sequence[int], src: int, dst: int, dst_was_empty: bool) -> bool:
    """B5 after one step from `src` to `dst` (0: off): does it leave a forbidden closure?

    Only the runs the step touched can have changed: the run now through a
    newly occupied `dst`, and the runs on either side of a vacated `src`.
    The position before the step had no forbidden closure.
    """
    if dst and dst_was_empty:
        run = _run_through(after, dst)
        if len(run) >= 6 and not closure_permitted(run):
            return True
    if src <= 24 and not after[src]:
        for neighbour in (src + 1 if src < 24 else 1, src - 1 if src > 1 else 24):
            if after[neighbour]:
                run = _run_through(after, neighbour)
                if len(run) >= 6 and not closure_permitted(run):
                    return True
    return False


# -- Long Nardy (RULES.md section 6) -------------------------------------------------------

HEAD = 24
"""N1: a side's head, its 24-point."""
_HEAD_DOUBLES = frozenset((3, 4, 6))


def head_floor(side: Sequence[int], dice: Sequence[int]) -> int:
    """N5 for a turn that starts with `side` and `dice`: no checker may leave the head
    while the head holds this many checkers or fewer.

    One checker may leave per turn; two on a side's first turn (all 15 on the head
    when the turn starts) with 6-6, 4-4 or 3-3. No checker comes back to its head, so
    the count now against the count at the turn's start tells how many have left.
    """
    limit = 2 if (side[HEAD] == 15 and len(dice) == 2 and dice[0] == dice[1]
                  and dice[0] in _HEAD_DOUBLES) else 1
    return side[HEAD] - limit


def route_point(p: int) -> int:
    """G3: the opponent's own number for our point p (1-24): the place of p on its route."""
    return p + 12 if p <= 12 else p - 12


def lowest_opposing(opp: Sequence[int]) -> int:
    """N6: the opponent's lowest point (its own numbering) holding a checker, 0 once it
    has borne one off. A block of ours is legal exactly when its lowest point, in the
    opponent's numbering, is above this one (a checker of the opponent is ahead of it)."""
    if opp[0]:
        return 0
    for q in range(1, 25):
        if opp[q]:
            return q
    return 0


def _block_through(side: Sequence[int], p: int) -> list[int]:
    """N6: the run of occupied points along the opponent's route (12, 11, ..., 1, 24, ...,
    13 in our numbering; 13|12 is no step of it) that contains occupied point p."""
    run = [p]
    q = p
    while q != 12:  # up the opponent's route, toward its head (our 12)
        q = q + 1 if q < 24 else 1
        if not side[q]:
            break
        run.append(q)
    q = p
    while q != 13:  # down the opponent's route, toward its end (our 13)
        q = q - 1 if q > 1 else 24
        if not side[q]:
            break
        run.insert(0, q)
    return run


def block_breach(after: Sequence[int], dst: int, lowest: int) -> bool:
    """N6 after a step that landed on `dst`, empty before it: does the side now stand in a
    block of six or more with no opposing checker ahead? `lowest` is
    `lowest_opposing(opp)`. Only the run through a newly occupied point can have become
    such a block: vacating a point only shortens or splits runs."""
    if route_point(dst) >= lowest:
        return False  # the opponent's lowest checker lies below dst: it is ahead
    return len(_block_through(after, dst)) >= 6


def unpassed_block(side: Sequence[int], opp: Sequence[int]) -> list[int] | None:
    """N6: the first block of `side` (six or more points in a row on the opponent's route)
    with no checker of `opp` ahead of it, as our points from the opponent's head end; or
    None."""
    lowest = lowest_opposing(opp)
    seen: set[int] = set()
    for p in range(1, 25):
        if side[p] and p not in seen and route_point(p) < lowest:
            run = _block_through(side, p)
            seen.update(run)
            if len(run) >= 6:
                return run[::-1]
    return None
