"""GNU Backgammon's external-player interface (interface 2), at the level of lines.

The daemon's `--gnubg` endpoint speaks this sublanguage for the `backgammon`
variant (SPEC.md, "GNU Backgammon compatibility"). This module splits the byte
stream into lines, reads each line into a request value and formats the
replies byte for byte as gnubg 1.07 does. The FIBS board string itself stays
opaque here: the rules core parses it.

Unlike gnubg, every line is answered, pipelined lines included, in order, and
a line longer than the limit gets an error instead of crashing the server.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from .errors import ProtocolError
from .framing import _Splitter
from .messages import Limits

#: gnubg reads 255 characters at most; FIBS boards are about 150. We allow more.
MAX_LINE_BYTES = 4096

NO_COMMAND_REPLY = "Error: no command given\n"
BAD_BOARD_REPLY = "Error: badly formed board\n"
LINE_TOO_LONG_REPLY = "Error: line too long\n"
HELP_REPLY = "\tNo help information available\n"


class GnubgSyntaxError(ValueError):
    """A line that is not a request; `reply` is the one error line to send back."""

    def __init__(self, detail: str) -> None:
        self.reply = f"Error: {detail}\n"
        super().__init__(detail)


@dataclass(frozen=True)
class BoardRequest:
    """`board:...` with its options: the action depends on the board (a move when it has
    dice, `double`/`roll` without, `take`/`drop` when doubled, `accept`/`reject` with a
    resignation). None means the option was not given (the server's default applies)."""

    board: str
    jacoby: bool | None = None
    crawford: bool | None = None
    beavers: bool | None = None
    resignation: int | None = None   # 1 single, 2 gammon, 3 backgammon


@dataclass(frozen=True)
class EvaluationRequest:
    """`evaluation fibsboard board:... [options]`: six numbers back."""

    board: str
    plies: int = 0
    cubeful: bool = False
    noise: float = 0.0
    prune: bool = False
    deterministic: bool = True


@dataclass(frozen=True)
class SetRequest:
    """`set debug on|off` or `set interface new|old`: one confirmation line back."""

    name: Literal["debug", "interface"]
    value: bool


@dataclass(frozen=True)
class SimpleRequest:
    """`version`, `help`, `exit`/`quit` (close the connection, no reply), or an empty
    line (`Error: no command given`)."""

    kind: Literal["version", "help", "exit", "empty"]


GnubgRequest = BoardRequest | EvaluationRequest | SetRequest | SimpleRequest

_BOOLEANS = {"on": True, "off": False, "yes": True, "no": False, "true": True, "false": False}
_BOARD_OPTIONS = {"jacobyrule": "jacoby", "crawfordrule": "crawford", "beavers": "beavers"}


def _boolean(words: list[str], i: int, what: str) -> bool:
    if i >= len(words) or words[i].lower() not in _BOOLEANS:
        raise GnubgSyntaxError(f"{what} expects on or off")
    return _BOOLEANS[words[i].lower()]


def _integer(words: list[str], i: int, what: str, low: int, high: int) -> int:
    if i >= len(words) or not re.fullmatch(r"\d{1,3}", words[i]) or not (
            low <= int(words[i]) <= high):
        raise GnubgSyntaxError(f"{what} expects an integer {low}-{high}")
    return int(words[i])


def parse_line(line: str | bytes) -> GnubgRequest:
    """Read one request line (without its newline). Keywords are case-insensitive, as in
    gnubg; raises GnubgSyntaxError with the reply to send."""
    if isinstance(line, bytes):
        try:
            line = line.decode("ascii")
        except UnicodeDecodeError:
            raise GnubgSyntaxError("syntax error, the line is not ASCII") from None
    words = line.split()
    if not words:
        return SimpleRequest("empty")
    head = words[0].lower()
    if head.startswith("board:"):
        return _board_request(words)
    if head in ("version", "help") and len(words) == 1:
        return SimpleRequest(head)  # type: ignore[arg-type]
    if head in ("exit", "quit") and len(words) == 1:
        return SimpleRequest("exit")
    if head == "set" and len(words) == 3:
        name, value = words[1].lower(), words[2].lower()
        if name == "debug" and value in _BOOLEANS:
            return SetRequest("debug", _BOOLEANS[value])
        if name == "interface" and value in ("new", "old"):
            return SetRequest("interface", value == "new")
    if head == "evaluation":
        return _evaluation_request(words)
    raise GnubgSyntaxError(f"syntax error, unexpected {words[0][:40]!r}")


def _board_request(words: list[str]) -> BoardRequest:
    board, options = words[0], words[1:]
    found: dict[str, bool | int] = {}
    i = 0
    while i < len(options):
        word = options[i].lower()
        if word in _BOARD_OPTIONS:
            found[_BOARD_OPTIONS[word]] = _boolean(options, i + 1, word)
        elif word == "resignation":
            found["resignation"] = _integer(options, i + 1, word, 0, 3)
        else:
            raise GnubgSyntaxError(f"syntax error, unexpected {options[i][:40]!r} after the board")
        i += 2
    resignation = int(found.pop("resignation", 0)) or None   # 0 means none, as in gnubg
    return BoardRequest("board:" + board[6:], resignation=resignation,
                        **{k: bool(v) for k, v in found.items()})


def _evaluation_request(words: list[str]) -> EvaluationRequest:
    if len(words) < 3 or words[1].lower() != "fibsboard" or not words[2].lower().startswith(
            "board:"):
        raise GnubgSyntaxError("syntax error, expected evaluation fibsboard board:...")
    req: dict[str, object] = {}
    i = 3
    while i < len(words):
        word = words[i].lower()
        step = 2
        if word == "plies":
            req["plies"] = _integer(words, i + 1, word, 0, 8)
        elif word == "cube":
            req["cubeful"] = _boolean(words, i + 1, word)
        elif word in ("cubeful", "cubeless"):
            req["cubeful"], step = word == "cubeful", 1
        elif word == "noise":
            if i + 1 >= len(words) or not re.fullmatch(r"\d{1,3}(\.\d{1,9})?", words[i + 1]):
                raise GnubgSyntaxError("noise expects a number")
            req["noise"] = float(words[i + 1])
        elif word == "prune":
            req["prune"], step = True, 1
        elif word == "deterministic":
            req["deterministic"] = _boolean(words, i + 1, word)
        else:
            raise GnubgSyntaxError(f"syntax error, unexpected {words[i][:40]!r}")
        i += step
    return EvaluationRequest("board:" + words[2][6:], **req)  # type: ignore[arg-type]


# -- replies ---------------------------------------------------------------------------------

def format_version(engine: str, software: str) -> str:
    """The four-line `version` reply; `Interface: 2` and `RFBF: 0` are what clients check."""
    return f"Interface: 2\nRFBF: 0\nEngine: {engine}\nSoftware: {software}\n"


def _point(text: str) -> int:
    if text == "bar":
        return 25
    if text == "off":
        return 0
    if not re.fullmatch(r"\d{1,2}", text) or int(text) > 25:
        raise ValueError(f"{text!r} is not a point")
    return int(text)


def format_move(move: str) -> str:
    """gnubg's reply for a chosen play, from the canonical move text: one `from/to` pair
    per die, 25 for the bar, 0 for off, `*` after a hit, a space after each pair unless
    there are four; a play of no checker is an empty line.

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


def format_evaluation(probabilities: Sequence[float], value: float) -> str:
    """The `evaluation` reply: P(win), P(win gammon), P(win backgammon), P(lose gammon),
    P(lose backgammon), then the equity (money) or match winning chance, `%f` each."""
    if len(probabilities) != 5:
        raise ValueError("five probabilities")
    return " ".join(f"{x:f}" for x in (*probabilities, value)) + "\n"


def format_double(double: bool) -> str:
    """Reply to a board without dice: `double` or `roll`."""
    return "double\n" if double else "roll\n"


def format_take(decision: Literal["take", "drop", "beaver"]) -> str:
    """Reply to a board where the opponent has doubled."""
    if decision not in ("take", "drop", "beaver"):
        raise ValueError(decision)
    return decision + "\n"


def format_resignation(accept: bool) -> str:
    """Reply to a board with a resignation offer."""
    return "accept\n" if accept else "reject\n"


def format_set(request: SetRequest) -> str:
    """The confirmation line of `set debug` / `set interface`, as gnubg words it."""
    if request.name == "debug":
        return "Debug output ON\n" if request.value else "Debug output OFF\n"
    return "New interface ON\n" if request.value else "New interface OFF\n"


class GnubgLineDecoder(_Splitter):
    """Splits the endpoint's byte stream into request lines (bytes, no newline).

    NUL bytes (gnubg as match manager sends one after each board) and a `\\r`
    before the newline are dropped; empty lines are kept, since gnubg answers
    them. An over-long line comes back once as ProtocolError(too_large): answer
    it with LINE_TOO_LONG_REPLY; the line is skipped up to its newline.
    """

    def __init__(self, max_line_bytes: int = MAX_LINE_BYTES) -> None:
        super().__init__(Limits(max_frame_bytes=max_line_bytes))

    def feed(self, data: bytes) -> list[bytes | ProtocolError]:
        """Add bytes; return the complete lines (and line errors), in order."""
        return super().feed(data.replace(b"\0", b""))

    def _at_boundary(self) -> bool:
        return False  # text only: no msgpack on this endpoint

    def _text_frame(self, line: bytes, out: list[bytes | ProtocolError]) -> bool:
        out.append(line)
        return True
