"""The ids of many positions that differ only in their checkers, written cheaply.

A reply to `legal_moves` gives, for every legal play, the position it leads to
in several forms: the compact position id (posid.py), gnubg's Position ID and
Match ID (gnubg_id.py), the XGID (xgid.py) and the structured map. All the
positions of one reply share everything but their checkers and primed flags:
variant, dice, cube and match state (their *frame*). An `IdWriter` is made once
per frame (`id_writer`, cached) and writes each form as a join of parts:

- the frame's parts once: the position id's trailing cube and match bytes, the
  Match ID (one per "game over or not"), the XGID's fields after the board;
- each side's parts once per distinct side and role (bounded caches), since
  the plays of one roll share most of their sides: the opponent's side is the
  same in every play without a hit.

The position id's bytes line up with base64's 3-byte groups: the format version,
the variant and the side on roll are 15 bytes (20 characters), the opponent's
side, the dice and the flags another 15, so the id is the join of the encodings
of those parts and of the tail. gnubg's key packs both sides into 80 bits, which
the writer ORs from the two sides' cached bit strings; the XGID's board is the OR
of the two sides' board characters (no point holds checkers of both sides).

The results are the very strings `Position.to_id`, `gnubg_id` and `format_xgid`
write (tests/rules/test_idwriter.py compares them on many positions); those stay
the straightforward definitions of the formats. The writer trusts its sides to be
those of a valid position (26 counts 0-15, no point held by both sides).
"""

from __future__ import annotations

import binascii
import functools
from collections.abc import Sequence
from typing import Any

from .gnubg_id import match_id_of
from .posid import FORMAT_VERSION
from .position import CHECKERS, Cube, MatchState
from .variants import Variant, find_variant
from .xgid import PREFIX as XGID_PREFIX
from .xgid import xgid_tail

_B2A = binascii.b2a_base64
_TO_URLSAFE = bytes.maketrans(b"+/", b"-_")
#: XGID board characters: 0 (no checker) is '-'; others are already 'A'-'O' / 'a'-'o'.
_ZERO_TO_DASH = bytes.maketrans(b"\x00", b"-")


def _b64url(data: bytes) -> str:
    """base64url of `data`, padding left out (as posid.py writes it)."""
    return _B2A(data, newline=False).translate(_TO_URLSAFE).rstrip(b"=").decode("ascii")


_PACK_SHIFT = 4
#: a count n as XGID board characters: 0 none, 'A'+n-1 at the bottom, 'a'+n-1 at the top
_BOTTOM_CHARS = bytes.maketrans(bytes(range(16)), b"\0" + bytes(range(0x41, 0x50)))
_TOP_CHARS = bytes.maketrans(bytes(range(16)), b"\0" + bytes(range(0x61, 0x70)))
#: a count n as gnubg key bits, least significant first: n ones, then a zero
_UNARY = tuple("1" * n + "0" for n in range(16))


def _packed(side: tuple[int, ...]) -> bytes:
    """The 13 bytes of a side in a position id: two counts a byte, high nibble first."""
    return (int.from_bytes(bytes(side[0::2]), "big") << _PACK_SHIFT
            | int.from_bytes(bytes(side[1::2]), "big")).to_bytes(13, "big")


def _gnubg_bits(side: tuple[int, ...]) -> tuple[int, int]:
    """(bits, how many) of one side's part of gnubg's key (points 1-24, then the bar)."""
    bits = "".join(map(_UNARY.__getitem__, side[1:26]))
    return int(bits[::-1], 2), len(bits)


class _OnRoll:
    """What the ids need of the side on roll: the position id's first 20 characters
    (format version, variant, this side: 15 bytes), and for backgammon its gnubg key
    bits and its XGID board characters (at the bottom: point q is character q, the bar
    character 25; a big-endian int, 0 where empty)."""

    __slots__ = ("gnubg_bits", "prefix", "xg_bottom")

    def __init__(self, side: tuple[int, ...], index: int, backgammon: bool) -> None:
        self.prefix = _b64url(bytes((FORMAT_VERSION, index)) + _packed(side))
        self.gnubg_bits = 0
        self.xg_bottom = 0
        if backgammon:
            self.gnubg_bits = _gnubg_bits(side)[0]
            self.xg_bottom = int.from_bytes(b"\0" + bytes(side[1:]).translate(_BOTTOM_CHARS),
                                            "big")


class _Opponent:
    """What the ids need of the opponent's side: its packed bytes and the position id's
    next 20 characters (this side, the dice and the flags: 15 bytes) by dice and flags,
    and for backgammon its gnubg key bits and its XGID board characters (at the top:
    point q is character 25 - q, the bar character 0)."""

    __slots__ = ("gnubg_bits", "gnubg_width", "mids", "packed", "xg_top")

    def __init__(self, side: tuple[int, ...], backgammon: bool) -> None:
        self.packed = _packed(side)
        self.mids: dict[int, str] = {}
        self.gnubg_bits = self.gnubg_width = self.xg_top = 0
        if backgammon:
            self.gnubg_bits, self.gnubg_width = _gnubg_bits(side)
            self.xg_top = int.from_bytes(bytes(side[25:0:-1]).translate(_TOP_CHARS) + b"\0",
                                         "big")

    def mid(self, dice_flags: int) -> str:
        got = self.mids.get(dice_flags)
        if got is None:
            got = self.mids[dice_flags] = _b64url(self.packed + dice_flags.to_bytes(2, "big"))
        return got


# Bounded caches of both roles by side (cleared when full): per variant index for the
# side on roll, per "backgammon or not" for the opponent. Writers hold the dicts.
_CACHE_MAX = 1 << 12  # about 0.5-0.7 KB an entry, with its key
_ON_ROLL: tuple[dict[tuple[int, ...], _OnRoll], ...] = ({}, {}, {}, {})
_OPPONENT: tuple[dict[tuple[int, ...], _Opponent], ...] = ({}, {})


def _on_roll(side: tuple[int, ...], index: int, backgammon: bool) -> _OnRoll:
    cache = _ON_ROLL[index]
    if len(cache) >= _CACHE_MAX:
        cache.clear()
    got = cache[side] = _OnRoll(side, index, backgammon)
    return got


def _opponent(side: tuple[int, ...], backgammon: bool) -> _Opponent:
    cache = _OPPONENT[backgammon]
    if len(cache) >= _CACHE_MAX:
        cache.clear()
    got = cache[side] = _Opponent(side, backgammon)
    return got


class IdWriter:
    """Writes the id forms of positions of one frame (variant, dice, cube, match state)
    from their sides and primed flags. Stateless once made: safe to share."""

    __slots__ = ("_cube_dict", "_dice", "_dice_flags", "_index", "_match_dict",
                 "_match_ids", "_on_roll", "_opponent", "_tail", "_xgid_tail", "backgammon",
                 "variant")

    def __init__(self, variant: Variant, dice: tuple[int, ...], cube: Cube | None,
                 match: MatchState | None) -> None:
        self.variant = variant.name
        self.backgammon = variant.name == "backgammon"
        self._index = variant.index
        self._on_roll = _ON_ROLL[variant.index]
        self._opponent = _OPPONENT[self.backgammon]
        self._dice = dice
        flags = 0
        tail = bytearray()
        self._cube_dict: dict[str, Any] | None = None
        self._match_dict: dict[str, Any] | None = None
        if cube is not None:
            flags |= 4 | (8 if cube.pending else 0)
            tail += bytes((cube.value.bit_length() - 1, int(cube.owner)))
            self._cube_dict = {"value": cube.value, "owner": cube.owner.wire,
                               "pending": cube.pending}
        if match is not None:
            flags |= 16 | (32 if match.crawford else 0)
            tail += bytes((match.length, match.score[0], match.score[1]))
            self._match_dict = {"length": match.length, "score": list(match.score),
                                "crawford": match.crawford}
        # the position id's dice and flags bytes, by primed flags (1 on roll, 2 opponent)
        dice_byte = (dice[0] << 4 | dice[1]) if dice else 0
        self._dice_flags = tuple(dice_byte << 8 | flags | primed for primed in range(4))
        self._tail = _b64url(bytes(tail)) if tail else ""
        if self.backgammon:
            self._match_ids = (":" + match_id_of(cube, match, dice, False),
                               ":" + match_id_of(cube, match, dice, True))
            self._xgid_tail = xgid_tail(cube, match, dice)
        else:
            self._match_ids = ("", "")
            self._xgid_tail = ""

    def _sides(self, me: tuple[int, ...], opp: tuple[int, ...]) -> tuple[_OnRoll, _Opponent]:
        cm = self._on_roll.get(me)
        if cm is None:
            cm = _on_roll(me, self._index, self.backgammon)
        co = self._opponent.get(opp)
        if co is None:
            co = _opponent(opp, self.backgammon)
        return cm, co

    def position_id(self, me: tuple[int, ...], opp: tuple[int, ...],
                    primed: Sequence[bool]) -> str:
        """`Position.to_id()` of the frame's position with these sides and flags."""
        cm, co = self._sides(me, opp)
        dice_flags = self._dice_flags[(1 if primed[0] else 0) | (2 if primed[1] else 0)]
        mid = co.mids.get(dice_flags)
        if mid is None:
            mid = co.mid(dice_flags)
        return cm.prefix + mid + self._tail

    def ids(self, me: tuple[int, ...], opp: tuple[int, ...], primed: Sequence[bool]
            ) -> tuple[str, str, str]:
        """(position id, gnubg id, XGID) of the frame's position with these sides and flags;
        the last two are empty strings outside backgammon."""
        cm, co = self._sides(me, opp)
        dice_flags = self._dice_flags[(1 if primed[0] else 0) | (2 if primed[1] else 0)]
        mid = co.mids.get(dice_flags)
        if mid is None:
            mid = co.mid(dice_flags)
        pid = cm.prefix + mid + self._tail
        if not self.backgammon:
            return pid, "", ""
        # 10 bytes are 14 base64 characters, then the padding and b2a_base64's newline
        key = _B2A((co.gnubg_bits | cm.gnubg_bits << co.gnubg_width).to_bytes(10, "little")
                   )[:14].decode("ascii")
        board = (cm.xg_bottom | co.xg_top).to_bytes(26, "big").translate(_ZERO_TO_DASH)
        return (pid, key + self._match_ids[me[0] == CHECKERS or opp[0] == CHECKERS],
                XGID_PREFIX + board.decode("ascii") + self._xgid_tail)

    def structured(self, me: tuple[int, ...], opp: tuple[int, ...], primed: Sequence[bool]
                   ) -> dict[str, Any]:
        """`Position.to_dict()` of the frame's position with these sides and flags."""
        d: dict[str, Any] = {"variant": self.variant, "on_roll": list(me),
                             "opponent": list(opp), "dice": list(self._dice),
                             "primed": [primed[0], primed[1]]}
        if self._cube_dict is not None:
            d["cube"] = self._cube_dict.copy()
        if self._match_dict is not None:
            m = self._match_dict
            d["match"] = {"length": m["length"], "score": m["score"].copy(),
                          "crawford": m["crawford"]}
        return d


@functools.lru_cache(maxsize=1024)
def id_writer(variant: str, dice: tuple[int, ...], cube: Cube | None,
              match: MatchState | None) -> IdWriter:
    """The (cached) writer of the frame: variant by name, dice, cube, match state."""
    return IdWriter(find_variant(variant), dice, cube, match)
