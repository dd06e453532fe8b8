"""Cutting byte streams into frames, and the ZeroMQ envelope.

Over stdio and plain TCP there are no frames, so the detection rule is applied
per message: at a message boundary, a byte that starts a msgpack map begins one
msgpack object (self-delimiting); any other byte begins a text line. Both
decoders work incrementally and never hold more than one message's worth of
bytes (plus what arrived after it): an over-long text line is reported once
and skipped up to its newline; a msgpack object that breaks a limit cannot be
skipped reliably, so the decoder reports it and stops (the server answers and
closes the connection).
"""

from __future__ import annotations

from collections.abc import Sequence

from .commands import readable_id
from .errors import ErrorCode, ProtocolError, RequestId
from .json_wire import find_json_id, starts_json
from .messages import REPLY_LIMITS, Limits
from .msgpack_wire import MAP_FIRST_BYTES, MsgpackScanner, find_id, whole_object
from .text_wire import readable_text_id

Item = bytes | ProtocolError


class _Splitter:
    """The incremental machinery shared by both decoders; subclasses say what a text
    message is (`_text_frame`)."""

    def __init__(self, limits: Limits) -> None:
        self.limits = limits
        self._buf = bytearray()
        self._scanner: MsgpackScanner | None = None
        self._searched = 0        # bytes of _buf already searched for a newline
        self._skipping = False    # inside an over-long text line
        self.broken = False       # a msgpack message broke a limit: the stream is unusable

    @property
    def in_message(self) -> bool:
        """Whether a message has begun and is not finished yet (bytes are buffered)."""
        return bool(self._buf) and not self.broken

    def feed(self, data: bytes) -> list[Item]:
        """Add bytes; return the frames now complete, in order. A frame is a whole
        msgpack object or a text message without its final newline. A problem is
        returned in place as a ProtocolError (never raised)."""
        if self.broken:
            return []
        self._buf += data
        out: list[Item] = []
        while self._buf and not self.broken:
            if self._skipping and not self._skip_line(out):
                break
            if not self._buf:
                break
            if self._scanner is not None or (self._at_boundary()
                                             and self._buf[0] in MAP_FIRST_BYTES):
                if not self._next_msgpack(out):
                    break
            elif not self._next_text(out):
                break
        return out

    def finish(self) -> list[Item]:
        """The end of the stream: a last text message without a newline is a frame; an
        unfinished msgpack object is a `bad_frame`."""
        out: list[Item] = []
        if self._buf and not self.broken and not self._skipping:
            if self._scanner is not None:
                out.append(ProtocolError(ErrorCode.BAD_FRAME, "stream ended inside a msgpack "
                                         "message"))
                self.broken = True  # answered in msgpack, like any broken msgpack stream
            else:
                self._buf += b"\n"
                self._next_text(out)
        self._buf.clear()
        return out

    def _skip_line(self, out: list[Item]) -> bool:
        nl = self._buf.find(b"\n")
        if nl < 0:
            self._buf.clear()
            return False
        del self._buf[:nl + 1]
        self._skipping = False
        self._searched = 0
        return True

    def _next_msgpack(self, out: list[Item]) -> bool:
        if self._scanner is None:
            # a message whose bytes are all here, and that no limit can trip, is cut at
            # C speed; anything else is walked header by header (msgpack_wire)
            end = whole_object(self._buf, self.limits)
            if end is not None:
                out.append(bytes(self._buf[:end]))
                del self._buf[:end]
                return True
            self._scanner = MsgpackScanner(self.limits)
        try:
            end = self._scanner.scan(self._buf)
        except ProtocolError as exc:
            # the message's first bytes are here: its id is kept when they hold it
            out.append(exc.with_id(readable_id(find_id(self._buf))) if exc.id is None
                       else exc)
            self.broken = True
            self._buf.clear()
            return False
        if end is None:
            return False
        out.append(bytes(self._buf[:end]))
        del self._buf[:end]
        self._scanner = None
        return True

    def _next_text(self, out: list[Item]) -> bool:
        nl = self._buf.find(b"\n", self._searched)
        limit = self.limits.max_frame_bytes
        if nl < 0:
            self._searched = len(self._buf)
            if len(self._buf) > limit + 1:  # + 1 for a '\r' before the newline
                out.append(_line_too_long(limit, _line_id(self._buf)))
                self._buf.clear()
                self._searched = 0
                self._skipping = True
            return False
        line = bytes(self._buf[:nl])
        del self._buf[:nl + 1]
        self._searched = 0
        line = line.removesuffix(b"\r")
        if len(line) > limit:
            out.append(_line_too_long(limit, _line_id(line)))
            return True
        return self._text_frame(line, out)

    def _at_boundary(self) -> bool:
        """Whether the next byte starts a new message (and so may start msgpack)."""
        return True

    def _text_frame(self, line: bytes, out: list[Item]) -> bool:  # pragma: no cover
        raise NotImplementedError


def _line_too_long(limit: int, id: RequestId = None) -> ProtocolError:
    return ProtocolError(ErrorCode.TOO_LARGE, f"line longer than max_frame_bytes ({limit}); "
                         "skipped", limit="max_frame_bytes", id=id)


def _line_id(line: bytes | bytearray) -> RequestId:
    """The id of an over-long line, read from its first bytes: a text line's first word,
    or a JSON object's `id` member when it is an integer (the refusal of a line is a text
    reply, and text replies carry integer ids)."""
    if starts_json(line):
        rid = readable_id(find_json_id(line))
        return rid if isinstance(rid, int) else None
    return readable_text_id(line)


class StreamDecoder(_Splitter):
    """Server side: splits a client's byte stream into request frames.

    Blank lines and lines starting with `#` are skipped (GTP). Use:

        for item in decoder.feed(data):
            if isinstance(item, ProtocolError): answer it (id null); close if decoder.broken
            else: decode_request(item) ...
    """

    def __init__(self, limits: Limits = Limits()) -> None:  # noqa: B008 - frozen
        super().__init__(limits)

    def _text_frame(self, line: bytes, out: list[Item]) -> bool:
        stripped = line.strip(b" \t")
        if stripped and not stripped.startswith(b"#"):
            out.append(line)
        return True


class ReplyStreamDecoder(_Splitter):
    """Client side: splits a server's byte stream into reply frames.

    A text reply is a block of lines ended by an empty line (the frame includes
    its lines joined by newlines, without the empty line); a partial is a single
    line starting with `~`; a JSON reply or partial is a single line starting with `{`.
    """

    def __init__(self, limits: Limits = REPLY_LIMITS) -> None:
        super().__init__(limits)
        self._block: list[bytes] = []
        self._block_bytes = 0

    def _text_frame(self, line: bytes, out: list[Item]) -> bool:
        if not self._block:
            if not line:
                return True  # stray empty line between messages
            if line.startswith((b"~", b"{")):  # a partial, or a JSON reply (one line)
                out.append(line)
                return True
            if not line.startswith((b"=", b"?")):
                out.append(ProtocolError(ErrorCode.BAD_FRAME, "a reply starts with '=', '?' or "
                                         "'~'"))
                return True
        elif not line:
            out.append(b"\n".join(self._block))
            self._block = []
            self._block_bytes = 0
            return True
        self._block.append(line)
        self._block_bytes += len(line) + 1
        if self._block_bytes > self.limits.max_frame_bytes:
            out.append(ProtocolError(ErrorCode.TOO_LARGE, "reply block exceeds max_frame_bytes",
                                     limit="max_frame_bytes"))
            self._block = []
            self._block_bytes = 0
            self.broken = True
            return False
        return True

    def _at_boundary(self) -> bool:
        return not self._block


def split_envelope(frames: Sequence[bytes]) -> tuple[list[bytes], bytes]:
    """ROUTER side of ZeroMQ: split `[identity, body]` (DEALER client) or
    `[identity, b"", body]` (REQ client) into the envelope to send the reply back
    with, and the request frame. Anything else is ProtocolError(bad_frame): a
    request is one frame."""
    if len(frames) == 2:
        return [frames[0]], frames[1]
    if len(frames) == 3 and frames[1] == b"":
        return [frames[0], b""], frames[2]
    raise ProtocolError(ErrorCode.BAD_FRAME, "a request is exactly one frame (DEALER) or an "
                        "empty delimiter and one frame (REQ)")
