"""The `legal_moves` reply written straight into msgpack, without its maps.

`legal_moves` is the daemon's hottest command, and most of its cost was neither the
generator nor the ids but the maps: a record per play (7 or 8 keys, with the structured
position after it: 5 to 7 keys, two lists of 26 counts), built in Python and then walked
again by the msgpack packer, about 1,100 objects for the 16 plays of an opening roll.
Every play record has the same keys in the same order and its values are short strings,
small integers and two sides of 26 counts from 0 to 15, so the reply's bytes can be
written directly: the parts shared by every play of the roll are packed once (the keys,
the variant, the frame's dice, cube and match), a side is its 26 counts as they are
(each a positive fixint) behind one array header, and only the strings of each play are
packed on their own.

The bytes are exactly those of ``encode_reply(Reply.success(id, handle_legal_moves(...)),
"msgpack")`` (tests/daemon/test_fast_records.py compares them on random games of every
variant, with cube, match, primed flags and game-ending plays). Only the full records in
msgpack are written here: `compact` replies, JSON and text take the maps' way.
"""

from __future__ import annotations

from typing import Any

from jacquetd_protocol.msgpack_wire import pack

from jacquetd.daemon import plays
from jacquetd.daemon.positions import resolve_position
from jacquetd.rules.movegen import primed_after
from jacquetd.rules.position import CHECKERS, Position

_STRUCTURED_KEYS = ("variant", "on_roll", "opponent", "dice", "primed")
_SIDE_HEADER = b"\xdc\x00\x1a"  # array16 of 26: what msgpack writes for a list of 26
_PRIMED = {(a, b): bytes((0x92, 0xC3 if a else 0xC2, 0xC3 if b else 0xC2))
           for a in (False, True) for b in (False, True)}
_ID_OK_RESULT = b"\xa2ok\xc3\xa6result"
_FIXINT = [bytes((n,)) for n in range(128)]  # msgpack's positive fixints
_MAP_HEADS = [bytes((0x80 | n,)) for n in range(16)]  # fixmap headers
# str headers by the length in bytes: fixstr below 32, str8 below 256 (use_bin_type)
_STR_HEADS = [bytes((0xA0 | n,)) if n < 32 else b"\xd9" + bytes((n,)) for n in range(256)]


def _str(text: str) -> bytes:
    """`text` as msgpack writes a str (fixstr or str8; longer ones by the packer)."""
    data = text.encode("utf-8")
    return _STR_HEADS[len(data)] + data if len(data) < 256 else pack(text)


def _array_header(size: int) -> bytes:
    if size < 16:
        return bytes((0x90 | size,))
    if size < 65536:
        return b"\xdc" + size.to_bytes(2, "big")
    return b"\xdd" + size.to_bytes(4, "big")


def _int(n: int) -> bytes:
    return _FIXINT[n] if 0 <= n < 128 else pack(n)


def legal_moves_reply(request_id: Any, args: dict[str, Any]) -> bytes | None:
    """The whole msgpack reply to a `legal_moves` request with these (checked) arguments,
    or None when it is not written here (`compact`): the caller then builds the result
    map. Raises what `handle_legal_moves` raises for a bad position or missing dice."""
    if args.get("compact"):
        return None
    pos = plays.with_dice(resolve_position(args["position"], args.get("dice")))
    try:
        result = legal_moves_result(pos)
    except IndexError:  # a string of 256 bytes or more (none is, by its format): the maps' way
        return None
    if result is None:
        return None
    return b"\x83\xa2id" + pack(request_id) + _ID_OK_RESULT + result


def legal_moves_result(pos: Position) -> bytes | None:
    """The msgpack bytes of ``{"count": n, "plays": play_records(pos)}``, or None when a
    frame's structured position does not have the expected keys (then the maps' way)."""
    spelled = plays.spelled_plays_of(pos)
    count = len(spelled)
    out = [b"\x82\xa5count", pack(count), b"\xa5plays", _array_header(count)]
    if not spelled:
        return b"".join(out)
    writer = plays.after_frame(pos)[0]
    fixed_primed = plays.primed_of(pos)
    _move, mover0, other0 = spelled[0]
    primed0 = fixed_primed if fixed_primed is not None else primed_after(pos, mover0)
    sample = writer.structured(other0, mover0, primed0)
    keys = tuple(sample)
    if keys[:5] != _STRUCTURED_KEYS or any(k not in ("cube", "match") for k in keys[5:]):
        return None
    # the structured position after a play: a map of len(keys) entries whose values are
    # the same for every play except the two sides and the primed flags
    position_head = (b"\xa8position" + _MAP_HEADS[len(keys)] + b"\xa7variant"
                     + _str(sample["variant"]) + b"\xa7on_roll" + _SIDE_HEADER)
    after_opponent = b"\xa4dice" + pack(sample["dice"]) + b"\xa6primed"
    frame_tail = b"".join(_str(k) + pack(sample[k]) for k in keys[5:])
    backgammon = writer.backgammon
    # one play's record: map header, move, position id, the position, then in
    # backgammon the gnubg id and XGID, then hits and borne_off
    record = (b"%b\xa4move%b%b\xabposition_id%b%b%b%b\xa8opponent\xdc\x00\x1a%b%b%b%b"
              + (b"\xa8gnubg_id%b%b\xa4xgid%b%b" if backgammon else b"")
              + b"\xa4hits%b\xa9borne_off%b")
    before_me0 = pos.me[0]
    ids = writer.ids
    heads = _STR_HEADS
    entries = 7 if backgammon else 5
    append = out.append
    for move, mover, other in spelled:
        primed = fixed_primed if fixed_primed is not None else primed_after(pos, mover)
        pid, gnubg, xgid = ids(other, mover, primed)
        won = mover[0] == CHECKERS
        m = move.encode()
        p = pid.encode()
        head = (_MAP_HEADS[entries + won], heads[len(m)], m, heads[len(p)], p, position_head,
                bytes(other), bytes(mover), after_opponent, _PRIMED[primed[0], primed[1]],
                frame_tail)
        counts = (_int(move.count("*")), _int(mover[0] - before_me0))
        if backgammon:
            g = gnubg.encode()
            x = xgid.encode()
            append(record % (*head, heads[len(g)], g, heads[len(x)], x, *counts))
        else:
            append(record % (*head, *counts))
        if won:
            append(b"\xa6result" + pack(plays.result_of(pos, mover, other)))
    return b"".join(out)
