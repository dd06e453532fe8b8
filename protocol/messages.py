"""The messages of the protocol as values: requests, replies, partial results, limits.

These are what the codec turns bytes into and back. They are frozen so that a
request can be handed between tasks and processes without copies going stale.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Literal

from .errors import ProtocolError, RequestId

Encoding = Literal["msgpack", "text", "json"]


@dataclass(frozen=True)
class Request:
    """One request: `args` holds only the arguments the client gave (validated and
    normalised by `decode_request`); `commands.arguments(req)` adds the defaults.
    `encoding` is the encoding the request came in, and so the one to answer in.
    `ignored` names the fields the request gave that its command does not define: they
    are ignored (versioning rule), and the final reply says so in `warnings`."""

    id: RequestId
    cmd: str
    args: dict[str, Any] = field(default_factory=dict)
    encoding: Encoding = "msgpack"
    ignored: tuple[str, ...] = field(default=(), compare=False)
    # the command table's entry the codec found `cmd` by (`commands.Entry`: the protocol's
    # `Command`, or the server's own entry when it decodes with its table); None when the
    # request was made otherwise
    entry: Any = field(default=None, compare=False, repr=False)


@dataclass(frozen=True)
class Reply:
    """The final answer to a request: `result` when `ok`, else `error`
    (`{"code", "message", optional "field", "rule", ...}`, see `ProtocolError.to_dict`)."""

    id: RequestId
    ok: bool
    result: dict[str, Any] | None = None
    error: dict[str, Any] | None = None

    def __post_init__(self) -> None:
        if self.ok and (self.result is None or self.error is not None):
            raise ValueError("an ok reply carries a result and no error")
        if not self.ok and (self.error is None or self.result is not None):
            raise ValueError("an error reply carries an error and no result")

    @classmethod
    def success(cls, id: RequestId, result: dict[str, Any]) -> Reply:
        """An ok reply."""
        return cls(id, True, result=result)

    @classmethod
    def failure(cls, id: RequestId, error: ProtocolError) -> Reply:
        """An error reply for `error` (its own `id`, if set, is ignored in favour of `id`)."""
        return cls(id, False, error=error.to_dict())

    def raise_for_error(self) -> dict[str, Any]:
        """Return the result, or raise the reply's error as a `ProtocolError` (client side)."""
        if self.ok and self.result is not None:
            return self.result
        raise ProtocolError.from_dict(self.error or {}, self.id)


@dataclass(frozen=True)
class Partial:
    """A streamed intermediate result; always followed, eventually, by one final `Reply`."""

    id: RequestId
    result: dict[str, Any]


MAX_RECORD_BYTES = 3 << 20
"""The longest match record a request may carry (`analyze_record`'s `record`): real
match files, gnubg's analysed SGF of a long match included, are a few hundred KB to
a few MB. Every other argument has its own, much shorter bound (commands.py)."""


@dataclass(frozen=True)
class Limits:
    """What a server accepts. `hello` reports these; the codec enforces them while
    decoding, before it allocates anything in proportion to what a header claims."""

    # One message (msgpack object, JSON object or text line): a match record of
    # MAX_RECORD_BYTES and the request around it.
    max_frame_bytes: int = MAX_RECORD_BYTES + (64 << 10)
    max_depth: int = 16                  # nesting of maps and lists, the request map is 1
    max_list_len: int = 4096             # elements of one list
    max_map_len: int = 256               # entries of one map
    max_str_len: int = MAX_RECORD_BYTES  # bytes of one string: a match record fits
    max_elements: int = 65536            # values of every kind in one message
    max_inflight_per_client: int = 64    # requests of one client not yet answered

    def to_dict(self) -> dict[str, int]:
        """The `limits` map of `hello`."""
        return asdict(self)


#: Limits for the client side: a client trusts its server more, and replies
#: (analysis with many plays) are larger than requests.
REPLY_LIMITS = Limits(max_frame_bytes=64 << 20, max_depth=32, max_list_len=1 << 20,
                      max_map_len=1 << 16, max_str_len=16 << 20, max_elements=1 << 24)
