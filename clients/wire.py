"""The client side of the wire: requests to bytes, bytes to replies.

Every byte the clients send or read goes through this module, which is a thin
layer over the protocol's codec (`protocol.codec`): one msgpack object per
ZeroMQ frame, and on byte streams (stdio, TCP) msgpack objects back to back
(the first byte of a msgpack map can never start a text line, so one stream
may carry both encodings; the codec's stream decoder splits it into frames).
"""

from __future__ import annotations

from typing import Any

from jacquetd_protocol.codec import ReplyStreamDecoder, decode_reply, encode_request
from jacquetd_protocol.messages import Partial, Reply, Request

__all__ = ["Partial", "Reply", "ReplyStreamDecoder", "Request", "decode", "encode"]


def encode(id: int | str, cmd: str, args: dict[str, Any]) -> bytes:
    """The msgpack frame of request `id`: `{"id", "cmd", ...args}` (None values left out)."""
    return encode_request(Request(id, cmd, {k: v for k, v in args.items() if v is not None}))


def decode(frame: bytes, *, scanned: bool = False) -> Reply | Partial:
    """A reply or partial result from one frame; raises `ProtocolError(bad_frame)`.
    `scanned`: the frame was cut by a `ReplyStreamDecoder` (limits already checked)."""
    return decode_reply(frame, scanned=scanned)
