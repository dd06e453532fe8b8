"""The command table: every command, its arguments and its result fields.

This table is the single source for argument validation (`decode_request`),
the text syntax (which words are positional), the JSON schemas
(`protocol/schema/*.json`), the field tables in SPEC.md and the command list
of `hello`. Regenerate the derived files with `python -m protocol.docgen`.

Versioning rule: arguments a command does not define are ignored, so that a
newer client can talk to an older server; a nil (msgpack) value is the same
as an absent field.
"""

from __future__ import annotations

import enum
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, TypeGuard

from .errors import ErrorCode, ProtocolError
from .messages import Limits, Request
from .positions import check_position_arg
from .version import PROTOCOL_VERSION, VERSION_RE

MAX_ID = (1 << 63) - 1
MAX_ID_LEN = 64
COMMAND_RE = re.compile(r"^[a-z][a-z0-9_]{0,31}$")


class ArgType(enum.StrEnum):
    """How an argument is typed on the wire (msgpack) and spelled in text."""

    INT = "int"                # msgpack int; text: decimal
    NUMBER = "number"          # msgpack int or float; text: decimal
    BOOL = "bool"              # msgpack bool; text: true/false/on/off
    WORD = "word"              # msgpack str; text: one word
    WORDS = "words"            # msgpack array of str; text: words joined by ','
    DICE = "dice"              # msgpack [d1, d2]; text: '65' or '6-5'
    POSITION = "position"      # msgpack map or str; text: one word (see positions.py)
    MOVE = "move"              # msgpack str; text: every remaining word of the line
    REQUEST_ID = "request_id"  # msgpack int or str; text: decimal


@dataclass(frozen=True)
class Param:
    """One request argument. `position` is its index among the positional words of a
    text request (None: keyword only, `name=value`); a MOVE argument takes all the
    positional words left."""

    name: str
    type: ArgType
    doc: str
    required: bool = False
    default: Any = None
    position: int | None = None
    minimum: int | None = None
    maximum: int | None = None
    max_len: int = 64           # characters of a word or move, entries of a word list
    pattern: str | None = None  # each word must match


@dataclass(frozen=True)
class Field:
    """One field of a result map; `type` is a key of RESULT_TYPES."""

    name: str
    type: str
    doc: str
    required: bool = True


@dataclass(frozen=True)
class Command:
    """A command: its name, what it does, its arguments, its result fields, and
    whether it streams partial results before its final reply."""

    name: str
    summary: str
    params: tuple[Param, ...]
    result: tuple[Field, ...]
    streams: bool = False

    def all_params(self) -> tuple[Param, ...]:
        """The command's own arguments followed by those every request accepts."""
        return self.params + COMMON_PARAMS

    def param(self, name: str) -> Param | None:
        """The argument called `name`, or None."""
        return next((p for p in self.all_params() if p.name == name), None)


# -- result field types --------------------------------------------------------------------

PROBABILITIES = (
    Field("win", "prob", "P(the side on roll wins), any kind of win"),
    Field("win_gammon", "prob", "P(wins a gammon or better); Jacquet: marcia"),
    Field("win_backgammon", "prob", "P(wins a backgammon); Jacquet: marcia per punto"),
    Field("lose_gammon", "prob", "P(loses a gammon or worse)"),
    Field("lose_backgammon", "prob", "P(loses a backgammon)"),
    Field("equity", "number", "cubeless money equity for the side on roll, points per game "
          "at cube 1, in [-3, 3]"),
)

PLAY_FIELDS = (
    Field("move", "str", "canonical move text: one `from/to` per die in play order, `bar` = "
          "25, `off` = 0, `*` after a hit (`24/18 18/13`, `bar/22*`, `6/off`); `\"\"` for a "
          "roll that cannot be played"),
    Field("position_id", "str", "the resulting position's id (opponent on roll, no dice)"),
    Field("position", "position", "the resulting position, structured"),
    Field("hits", "int", "opposing checkers hit"),
    Field("borne_off", "int", "own checkers borne off"),
)

RANKED_FIELDS = PLAY_FIELDS + PROBABILITIES[:5] + (
    Field("equity", "number", "equity of the play for the side that made it (the ranking key)"),
    Field("plies", "int", "search depth this entry was evaluated at"),
)

LATENCY_FIELDS = (
    Field("count", "int", "requests answered"),
    Field("p50", "number", "median latency, ms"),
    Field("p90", "number", "90th percentile, ms"),
    Field("p99", "number", "99th percentile, ms"),
    Field("max", "number", "slowest, ms"),
)

#: Field type name -> (label in SPEC.md tables, JSON schema fragment).
RESULT_TYPES: dict[str, tuple[str, dict[str, Any]]] = {
    "int": ("int", {"type": "integer"}),
    "number": ("float", {"type": "number"}),
    "prob": ("float 0-1", {"type": "number", "minimum": 0, "maximum": 1}),
    "bool": ("bool", {"type": "boolean"}),
    "str": ("str", {"type": "string"}),
    "str_list": ("list of str", {"type": "array", "items": {"type": "string"}}),
    "position": ("position", {"$ref": "#/$defs/position"}),
    "play": ("play", {"$ref": "#/$defs/play"}),
    "plays": ("list of play", {"type": "array", "items": {"$ref": "#/$defs/play"}}),
    "ranked_plays": ("list of ranked play", {"type": "array",
                                             "items": {"$ref": "#/$defs/ranked_play"}}),
    "limits": ("map str -> int", {"type": "object", "additionalProperties": {"type": "integer"}}),
    "latency": ("map command -> latency", {"type": "object",
                                           "additionalProperties": {"$ref": "#/$defs/latency"}}),
    "counts": ("map str -> int", {"type": "object", "additionalProperties": {"type": "integer"}}),
    "request_id": ("int or str", {"type": ["integer", "string"]}),
}

#: Records used inside results, by the name their `$defs` entry has in the schema.
RECORDS: dict[str, tuple[Field, ...]] = {
    "play": PLAY_FIELDS,
    "ranked_play": RANKED_FIELDS,
    "latency": LATENCY_FIELDS,
}

# -- arguments shared by several commands --------------------------------------------------

TIMEOUT_MS = Param("timeout_ms", ArgType.INT, "deadline for the whole request, counted from "
                   "its arrival; when it passes the request ends with `timeout`",
                   minimum=1, maximum=86_400_000)
COMMON_PARAMS: tuple[Param, ...] = (TIMEOUT_MS,)


def _position(doc: str = "the position; the side on roll is the side to act") -> Param:
    return Param("position", ArgType.POSITION, doc, required=True, position=0)


_DICE = Param("dice", ArgType.DICE, "the roll to play; overrides the position's dice, and "
              "is required when the position has none", position=1)
_PLIES = Param("plies", ArgType.INT, "search depth: 0 is the static evaluation; default: the "
               "level's own", minimum=0, maximum=8)
_TIME_MS = Param("time_ms", ArgType.INT, "search budget: the search stops deepening when it "
                 "is spent (unlike `timeout_ms` this is not an error)", minimum=1,
                 maximum=3_600_000)
_LEVEL = Param("level", ArgType.WORD, "a bot level listed in `hello`'s `levels`; default: "
               "the server's", max_len=64, pattern=r"^[a-z0-9][a-z0-9_.-]*$")

# -- the commands --------------------------------------------------------------------------

_COMMANDS: tuple[Command, ...] = (
    Command(
        "hello", "Negotiate the protocol version and read the server's capabilities.",
        (Param("versions", ArgType.WORDS, "protocol versions the client speaks (MAJOR.MINOR); "
               "default: the server's current one", position=0, max_len=16,
               pattern=VERSION_RE.pattern),
         Param("client", ArgType.WORD, "the client's name and version, for the server's log",
               max_len=128)),
        (Field("protocol", "str", "the protocol version chosen for this session"),
         Field("engine", "str", "the server program's name (`jacquetd`)"),
         Field("version", "str", "the server program's version"),
         Field("variants", "str_list", "variant names the server plays"),
         Field("commands", "str_list", "commands this server implements"),
         Field("planned", "str_list", "command names reserved for later versions"),
         Field("encodings", "str_list", "`msgpack`, `text`"),
         Field("levels", "str_list", "bot levels for `best_move`, weakest first"),
         Field("limits", "limits", "the server's limits (see Limits)")),
    ),
    Command("ping", "Check that the server answers; the result is empty.", (), ()),
    Command(
        "position", "Check a position and return it in both forms.",
        (_position(),),
        (Field("position_id", "str", "the compact id"),
         Field("position", "position", "the structured form")),
    ),
    Command(
        "legal_moves", "Every legal play of the side on roll with its dice.",
        (_position(), _DICE),
        (Field("count", "int", "number of plays (at least 1: a roll that cannot be played "
               "is one play with move `\"\"`)"),
         Field("plays", "plays", "the plays, in the server's canonical order")),
    ),
    Command(
        "apply_move", "Play a move given as text and return the resulting position.",
        (_position(), Param("move", ArgType.MOVE, "the move in any legal spelling "
                            "(`24/18 18/13`, `24/13`, `13/7(2)`, `bar/22*`, `pass`)",
                            required=True, position=1, max_len=256),
         Param("dice", ArgType.DICE, "the roll; overrides the position's dice")),
        PLAY_FIELDS,
    ),
    Command(
        "best_move", "The play a bot chooses.",
        (_position(), _DICE, _LEVEL, _PLIES, _TIME_MS,
         Param("seed", ArgType.INT, "seed for levels that use chance; the same seed gives the "
               "same choice", minimum=0, maximum=MAX_ID)),
        (Field("play", "play", "the chosen play, as `legal_moves` lists it"),
         Field("level", "str", "the level that chose"),
         Field("elapsed_ms", "number", "time spent searching")),
    ),
    Command(
        "analyze", "Rank the plays of a roll with their probabilities and equities.",
        (_position(), _DICE,
         Param("plies", ArgType.INT, "search depth of the final ranking", default=1,
               minimum=0, maximum=8),
         _TIME_MS,
         Param("max_plays", ArgType.INT, "how many of the best plays to report", default=10,
               minimum=1, maximum=4096),
         Param("partials", ArgType.BOOL, "stream a partial result after each completed depth",
               default=True)),
        (Field("plays", "ranked_plays", "best first"),
         Field("plies", "int", "depth of this ranking (partials: depth completed so far)"),
         Field("elapsed_ms", "number", "time spent so far")),
        streams=True,
    ),
    Command(
        "evaluate", "Winning chances and equity of a position before the roll.",
        (_position("the position, without dice: the side on roll is about to roll"), _PLIES),
        (*PROBABILITIES, Field("plies", "int", "depth evaluated at")),
    ),
    Command(
        "cube", "Doubling decisions: should the side on roll double, should the opponent "
        "take.",
        (_position("the position before the roll (no dice), cube on"), _PLIES),
        (Field("action", "str", "`no_double`, `double` or `too_good` (for the side on roll)"),
         Field("take", "str", "`take` or `drop` (for the opponent, if doubled)"),
         Field("no_double", "number", "equity if the side on roll does not double"),
         Field("double_take", "number", "equity after double and take"),
         Field("double_drop", "number", "equity after double and drop (the cube value)"),
         Field("plies", "int", "depth evaluated at")),
    ),
    Command(
        "cancel", "Stop an in-flight request of the same client. The reply does not wait: "
        "the target still ends with its own single final reply.",
        (Param("target", ArgType.REQUEST_ID, "id of the request to stop", required=True,
               position=0),),
        (Field("target", "request_id", "the id being cancelled"),),
    ),
    Command(
        "stats", "Counters and latencies of the server.", (),
        (Field("served", "int", "requests answered since start"),
         Field("inflight", "int", "requests being worked on now"),
         Field("uptime_s", "number", "seconds since start"),
         Field("worker_restarts", "int", "worker processes restarted after a crash or a hang"),
         Field("latency_ms", "latency", "per command: count, p50, p90, p99, max"),
         Field("errors", "counts", "error replies sent, per code")),
    ),
    Command("quit", "End the session: on a byte stream the server closes the connection "
            "after this reply; over ZeroMQ it forgets the client.", (), ()),
)

COMMANDS: dict[str, Command] = {c.name: c for c in _COMMANDS}

#: Hosted matches come in a later version; the names are reserved now.
PLANNED: tuple[str, ...] = (
    "match_new", "match_state", "match_roll", "match_move", "match_double", "match_take",
    "match_drop", "match_resign", "match_watch", "match_list", "match_close",
)

ENCODINGS: tuple[str, ...] = ("msgpack", "text")


def describe(limits: Limits) -> dict[str, Any]:
    """The protocol's part of a `hello` result; the server adds `engine`, `version`,
    `variants` and `levels`."""
    return {"protocol": PROTOCOL_VERSION, "commands": list(COMMANDS), "planned": list(PLANNED),
            "encodings": list(ENCODINGS), "limits": limits.to_dict()}


def arguments(req: Request) -> dict[str, Any]:
    """The request's arguments with every documented default filled in."""
    cmd = COMMANDS.get(req.cmd)
    defaults = {p.name: p.default for p in cmd.all_params()} if cmd else {}
    return defaults | req.args


# -- identifiers ---------------------------------------------------------------------------

def check_id(value: Any, field: str = "id") -> int | str | None:
    """Check a request id: nil, an integer 0..2^63-1, or a string of 1-64 characters."""
    if value is None:
        return None
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= MAX_ID:
        return value
    if isinstance(value, str) and 1 <= len(value) <= MAX_ID_LEN:
        return value
    raise ProtocolError(ErrorCode.BAD_ARGUMENT, f"{field} must be an integer 0..2^63-1 or a "
                        f"string of 1-{MAX_ID_LEN} characters", field=field)


def lookup(name: Any, id: int | str | None = None) -> Command:
    """The command called `name`; ProtocolError(unknown_command) otherwise."""
    if not isinstance(name, str):
        raise ProtocolError(ErrorCode.BAD_ARGUMENT, "cmd must be a string", field="cmd", id=id)
    cmd = COMMANDS.get(name)
    if cmd is not None:
        return cmd
    shown = name if COMMAND_RE.match(name) else repr(name[:40])
    if name in PLANNED:
        raise ProtocolError(ErrorCode.UNKNOWN_COMMAND, f"{shown} is reserved for a later "
                            f"protocol version", id=id, planned=True)
    raise ProtocolError(ErrorCode.UNKNOWN_COMMAND, f"no command {shown}", id=id)


# -- argument validation -------------------------------------------------------------------

def _bad(param: Param, message: str) -> ProtocolError:
    return ProtocolError(ErrorCode.BAD_ARGUMENT, f"{param.name}: {message}", field=param.name)


def _is_int(v: Any) -> TypeGuard[int]:
    return isinstance(v, int) and not isinstance(v, bool)


def _check_range(param: Param, value: int | float) -> None:
    if param.minimum is not None and value < param.minimum:
        raise _bad(param, f"must be at least {param.minimum}")
    if param.maximum is not None and value > param.maximum:
        raise _bad(param, f"must be at most {param.maximum}")


def _check_word(param: Param, value: Any, what: str = "a string") -> str:
    if not isinstance(value, str):
        raise _bad(param, f"must be {what}")
    if not value or len(value) > param.max_len:
        raise _bad(param, f"must have 1-{param.max_len} characters")
    if param.pattern and not re.match(param.pattern, value):
        raise _bad(param, f"{value[:40]!r} is not of the form {param.pattern}")
    return value


def check_arg(param: Param, value: Any) -> Any:
    """Check one argument value against its parameter; return it normalised."""
    t = param.type
    if t is ArgType.INT:
        if not _is_int(value):
            raise _bad(param, "must be an integer")
        _check_range(param, value)
        return value
    if t is ArgType.NUMBER:
        if not (_is_int(value) or isinstance(value, float)) or not math.isfinite(value):
            raise _bad(param, "must be a finite number")
        _check_range(param, value)
        return value
    if t is ArgType.BOOL:
        if not isinstance(value, bool):
            raise _bad(param, "must be true or false")
        return value
    if t is ArgType.WORD:
        return _check_word(param, value)
    if t is ArgType.WORDS:
        if not isinstance(value, list | tuple) or not 1 <= len(value) <= param.max_len:
            raise _bad(param, f"must be a list of 1-{param.max_len} strings")
        return [_check_word(param, v) for v in value]
    if t is ArgType.DICE:
        if (not isinstance(value, list | tuple) or len(value) != 2
                or not all(_is_int(d) and 1 <= d <= 6 for d in value)):
            raise _bad(param, "must be two integers 1-6")
        return list(value)
    if t is ArgType.POSITION:
        return check_position_arg(value, param.name)
    if t is ArgType.MOVE:
        if not isinstance(value, str) or len(value) > param.max_len:
            raise _bad(param, f"must be a string of at most {param.max_len} characters")
        return value
    if t is ArgType.REQUEST_ID:
        return check_id(value, param.name)
    raise AssertionError(f"unhandled argument type {t}")  # pragma: no cover - table bug


def validate_args(cmd: Command, raw: Mapping[str, Any]) -> dict[str, Any]:
    """Check the arguments of a request: required ones present, every known one typed and
    in range. Unknown names are dropped (versioning rule); nil counts as absent."""
    out: dict[str, Any] = {}
    for param in cmd.all_params():
        value = raw.get(param.name)
        if value is None:
            if param.required:
                raise _bad(param, "is required")
            continue
        out[param.name] = check_arg(param, value)
    return out
