"""What a peer sends: a reply or partial it encodes itself, or a reply already encoded
elsewhere (a front replica's, see replicas.py), passed on as it is."""

from __future__ import annotations

from typing import NamedTuple

from jacquetd_protocol.codec import encode_reply
from jacquetd_protocol.messages import Encoding, Partial, Reply


class Encoded(NamedTuple):
    """A final reply already encoded in its request's encoding; `code` is its error code
    (None for a success), for the daemon's statistics."""

    body: bytes
    code: str | None = None


Outgoing = Reply | Partial | Encoded


def wire_bytes(message: Outgoing, encoding: Encoding) -> bytes:
    """The bytes of `message` in `encoding` (an Encoded reply is already in it)."""
    if isinstance(message, Encoded):
        return message.body
    return encode_reply(message, encoding)
