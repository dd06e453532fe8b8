"""The JSON encoding: the msgpack maps of protocol v1 written as JSON objects.

A JSON message is one JSON object; its first byte is `{`, which no text request
and no msgpack map starts with, so the detection rule of SPEC §2.2 tells the
three encodings apart by the first byte. It carries exactly what the msgpack
map carries: the same keys, ids, partials, results and errors.

Decoding enforces the same limits as msgpack, and before anything is built in
proportion to the input: the frame size first, then the nesting depth, read
from the raw text (strings blanked out), so deep input never recurses. After
parsing, list, map and string lengths and the number of values are checked.
Duplicate keys, `NaN` / `Infinity`, numbers too large for msgpack (integers
outside -2^63..2^64-1, floats that overflow) are refused with `bad_frame`.

Encoding writes compact UTF-8 JSON; non-finite floats never occur (the
protocol's floats are finite) and are refused if they do. Replies are large
(a `legal_moves` reply is about 7 KB of JSON) and written on the front
process's one thread, so the encoder matters: orjson writes them about eight
times faster than the standard library's encoder (and faster than msgpack
packs the same map), with the same bytes but for the spelling of some floats
(`1e-7` for `1e-07`: the same number). What orjson takes differently goes to
the standard encoder, which decides as it always did: a non-finite float
(orjson would write `null`), a key that is not a string, an integer past 64
bits, a lone surrogate. Without orjson the standard encoder writes everything.
"""

from __future__ import annotations

import itertools
import json
import math
import re
from collections.abc import Callable
from typing import Any

from .errors import ErrorCode, ProtocolError
from .messages import Limits

_fast_dumps: Callable[[Any], bytes] | None
try:
    from orjson import dumps as _fast_dumps
except ImportError:  # pragma: no cover - orjson is a dependency; the stdlib still works
    _fast_dumps = None

#: The first byte of a JSON message.
JSON_FIRST_BYTE = ord("{")

_STRING = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)  # unrolled: C speed
_BRACKETS = re.compile(rb"[\[\]{}]")
_MIN_INT = -(1 << 63)
_MAX_INT = (1 << 64) - 1


def starts_json(frame: bytes | bytearray) -> bool:
    """True when the frame's first byte is `{` (the detection rule for JSON)."""
    return bool(frame) and frame[0] == JSON_FIRST_BYTE


def _bad(message: str) -> ProtocolError:
    return ProtocolError(ErrorCode.BAD_FRAME, message)


def _too_large(what: str, limit: str, value: int) -> ProtocolError:
    return ProtocolError(ErrorCode.TOO_LARGE, f"{what} exceeds {limit} ({value})", limit=limit)


def _check_depth(frame: bytes, max_depth: int, blanked: bytes | None = None,
                 brackets: int | None = None) -> None:
    """Refuse nesting deeper than `max_depth`, counted on the raw bytes (strings blanked;
    `blanked`: the frame with its strings blanked already; `brackets`: look at no more
    than these first brackets)."""
    if blanked is None:
        blanked = _STRING.sub(b'""', frame)
    depth = 0
    for m in itertools.islice(_BRACKETS.finditer(blanked), brackets):
        if m[0] in (b"{", b"["):
            depth += 1
            if depth > max_depth:
                raise ProtocolError(ErrorCode.TOO_DEEP, f"nesting deeper than {max_depth}",
                                    limit="max_depth")
        else:
            depth -= 1


def _pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out = dict(pairs)
    if len(out) != len(pairs):
        raise _bad("duplicate key in a map")
    return out


def _constant(name: str) -> Any:
    raise _bad(f"{name} is not a number the protocol allows (floats are finite)")


def _float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise _bad(f"number {text[:40]} is out of range")
    return value


def _int(text: str) -> int:
    if len(text) > 21:  # longer than any 64-bit integer: never convert it
        raise _bad("integer out of range (64 bits)")
    value = int(text)
    if not _MIN_INT <= value <= _MAX_INT:
        raise _bad("integer out of range (64 bits)")
    return value


class _Counter:
    """Checks the lengths and the number of values of a parsed message."""

    def __init__(self, limits: Limits) -> None:
        self.limits = limits
        self.elements = 0

    def walk(self, value: Any) -> None:
        lim = self.limits
        self.elements += 1
        if self.elements > lim.max_elements:
            raise _too_large("number of values", "max_elements", lim.max_elements)
        if isinstance(value, str):
            if len(value) > lim.max_str_len or (
                    4 * len(value) > lim.max_str_len
                    and len(value.encode("utf-8", "surrogatepass")) > lim.max_str_len):
                raise _too_large("string", "max_str_len", lim.max_str_len)
        elif isinstance(value, dict):
            if len(value) > lim.max_map_len:
                raise _too_large("map", "max_map_len", lim.max_map_len)
            for key, item in value.items():
                self.walk(key)
                self.walk(item)
        elif isinstance(value, list):
            if len(value) > lim.max_list_len:
                raise _too_large("list", "max_list_len", lim.max_list_len)
            for item in value:
                self.walk(item)


# Built once: json.loads / json.dumps with options build a new decoder / encoder per call.
_DECODER = json.JSONDecoder(object_pairs_hook=_pairs, parse_constant=_constant,
                            parse_float=_float, parse_int=_int)
_ENCODER = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def _most_values(blanked: bytes) -> int:
    """An upper bound of the values (map keys included) `_Counter` would count in a JSON
    message whose strings are blanked, read at C speed before anything is built: every
    value but the first follows a `,`, a `:` or an opening bracket outside strings. A
    frame of a few MB (a match record) is parsed only when it cannot hold more values
    than allowed."""
    return (blanked.count(b",") + blanked.count(b":") + blanked.count(b"[")
            + blanked.count(b"{") + 1)


def unpack_json(frame: bytes, limits: Limits) -> dict[str, Any]:
    """Decode a frame holding exactly one JSON object, enforcing `limits` (ProtocolError:
    `bad_frame`, `too_large`, `too_deep`). The frame's length is the codec's to check,
    before it picks this decoder."""
    if not starts_json(frame):
        raise _bad("a JSON message is an object")
    blanked = _STRING.sub(b'""', frame)
    too_many = len(frame) > limits.max_elements and _most_values(blanked) > limits.max_elements
    # too deep is said first, as for any message; but of a message of too many values only
    # as many brackets are looked at as values are allowed
    _check_depth(frame, limits.max_depth, blanked, limits.max_elements if too_many else None)
    if too_many:
        raise _too_large("number of values", "max_elements", limits.max_elements)
    try:
        text = frame.decode("utf-8")
    except UnicodeDecodeError:
        raise _bad("a string is not valid UTF-8") from None
    try:
        obj = _DECODER.decode(text)
    except ProtocolError:
        raise
    except (ValueError, RecursionError) as exc:
        where = f" at character {exc.pos + 1}" if isinstance(exc, json.JSONDecodeError) else ""
        raise _bad(f"malformed JSON message{where}") from None
    if not isinstance(obj, dict):  # pragma: no cover - the first byte is `{`
        raise _bad("a JSON message is an object")
    _Counter(limits).walk(obj)
    _check_strings(obj)
    return obj


def _check_strings(value: Any) -> None:
    """Refuse lone surrogates (`\\ud800`): they are not UTF-8, as msgpack strings must be."""
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            raise _bad("a string is not valid UTF-8") from None
    elif isinstance(value, dict):
        for key, item in value.items():
            _check_strings(key)
            _check_strings(item)
    elif isinstance(value, list):
        for item in value:
            _check_strings(item)


#: How many values and string pieces `find_json_id` walks, at most, to reach the `id`.
ID_SEARCH_STEPS = 65536
_SPACE = re.compile(rb"[ \t\r\n]*")
_DELIMITER = re.compile(rb'["\[\]{}]')
_SCALAR = re.compile(rb"-?[0-9]+(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?|true|false|null")
# a string id of 64 characters (MAX_ID_LEN), each escaped, with its quotes: a character
# past U+FFFF is escaped as a surrogate pair, `\ud835\udd9f`, 12 bytes
_ID_TEXT_BYTES = 12 * 64 + 2


class _Walk:
    """A bounded walk over the raw bytes of a JSON object (nothing is decoded)."""

    def __init__(self, frame: bytes | bytearray) -> None:
        self.frame = frame
        self.steps = ID_SEARCH_STEPS

    def space(self, pos: int) -> int:
        return _SPACE.match(self.frame, pos).end()  # type: ignore[union-attr]

    def string_end(self, start: int) -> int | None:
        """The index of the quote that closes the string opened at `start`."""
        frame, i = self.frame, start + 1
        while self.steps > 0:
            self.steps -= 1
            j = frame.find(b'"', i)
            if j < 0:
                return None
            k = j
            while k > start + 1 and frame[k - 1] == 0x5C:  # backslashes before the quote
                k -= 1
            if (j - k) % 2 == 0:
                return j
            i = j + 1
        return None

    def value_end(self, pos: int) -> int | None:
        """The index just after the value starting at `pos`."""
        frame = self.frame
        if pos >= len(frame):
            return None
        first = frame[pos]
        if first == 0x22:  # "
            end = self.string_end(pos)
            return None if end is None else end + 1
        if first not in (0x5B, 0x7B):  # [ {
            m = _SCALAR.match(frame, pos)
            return m.end() if m else None
        depth = 0
        while self.steps > 0:
            self.steps -= 1
            m = _DELIMITER.search(frame, pos)
            if m is None:
                return None
            pos = m.start()
            if frame[pos] == 0x22:
                end = self.string_end(pos)
                if end is None:
                    return None
                pos = end + 1
                continue
            depth += 1 if frame[pos] in (0x5B, 0x7B) else -1
            pos += 1
            if depth == 0:
                return pos
        return None


def find_json_id(frame: bytes | bytearray) -> Any:
    """The value of the top-level object's `id` member in a message refused whole
    (`too_large`, `too_deep`), or in the first bytes of one, found without parsing it:
    the members are walked on the raw bytes, each value skipped (strings to their closing
    quote, never decoded), for at most `ID_SEARCH_STEPS` steps. Only the id itself is
    decoded. None when there is no such id: the caller checks what it returns as any id."""
    walk = _Walk(frame)
    pos = walk.space(0)
    if pos >= len(frame) or frame[pos] != JSON_FIRST_BYTE:
        return None
    pos += 1
    while walk.steps > 0:
        walk.steps -= 1
        pos = walk.space(pos)
        if pos >= len(frame) or frame[pos] != 0x22:
            return None
        key_end = walk.string_end(pos)
        if key_end is None:
            return None
        is_id = frame[pos:key_end + 1] == b'"id"'
        pos = walk.space(key_end + 1)
        if pos >= len(frame) or frame[pos] != 0x3A:  # :
            return None
        pos = walk.space(pos + 1)
        end = walk.value_end(pos)
        if end is None:
            return None
        if is_id:
            if end - pos > _ID_TEXT_BYTES or end >= len(frame):
                return None  # too long for an id, or maybe cut short
            try:
                return json.loads(bytes(frame[pos:end]))
            except ValueError:
                return None
        pos = walk.space(end)
        if pos >= len(frame) or frame[pos] != 0x2C:  # ,
            return None
        pos += 1
    return None


def dump_json(obj: Any) -> bytes:
    """Encode a message map as compact UTF-8 JSON (ValueError on a non-finite float)."""
    if _fast_dumps is not None:
        try:
            out: bytes = _fast_dumps(obj)
        except TypeError:  # a key that is not a string, an integer past 64 bits, ...
            return _dump_std(obj)
        if b"null" not in out:  # orjson writes NaN and infinities as null
            return out
    return _dump_std(obj)


def _dump_std(obj: Any) -> bytes:
    return _ENCODER.encode(obj).encode("utf-8")
