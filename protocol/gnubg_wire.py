"""GNU Backgammon's external-player interface (SPEC.md section 11), at the level of bytes.

What a peer of the gnubg endpoint needs besides the request strings themselves:
cutting the byte stream into lines, and converting moves between gnubg's
notation (`25/22* 6/0 `) and the protocol's canonical one (`bar/22* 6/off`).
The daemon parses requests and validates boards with the rules core
(`jacquetd.daemon.gnubg`); this module imports nothing of the engine.
"""

from __future__ import annotations

import re

from .errors import ProtocolError
from .framing import _Splitter
from .messages import Limits

#: gnubg reads 255 characters at most; FIBS boards are about 150. The daemon allows more.
MAX_LINE_BYTES = 4096

_STEP_RE = re.compile(r"^([0-9]{1,2})/([0-9]{1,2})(\*?)\Z")


def _point(text: str) -> int:
    if text == "bar":
        return 25
    if text == "off":
        return 0
    if not re.fullmatch(r"[0-9]{1,2}", text) or int(text) > 25:
        raise ValueError(f"{text!r} is not a point")
    return int(text)


def format_move(move: str) -> str:
    """gnubg's reply line for a play given in the protocol's notation: one `from/to`
    pair per die, 25 for the bar, 0 for off, `*` after a hit, a space after each pair
    unless there are four; a play of no checker is an empty line.

    >>> format_move("bar/22* 6/off")
    '25/22* 6/0 \\n'
    """
    pairs: list[str] = []
    for step in move.split():
        hit = step.endswith("*")
        points = step.rstrip("*").split("/")
        if len(points) < 2 or any("*" in p for p in points[:-1]):
            raise ValueError(f"{step!r} is not a from/to step")
        values = [_point(p) for p in points]
        for i in range(len(values) - 1):
            last = i == len(values) - 2
            pairs.append(f"{values[i]}/{values[i + 1]}" + ("*" if hit and last else ""))
    if not pairs:
        return "\n"
    return " ".join(pairs) + ("" if len(pairs) >= 4 else " ") + "\n"


def parse_move(line: str) -> str:
    """The protocol's spelling of a gnubg move reply (the inverse of `format_move`):
    `25/22* 6/0 ` -> `bar/22* 6/off`; an empty line -> `` (no checker moved)."""
    steps = []
    for pair in line.split():
        m = _STEP_RE.match(pair)
        if not m or int(m[1]) > 25 or int(m[2]) > 24:
            raise ValueError(f"{pair!r} is not a gnubg from/to pair")
        src = "bar" if m[1] == "25" else str(int(m[1]))
        dst = "off" if m[2] == "0" else str(int(m[2]))
        steps.append(f"{src}/{dst}{m[3]}")
    return " ".join(steps)


class GnubgLineDecoder(_Splitter):
    """Splits a gnubg-endpoint byte stream into lines (bytes, without the newline).

    NUL bytes (gnubg as match manager sends one after each board) and a `\\r`
    before the newline are dropped; empty lines are kept, since they are
    answered. An over-long line comes back once as ProtocolError(too_large) and
    is skipped up to its newline.
    """

    def __init__(self, max_line_bytes: int = MAX_LINE_BYTES) -> None:
        super().__init__(Limits(max_frame_bytes=max_line_bytes))

    @property
    def in_line(self) -> bool:
        """Whether a line has begun (more than blanks) and has not ended, or an over-long
        one is being skipped: the peer owes the rest of a line."""
        return bool(self._buf.strip()) or self._skipping

    def feed(self, data: bytes) -> list[bytes | ProtocolError]:
        """Add bytes; return the complete lines (and line errors), in order."""
        return super().feed(data.replace(b"\0", b""))

    def _at_boundary(self) -> bool:
        return False  # text only: no msgpack on this endpoint

    def _text_frame(self, line: bytes, out: list[bytes | ProtocolError]) -> bool:
        out.append(line)
        return True
