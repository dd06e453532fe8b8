"""Bytes to messages and back, for the three encodings: the functions servers and clients call.

    detect_encoding(frame)           which encoding a frame is in (first byte)
    decode_request(frame, limits)    server: a frame -> Request, or ProtocolError
    encode_reply(msg, encoding)      server: Reply / Partial -> bytes
    encode_request(req)              client: Request -> bytes
    decode_reply(frame)              client: bytes -> Reply / Partial

Byte streams (stdio, TCP) are cut into frames by `StreamDecoder` (server side)
and `ReplyStreamDecoder` (client side), re-exported here from framing.py.
This module imports nothing of the engine: positions and moves stay opaque.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .commands import (
    COMMANDS,
    Entry,
    check_id,
    check_spellings,
    find_entry,
    ignored_fields,
    readable_id,
    validate_args,
    with_usage,
)
from .errors import ErrorCode, ProtocolError, RequestId
from .framing import ReplyStreamDecoder, StreamDecoder, split_envelope
from .json_wire import dump_json, find_json_id, starts_json, unpack_json
from .messages import REPLY_LIMITS, Encoding, Limits, Partial, Reply, Request
from .msgpack_wire import find_id, pack, starts_msgpack, unpack_map
from .text_wire import (
    decode_text_reply,
    decode_text_request,
    encode_text_partial,
    encode_text_reply,
    encode_text_request,
    readable_text_id,
    to_text,
)

__all__ = [
    "ReplyStreamDecoder",
    "StreamDecoder",
    "decode_reply",
    "decode_request",
    "detect_encoding",
    "encode_reply",
    "encode_request",
    "split_envelope",
]

_RESERVED = ("id", "cmd")


def detect_encoding(frame: bytes | bytearray) -> Encoding:
    """`msgpack` when the first byte starts a msgpack map (0x80-0x8f, 0xde, 0xdf), `json`
    when it is `{`, else `text`."""
    if starts_msgpack(frame):
        return "msgpack"
    return "json" if starts_json(frame) else "text"


def decode_request(frame: bytes, limits: Limits = Limits(),  # noqa: B008
                   *, scanned: bool = False, table: Mapping[str, Entry] = COMMANDS) -> Request:
    """Decode and validate one request frame. `scanned`: the frame comes from a
    `StreamDecoder` with the same limits (a msgpack frame is not scanned twice).
    `table`: where its command is looked up (a server's own entries; the one lookup of
    the request, its entry kept as `Request.entry`).

    Raises ProtocolError: `bad_frame`, `too_large`, `too_deep`, `unknown_command`,
    `bad_argument`, `bad_position` (shape only), with `.id` set when the id could be
    read, so the error reply can be addressed. A message refused whole for a limit
    (`too_large`, `too_deep`) keeps its id when `refused_id` can find it.
    """
    encoding = detect_encoding(frame)
    if len(frame) > limits.max_frame_bytes:  # the one length check (unpack_map has none)
        raise ProtocolError(ErrorCode.TOO_LARGE, f"the message has {len(frame)} bytes, more "
                            f"than max_frame_bytes ({limits.max_frame_bytes})",
                            limit="max_frame_bytes", id=refused_id(frame, encoding))
    if encoding == "text":
        return decode_text_request(to_text(frame), table)
    try:
        obj = (unpack_map(frame, limits, scanned=scanned) if encoding == "msgpack"
               else unpack_json(frame, limits))
    except ProtocolError as exc:
        if exc.code in _LIMIT_CODES and exc.id is None:
            raise exc.with_id(refused_id(frame, encoding)) from None
        raise
    rid = check_id(obj.get("id"))
    return request_from_map(obj, rid, encoding, table)


_LIMIT_CODES = (ErrorCode.TOO_LARGE, ErrorCode.TOO_DEEP)


def refused_id(frame: bytes | bytearray, encoding: Encoding | None = None) -> RequestId:
    """The id of a message (or of the first bytes of one) refused whole for a limit,
    found without decoding the message (msgpack and JSON: by walking its headers or raw
    text, bounded; text: its first word); None when it cannot be read or is not an id."""
    if encoding is None:
        encoding = detect_encoding(frame)
    if encoding == "msgpack":
        return readable_id(find_id(frame))
    if encoding == "json":
        return readable_id(find_json_id(frame))
    return readable_text_id(frame)


def request_from_map(obj: dict[str, Any], rid: RequestId, encoding: Encoding,
                     table: Mapping[str, Entry] = COMMANDS) -> Request:
    """The request a decoded map (`id` already checked as `rid`) makes: its command looked
    up in `table`, its arguments validated, the fields its command does not define named
    in `ignored`. Raises ProtocolError with `.id` set."""
    if "cmd" not in obj:
        raise ProtocolError(ErrorCode.BAD_ARGUMENT, "missing cmd", field="cmd", id=rid)
    entry = find_entry(obj["cmd"], table, rid)
    cmd = entry.command
    raw = {k: v for k, v in obj.items() if k not in _RESERVED}
    try:
        check_spellings(cmd, raw)
        args = validate_args(cmd, raw)
    except ProtocolError as exc:
        raise with_usage(exc, cmd).with_id(rid) from None
    return Request(rid, cmd.name, args, encoding, ignored_fields(cmd, raw), entry)


def encode_reply(msg: Reply | Partial, encoding: Encoding) -> bytes:
    """Encode a final reply or a partial. Text: a reply is its whole block including the
    ending empty line; a partial is one `~[id] ...` line."""
    if encoding == "text":
        text = encode_text_partial(msg) if isinstance(msg, Partial) else encode_text_reply(msg)
        return text.encode("utf-8")
    obj: dict[str, Any]
    if isinstance(msg, Partial):
        obj = {"id": msg.id, "partial": True, "result": msg.result}
    elif msg.ok:
        obj = {"id": msg.id, "ok": True, "result": msg.result}
    else:
        obj = {"id": msg.id, "ok": False, "error": msg.error}
    if encoding == "json":
        return dump_json(obj) + b"\n"  # one object per line on byte streams
    return pack(obj)


def encode_request(req: Request) -> bytes:
    """Encode a request in `req.encoding` (text: one line with its newline)."""
    if req.encoding == "text":
        return encode_text_request(req).encode("utf-8")
    clash = [k for k in _RESERVED if k in req.args]
    if clash:
        raise ValueError(f"argument names {clash} are reserved")
    obj: dict[str, Any] = {} if req.id is None else {"id": req.id}
    obj["cmd"] = req.cmd
    obj.update(req.args)
    if req.encoding == "json":
        return dump_json(obj) + b"\n"
    return pack(obj)


def decode_reply(frame: bytes, limits: Limits = REPLY_LIMITS, *,
                 scanned: bool = False) -> Reply | Partial:
    """Decode a reply or a partial in any encoding (client side); ProtocolError
    (`bad_frame`, `too_large`, `too_deep`) if the frame is not one. `scanned`: the frame
    comes from a `ReplyStreamDecoder` with the same limits, which has already checked a
    msgpack frame's shape and limits (it is not scanned a second time)."""
    encoding = detect_encoding(frame)
    if len(frame) > limits.max_frame_bytes:  # the one length check (unpack_map has none)
        raise ProtocolError(ErrorCode.TOO_LARGE, f"the reply has {len(frame)} bytes, more "
                            f"than max_frame_bytes ({limits.max_frame_bytes})",
                            limit="max_frame_bytes")
    if encoding == "text":
        try:
            text = frame.decode("utf-8")
        except UnicodeDecodeError:
            raise ProtocolError(ErrorCode.BAD_FRAME, "text is not valid UTF-8") from None
        return decode_text_reply(text)
    obj = (unpack_map(frame, limits, scanned=scanned) if encoding == "msgpack"
           else unpack_json(frame, limits))
    rid = obj.get("id")
    if rid is not None:
        try:
            rid = check_id(rid)
        except ProtocolError:
            raise ProtocolError(ErrorCode.BAD_FRAME, "reply id is not a request id") from None
    return _reply_from_map(obj, rid)


def _reply_from_map(obj: dict[str, Any], rid: RequestId) -> Reply | Partial:
    result = obj.get("result")
    if obj.get("partial") is True:
        if not isinstance(result, dict):
            raise ProtocolError(ErrorCode.BAD_FRAME, "a partial carries a result map")
        return Partial(rid, result)
    ok = obj.get("ok")
    if ok is True and isinstance(result, dict):
        return Reply(rid, True, result=result)
    error = obj.get("error")
    if (ok is False and isinstance(error, dict) and isinstance(error.get("code"), str)
            and isinstance(error.get("message"), str)):
        return Reply(rid, False, error=error)
    raise ProtocolError(ErrorCode.BAD_FRAME, "not a reply: expected ok with a result map, or "
                        "an error map with code and message, or partial with a result")
