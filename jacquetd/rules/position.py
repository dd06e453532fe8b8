"""Positions: everything RULES.md section 5 says a position must carry, validated.

A `Position` is relative to the side on roll: `me` is that side's checkers and
`opp` its opponent's, each as 26 counts in the owner's own numbering (index 0
borne off, 1-24 the points, 25 the bar). Positions are immutable values; every
constructor that takes outside input validates and never repairs.
"""

from __future__ import annotations

import enum
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from .errors import PositionError
from .geometry import (
    MIDPOINT,
    closed_in_start_table,
    forbidden_closure,
    has_prime,
    unpassed_block,
)
from .posid import decode_position_id, encode_position_id
from .variants import Variant, find_variant, opponent_point_map

CHECKERS = 15
#: How a variant is named in a structured position (the names of `variants.VARIANTS`).
VARIANT_NAME = re.compile(r"^[a-z][a-z0-9-]{0,31}$")
MAX_CUBE = 1 << 12
MAX_MATCH_LENGTH = 255


class CubeOwner(enum.IntEnum):
    """Who holds the cube, relative to the side on roll (C2)."""

    CENTRE = 0
    ON_ROLL = 1
    OPPONENT = 2

    @property
    def wire(self) -> str:
        return _OWNER_WIRE[self]

    def swapped(self) -> CubeOwner:
        if self is CubeOwner.ON_ROLL:
            return CubeOwner.OPPONENT
        if self is CubeOwner.OPPONENT:
            return CubeOwner.ON_ROLL
        return self


_OWNER_WIRE = {
    CubeOwner.CENTRE: "centre",
    CubeOwner.ON_ROLL: "on_roll",
    CubeOwner.OPPONENT: "opponent",
}
_OWNER_FROM_WIRE = {v: k for k, v in _OWNER_WIRE.items()}


@dataclass(frozen=True, slots=True)
class Cube:
    """The doubling cube (C1, C2): its value, owner and whether a double awaits an answer.

    `pending` means the side on roll has offered a double that its opponent
    has not answered yet.
    """

    value: int = 1
    owner: CubeOwner = CubeOwner.CENTRE
    pending: bool = False

    def swapped(self) -> Cube:
        return Cube(self.value, self.owner.swapped(), self.pending)


@dataclass(frozen=True, slots=True)
class MatchState:
    """Match play (C5): the length, both scores (side on roll first), the Crawford game flag."""

    length: int
    score: tuple[int, int] = (0, 0)
    crawford: bool = False
    """True while the current game is the Crawford game (no doubling)."""

    def swapped(self) -> MatchState:
        return MatchState(self.length, (self.score[1], self.score[0]), self.crawford)


def _counts(side: Sequence[int]) -> tuple[int, ...]:
    return tuple(side)


@dataclass(frozen=True, slots=True)
class Position:
    """A game position from the view of the side on roll (RULES.md section 5).

    Construct it with `Position.initial`, `from_dict`, `from_id` or
    `validated`; the plain constructor trusts its arguments (the generator
    uses it on positions it derived from valid ones).
    """

    variant: str
    me: tuple[int, ...]
    opp: tuple[int, ...]
    dice: tuple[int, ...] = ()
    primed: tuple[bool, bool] = (False, False)
    cube: Cube | None = None
    match: MatchState | None = None
    _v: Variant = field(default=None, repr=False, compare=False, hash=False)  # type: ignore[assignment]

    def __post_init__(self) -> None:
        if self._v is None:
            object.__setattr__(self, "_v", find_variant(self.variant))

    # -- construction ---------------------------------------------------------------

    @classmethod
    def initial(
        cls,
        variant: str = "jacquet",
        *,
        cube: bool | None = None,
        match_length: int | None = None,
    ) -> Position:
        """The starting position of `variant` (J1, B1, section 4, N1), nobody having rolled.

        `cube` defaults to the variant's C1 default; `match_length` None means
        money (unlimited) play.
        """
        v = find_variant(variant)
        side = [0] * 26
        for point, count in v.start_setup:
            side[point] = count
        use_cube = v.cube_default if cube is None else cube
        match = MatchState(match_length) if match_length else None
        pos = cls(v.name, tuple(side), tuple(side), (), (False, False),
                  Cube() if use_cube else None, match, v)
        pos.validate()
        return pos

    @classmethod
    def validated(cls, variant: str, me: Sequence[int], opp: Sequence[int],
                  dice: Sequence[int] = (), primed: Sequence[bool] = (False, False),
                  cube: Cube | None = None, match: MatchState | None = None) -> Position:
        """Build a position from outside input and validate it; raise PositionError."""
        try:
            v = find_variant(variant)
        except ValueError as exc:
            raise PositionError(str(exc)) from None
        pos = cls(v.name, _checked_side(me, "me"), _checked_side(opp, "opp"),
                  _checked_dice(dice), _checked_primed(primed), cube, match, v)
        pos.validate()
        return pos

    @property
    def rules(self) -> Variant:
        """The variant's metadata."""
        return self._v

    def with_dice(self, dice: Sequence[int]) -> Position:
        """The same position with `dice` rolled (validated: two dice, 1-6)."""
        return Position(self.variant, self.me, self.opp, _checked_dice(dice), self.primed,
                        self.cube, self.match, self._v)

    def without_dice(self) -> Position:
        return replace(self, dice=())

    def swapped(self) -> Position:
        """The same position seen by the other side (no dice): the turn passes."""
        return Position(
            self.variant, self.opp, self.me, (), (self.primed[1], self.primed[0]),
            self.cube.swapped() if self.cube else None,
            self.match.swapped() if self.match else None, self._v,
        )

    # -- queries --------------------------------------------------------------------

    def may_double(self) -> bool:
        """C2/C5: the side on roll may double (before its roll): the cube is in play (C1),
        centred or its own, no double is pending, and this is not the Crawford game.
        (`Game.may_double` says the same of a game in play, its phase included.)"""
        cube = self.cube
        return (cube is not None and not cube.pending
                and cube.owner in (CubeOwner.CENTRE, CubeOwner.ON_ROLL)
                and not (self.match is not None and self.match.crawford))

    def game_over(self) -> bool:
        """True when one side has borne off all 15 checkers."""
        return self.me[0] == CHECKERS or self.opp[0] == CHECKERS

    def winner(self) -> int | None:
        """0 if the side on roll has won, 1 if its opponent has, None while the game goes on."""
        if self.me[0] == CHECKERS:
            return 0
        if self.opp[0] == CHECKERS:
            return 1
        return None

    # -- validation -----------------------------------------------------------------

    def validate(self) -> None:
        """Raise PositionError naming what is wrong (RULES.md section 5); return None if valid."""
        v = self._v
        for name, side in (("on_roll", self.me), ("opponent", self.opp)):
            if len(side) != 26:
                raise PositionError(f"{name} must list 26 counts, not {len(side)}")
            if any((not isinstance(n, int)) or n < 0 for n in side):
                raise PositionError(f"{name} counts must be non-negative integers")
            total = sum(side)
            if total != CHECKERS:
                raise PositionError(f"{name} has {total} checkers, not {CHECKERS}", v.cite("J1"))
            if not v.hitting and side[25]:
                raise PositionError(f"{name} has checkers on the bar; {v.name} has no bar",
                                    v.cite("B3"))
        if self.me[0] == CHECKERS and self.opp[0] == CHECKERS:
            raise PositionError("both sides have borne off all their checkers")
        if self.me[0] == CHECKERS:
            raise PositionError("the side on roll has already borne off all its checkers: "
                                "a finished game is given with the loser on roll")
        if self.opp[0] < CHECKERS and not any(self.me[1:25]) and not any(self.opp[1:25]):
            # every turn ends with the mover's last checker on the board or borne off,
            # and a hit leaves the hitter on the board (J4): some checker is on it
            raise PositionError("no checker of either side is on the board (all are on the "
                                "bar or borne off): no game reaches this, a hit leaves the "
                                "hitting checker on the board", "J4")
        table = opponent_point_map(v)
        for q in range(1, 25):
            if self.me[q] and self.opp[table[q]]:
                rule = v.cite("G3") if v.same_direction else "G4"
                raise PositionError(
                    f"both sides have checkers on point {q} of the side on roll "
                    f"(the opponent's {table[q]})", rule)
        if self.dice:
            _checked_dice(self.dice)
            if self.opp[0] == CHECKERS:
                raise PositionError("the game is over: no dice can be rolled")
        for name, side in (("on_roll", self.me), ("opponent", self.opp)):
            if v.start_limit and closed_in_start_table(side) > 2:
                raise PositionError(f"{name} holds more than two closed points in its "
                                    "starting table (points 24-19)", "J7")
            if v.midpoint_limit and side[MIDPOINT] > 2:
                raise PositionError(f"{name} has {side[MIDPOINT]} checkers on its midpoint "
                                    "(13-point); at most two", "J8")
            if v.closures:
                run = forbidden_closure(side)
                if run is not None:
                    raise PositionError(
                        f"{name} stands in a forbidden closure on points "
                        f"{'-'.join(map(str, run))}", "B5")
        if v.six_block:
            for name, side, other in (("on_roll", self.me, self.opp),
                                      ("opponent", self.opp, self.me)):
                run = unpassed_block(side, other)
                if run is not None:
                    raise PositionError(
                        f"{name} holds a block on its points {'-'.join(map(str, run))} with "
                        "no opposing checker ahead of it", "N6")
        if len(self.primed) != 2:
            raise PositionError("primed must hold two flags")
        if v.tracks_primes:
            for name, side, flag in (("on_roll", self.me, self.primed[0]),
                                     ("opponent", self.opp, self.primed[1])):
                if has_prime(side) and not flag:
                    raise PositionError(f"{name} holds a prime but its flag says it never has",
                                        "J12")
        elif any(self.primed):
            raise PositionError(f"primed flags apply to jacquet only, not {v.name}", "J12")
        if self.cube is not None:
            c = self.cube
            if c.value < 1 or c.value > MAX_CUBE or c.value & (c.value - 1):
                raise PositionError(f"cube value {c.value} is not a power of two up to {MAX_CUBE}",
                                    "C2")
            if c.value == 1 and c.owner is not CubeOwner.CENTRE:
                raise PositionError("a cube at 1 is in the centre", "C1")
            if c.pending and c.owner is CubeOwner.OPPONENT:
                raise PositionError("only the side that may double can have a double pending",
                                    "C2")
            if c.pending and self.dice:
                raise PositionError("a double is offered before rolling: no dice with a "
                                    "pending double", "C2")
        if self.match is not None:
            m = self.match
            if not 1 <= m.length <= MAX_MATCH_LENGTH:
                raise PositionError(f"match length {m.length} outside 1-{MAX_MATCH_LENGTH}", "C5")
            if any(s < 0 or s >= m.length for s in m.score):
                raise PositionError(f"scores {m.score} must be below the match length {m.length}",
                                    "C5")
            if m.crawford and m.length - 1 not in m.score:
                raise PositionError("the Crawford game needs a side at match point", "C5")
            if m.crawford and self.cube is not None and (self.cube.pending or self.cube.value > 1):
                raise PositionError("no doubling in the Crawford game", "C5")

    # -- structured form ------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        """The structured protocol form (docs/CONTRACTS.md, protocol/SPEC.md)."""
        d: dict[str, Any] = {
            "variant": self.variant,
            "on_roll": list(self.me),
            "opponent": list(self.opp),
            "dice": list(self.dice),
            "primed": list(self.primed),
        }
        if self.cube is not None:
            d["cube"] = {"value": self.cube.value, "owner": self.cube.owner.wire,
                         "pending": self.cube.pending}
        if self.match is not None:
            d["match"] = {"length": self.match.length, "score": list(self.match.score),
                          "crawford": self.match.crawford}
        return d

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Position:
        """Read the structured form (protocol/SPEC.md section 5.1); raise PositionError
        naming the bad field.

        This is the one reading of that shape and the one place of its defaults: the
        protocol's shape check (`jacquetd_protocol.positions.check_position_map`)
        requires and refuses the same fields and fills in nothing. Required: `variant`,
        `on_roll`, `opponent`, and in a `cube` its `value` and `owner`, in a `match` its
        `length` and `score`. Defaults: `dice` [], `primed` [false, false], `cube` and
        `match` absent or nil (cube off, money play), `cube.pending` and `match.crawford`
        false. Unknown keys are ignored (protocol versioning rule)."""
        if not isinstance(d, Mapping):
            raise PositionError("a position must be a map")
        for key in ("variant", "on_roll", "opponent"):
            if key not in d:
                raise PositionError(f"missing field {key!r}")
        variant = d["variant"]
        if not isinstance(variant, str) or not VARIANT_NAME.fullmatch(variant):
            raise PositionError("variant must be a variant name such as 'jacquet'")
        cube = None
        if d.get("cube") is not None:
            cube = _cube_from(d["cube"])
        match = None
        if d.get("match") is not None:
            match = _match_from(d["match"])
        return cls.validated(variant, d["on_roll"], d["opponent"], d.get("dice", ()),
                             d.get("primed", (False, False)), cube, match)

    # -- text forms (see notation.py and posid.py) ------------------------------------

    def to_id(self) -> str:
        """The compact one-token position id."""
        cube = match = None
        if self.cube is not None:
            cube = (self.cube.value.bit_length() - 1, int(self.cube.owner), self.cube.pending)
        if self.match is not None:
            match = (self.match.length, self.match.score[0], self.match.score[1],
                     self.match.crawford)
        return encode_position_id(self._v.index, self.me, self.opp, self.dice, self.primed,
                                  cube, match)

    @classmethod
    def from_id(cls, text: str) -> Position:
        """Read a compact position id; raise PositionError."""
        f = decode_position_id(text)
        cube = None if f.cube is None else Cube(1 << f.cube[0], CubeOwner(f.cube[1]), f.cube[2])
        match = (None if f.match is None
                 else MatchState(f.match[0], (f.match[1], f.match[2]), f.match[3]))
        return cls.validated(f.variant, f.me, f.opp, f.dice, f.primed, cube, match)

    def __str__(self) -> str:
        return self.to_id()


def _checked_side(side: Any, name: str) -> tuple[int, ...]:
    if not isinstance(side, (list, tuple)):
        raise PositionError(f"{name} must be a list of 26 counts")
    if len(side) != 26:
        raise PositionError(f"{name} must list 26 counts, not {len(side)}")
    out = []
    for i, n in enumerate(side):
        if isinstance(n, bool) or not isinstance(n, int) or not 0 <= n <= CHECKERS:
            raise PositionError(f"{name}[{i}] must be an integer 0-15, not {n!r}")
        out.append(n)
    return tuple(out)


def _checked_dice(dice: Any) -> tuple[int, ...]:
    if not isinstance(dice, (list, tuple)):
        raise PositionError("dice must be a list of two numbers 1-6 or empty")
    if len(dice) == 0:
        return ()
    if len(dice) != 2:
        raise PositionError(f"dice must be two numbers 1-6, not {len(dice)}", "G6")
    for d in dice:
        if isinstance(d, bool) or not isinstance(d, int) or not 1 <= d <= 6:
            raise PositionError(f"die {d!r} is not a number 1-6", "G6")
    return (dice[0], dice[1])


def _checked_primed(primed: Any) -> tuple[bool, bool]:
    if not isinstance(primed, (list, tuple)) or len(primed) != 2 or not all(
            isinstance(p, bool) for p in primed):
        raise PositionError("primed must be two booleans", "J12")
    return (primed[0], primed[1])


def _cube_from(c: Any) -> Cube:
    if not isinstance(c, Mapping):
        raise PositionError("cube must be a map with value, owner and pending")
    value = c.get("value")
    owner = c.get("owner")
    pending = c.get("pending", False)
    if isinstance(value, bool) or not isinstance(value, int):
        raise PositionError("cube.value must be an integer", "C2")
    if owner not in _OWNER_FROM_WIRE:
        raise PositionError("cube.owner must be 'centre', 'on_roll' or 'opponent'", "C2")
    if not isinstance(pending, bool):
        raise PositionError("cube.pending must be a boolean", "C2")
    return Cube(value, _OWNER_FROM_WIRE[owner], pending)


def _match_from(m: Any) -> MatchState:
    if not isinstance(m, Mapping):
        raise PositionError("match must be a map with length, score and crawford")
    length = m.get("length")
    score = m.get("score")
    crawford = m.get("crawford", False)
    if isinstance(length, bool) or not isinstance(length, int):
        raise PositionError("match.length must be an integer", "C5")
    if (not isinstance(score, (list, tuple)) or len(score) != 2
            or not all(isinstance(s, int) and not isinstance(s, bool) for s in score)):
        raise PositionError("match.score must be two integers", "C5")
    if not isinstance(crawford, bool):
        raise PositionError("match.crawford must be a boolean", "C5")
    return MatchState(length, (score[0], score[1]), crawford)
