"""Positions in the notations of the backgammon world: gnubg ids, XGIDs, FIBS boards.

`foreign_form(text)` says which of these a string is written in (or None),
`parse_foreign(text)` reads it into a `backgammon` position, and
`foreign_ids(pos)` gives the ids a backgammon position is known by elsewhere.
The three forms describe backgammon only: the geometry of `jacquet` and
`jacquet-be` (both sides travelling the same way, one starting table) has no
place in them, so `parse_foreign(text, variant)` refuses any other variant.
"""

from __future__ import annotations

from .errors import PositionError
from .fibs import parse_fibs_board
from .gnubg_id import GNUBG_ID_RE, gnubg_id, parse_gnubg_id
from .position import Position
from .xgid import format_xgid, parse_xgid

GNUBG = "gnubg"
XGID = "xgid"
FIBS = "fibs"
FORMS = (GNUBG, XGID, FIBS)


def foreign_form(text: str) -> str | None:
    """`gnubg`, `xgid` or `fibs` when `text` is written in that notation, else None.

    Decided by shape alone: `board:` starts a FIBS board, `XGID=` (or 26 board
    characters then `:`) an XGID, 14 base64 characters (and `:` and 12 more) a
    gnubg id. This project's own position ids are base64url of 40 characters or
    more, so none of them is mistaken for these.
    """
    s = text.strip()
    if s.startswith("board:"):
        return FIBS
    if s.startswith("XGID=") or (len(s) > 27 and s[26] == ":" and
                                 all(c == "-" or c.isalpha() for c in s[:26])):
        return XGID
    if GNUBG_ID_RE.match(s):
        return GNUBG
    return None


def why_not_variant(variant: str) -> str:
    """The message refusing a foreign notation for a non-backgammon variant."""
    return (f"gnubg ids, XGIDs and FIBS boards describe backgammon positions only; "
            f"{variant} cannot be written in them (both sides travel the same way from "
            "one starting table, a geometry these notations have no place for): give a "
            "position id, a board literal or a structured position")


def parse_foreign(text: str, variant: str = "backgammon") -> Position:
    """Read a gnubg id, an XGID or a FIBS board; raise PositionError naming what is
    wrong, or why `variant` (when not backgammon) cannot be given this way."""
    form = foreign_form(text)
    if form is None:
        raise PositionError("not a gnubg id, an XGID or a FIBS board")
    if variant != "backgammon":
        raise PositionError(why_not_variant(variant))
    if form == FIBS:
        return parse_fibs_board(text.strip()).to_position()
    if form == XGID:
        return parse_xgid(text)
    return parse_gnubg_id(text)


def foreign_ids(pos: Position) -> dict[str, str]:
    """`{"gnubg_id": ..., "xgid": ...}` for a backgammon position, `{}` otherwise."""
    if pos.variant != "backgammon":
        return {}
    return {"gnubg_id": gnubg_id(pos), "xgid": format_xgid(pos)}
