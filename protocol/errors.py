"""Machine-readable error codes and the one exception type of the protocol.

Every failure a peer can see is a `ProtocolError`: the codec raises it for
frames it cannot accept, and the daemon turns every refusal (a bad position,
an illegal move, a timeout) into one before it answers. Its `to_dict()` is
the `error` map of a reply, so the error a server raises is exactly the error
a client reads back (`ProtocolError.from_dict`).
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from typing import Any

RequestId = int | str | None


class ErrorCode(enum.StrEnum):
    """The `code` of an error reply. SPEC.md section "Errors" says when each is used."""

    BAD_FRAME = "bad_frame"
    UNKNOWN_COMMAND = "unknown_command"
    BAD_ARGUMENT = "bad_argument"
    BAD_POSITION = "bad_position"
    ILLEGAL_MOVE = "illegal_move"
    TOO_LARGE = "too_large"
    TOO_DEEP = "too_deep"
    TIMEOUT = "timeout"
    CANCELLED = "cancelled"
    BUSY = "busy"
    INTERNAL = "internal"
    UNSUPPORTED_VERSION = "unsupported_version"
    NOT_FOUND = "not_found"
    FORBIDDEN = "forbidden"
    OUT_OF_TURN = "out_of_turn"
    BAD_STATE = "bad_state"
    MATCH_OVER = "match_over"
    LIMIT = "limit"
    CONFLICT = "conflict"


#: One line per code, for SPEC.md's error table and for `help`-like listings.
ERROR_DOCS: dict[ErrorCode, str] = {
    ErrorCode.BAD_FRAME: "The message cannot be read as a request: not a msgpack map, not UTF-8 "
    "text, trailing bytes, a msgpack type the protocol does not use (bin, ext), duplicate keys.",
    ErrorCode.UNKNOWN_COMMAND: "`cmd` names no command of this protocol version. `planned: true` "
    "is added when the name is reserved for a later version.",
    ErrorCode.BAD_ARGUMENT: "A field is missing, of the wrong type or out of range; `field` names "
    "it (`id`, `cmd`, an argument, or `args` for surplus words in text).",
    ErrorCode.BAD_POSITION: "The position is malformed or breaks the rules of its variant; `field` "
    "points into the position when known, `rule` is the RULES.md id broken, when one is.",
    ErrorCode.ILLEGAL_MOVE: "The move cannot be played here: it is not move notation, does not "
    "fit the dice, breaks a rule (`rule` is the RULES.md id), or matches several plays (`rule` "
    "G8, `candidates` lists their spellings). `field` is `move`.",
    ErrorCode.TOO_LARGE: "The message, a string or a list exceeds a limit of `hello`'s `limits`; "
    "`limit` names it.",
    ErrorCode.TOO_DEEP: "Maps and lists are nested deeper than `limits.max_depth`.",
    ErrorCode.TIMEOUT: "The request's `timeout_ms` passed before it finished.",
    ErrorCode.CANCELLED: "A `cancel` request (or the end of the session) stopped the request.",
    ErrorCode.BUSY: "Too many requests in flight for this client (`limits.max_inflight_per_client`)"
    " or the server is shutting down; retry later.",
    ErrorCode.INTERNAL: "A fault inside the server. The message never carries a traceback.",
    ErrorCode.UNSUPPORTED_VERSION: "`hello` offered no protocol version the server speaks; "
    "`supported` lists those it does.",
    ErrorCode.NOT_FOUND: "The thing named does not exist: for `cancel`, no request of this client "
    "with that id is in flight.",
    ErrorCode.FORBIDDEN: "The command exists but this endpoint does not allow it (configuration); "
    "for the match commands, the token is missing, wrong, or not allowed this action.",
    ErrorCode.OUT_OF_TURN: "Hosted matches: the token is a seat of the match, but it is not that "
    "seat's turn to act.",
    ErrorCode.BAD_STATE: "Hosted matches: nobody may do this now (rolling twice, doubling with "
    "the cube off, taking without a double, ...); `rule` cites RULES.md when a rule forbids it.",
    ErrorCode.MATCH_OVER: "Hosted matches: the match is finished or closed.",
    ErrorCode.LIMIT: "A server limit on stored things is reached (too many matches in play); "
    "`limit` names it.",
    ErrorCode.CONFLICT: "Hosted matches: this client already used this request id for a "
    "different action.",
}


class ProtocolError(ValueError):
    """A refusal with a machine-readable code, sent to the peer as an error reply.

    `field` names the request field at fault (dotted into maps, such as
    `position.dice`), `rule` the RULES.md id broken, `id` the request id when it
    could be read. `extra` holds further documented members of the error map
    (such as `limit`, `supported`, `planned`). A code this library does not
    know (sent by a newer server) is kept as a plain string.
    """

    def __init__(
        self,
        code: ErrorCode | str,
        message: str,
        *,
        field: str | None = None,
        rule: str | None = None,
        id: RequestId = None,
        **extra: Any,
    ) -> None:
        try:
            self.code: ErrorCode | str = ErrorCode(code)
        except ValueError:
            self.code = str(code)
        self.message = message
        self.field = field
        self.rule = rule
        self.id = id
        self.extra = extra
        super().__init__(f"{self.code}: {message}")

    def with_id(self, id: RequestId) -> ProtocolError:
        """The same error, attributed to request `id`."""
        return ProtocolError(self.code, self.message, field=self.field, rule=self.rule, id=id,
                             **self.extra)

    def to_dict(self) -> dict[str, Any]:
        """The `error` map of a reply: code, message, then field/rule/extra when set."""
        d: dict[str, Any] = {"code": str(self.code), "message": self.message}
        if self.field is not None:
            d["field"] = self.field
        if self.rule is not None:
            d["rule"] = self.rule
        d.update(self.extra)
        return d

    @classmethod
    def from_dict(cls, error: Mapping[str, Any], id: RequestId = None) -> ProtocolError:
        """Rebuild the exception from a reply's `error` map (client side)."""
        extra = {k: v for k, v in error.items() if k not in ("code", "message", "field", "rule")}
        return cls(str(error.get("code", ErrorCode.INTERNAL)), str(error.get("message", "")),
                   field=error.get("field"), rule=error.get("rule"), id=id, **extra)

    def __repr__(self) -> str:
        parts = [repr(str(self.code)), repr(self.message)]
        parts += [f"{k}={v!r}" for k, v in (("field", self.field), ("rule", self.rule),
                                             ("id", self.id)) if v is not None]
        parts += [f"{k}={v!r}" for k, v in self.extra.items()]
        return f"ProtocolError({', '.join(parts)})"
