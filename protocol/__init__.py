"""jacquetd's wire protocol: the spec (SPEC.md), the codec, schemas and conformance vectors.

Standard library and msgpack only; it never imports the engine, the clients or
zmq, so servers and clients share it without pulling each other in.
"""

from .codec import (
    ReplyStreamDecoder,
    StreamDecoder,
    decode_reply,
    decode_request,
    detect_encoding,
    encode_reply,
    encode_request,
    split_envelope,
)
from .commands import COMMANDS, PLANNED, arguments, describe
from .errors import ErrorCode, ProtocolError
from .messages import REPLY_LIMITS, Encoding, Limits, Partial, Reply, Request
from .positions import start_variant
from .version import PROTOCOL_VERSION, negotiate

__all__ = [
    "COMMANDS",
    "PLANNED",
    "PROTOCOL_VERSION",
    "REPLY_LIMITS",
    "Encoding",
    "ErrorCode",
    "Limits",
    "Partial",
    "ProtocolError",
    "Reply",
    "ReplyStreamDecoder",
    "Request",
    "StreamDecoder",
    "arguments",
    "decode_reply",
    "decode_request",
    "describe",
    "detect_encoding",
    "encode_reply",
    "encode_request",
    "negotiate",
    "split_envelope",
    "start_variant",
]
