"""The text encoding: GTP-style request lines and reply blocks, readable with netcat.

Request: `[id] cmd word... name=value...` on one line. Words fill the command's
positional arguments in order (a move takes every word left; an optional word
just before a move is taken only when it reads as its value); `name=value`
words set any argument by name and may stand anywhere; unknown names are
ignored (versioning rule). Values are read as replies write them: one that
starts with `"`, `[` or `{` is JSON and may hold spaces (`move="24/18 18/13"`),
and `null` is no value.

Reply: a block of lines ended by an empty line.

    =ID                      first line of a success (`=` alone when the request had no id)
    key=value                one result field per line
    key:                     a list of maps, one indented line per item:
      24/13 position_id=... hits=0    the item's `move` first, then its fields

    ?ID CODE field=... rule=... message      an error, one line
    ~ID key=value ...                         a partial result, one line (no empty line)

Values are one word: `null`, `true`, `false`, integers, floats (Python `repr`,
exact), a board literal for a structured position (positions.py), a bare
string, or, for anything else (strings with spaces, lists, maps that cannot
be spread out), compact JSON, which may contain spaces. Maps are spread into
dotted keys (`latency_ms.ping.p50=0.2`). A text reply decodes to exactly the
result map the msgpack reply carries.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, TypeGuard

from .commands import (
    COMMANDS,
    MAX_ID,
    MAX_WARNINGS,
    ArgType,
    Command,
    Entry,
    Param,
    check_spellings,
    find_entry,
    validate_args,
    with_usage,
)
from .errors import ErrorCode, ProtocolError, RequestId
from .messages import Partial, Reply, Request
from .positions import board_representable, format_board, parse_board

# -- shared ------------------------------------------------------------------------------

_SPACES = re.compile(r"[ \t]+")
_ID_RE = re.compile(r"^[0-9]{1,19}\Z")
_KEY = r"[a-z_][a-z0-9_-]*(?:\.[a-z0-9_][a-z0-9_-]*)*"
_KEY_EQ_RE = re.compile(rf"({_KEY})=")
_TOP_KEY_RE = re.compile(r"^[a-z_][a-z0-9_-]*\Z")
_MAP_KEY_RE = re.compile(r"^[a-z0-9_][a-z0-9_-]*\Z")
_BLOCK_HEAD_RE = re.compile(r"^([a-z_][a-z0-9_-]*):\Z")
_CODE_RE = re.compile(r"^[a-z_][a-z0-9_]*\Z")
_HEAD_RE = re.compile(r"^([=?~])([0-9]{0,19})(?:[ \t]+(.*))?\Z")
_INT_RE = re.compile(r"^-?(0|[1-9][0-9]*)\Z")
_FLOAT_RE = re.compile(r"^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?\Z")
_BOARD_HEAD_RE = re.compile(r"^[a-z][a-z0-9-]*/")


_REPRESENTABLE: dict[str, bool] = {}
_REPRESENTABLE_MAX = 4096


def _representable(value: Any) -> bool:
    """`board_representable`, remembered by the value's repr (which tells lists from
    tuples and True from 1, as the check does): replies repeat the same positions, and
    the full check costs far more than the repr."""
    if not isinstance(value, Mapping):
        return False
    key = repr(value)
    known = _REPRESENTABLE.get(key)
    if known is None:
        known = board_representable(value)
        if len(_REPRESENTABLE) >= _REPRESENTABLE_MAX:
            _REPRESENTABLE.clear()
        _REPRESENTABLE[key] = known
    return known


def _frame_error(message: str, id: RequestId = None) -> ProtocolError:
    return ProtocolError(ErrorCode.BAD_FRAME, message, id=id)


def to_text(frame: bytes, strip_newline: bool = True) -> str:
    """Decode a frame as UTF-8 and drop one trailing line end; refuse control characters
    (other than tab) and embedded line ends, since one frame is one line."""
    try:
        text = frame.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise _frame_error(f"text is not valid UTF-8 (byte {exc.start + 1})",
                           _readable_id(frame)) from None
    if strip_newline:
        text = text.removesuffix("\n").removesuffix("\r")
    for ch in text:
        if (ch < " " and ch != "\t") or ch == "\x7f":
            if ch in "\r\n":
                raise _frame_error("one request per line")
            raise _frame_error(f"control character {ch!r} in text")
    return text


def readable_text_id(frame: bytes | bytearray) -> int | None:
    """The id of a line that cannot be read as a whole (or of its first bytes), when its
    first word is one; only the line's first bytes are looked at."""
    return _readable_id(bytes(frame[:_ID_PREFIX]))


_ID_PREFIX = 64  # the bytes of a line that hold its id word, spaces before it included


def _readable_id(frame: bytes) -> int | None:
    """The id of a line that cannot be read as a whole, when its first word is one."""
    words = frame.lstrip(b" \t").split(None, 1)
    if len(words) < 2 and len(frame) >= _ID_PREFIX:
        return None  # the first word may go on past the bytes looked at
    head = words[0] if words else b""
    if head.isdigit() and _ID_RE.match(head.decode("ascii")):
        value = int(head)
        return value if value <= MAX_ID else None
    return None


def _parse_id(word: str) -> int:
    value = int(word)
    if value > MAX_ID:
        raise ProtocolError(ErrorCode.BAD_ARGUMENT, "id must be below 2^63", field="id")
    return value


# -- requests ----------------------------------------------------------------------------

_DICE_RE = re.compile(r"^([0-9])-?([0-9])\Z")  # 1-6 is checked later, as for msgpack
_BOOL_WORDS = {"true": True, "on": True, "false": False, "off": False}


def parse_text_arg(param: Param, word: str) -> Any:
    """Convert one text word to the typed value of `param` (range checks come later)."""
    t = param.type
    if t is ArgType.POSITION or t is ArgType.WORD or t is ArgType.MOVE:
        return word
    if t is ArgType.REQUEST_ID and not (word.isascii() and word.isdigit()):
        return word  # a string id, as a reply prints one (`target=abc`)
    if t is ArgType.INT or t is ArgType.REQUEST_ID:
        if _INT_RE.match(word) and len(word) <= 20:
            return int(word)
    elif t is ArgType.NUMBER:
        if _FLOAT_RE.match(word) and len(word) <= 40:
            return int(word) if _INT_RE.match(word) else float(word)
    elif t is ArgType.BOOL:
        if word in _BOOL_WORDS:
            return _BOOL_WORDS[word]
    elif t is ArgType.WORDS:
        parts = word.split(",")
        if all(parts):
            return parts
    elif t is ArgType.DICE:
        m = _DICE_RE.match(word)
        if m:
            return [int(m[1]), int(m[2])]
    raise ProtocolError(ErrorCode.BAD_ARGUMENT, f"{param.name}: {word[:40]!r} is not "
                        f"{_TEXT_FORMS[t]}", field=param.name)


_TEXT_FORMS: dict[ArgType, str] = {
    ArgType.INT: "an integer", ArgType.NUMBER: "a number", ArgType.BOOL: "true/false/on/off",
    ArgType.WORD: "a word", ArgType.WORDS: "words joined by ','",
    ArgType.DICE: "a roll such as 65 or 6-5", ArgType.POSITION: "a position",
    ArgType.MOVE: "a move", ArgType.REQUEST_ID: "a request id",
}


def _positional(cmd: Command) -> list[Param]:
    return sorted((p for p in cmd.all_params() if p.position is not None),
                  key=lambda p: p.position or 0)


_BARE = object()  # a token's `value` when it was written as a bare word
_QUOTES = "\"[{"
# `name=`: a lowercase letter first (so `XGID=...` is a position); other spellings of a
# field's name (`max-plays`, `maxPlays`) are read as names, to be refused naming the right one
_KEYWORD_HEAD_RE = re.compile(r"([a-z][a-zA-Z0-9_-]*)=(?=[^ \t])")
_KEYWORD_WORD_RE = re.compile(r"([a-z][a-zA-Z0-9_-]*)=(.+)\Z", re.S)


@dataclass(frozen=True)
class _Token:
    """One word of a request line: `name` when written `name=value`; `text` as written
    (for a quoted value, its JSON text); `value` the JSON value, or `_BARE`."""

    name: str | None
    text: str
    value: Any = _BARE


def _tokens(line: str) -> list[_Token]:
    """Split a request line into words. A value that starts with `"`, `[` or `{` is read
    as JSON, as replies write it (so it may hold spaces: `move="24/18 18/13"`)."""
    if not any(q in line for q in _QUOTES):  # no quoted value: words and name=value
        return [_Token(m[1], m[2]) if m else _Token(None, word)
                for word in _SPACES.split(line) if word
                for m in (_KEYWORD_WORD_RE.match(word),)]
    out: list[_Token] = []
    i, n = 0, len(line)
    while True:
        while i < n and line[i] in " \t":
            i += 1
        if i >= n:
            return out
        m = _KEYWORD_HEAD_RE.match(line, i)
        name, start = (m[1], m.end()) if m else (None, i)
        if line[start] in _QUOTES:
            try:
                value, end = _JSON.raw_decode(line, start)
            except (ValueError, RecursionError):
                raise ProtocolError(ErrorCode.BAD_ARGUMENT, f"{name or 'args'}: "
                                    f"{line[start:start + 40]!r} starts a quoted (JSON) value "
                                    "that does not end", field=name or "args") from None
            if end < n and line[end] not in " \t":
                raise ProtocolError(ErrorCode.BAD_ARGUMENT, f"{name or 'args'}: a quoted "
                                    "value must be followed by a space",
                                    field=name or "args")
            out.append(_Token(name, line[start:end], value))
        else:
            end = start
            while end < n and line[end] not in " \t":
                end += 1
            out.append(_Token(name, line[start:end]))
        i = end


_FIRST_WORD_RE = re.compile(r"([^ \t]*)[ \t]*(.*)\Z", re.S)


def decode_text_request(text: str, table: Mapping[str, Entry] = COMMANDS) -> Request:
    """Read one request line (already checked by `to_text`) into a Request, its command
    looked up in `table`."""
    head, rest = _FIRST_WORD_RE.match(text.strip(" \t")).groups()  # type: ignore[union-attr]
    if not head:
        raise _frame_error("empty request")
    rid: int | None = None
    if head.isascii() and head.isdigit():
        if not _ID_RE.match(head):
            raise ProtocolError(ErrorCode.BAD_ARGUMENT, "id must be below 2^63", field="id")
        rid = _parse_id(head)
        head, rest = _FIRST_WORD_RE.match(rest).groups()  # type: ignore[union-attr]
    if not head:
        raise ProtocolError(ErrorCode.BAD_ARGUMENT, "missing command", field="cmd", id=rid)
    entry = find_entry(head, table, rid)
    cmd = entry.command
    try:
        raw, ignored = _text_args(cmd, _tokens(rest))
        args = validate_args(cmd, raw)
    except ProtocolError as exc:
        raise with_usage(exc, cmd).with_id(rid) from None
    return Request(rid, cmd.name, args, "text", ignored[:MAX_WARNINGS], entry)


def _token_value(param: Param, token: _Token) -> Any:
    """The typed value of a word for `param`: a bare word as `parse_text_arg` reads it
    (`null`: no value, as a nil is in msgpack); a quoted string as the same word would be
    read (a word, a move or a position as it is); any other JSON value as it is."""
    value = token.value
    if value is _BARE:
        return None if token.text == "null" else parse_text_arg(param, token.text)
    if isinstance(value, str):
        if param.type in (ArgType.WORD, ArgType.MOVE, ArgType.POSITION, ArgType.REQUEST_ID):
            return value
        return parse_text_arg(param, value)
    return value


def _reads_as(param: Param, token: _Token) -> bool:
    """Whether the word can be `param`'s (for an optional word before a move: a roll)."""
    if param.type is ArgType.DICE and token.value is _BARE:
        return _DICE_RE.match(token.text) is not None
    try:
        value = _token_value(param, token)
    except ProtocolError:
        return False
    return param.type is not ArgType.DICE or isinstance(value, list)


def _move_words(param: Param, tokens: list[_Token]) -> str:
    """A move's words: bare words joined by spaces, or one quoted string."""
    if all(t.value is _BARE for t in tokens):
        return " ".join(t.text for t in tokens)
    if len(tokens) == 1 and isinstance(tokens[0].value, str):
        return tokens[0].value
    raise ProtocolError(ErrorCode.BAD_ARGUMENT, f"{param.name}: a move is bare words "
                        "(24/18 18/13) or one quoted string (\"24/18 18/13\")",
                        field=param.name)


def _text_args(cmd: Command, tokens: list[_Token]
               ) -> tuple[dict[str, Any], tuple[str, ...]]:
    """The raw arguments of a text request, and the names it gave that `cmd` does not
    define (ignored)."""
    positional = [t for t in tokens if t.name is None]
    keywords: dict[str, _Token] = {}
    for token in tokens:
        if token.name is not None:
            if token.name in keywords:
                raise ProtocolError(ErrorCode.BAD_ARGUMENT, f"{token.name} given twice",
                                    field=token.name)
            keywords[token.name] = token
    raw: dict[str, Any] = {}
    params = _positional(cmd)
    taken = 0
    for i, param in enumerate(params):
        if param.type is ArgType.MOVE:
            if positional[taken:]:
                raw[param.name] = _move_words(param, positional[taken:])
            taken = len(positional)
            break
        if taken >= len(positional):
            break
        word = positional[taken]
        if (not param.required and i + 1 < len(params) and params[i + 1].type is ArgType.MOVE
                and not _reads_as(param, word)):
            continue  # an optional word before a move (apply_move's roll) not given
        raw[param.name] = _token_value(param, word)
        taken += 1
    if taken < len(positional):
        raise ProtocolError(ErrorCode.BAD_ARGUMENT, f"unexpected word "
                            f"{positional[taken].text[:40]!r}", field="args")
    unknown: dict[str, Any] = {}
    for name, token in keywords.items():
        named = cmd.param(name)
        if named is None:  # unknown arguments are ignored (versioning rule) ...
            value = None if token.value is _BARE and token.text == "null" else (
                token.text if token.value is _BARE else token.value)
            if value is not None:  # (null: no value, as a nil in msgpack)
                unknown[name] = value
            continue
        if name in raw:
            raise ProtocolError(ErrorCode.BAD_ARGUMENT, f"{name} given twice", field=name)
        raw[name] = _token_value(named, token)
    check_spellings(cmd, raw | unknown)  # ... unless they are misspelt fields
    return raw, tuple(unknown)


def _bare_request_word(word: str) -> bool:
    """Whether `word` reads back as itself in a request: one printable word that is not
    `name=value`, does not start a quoted value and is not `null`."""
    return (bool(word) and word.isprintable() and not any(c.isspace() for c in word)
            and word[0] not in _QUOTES and word != "null"
            and not _KEYWORD_HEAD_RE.match(word))


def format_text_arg(param: Param | None, value: Any) -> str:
    """The text word for an argument value: bare when it reads back as itself, else
    quoted as JSON, as replies write values (ValueError when JSON cannot carry it)."""
    t = param.type if param else None
    word: str | None = None
    if isinstance(value, bool):
        word = "true" if value else "false"
    elif isinstance(value, int):
        word = str(value)
    elif isinstance(value, float):
        word = repr(value) if math.isfinite(value) else None
    elif t is ArgType.DICE and isinstance(value, list | tuple):
        word = "".join(str(d) for d in value)
    elif t is ArgType.WORDS and isinstance(value, list | tuple):
        if all(isinstance(v, str) and v and "," not in v for v in value):
            word = ",".join(value)
    elif t is ArgType.POSITION and isinstance(value, Mapping):
        if _representable(value):
            word = format_board(value)
    elif isinstance(value, str) and t in (None, ArgType.WORD, ArgType.MOVE,
                                          ArgType.POSITION):
        word = value
    if word is not None and _bare_request_word(word):
        return word
    return _json(list(value) if isinstance(value, tuple) else value)


def encode_text_request(req: Request) -> str:
    """The request line for `req` (with its newline): positional words where the command
    has them, then `name=value` words, a value quoted as JSON when it is not one bare word
    (`move="24/18 18/13"` when the move cannot end the line as bare words). ValueError if
    text cannot carry it: a string id. An empty move is written `pass`."""
    if req.id is not None and (not isinstance(req.id, int) or isinstance(req.id, bool)):
        raise ValueError("text request ids are unsigned integers")
    words = [str(req.id)] if req.id is not None else []
    words.append(req.cmd)
    cmd = COMMANDS.get(req.cmd)
    pending = dict(req.args)
    tail: list[str] = []
    params = _positional(cmd) if cmd else []
    left_out: Param | None = None  # an optional word before the move, not written
    for i, param in enumerate(params):
        before_move = (not param.required and i + 1 < len(params)
                       and params[i + 1].type is ArgType.MOVE)
        if param.type is ArgType.MOVE:
            value = pending.get(param.name)
            if isinstance(value, str):
                move = " ".join(value.split()) or "pass"
                first = move.split(" ")[0]
                if all(_bare_request_word(w) for w in move.split(" ")) and not (
                        left_out is not None and _reads_as(left_out, _Token(None, first))):
                    tail.append(move)
                    del pending[param.name]
            break
        if param.name not in pending:
            if before_move:
                left_out = param
                continue
            break
        word = format_text_arg(param, pending[param.name])
        if not _bare_request_word(word) or (before_move
                                            and not _reads_as(param, _Token(None, word))):
            break  # sent by name, and so is every argument after it
        words.append(word)
        del pending[param.name]
    for name, value in pending.items():
        words.append(f"{name}={format_text_arg(cmd.param(name) if cmd else None, value)}")
    return " ".join(words + tail) + "\n"


# -- values in replies ---------------------------------------------------------------------

_JSON = json.JSONDecoder(parse_constant=lambda c: _reject_constant(c))


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a protocol value")


def _parse_word(word: str) -> Any:
    if word == "null":
        return None
    if word in ("true", "false"):
        return word == "true"
    if _INT_RE.match(word):
        return int(word)
    if _FLOAT_RE.match(word):
        return float(word)
    if _BOARD_HEAD_RE.match(word):
        try:
            return parse_board(word)
        except ProtocolError:
            return word
    return word


_SPACE_RE = re.compile(r"\s")


def _bare_ok(s: str) -> bool:
    return (bool(s) and s.isprintable() and _SPACE_RE.search(s) is None
            and s[0] not in "\"[{" and _parse_word(s) == s)


def _check_keys(value: Any) -> None:
    if isinstance(value, Mapping):
        for k, v in value.items():
            if not isinstance(k, str):
                raise ValueError(f"map key {k!r} is not a string")
            _check_keys(v)
    elif isinstance(value, list | tuple):
        for v in value:
            _check_keys(v)


def _json(value: Any) -> str:
    _check_keys(value)
    try:
        return json.dumps(value, ensure_ascii=True, allow_nan=False, separators=(",", ":"))
    except (TypeError, ValueError) as exc:
        raise ValueError(f"text cannot carry this value: {exc}") from None


def format_value(value: Any) -> str:
    """One value as a text word (or compact JSON)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if value != value or value in (float("inf"), float("-inf")):
            raise ValueError("text cannot carry NaN or infinity")
        return repr(value)
    if isinstance(value, str):
        return value if _bare_ok(value) else _json(value)
    if isinstance(value, Mapping) and _representable(value):
        return format_board(value)
    return _json(value)


def parse_value(s: str, i: int) -> tuple[Any, int]:
    """Read the value starting at s[i]; return it and the index just after it."""
    if i >= len(s) or s[i] in " \t":
        raise _frame_error("empty value")
    if s[i] in "\"[{":
        try:
            value, end = _JSON.raw_decode(s, i)
        except (ValueError, RecursionError):
            raise _frame_error("bad JSON value") from None
        if end < len(s) and s[end] not in " \t":
            raise _frame_error("a JSON value must be followed by a space")
        return value, end
    end = i
    while end < len(s) and s[end] not in " \t":
        end += 1
    return _parse_word(s[i:end]), end


def _field_tokens(key: str, value: Any) -> list[str]:
    """`key=value` words; a map whose keys are identifiers is spread into dotted keys."""
    if isinstance(value, Mapping) and value:
        if _representable(value):  # checked once: a position is a board literal
            return [f"{key}={format_board(value)}"]
        if all(isinstance(k, str) and _MAP_KEY_RE.match(k) for k in value):
            out: list[str] = []
            for k, v in value.items():
                out += _field_tokens(f"{key}.{k}", v)
            return out
    return [f"{key}={format_value(value)}"]


def _lead_ok(move: Any) -> TypeGuard[str]:
    if not isinstance(move, str) or not move or move != " ".join(move.split(" ")):
        return False
    return all(w and w.isprintable() and "=" not in w and _SPACE_RE.search(w) is None
               and w[0] not in "\"[{" for w in move.split(" "))


def _item_line(item: Mapping[str, Any]) -> str:
    words: list[str] = []
    lead = item.get("move")
    if _lead_ok(lead):
        words.append(lead)
    for k, v in item.items():
        if k != "move" or not _lead_ok(lead):
            words += _field_tokens(k, v)
    return "  " + " ".join(words)


def _blockable(value: Any) -> bool:
    return (isinstance(value, list | tuple) and bool(value) and all(
        isinstance(x, Mapping) and x and all(isinstance(k, str) and _TOP_KEY_RE.match(k)
                                             for k in x) for x in value))


def _checked_key(key: Any) -> str:
    if not isinstance(key, str) or not _TOP_KEY_RE.match(key):
        raise ValueError(f"result key {key!r} is not an identifier")
    return key


def _id_text(rid: RequestId) -> str:
    if rid is None:
        return ""
    if isinstance(rid, int) and not isinstance(rid, bool) and 0 <= rid <= MAX_ID:
        return str(rid)
    raise ValueError("text reply ids are unsigned integers")


def encode_text_reply(reply: Reply) -> str:
    """The reply block, with its ending empty line."""
    if not reply.ok:
        return _error_line(reply) + "\n\n"
    lines = ["=" + _id_text(reply.id)]
    for key, value in (reply.result or {}).items():
        _checked_key(key)
        if _blockable(value):
            lines.append(f"{key}:")
            lines += [_item_line(item) for item in value]
        else:
            lines += _field_tokens(key, value)
    return "\n".join(lines) + "\n\n"


def _message_ok(message: str) -> bool:
    return (bool(message) and message.isprintable() and message == message.strip()
            and not _KEY_EQ_RE.match(message))


def _error_line(reply: Reply) -> str:
    error = dict(reply.error or {})
    code = str(error.pop("code", ErrorCode.INTERNAL))
    message = str(error.pop("message", ""))
    if not _CODE_RE.match(code):
        raise ValueError(f"error code {code!r} is not an identifier")
    words = ["?" + _id_text(reply.id), code]
    for key, value in error.items():
        words += _field_tokens(_checked_key(key), value)
    if _message_ok(message):
        words.append(message)
    else:
        words += _field_tokens("message", message)
    return " ".join(words)


def encode_text_partial(partial: Partial) -> str:
    """The partial line, with its newline."""
    words = ["~" + _id_text(partial.id)]
    for key, value in partial.result.items():
        words += _field_tokens(_checked_key(key), value)
    return " ".join(words) + "\n"


# -- reading replies -----------------------------------------------------------------------

def _build(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """Assemble `key=value` pairs (dotted keys into nested maps); a key given twice, or
    given both whole and spread, makes the frame unreadable."""
    keys = {k for k, _ in pairs}
    if len(keys) != len(pairs):
        raise _frame_error("a field is given twice")
    for key in keys:
        parts = key.split(".")
        if any(".".join(parts[:n]) in keys for n in range(1, len(parts))):
            raise _frame_error(f"{key}: conflicts with an earlier field")
    out: dict[str, Any] = {}
    for key, value in pairs:
        *path, last = key.split(".")
        target = out
        for part in path:
            target = target.setdefault(part, {})
        target[last] = value
    return out


def _scan_fields(s: str, *, lead_first: bool) -> tuple[list[str], list[tuple[str, Any]], int]:
    """Split `s` into plain words and `key=value` fields.

    With `lead_first` (list items) plain words may come before the fields and none
    after; otherwise (errors) the fields come first and the first plain word starts
    the free text. Returns the leading words, the fields, and the index of the free
    text (len(s) when there is none).
    """
    lead: list[str] = []
    fields: list[tuple[str, Any]] = []
    i, n = 0, len(s)
    while True:
        while i < n and s[i] in " \t":
            i += 1
        if i >= n:
            return lead, fields, n
        m = _KEY_EQ_RE.match(s, i)
        if m:
            value, i = parse_value(s, m.end())
            fields.append((m[1], value))
            continue
        if fields or not lead_first:
            return lead, fields, i
        end = i
        while end < n and s[end] not in " \t":
            end += 1
        lead.append(s[i:end])
        i = end


def _fields_only(s: str, what: str) -> list[tuple[str, Any]]:
    _, fields, rest = _scan_fields(s, lead_first=False)
    if rest < len(s):
        raise _frame_error(f"{what}: expected key=value fields")
    return fields


def decode_text_reply(text: str) -> Reply | Partial:
    """Read a reply block or a partial line (as produced by the encoders above)."""
    lines = text.split("\n")
    while lines and lines[-1] in ("", "\r"):
        lines.pop()
    lines = [line.removesuffix("\r") for line in lines]
    if not lines:
        raise _frame_error("empty reply")
    head = _HEAD_RE.match(lines[0])
    if not head:
        raise _frame_error("a reply starts with '=', '?' or '~'")
    kind, id_word, rest = head[1], head[2], head[3] or ""
    rid = _parse_id(id_word) if id_word else None
    if kind == "~":
        if len(lines) > 1:
            raise _frame_error("a partial is one line")
        return Partial(rid, _build(_fields_only(rest, "partial")))
    if kind == "?":
        return Reply(rid, False, error=_decode_error(rest, lines[1:]))
    pairs = _fields_only(rest, "reply")
    block: list[Any] | None = None
    for line in lines[1:]:
        if line.startswith("  "):
            if block is None:
                raise _frame_error("an indented line outside a list")
            block.append(_decode_item(line))
        elif m := _BLOCK_HEAD_RE.match(line):
            block = []
            pairs.append((m[1], block))
        elif line:
            block = None
            pairs += _fields_only(line, "reply")
        else:
            raise _frame_error("empty line inside a reply")
    return Reply(rid, True, result=_build(pairs))


def _decode_item(line: str) -> dict[str, Any]:
    lead, fields, rest = _scan_fields(line, lead_first=True)
    if rest < len(line):
        raise _frame_error("list item: words after its fields")
    if lead:
        fields.insert(0, ("move", " ".join(lead)))
    return _build(fields)


def _decode_error(rest: str, more: list[str]) -> dict[str, Any]:
    code, _, after = rest.partition(" ")
    if not _CODE_RE.match(code):
        raise _frame_error("an error reply names its code first")
    _, fields, start = _scan_fields(after, lead_first=False)
    if start < len(after):
        fields.append(("message", after[start:]))
    for line in more:
        fields += _fields_only(line, "error")
    error = {"code": code} | _build(fields)
    error.setdefault("message", "")
    return error
