"""A readable ASCII board, drawn from the view of the side on roll (O) against X.

Points carry the numbers of the side on roll (G1). In the Jacquet variants
both sides travel the same way round (G3), so X's checkers are drawn on the
points they stand on in O's numbering.
"""

from __future__ import annotations

from .geometry import pip_count
from .position import Position
from .variants import opponent_point_map


def _cell(n_me: int, n_opp: int) -> str:
    if n_me:
        return f"{n_me}O".rjust(3)
    if n_opp:
        return f"{n_opp}X".rjust(3)
    return "  ."


def render_board(pos: Position) -> str:
    """The board as text lines: points 13-24 on top, 12-1 below, then bar, off, pips, dice."""
    table = opponent_point_map(pos.rules)
    opp_at = [0] * 26
    for q in range(1, 25):
        opp_at[q] = pos.opp[table[q]]
    top = list(range(13, 25))
    bottom = list(range(12, 0, -1))

    def row(points: list[int]) -> str:
        cells = [_cell(pos.me[q], opp_at[q]) for q in points]
        return " ".join(cells[:6]) + " |" + " ".join(cells[6:])

    def numbers(points: list[int]) -> str:
        cells = [str(q).rjust(3) for q in points]
        return " ".join(cells[:6]) + " |" + " ".join(cells[6:])

    lines = [
        f"{pos.variant}: O on roll" + (f", dice {pos.dice[0]}-{pos.dice[1]}" if pos.dice else ""),
        numbers(top),
        row(top),
        "-" * 49,
        row(bottom),
        numbers(bottom),
        f"bar O {pos.me[25]} X {pos.opp[25]}   off O {pos.me[0]} X {pos.opp[0]}   "
        f"pips O {pip_count(pos.me)} X {pip_count(pos.opp)}",
    ]
    if pos.rules.tracks_primes:
        lines.append(f"has held a prime: O {'yes' if pos.primed[0] else 'no'}, "
                     f"X {'yes' if pos.primed[1] else 'no'}")
    if pos.cube is not None:
        owner = pos.cube.owner.wire
        lines.append(f"cube {pos.cube.value} ({owner})" + (", double pending" if pos.cube.pending
                                                            else ""))
    if pos.match is not None:
        m = pos.match
        lines.append(f"match to {m.length}: O {m.score[0]} X {m.score[1]}"
                     + (" (Crawford game)" if m.crawford else ""))
    lines.append(f"id {pos.to_id()}")
    return "\n".join(lines)
