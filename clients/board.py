"""Drawing a board in the terminal from the structured position (no rules needed).

The board is drawn for one side, the *viewer*, sitting at the bottom: its
points 13-24 run along the top from left to right, 12-1 along the bottom, so
its checkers travel from the top right, along the top, down the left and home
to the bottom right. The other side's checkers are placed by the variant's
geometry: in backgammon (G4) their point q is the viewer's 25 - q; in the
Jacquet variants (G3) both travel the same way round and their point q is the
viewer's q + 12 (q <= 12) or q - 12.

    render(position, same_direction=True, viewer_on_roll=True, names=("you", "bot"))

`same_direction` is the variant's geometry as the server's `hello` describes it
(`JacquetClient.variant(name).same_direction`).
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import Any, TextIO

ROWS = 5
MINE, THEIRS = "X", "O"
RESET = "\x1b[0m"
STYLES = {"mine": "\x1b[1;33m", "theirs": "\x1b[1;36m", "dim": "\x1b[2m", "bold": "\x1b[1m"}


def colour_enabled(stream: TextIO) -> bool:
    """Colour when the stream is a terminal that has it and NO_COLOR is not set."""
    return (stream.isatty() and "NO_COLOR" not in os.environ
            and os.environ.get("TERM", "dumb") not in ("dumb", ""))


def their_point_on_my_board(q: int, same_direction: bool) -> int:
    """Where the other side's point q (1-24) is in the viewer's numbering."""
    if same_direction:
        return q + 12 if q <= 12 else q - 12
    return 25 - q


def pips(side: Sequence[int]) -> int:
    return sum(p * n for p, n in enumerate(side[:26]))


def board_points(position: Mapping[str, Any], viewer_on_roll: bool = True, *,
                 same_direction: bool) -> dict[int, tuple[str, int]]:
    """Viewer's point -> ("mine" | "theirs", count) for every occupied point 1-24;
    `same_direction` is the variant's geometry (G3, else G4), as the server describes it."""
    mine = position["on_roll"] if viewer_on_roll else position["opponent"]
    theirs = position["opponent"] if viewer_on_roll else position["on_roll"]
    same = same_direction
    out: dict[int, tuple[str, int]] = {}
    for p in range(1, 25):
        if mine[p]:
            out[p] = ("mine", mine[p])
    for q in range(1, 25):
        if theirs[q]:
            p = their_point_on_my_board(q, same)
            if p in out:  # cannot happen in a valid position; show it rather than hide it
                out[p] = ("mine", out[p][1])
            else:
                out[p] = ("theirs", theirs[q])
    return out


def render(position: Mapping[str, Any], *, same_direction: bool, viewer_on_roll: bool = True,
           names: tuple[str, str] = ("you", "opponent"), colour: bool = False,
           score: tuple[int, int] | None = None, match_length: int = 0,
           dice: Sequence[int] | None = None, on_roll_is_viewer: bool | None = None) -> str:
    """The board as text lines. `names` are (viewer, other); `score` (viewer, other);
    `dice` shown for the side on roll (`on_roll_is_viewer`, default `viewer_on_roll`)."""

    def paint(text: str, style: str) -> str:
        return f"{STYLES[style]}{text}{RESET}" if colour else text

    symbol = {"mine": paint(MINE, "mine"), "theirs": paint(THEIRS, "theirs")}
    points = board_points(position, viewer_on_roll, same_direction=same_direction)
    mine = position["on_roll"] if viewer_on_roll else position["opponent"]
    theirs = position["opponent"] if viewer_on_roll else position["on_roll"]

    def cell(p: int, row: int) -> str:
        owner, count = points.get(p, ("", 0))
        if row >= count:
            return " . " if row == 0 and not count else "   "
        if row == ROWS - 1 and count > ROWS:
            return paint(f"{count:>2} ", owner)
        return f" {symbol[owner]} "

    top, bottom = list(range(13, 25)), list(range(12, 0, -1))

    def label_row(ps: list[int]) -> str:
        left = "".join(f"{p:>3}" for p in ps[:6])
        right = "".join(f"{p:>3}" for p in ps[6:])
        return f"  {left}      {right}"

    def bar(row: int, count: int, sym: str) -> str:
        if count == 0 or row > 1:
            return "     "
        return f" {sym}{count:>2} " if row == 0 else "     "

    edge = "  +" + "-" * 18 + "+-----+" + "-" * 18 + "+"
    lines = [label_row(top), edge]
    for row in range(ROWS):
        left = "".join(cell(p, row) for p in top[:6])
        right = "".join(cell(p, row) for p in top[6:])
        lines.append(f"  |{left}|{bar(row, theirs[25], symbol['theirs'])}|{right}|")
    lines.append("  |" + " " * 18 + "| BAR |" + " " * 18 + "|")
    for row in reversed(range(ROWS)):
        left = "".join(cell(p, row) for p in bottom[:6])
        right = "".join(cell(p, row) for p in bottom[6:])
        lines.append(f"  |{left}|{bar(ROWS - 1 - row, mine[25], symbol['mine'])}|{right}|")
    lines.append(edge)
    lines.append(label_row(bottom))
    info = position
    on_roll_viewer = viewer_on_roll if on_roll_is_viewer is None else on_roll_is_viewer
    for who, side, sym, is_viewer in ((names[1], theirs, symbol["theirs"], False),
                                      (names[0], mine, symbol["mine"], True)):
        extra = []
        if side[0]:
            extra.append(f"off {side[0]}")
        if side[25]:
            extra.append(f"bar {side[25]}")
        primed = info.get("primed")
        if primed and info["variant"] == "jacquet":
            flag = primed[0] if is_viewer == viewer_on_roll else primed[1]
            if flag:
                extra.append("has held a prime")
        if dice and is_viewer == on_roll_viewer:
            extra.append(paint(f"rolls {dice[0]}-{dice[1]}", "bold"))
        lines.append(f"  {sym} {who:<12} pips {pips(side):>3}  " + "  ".join(extra))
    status = [info["variant"]]
    if score is not None:
        status.append(f"score {score[0]}-{score[1]}"
                      + (f" (match to {match_length})" if match_length else " (money)"))
    cube = info.get("cube")
    if cube:
        owner = cube["owner"]
        if owner != "centre":
            owner = names[0] if (owner == "on_roll") == viewer_on_roll else names[1]
        status.append(f"cube {cube['value']} ({owner})")
    match = info.get("match")
    if match and match.get("crawford"):
        status.append("Crawford game")
    lines.append("  " + ", ".join(status))
    return "\n".join(lines)
