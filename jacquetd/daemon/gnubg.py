"""GNU Backgammon's external-player line protocol (interface 2), served by us.

Byte-compatible with what ``gnubg`` answers on its ``external`` socket (see
GNUBG.md), without its defects: any number of clients, a line too long gets
an error line instead of a crash, and pipelined lines are all answered, in
order. This module reads one request line and says what to do; the transport
(``streams.py``) owns the socket and the worker pool owns the decisions.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from jacquetd.rules import (
    FibsBoard,
    Position,
    PositionError,
    parse_fibs_board,
)
from jacquetd.rules.fibs import MAX_FIELDS

VERSION_REPLY = "Interface: 2\nRFBF: 0\nEngine: 1.00\nSoftware: 1.07.001\n"
HELP_REPLY = "\tNo help information available\n"
NO_COMMAND = "Error: no command given\n"
BAD_BOARD = "Error: badly formed board\n"
MAX_BOARD_FIELDS = MAX_FIELDS  # more is answered as gnubg answers it

_SET_ANSWERS = {
    ("debug", True): "Debug output ON\n",
    ("debug", False): "Debug output OFF\n",
    ("interface", True): "New interface ON\n",
    ("interface", False): "New interface OFF\n",
}
_BOOL_WORDS = {"on": True, "yes": True, "true": True, "off": False, "no": False, "false": False}
_INT = re.compile(r"[+-]?\d+")
_FLOAT = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)")


@dataclass(frozen=True)
class Immediate:
    """Answer at once with ``text`` (already newline-terminated)."""

    text: str


@dataclass(frozen=True)
class Close:
    """``exit`` / ``quit``: close the connection without a reply."""


@dataclass(frozen=True)
class Ignore:
    """Nothing to answer (a lone NUL separator)."""


@dataclass(frozen=True)
class Decide:
    """A board that needs an engine: a move, a cube action or a resignation answer."""

    board: str
    options: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Evaluate:
    """``evaluation fibsboard board:...``: six probabilities/equity numbers."""

    board: str
    options: dict[str, Any] = field(default_factory=dict)


Action = Immediate | Close | Ignore | Decide | Evaluate


def syntax_error(unexpected: str, expecting: str | None = None) -> Immediate:
    tail = f", expecting {expecting}" if expecting else ""
    return Immediate(f"Error: syntax error, unexpected {unexpected}{tail}\n")


def _token_kind(token: str | None) -> str:
    if token is None:
        return "EOL"
    if _INT.fullmatch(token):
        return "E_INTEGER"
    if token.lower() in _KEYWORD_TOKENS:
        return _KEYWORD_TOKENS[token.lower()]
    return "E_CHARACTER"


# Words gnubg's external-interface lexer reads as keywords (as they appear in its errors).
_KEYWORD_TOKENS = {"cubeful": "CUBEFUL", "cubeless": "CUBELESS", "prune": "PRUNE",
                   "plies": "PLIES", "noise": "NOISE", "cube": "CUBE",
                   "deterministic": "DETERMINISTIC"}


def _board_request(kind: type[Decide | Evaluate], text: str, tokens: list[str],
                   allowed: dict[str, str]) -> Action:
    """`kind` for board `text` with the options in `tokens`, or the error line for a bad
    board or option."""
    if len(text.split(":")) - 1 > MAX_BOARD_FIELDS:
        return Immediate(
            f"Error: Invalid board. Maximum number of elements is {MAX_BOARD_FIELDS}\n"
        )
    try:
        board_position(text)
    except PositionError:
        return Immediate(BAD_BOARD)
    options = _board_options(tokens, allowed)
    return options if isinstance(options, Immediate) else kind(text, options)


def _board_options(tokens: list[str], allowed: dict[str, str]) -> dict[str, Any] | Immediate:
    """Options after a board. ``allowed`` maps option name to its value kind."""
    options: dict[str, Any] = {}
    i = 0
    while i < len(tokens):
        name = tokens[i].lower()
        kind = allowed.get(name)
        if kind is None:
            return syntax_error(_token_kind(tokens[i]), "EOL")
        if kind == "flag":
            options[name] = True
            i += 1
            continue
        if kind in ("cubeful", "cubeless"):  # gnubg: stand-alone words, like `cube on|off`
            options["cube"] = kind == "cubeful"
            i += 1
            continue
        value = tokens[i + 1] if i + 1 < len(tokens) else None
        if kind == "bool":
            parsed_bool = _BOOL_WORDS.get(value.lower()) if value is not None else None
            if parsed_bool is None:
                return syntax_error(_token_kind(value), "E_BOOLEAN")
            options[name] = parsed_bool
        elif kind == "int":
            if value is None or not _INT.fullmatch(value):
                return syntax_error(_token_kind(value), "E_INTEGER")
            options[name] = int(value)
        elif kind == "float":
            if value is None or not _FLOAT.fullmatch(value):
                return syntax_error(_token_kind(value), "E_FLOAT")
            options[name] = float(value)
        i += 2
    return options


_DECIDE_OPTIONS = {
    "jacobyrule": "bool",
    "crawfordrule": "bool",
    "beavers": "bool",
    "resignation": "int",
}
_EVAL_OPTIONS = {
    "plies": "int",
    "cube": "bool",
    "cubeful": "cubeful",
    "cubeless": "cubeless",
    "noise": "float",
    "prune": "flag",
    "deterministic": "bool",
}


def parse_line(raw: bytes) -> Action:
    """Read one request line (without its ``\\n``) and say what to do with it."""
    text = raw.replace(b"\0", b"").decode("latin-1").rstrip("\r")
    if not text.strip():
        # A lone NUL is the separator gnubg puts after a board: not a request.
        return Ignore() if b"\0" in raw and not raw.replace(b"\0", b"").strip() else (
            Immediate(NO_COMMAND)
        )
    tokens = text.split()
    head = tokens[0]
    word = head.lower()
    if word.startswith("board:"):
        return _board_request(Decide, head, tokens[1:], _DECIDE_OPTIONS)
    if word in ("exit", "quit"):
        return Close()
    if word == "version":
        return syntax_error(_token_kind(tokens[1]), "EOL") if len(tokens) > 1 else (
            Immediate(VERSION_REPLY)
        )
    if word == "help":
        return Immediate(HELP_REPLY)
    if word == "set":
        return _parse_set(tokens[1:])
    if word == "evaluation":
        if len(tokens) < 2 or tokens[1].lower() != "fibsboard":
            return syntax_error(_token_kind(tokens[1] if len(tokens) > 1 else None), "FIBSBOARD")
        if len(tokens) < 3 or not tokens[2].lower().startswith("board:"):
            return syntax_error(_token_kind(tokens[2] if len(tokens) > 2 else None), "FIBSBOARD")
        return _board_request(Evaluate, tokens[2], tokens[3:], _EVAL_OPTIONS)
    return syntax_error(_token_kind(head))


def _parse_set(tokens: list[str]) -> Action:
    if not tokens or tokens[0].lower() not in ("debug", "interface", "prompt"):
        return syntax_error(
            _token_kind(tokens[0] if tokens else None), "DEBUG or E_INTERFACE or PROMPT"
        )
    what = tokens[0].lower()
    value = tokens[1] if len(tokens) > 1 else None
    if what == "prompt":
        if value is None or not value.startswith(('"', "'")):
            return syntax_error(_token_kind(value), "E_STRING")
        return Immediate("Error: set option 'prompt' not supported\n")
    if what == "interface":
        if value is None or value.lower() not in ("new", "old"):
            return syntax_error(_token_kind(value), "NEW or OLD")
        on = value.lower() == "new"
    else:
        flag = _BOOL_WORDS.get(value.lower()) if value is not None else None
        if flag is None:
            return syntax_error(_token_kind(value), "E_BOOLEAN")
        on = flag
    if len(tokens) > 2:
        return syntax_error(_token_kind(tokens[2]), "EOL")
    return Immediate(_SET_ANSWERS[(what, on)])


@dataclass(frozen=True)
class BoardQuestion:
    """What a ``board:`` line asks, read the way gnubg reads it.

    The side on roll is the one whose colour is in the turn field, whichever
    side the board is written from (as match manager, gnubg writes every board
    with its player 1 as You and the turn set to the side on roll). With a
    double pending that side is the doubler and the other one answers
    (``actor_on_roll`` is then false). ``position`` is from the view of the
    side on roll.
    """

    board: FibsBoard
    position: Position
    actor_on_roll: bool


def board_position(text: str) -> BoardQuestion:
    """Read a ``board:`` string into the question it asks; PositionError if malformed.

    The rules core reads boards as gnubg does (the turn field names the side on
    roll, the doubler when a double is pending; the other dice pair when that
    side's reads 0 0; fields 43-52 optional): see `jacquetd.rules.fibs`.
    """
    board = parse_fibs_board(text)
    return BoardQuestion(board, board.to_position(), not board.was_doubled)


def format_evaluation(values: list[float]) -> str:
    return " ".join(f"{v:f}" for v in values) + "\n"
