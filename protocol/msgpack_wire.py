"""The msgpack encoding: a bounded scanner, and decoding that allocates nothing unchecked.

`MsgpackScanner` walks the headers of one msgpack object without building it,
so a stream can be cut into whole objects and every limit (size, nesting,
declared lengths, number of values) is enforced before `msgpack.unpackb`
allocates anything. A header that claims 2^32 elements is refused on sight.
The protocol uses maps, arrays, strings, integers, floats, booleans and nil;
`bin` and `ext` values (timestamps included) are refused as `bad_frame`.
"""

from __future__ import annotations

import re
from typing import Any

import msgpack  # type: ignore[import-untyped]

from .errors import ErrorCode, ProtocolError
from .messages import Limits

#: First bytes of a msgpack map (fixmap, map16, map32): such a frame is msgpack.
MAP_FIRST_BYTES = frozenset(range(0x80, 0x90)) | {0xDE, 0xDF}

# A run of one-byte integers (positive and negative fixint).
_FIXINT_RUN = re.compile(rb"[\x00-\x7f\xe0-\xff]+")
# Fixed sizes (header included) of scalar types, by first byte.
_FIXED = {0xC0: 1, 0xC2: 1, 0xC3: 1, 0xCA: 5, 0xCB: 9, 0xCC: 2, 0xCD: 3, 0xCE: 5, 0xCF: 9,
          0xD0: 2, 0xD1: 3, 0xD2: 5, 0xD3: 9}
# Strings with an explicit length field: first byte -> width of the length.
_STR = {0xD9: 1, 0xDA: 2, 0xDB: 4}
_ARRAY = {0xDC: 2, 0xDD: 4}
_MAP = {0xDE: 2, 0xDF: 4}
_BIN = frozenset({0xC4, 0xC5, 0xC6})
_EXT = frozenset({0xC7, 0xC8, 0xC9, 0xD4, 0xD5, 0xD6, 0xD7, 0xD8})


# Bytes that begin a map or an array (fixmap, fixarray, array16/32, map16/32), and those
# that begin a value the protocol refuses or that the C skip below does not check
# (0xc1, bin, ext, fixext): see `whole_object`.
_CONTAINER_HEADS = bytes(range(0x80, 0xA0)) + b"\xdc\xdd\xde\xdf"
_REFUSED_HEADS = bytes([0xC1, 0xC4, 0xC5, 0xC6, 0xC7, 0xC8, 0xC9, 0xD4, 0xD5, 0xD6, 0xD7, 0xD8])
WINDOW = 2048  # bytes first handed to the C skip (see `whole_object`)
C_DECODE_BYTES = 1 << 16  # an object this long may be decoded whole before values are counted


_NOT_DECODED = object()  # `_cut` vouched for an object by its size: nothing was decoded


def whole_object(buf: bytes | bytearray, limits: Limits) -> int | None:
    """The length of the msgpack object at buf[0] when it is whole and breaks none of
    `limits`, found by C code; None when `MsgpackScanner` must decide (the object is
    incomplete, malformed, or breaks a limit: the scanner names which). See `_cut`."""
    cut = _cut(buf, limits)
    return None if cut is None else cut[0]


def _cut(buf: bytes | bytearray, limits: Limits) -> tuple[int, Any] | None:
    """`whole_object`'s length, with the decoded object when one was decoded to check it
    (else `_NOT_DECODED`): a caller that wants the object does not decode it twice.

    `msgpack.Unpacker.skip` finds an object's end at C speed but enforces nothing. A
    small object is vouched for by its size alone: no string, list, map or count of
    values can be longer than its bytes, its nesting is at most the number of bytes that
    can begin a container (counted even inside strings: the bound errs on the safe
    side), and none of its bytes could begin a refused value (bin, ext, 0xc1). Any other
    object is decoded by the C unpacker under the same length limits and its containers
    are walked for the rest (`_within`): a list of a hundred plays costs tens of
    microseconds, not the scanner's walk of every value."""
    # Only a window of the buffer is handed to C, growing eightfold while the object is
    # longer: the bytes copied stay within a small multiple of the object's own size,
    # however many messages wait behind it (a buffer of thousands of tiny requests must
    # not be copied once per request).
    whole = min(len(buf), limits.max_frame_bytes + 1)
    window = min(whole, WINDOW)
    while True:
        unpacker = msgpack.Unpacker(max_buffer_size=max(1, window))
        unpacker.feed(buf[:window])
        try:
            unpacker.skip()
            break
        except msgpack.OutOfData:
            if window >= whole:
                return None  # incomplete (or longer than a frame): the scanner decides
            window = min(whole, window * 8)
        except Exception:  # malformed: the scanner names the fault
            return None
    end: int = unpacker.tell()
    if end > limits.max_frame_bytes or end > max(limits.max_elements, C_DECODE_BYTES):
        # More bytes than values allowed, and many: the C decode could build millions of
        # values before any count is checked. The scanner counts as it walks, and stops.
        return None
    body = bytes(buf[:end]) if end < len(buf) or not isinstance(buf, bytes) else buf
    if (end <= limits.max_elements and end <= limits.max_str_len and end <= limits.max_list_len
            and end <= 2 * limits.max_map_len + 1
            and len(body.translate(None, _REFUSED_HEADS)) == end
            and end - len(body.translate(None, _CONTAINER_HEADS)) <= limits.max_depth):
        return end, _NOT_DECODED
    try:
        obj = _unpack(body, limits)
    except Exception:
        return None
    return (end, obj) if _within(obj, limits) else None


def _unpack(body: bytes, limits: Limits) -> Any:
    """The C decode under `limits`' lengths: strings as str, no bin or ext, no repeated
    key (raises what msgpack raises; `unpack_map` words it for the peer)."""
    return msgpack.unpackb(body, raw=False, strict_map_key=True, use_list=True,
                           object_pairs_hook=_pairs_no_duplicates,
                           max_str_len=limits.max_str_len, max_bin_len=0, max_ext_len=0,
                           max_array_len=limits.max_list_len, max_map_len=limits.max_map_len,
                           ext_hook=_refuse_ext)


_SCALARS = frozenset({str, int, float, bool, type(None)})  # the scalars the protocol uses
_CONTAINERS = frozenset({dict, list})


def _refuse_ext(code: int, data: bytes) -> Any:
    raise ValueError("ext")


def _within(obj: Any, limits: Limits) -> bool:
    """Whether a decoded object keeps the scanner's limits on nesting and values, and
    holds only the protocol's types: as `MsgpackScanner` counts, every value (map keys
    included) is one element, and a non-empty container may not start deeper than
    `max_depth` (an empty one opens no level). The types of a container's members are
    collected at C speed (`set(map(type, ...))`): only containers are visited in Python,
    never the values of a board's list."""
    if type(obj) not in _CONTAINERS:
        return type(obj) in _SCALARS
    elements = 1
    todo = [(obj, 1)]
    depth = limits.max_depth
    while todo:
        value, level = todo.pop()
        if type(value) is dict:
            # keys are strings, or a zero-length bin (longer ones failed the decode)
            if b"" in value:
                return False
            items: Any = value.values()
            elements += 2 * len(value)
        else:
            items = value
            elements += len(value)
        if not items:
            continue
        if level > depth:
            return False
        kinds = set(map(type, items))
        if kinds <= _SCALARS:
            continue
        if kinds - _SCALARS - _CONTAINERS:
            return False
        todo.extend((item, level + 1) for item in items if type(item) in _CONTAINERS)
    return elements <= limits.max_elements


def starts_msgpack(frame: bytes | bytearray) -> bool:
    """True when the frame's first byte starts a msgpack map (the detection rule)."""
    return bool(frame) and frame[0] in MAP_FIRST_BYTES


def _too_large(what: str, limit: str, value: int) -> ProtocolError:
    return ProtocolError(ErrorCode.TOO_LARGE, f"{what} exceeds {limit} ({value})", limit=limit)


class MsgpackScanner:
    """Finds the end of one msgpack object in a buffer that may still be growing.

    Call `scan(buf)` each time `buf` has grown (the object starts at buf[0]); it
    returns the object's length once complete, else None, and resumes where it
    stopped, so a large object arriving in pieces is scanned once. Raises
    ProtocolError (`bad_frame`, `too_large`, `too_deep`) as soon as the bytes
    seen so far break a rule.
    """

    def __init__(self, limits: Limits) -> None:
        self.limits = limits
        self.pos = 0                 # next header to read
        self.stack: list[int] = []   # values still expected by each open container
        self.elements = 0

    def scan(self, buf: bytes | bytearray | memoryview) -> int | None:
        """The length of the object at buf[0] if it is complete, else None."""
        lim = self.limits
        stack = self.stack
        n = len(buf)
        while True:
            pos = self.pos
            if pos >= n:
                return None
            b = buf[pos]
            children = 0
            if b <= 0x7F or b >= 0xE0:
                # A run of one-byte integers (most of a board) is taken at once: as many
                # as the enclosing container still expects.
                run = _FIXINT_RUN.match(buf, pos).end() - pos  # type: ignore[union-attr]
                count = min(run, stack[-1]) if stack else 1
                end = pos + count
            elif 0xA0 <= b <= 0xBF or (b == 0xD9 and pos + 1 < n):
                # fixstr and str8 (map keys, moves, ids): read inline, the commonest headers
                head, length = (1, b & 0x1F) if b <= 0xBF else (2, buf[pos + 1])
                if length > lim.max_str_len:
                    raise _too_large("string", "max_str_len", lim.max_str_len)
                count = 1
                end = pos + head + length
            else:
                size = self._size(buf, pos, b, n)
                if size is None:
                    return None
                head, payload, children = size
                count = 1
                end = pos + head + payload
            if end > lim.max_frame_bytes:
                raise _too_large("message", "max_frame_bytes", lim.max_frame_bytes)
            if end > n:
                return None
            self.pos = end
            self.elements += count
            if self.elements > lim.max_elements:
                raise _too_large("number of values", "max_elements", lim.max_elements)
            if children:
                if len(stack) >= lim.max_depth:
                    raise ProtocolError(ErrorCode.TOO_DEEP, f"nesting deeper than "
                                        f"{lim.max_depth}", limit="max_depth")
                stack.append(children)
                continue
            # The values are complete: they fill slots of the enclosing container.
            while stack:
                stack[-1] -= count
                count = 1
                if stack[-1]:
                    break
                stack.pop()
            if not stack:
                return end

    def _size(self, buf: bytes | bytearray | memoryview, pos: int, b: int,
              n: int) -> tuple[int, int, int] | None:
        """(header bytes, payload bytes, child values) of the value at pos; None when
        its header is not all there yet."""
        if b <= 0x7F or b >= 0xE0:
            return 1, 0, 0
        if b <= 0x8F:
            return self._container(b & 0x0F, 2, 1)
        if b <= 0x9F:
            return self._container(b & 0x0F, 1, 1)
        if b <= 0xBF:
            return self._string(b & 0x1F, 1)
        if b in _FIXED:
            return _FIXED[b], 0, 0
        if b in _BIN:
            raise ProtocolError(ErrorCode.BAD_FRAME, "msgpack bin values are not used by "
                                "the protocol")
        if b in _EXT:
            raise ProtocolError(ErrorCode.BAD_FRAME, "msgpack ext values are not used by "
                                "the protocol")
        if b == 0xC1:
            raise ProtocolError(ErrorCode.BAD_FRAME, "byte 0xc1 is never used in msgpack")
        width = _STR.get(b) or _ARRAY.get(b) or _MAP.get(b)
        if width is None:  # pragma: no cover - every byte value is handled above
            raise ProtocolError(ErrorCode.BAD_FRAME, f"unknown msgpack byte {b:#x}")
        if pos + 1 + width > n:
            return None
        length = int.from_bytes(buf[pos + 1:pos + 1 + width], "big")
        if b in _STR:
            return self._string(length, 1 + width)
        return self._container(length, 2 if b in _MAP else 1, 1 + width)

    def _string(self, length: int, head: int) -> tuple[int, int, int]:
        if length > self.limits.max_str_len:
            raise _too_large("string", "max_str_len", self.limits.max_str_len)
        return head, length, 0

    def _container(self, length: int, per_entry: int, head: int) -> tuple[int, int, int]:
        lim = self.limits
        if per_entry == 2 and length > lim.max_map_len:
            raise _too_large("map", "max_map_len", lim.max_map_len)
        if per_entry == 1 and length > lim.max_list_len:
            raise _too_large("list", "max_list_len", lim.max_list_len)
        return head, 0, length * per_entry


def _pairs_no_duplicates(pairs: list[tuple[Any, Any]]) -> dict[Any, Any]:
    out = dict(pairs)
    if len(out) != len(pairs):
        raise ValueError("duplicate key in a map")
    return out


def _undecodable(exc: BaseException) -> str:
    if isinstance(exc, UnicodeDecodeError):
        return "a string is not valid UTF-8"
    if isinstance(exc, ValueError) and str(exc) == "duplicate key in a map":
        return "duplicate key in a map"
    if isinstance(exc, TypeError):
        return "a map key is not a string"
    return "malformed msgpack message"


def unpack_map(frame: bytes, limits: Limits, *, scanned: bool = False) -> dict[str, Any]:
    """Decode a frame holding exactly one msgpack map, enforcing `limits`. The frame's
    length has been checked against `max_frame_bytes` by the caller (the codec checks
    every frame's length once, before it picks the decoder, so that the refusal carries
    the message's id). `scanned`: the frame was cut from a byte stream by a
    `MsgpackScanner` with the same limits (framing.py), so it is one whole object within
    them: it is not scanned twice."""
    if not starts_msgpack(frame):
        raise ProtocolError(ErrorCode.BAD_FRAME, "a msgpack message is a map")
    obj: Any = _NOT_DECODED
    if not scanned:
        cut = _cut(frame, limits)
        end, obj = cut if cut is not None else (MsgpackScanner(limits).scan(frame),
                                                _NOT_DECODED)
        if end is None:
            raise ProtocolError(ErrorCode.BAD_FRAME, "truncated msgpack message")
        if end != len(frame):
            raise ProtocolError(ErrorCode.BAD_FRAME, "bytes after the msgpack message")
    if obj is _NOT_DECODED:
        try:
            obj = _unpack(frame, limits)
        except (ValueError, TypeError, msgpack.UnpackException) as exc:
            # The peer is told what is wrong in the protocol's words, never the library's.
            raise ProtocolError(ErrorCode.BAD_FRAME, _undecodable(exc)) from None
    if not isinstance(obj, dict):  # pragma: no cover - the first byte is a map
        raise ProtocolError(ErrorCode.BAD_FRAME, "a msgpack message is a map")
    return obj


def peek_map(frame: bytes) -> dict[str, Any] | None:
    """`frame` unpacked without the limits and checks of `unpack_map`, or None if it is
    not a msgpack map: for a server that answers `busy` from a request's id alone, where
    the full decode would cost more than the answer. None for a frame longer than
    C_DECODE_BYTES (it could hold millions of values): the full decode bounds it."""
    if len(frame) > C_DECODE_BYTES:
        return None
    try:
        obj = msgpack.unpackb(frame)
    except Exception:  # any malformation: the caller decodes in full, which names it
        return None
    return obj if isinstance(obj, dict) else None


#: How many values `find_id` walks, at most, to reach a message's `id`.
ID_SEARCH_VALUES = 65536
_ID_BYTES = 4 * 64  # an id is a string of at most 64 characters: at most this many bytes
_BIN_WIDTH = {0xC4: 1, 0xC5: 2, 0xC6: 4}
_EXT_WIDTH = {0xC7: 1, 0xC8: 2, 0xC9: 4}
_FIXEXT = {0xD4: 3, 0xD5: 4, 0xD6: 6, 0xD7: 10, 0xD8: 18}


def _extent(buf: bytes | bytearray, pos: int, n: int) -> tuple[int, int] | None:
    """(bytes of the value's header and payload, child values) of the value at pos,
    from its header alone; None when the header is not all there or is no msgpack."""
    b = buf[pos]
    if b <= 0x7F or b >= 0xE0:
        return 1, 0
    if b <= 0x8F:
        return 1, 2 * (b & 0x0F)
    if b <= 0x9F:
        return 1, b & 0x0F
    if b <= 0xBF:
        return 1 + (b & 0x1F), 0
    if b in _FIXED:
        return _FIXED[b], 0
    if b in _FIXEXT:
        return _FIXEXT[b], 0
    width = (_STR.get(b) or _BIN_WIDTH.get(b) or _EXT_WIDTH.get(b) or _ARRAY.get(b)
             or _MAP.get(b))
    if width is None or pos + 1 + width > n:
        return None  # 0xc1, or a length field still to come
    length = int.from_bytes(buf[pos + 1:pos + 1 + width], "big")
    if b in _ARRAY:
        return 1 + width, length
    if b in _MAP:
        return 1 + width, 2 * length
    return 1 + width + length + (1 if b in _EXT_WIDTH else 0), 0


def _skip(buf: bytes | bytearray, pos: int, n: int, budget: list[int]) -> int | None:
    """The position after the value at pos (containers walked header by header, strings
    skipped by their length); None when the bytes end first or `budget` runs out."""
    expected = 1
    while expected:
        if pos >= n or budget[0] <= 0:
            return None
        extent = _extent(buf, pos, n)
        if extent is None:
            return None
        size, children = extent
        budget[0] -= 1
        pos += size
        expected += children - 1
    return pos if pos <= n else None


def _scalar(buf: bytes | bytearray, pos: int, n: int) -> Any:
    """The integer, string (of at most an id's length) or nil at pos; anything else, or a
    value not all there, is `_NOT_DECODED`."""
    b = buf[pos]
    if b == 0xC0:
        return None
    if b <= 0x7F or b >= 0xE0:
        return b if b <= 0x7F else b - 0x100
    extent = _extent(buf, pos, n)
    if extent is None or extent[1] or pos + extent[0] > n or extent[0] > _ID_BYTES + 5:
        return _NOT_DECODED
    if 0xCC <= b <= 0xD3 or b in (0xD9, 0xDA, 0xDB) or 0xA0 <= b <= 0xBF:
        try:
            value: Any = msgpack.unpackb(bytes(buf[pos:pos + extent[0]]), raw=False)
        except Exception:  # not UTF-8
            return _NOT_DECODED
        return value
    return _NOT_DECODED


def find_id(buf: bytes | bytearray) -> Any:
    """The value of the top-level map's `id` key in a message refused whole (`too_large`,
    `too_deep`), or in the first bytes of one, found without decoding it: the map's
    entries are walked header by header, each value skipped by its header (a string by
    its length, never read), for at most `ID_SEARCH_VALUES` values. Only the id itself is
    decoded, when it is an integer, nil, or a string of an id's length. Returns None when
    there is no such id (not a map, the bytes end first, the walk is too long, an id of
    another type): the caller checks what it returns as any id."""
    n = len(buf)
    if not n or buf[0] not in MAP_FIRST_BYTES:
        return None
    extent = _extent(buf, 0, n)
    if extent is None:
        return None
    pos, entries = extent[0], extent[1] // 2
    budget = [ID_SEARCH_VALUES]
    for _ in range(entries):
        if pos + 3 <= n and buf[pos] == 0xA2 and buf[pos + 1:pos + 3] == b"id":
            if pos + 3 >= n:
                return None
            value = _scalar(buf, pos + 3, n)
            return None if value is _NOT_DECODED else value
        after_key = _skip(buf, pos, n, budget)
        after = None if after_key is None else _skip(buf, after_key, n, budget)
        if after is None:
            return None
        pos = after
    return None


def pack(obj: Any) -> bytes:
    """Encode a message map (str as str, never bin)."""
    data: bytes = msgpack.packb(obj, use_bin_type=True)
    return data
