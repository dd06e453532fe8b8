"""The structured position on the wire: its shape check and its one-word text form.

The codec never interprets a position (that is the rules core's work); it only
checks that a structured position has the shape SPEC.md pins, so that nothing
malformed travels further, and converts it to and from the *board literal*,
the one-word text form that lets text replies carry a structured position
losslessly and lets people type one:

    jacquet/24:14,13:1/24:15/-/00
    backgammon/24:2,13:5,8:3,6:5/24:2,13:5,8:3,6:5/31/00/cube:1:centre/match:7:0:2

Parts, separated by `/`: variant; the side on roll and the opponent, each as
`index:count` pairs (index 0 borne off, 1-24 points, 25 bar; zero counts left
out; `-` for none); the dice (`-` or two digits); the two `primed` flags (`0`
or `1` each); then optionally `cube:VALUE:OWNER[:pending]` and
`match:LENGTH:SCORE:SCORE[:crawford]`.

Position ids (the rules core's compact tokens) are base64url, so they never
contain `/` and can never be mistaken for a board literal.

A backgammon position may also come in the notations of the backgammon world
(SPEC.md section 5.1): a GNU Backgammon id (`PositionID[:MatchID]`), an XGID
or a FIBS `board:` string, optionally after `VARIANT:`. The codec recognises
them by shape (`foreign_form`) and leaves reading them to the rules core.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, TypeGuard

from .errors import ErrorCode, ProtocolError

POSITION_KEYS = ("variant", "on_roll", "opponent", "dice", "primed", "cube", "match")
CUBE_OWNERS = ("centre", "on_roll", "opponent")
SIDE_LEN = 26
MAX_COUNT = 15
VARIANT_RE = re.compile(r"^[a-z][a-z0-9-]{0,31}$")
#: A position given as a string: `start`, `start:VARIANT`, a board literal or a position id.
POSITION_TOKEN_RE = re.compile(r"^[\x21-\x7e]{1,512}$")
START = "start"
DEFAULT_VARIANT = "jacquet"


def _bad(message: str, field: str) -> ProtocolError:
    return ProtocolError(ErrorCode.BAD_POSITION, message, field=field)


def _is_int(v: Any) -> TypeGuard[int]:
    return isinstance(v, int) and not isinstance(v, bool)


def check_position_map(pos: Any, field: str = "position") -> dict[str, Any]:
    """Check the shape of a structured position (SPEC.md section 5.1) and return a copy
    holding only the keys SPEC.md defines that `pos` gives (unknown keys are dropped, per
    the versioning rule; a nil `cube` or `match` is the same as an absent one).

    The shape is the rules core's (`Position.from_dict`): the same fields are required
    and refused. Nothing is filled in here: a field left out keeps its default, which the
    rules core alone supplies. Raises ProtocolError(bad_position) with `field` pointing
    at the first fault. Whether the position obeys the rules is for the rules core to say.
    """
    if not isinstance(pos, Mapping):
        raise _bad("a position is a map or a string", field)
    out: dict[str, Any] = {}
    variant = pos.get("variant")
    if not isinstance(variant, str) or not VARIANT_RE.fullmatch(variant):
        raise _bad("variant must be a variant name such as 'jacquet'", f"{field}.variant")
    out["variant"] = variant
    for key in ("on_roll", "opponent"):
        side = pos.get(key)
        if not isinstance(side, list | tuple) or len(side) != SIDE_LEN:
            raise _bad(f"{key} must be a list of {SIDE_LEN} checker counts", f"{field}.{key}")
        for i, n in enumerate(side):
            if not _is_int(n) or not 0 <= n <= MAX_COUNT:
                raise _bad(f"{key}[{i}] must be an integer 0-{MAX_COUNT}", f"{field}.{key}")
        out[key] = list(side)
    if "dice" in pos:
        dice = pos["dice"]
        if (not isinstance(dice, list | tuple) or len(dice) not in (0, 2)
                or not all(_is_int(d) and 1 <= d <= 6 for d in dice)):
            raise _bad("dice must be [] or two integers 1-6", f"{field}.dice")
        out["dice"] = list(dice)
    if "primed" in pos:
        primed = pos["primed"]
        if (not isinstance(primed, list | tuple) or len(primed) != 2
                or not all(isinstance(p, bool) for p in primed)):
            raise _bad("primed must be two booleans", f"{field}.primed")
        out["primed"] = list(primed)
    cube = pos.get("cube")
    if cube is not None:
        out["cube"] = _check_cube(cube, f"{field}.cube")
    match = pos.get("match")
    if match is not None:
        out["match"] = _check_match(match, f"{field}.match")
    return out


def _check_cube(cube: Any, field: str) -> dict[str, Any]:
    if not isinstance(cube, Mapping):
        raise _bad("cube must be a map {value, owner, pending}", field)
    value, owner = cube.get("value"), cube.get("owner")
    if not _is_int(value) or not 1 <= value <= 1 << 30:
        raise _bad("cube.value must be a positive integer", f"{field}.value")
    if owner not in CUBE_OWNERS:
        raise _bad("cube.owner must be 'centre', 'on_roll' or 'opponent'", f"{field}.owner")
    out: dict[str, Any] = {"value": value, "owner": owner}
    if "pending" in cube:
        if not isinstance(cube["pending"], bool):
            raise _bad("cube.pending must be a boolean", f"{field}.pending")
        out["pending"] = cube["pending"]
    return out


def _check_match(match: Any, field: str) -> dict[str, Any]:
    if not isinstance(match, Mapping):
        raise _bad("match must be a map {length, score, crawford}", field)
    length, score = match.get("length"), match.get("score")
    if not _is_int(length) or not 1 <= length <= 1000:
        raise _bad("match.length must be an integer 1-1000", f"{field}.length")
    if (not isinstance(score, list | tuple) or len(score) != 2
            or not all(_is_int(s) and 0 <= s <= 1000 for s in score)):
        raise _bad("match.score must be two integers 0-1000", f"{field}.score")
    out: dict[str, Any] = {"length": length, "score": list(score)}
    if "crawford" in match:
        if not isinstance(match["crawford"], bool):
            raise _bad("match.crawford must be a boolean", f"{field}.crawford")
        out["crawford"] = match["crawford"]
    return out


def check_position_arg(value: Any, field: str = "position") -> dict[str, Any] | str:
    """Check a position argument, reading no part of it that the server reads again.

    A map gets its shape checked (`check_position_map`). A string must be one word of
    printable ASCII; a board literal is read here into its checked map, which is handed
    on; every other string (`start[:VARIANT]`, a position id, a gnubg id / XGID / FIBS
    board, optionally after `VARIANT:`) is handed on as it is, for the server's one
    position reader to read. Raises ProtocolError(bad_position)."""
    if isinstance(value, str):
        if not POSITION_TOKEN_RE.fullmatch(value):
            raise _bad("a position string is one word of printable ASCII, at most 512 "
                       "characters", field)
        if is_board_literal(value):
            return parse_board(value, field)
        return value
    return check_position_map(value, field)


def is_board_literal(text: str) -> bool:
    """Whether a position word is a board literal, told by its shape alone: a variant name,
    then `/`, and not a GNU Backgammon id (whose base64 may hold `/`). `start:...` and
    `VARIANT:`-prefixed words hold `:` before their first `/`; XGIDs and FIBS boards hold
    no `/`."""
    head, slash, _ = text.partition("/")
    return bool(slash) and VARIANT_RE.fullmatch(head) is not None and not _GNUBG_ID_RE.match(text)


def start_variant(token: str) -> str | None:
    """The variant named by `start` / `start:VARIANT`, or None if `token` is neither."""
    if token == START:
        return DEFAULT_VARIANT
    if token.startswith(START + ":") and VARIANT_RE.fullmatch(token[len(START) + 1:]):
        return token[len(START) + 1:]
    return None


# -- the backgammon world's notations ----------------------------------------------------

GNUBG_ID = "gnubg"
XGID = "xgid"
FIBS = "fibs"
_GNUBG_ID_RE = re.compile(r"^[A-Za-z0-9+/]{14}(:[A-Za-z0-9+/]{12})?\Z")
_XGID_RE = re.compile(r"^(XGID=)?[-A-Oa-o]{26}:")


def foreign_form(text: str) -> str | None:
    """`gnubg`, `xgid` or `fibs` when `text` has the shape of a GNU Backgammon id
    (`PositionID[:MatchID]`, 14 and 12 base64 characters), an XGID (`XGID=` or 26
    board characters, then `:`) or a FIBS board (`board:`); None otherwise. The
    server's own position ids are 40 base64url characters or more, never these."""
    if text.startswith("board:"):
        return FIBS
    if _XGID_RE.match(text):
        return XGID
    if _GNUBG_ID_RE.match(text):
        return GNUBG_ID
    return None


def foreign_position(text: str) -> tuple[str | None, str, str] | None:
    """`(variant, form, text)` for a position written in a backgammon notation, `variant`
    being the `VARIANT:` before it (None when absent); None for any other string."""
    form = foreign_form(text)
    if form is not None:
        return None, form, text
    head, sep, rest = text.partition(":")
    if sep and VARIANT_RE.fullmatch(head) and head not in ("board", START):
        form = foreign_form(rest)
        if form is not None:
            return head, form, rest
    return None


# -- the board literal -----------------------------------------------------------------

_SIDE_RE = re.compile(r"^(-|[0-9]{1,2}:[0-9]{1,2}(,[0-9]{1,2}:[0-9]{1,2})*)\Z")
_CUBE_RE = re.compile(r"^cube:([0-9]{1,10}):(centre|on_roll|opponent)(:pending)?\Z")
_MATCH_RE = re.compile(r"^match:([0-9]{1,4}):([0-9]{1,4}):([0-9]{1,4})(:crawford)?\Z")


_CUBE_KEYS = {"value", "owner", "pending"}
_MATCH_KEYS = {"length", "score", "crawford"}


def board_representable(pos: Any) -> bool:
    """True when `pos` is a complete, normalised structured position (exactly the keys
    `format_board` writes), so that `parse_board(format_board(pos)) == pos`."""
    if not isinstance(pos, Mapping) or not {"variant", "on_roll", "opponent", "dice",
                                            "primed"} <= pos.keys() <= set(POSITION_KEYS):
        return False
    for key, keys in (("cube", _CUBE_KEYS), ("match", _MATCH_KEYS)):
        if key in pos and (not isinstance(pos[key], Mapping) or pos[key].keys() != keys):
            return False
    try:
        normal = check_position_map(pos)
    except ProtocolError:
        return False
    return _same(normal, pos)


def _same(a: Any, b: Any) -> bool:
    """Equality that also requires the same types (so True never stands for 1, nor a
    tuple for a list: the text form must decode to exactly what was encoded)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    return bool(a == b)


def _format_side(side: list[int]) -> str:
    pairs = [f"{i}:{n}" for i, n in reversed(list(enumerate(side))) if n]
    return ",".join(pairs) or "-"


def format_board(pos: Mapping[str, Any]) -> str:
    """The board literal of a structured position (see the module docstring)."""
    parts = [pos["variant"], _format_side(pos["on_roll"]), _format_side(pos["opponent"]),
             "".join(map(str, pos["dice"])) or "-",
             "".join("1" if p else "0" for p in pos["primed"])]
    cube = pos.get("cube")
    if cube is not None:
        parts.append(f"cube:{cube['value']}:{cube['owner']}" + (":pending" if cube["pending"]
                                                                 else ""))
    match = pos.get("match")
    if match is not None:
        parts.append(f"match:{match['length']}:{match['score'][0]}:{match['score'][1]}"
                     + (":crawford" if match["crawford"] else ""))
    return "/".join(parts)


def _parse_side(text: str, field: str) -> list[int]:
    side = [0] * SIDE_LEN
    if text == "-":
        return side
    for pair in text.split(","):
        index, count = (int(x) for x in pair.split(":"))
        if index >= SIDE_LEN or count == 0 or side[index]:
            raise _bad(f"{pair!r}: index 0-25 once each, count at least 1", field)
        side[index] = count
    return side


def parse_board(text: str, field: str = "position") -> dict[str, Any]:
    """Read a board literal into a structured position; raise ProtocolError(bad_position)."""
    parts = text.split("/")
    if len(parts) < 5 or len(parts) > 7:
        raise _bad("a board literal has 5 to 7 parts separated by '/'", field)
    variant, mine, theirs, dice, primed, *extras = parts
    if not _SIDE_RE.match(mine) or not _SIDE_RE.match(theirs):
        raise _bad("each side is '-' or index:count pairs separated by ','", field)
    if not re.fullmatch(r"-|[1-6][1-6]", dice) or not re.fullmatch(r"[01][01]", primed):
        raise _bad("dice are '-' or two digits 1-6; primed is two of '0'/'1'", field)
    pos: dict[str, Any] = {
        "variant": variant, "on_roll": _parse_side(mine, f"{field}.on_roll"),
        "opponent": _parse_side(theirs, f"{field}.opponent"),
        "dice": [] if dice == "-" else [int(dice[0]), int(dice[1])],
        "primed": [primed[0] == "1", primed[1] == "1"],
    }
    for extra in extras:
        if (m := _CUBE_RE.match(extra)) and "cube" not in pos and "match" not in pos:
            pos["cube"] = {"value": int(m[1]), "owner": m[2], "pending": bool(m[3])}
        elif (m := _MATCH_RE.match(extra)) and "match" not in pos:
            pos["match"] = {"length": int(m[1]), "score": [int(m[2]), int(m[3])],
                            "crawford": bool(m[4])}
        else:
            raise _bad(f"{extra!r}: expected cube:VALUE:OWNER[:pending] then "
                       "match:LENGTH:SCORE:SCORE[:crawford]", field)
    return check_position_map(pos, field)
