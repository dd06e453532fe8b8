"""The command table: every command, its arguments and its result fields.

This table is the single source for argument validation (`decode_request`),
the text syntax (which words are positional), the JSON schemas
(`protocol/schema/*.json`), the field tables in SPEC.md and the command list
of `hello`. Regenerate the derived files with `python -m jacquetd_protocol.docgen`.

Versioning rule: arguments a command does not define are ignored, so that a
newer client can talk to an older server; a nil (msgpack) value is the same
as an absent field.
"""

from __future__ import annotations

import dataclasses
import difflib
import enum
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Protocol, TypeGuard, TypeVar

from .errors import ErrorCode, ProtocolError
from .messages import MAX_RECORD_BYTES, Limits, Request
from .positions import check_position_arg, start_variant
from .version import PROTOCOL_VERSION, VERSION_RE

MAX_ID = (1 << 63) - 1
MAX_ID_LEN = 64
COMMAND_RE = re.compile(r"^[a-z][a-z0-9_]{0,31}\Z")


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

    @property
    def command(self) -> Command:
        """The command itself: a `Command` is its own entry in a command table."""
        return self


class Entry(Protocol):
    """A command table's entry: the protocol's `Command` itself, or a server's own record
    of one (where it runs, what answers it) that names its `Command`. A server decodes
    with its own table (`decode_request(..., table=)`) so that the request carries the
    entry found, and the command is looked up once, by the codec."""

    @property
    def command(self) -> Command: ...


E = TypeVar("E", bound=Entry)


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

FOREIGN_ID_FIELDS = (
    Field("gnubg_id", "str", "backgammon only: the position as GNU Backgammon writes it, "
          "`PositionID:MatchID` (the side on roll is gnubg's player 1)", required=False),
    Field("xgid", "str", "backgammon only: the position as an XGID (the side on roll is the "
          "bottom player)", required=False),
)

PLAY_FIELDS = (
    Field("move", "str", "canonical move text: one `from/to` per die in play order, `bar` = "
          "25, `off` = 0, `*` after a hit (`24/18 18/13`, `bar/22*`, `6/off`); `\"\"` for a "
          "roll that cannot be played"),
    Field("position_id", "str", "the resulting position's id (opponent on roll, no dice)"),
    Field("position", "position", "the resulting position, structured"),
    *FOREIGN_ID_FIELDS,
    Field("hits", "int", "opposing checkers hit"),
    Field("borne_off", "int", "own checkers borne off"),
    Field("result", "game_result", "present when the play ends the game (the mover bore off "
          "its last checker): `winner` (`on_roll`: the side that made the play), `points` "
          "(J12, B8, C4, N9: 1, 2 or 3, times the cube by C3 when the position has one), "
          "`name` (`single`, `marcia`, `marcia per punto`, `double`, `gammon`, `backgammon`, "
          "`oin`, `mars`)",
          required=False),
)

#: A play as `legal_moves` lists it with `compact` (protocol 1.2): what a referee needs to
#: match an engine's answer and carry the game on, without the structured positions.
COMPACT_PLAY_FIELDS = (
    PLAY_FIELDS[0],  # move
    PLAY_FIELDS[1],  # position_id
    Field("board", "str", "the resulting position as a board literal "
          "([§5](#5-positions-plays-and-moves)): the same position as `position` in the "
          "full record, in one string"),
    PLAY_FIELDS[-1],  # result, when the play ends the game
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
    "plays_or_compact": ("list of play (of compact play with `compact`)", {
        "type": "array", "items": {"anyOf": [{"$ref": "#/$defs/play"},
                                             {"$ref": "#/$defs/compact_play"}]}}),
    "ranked_plays": ("list of ranked play", {"type": "array",
                                             "items": {"$ref": "#/$defs/ranked_play"}}),
    "limits": ("map str -> int", {"type": "object", "additionalProperties": {"type": "integer"}}),
    "latency": ("map command -> latency", {"type": "object",
                                           "additionalProperties": {"$ref": "#/$defs/latency"}}),
    "counts": ("map str -> int", {"type": "object", "additionalProperties": {"type": "integer"}}),
    "request_id": ("int or str", {"type": ["integer", "string"]}),
    "game_result": ("map", {"type": "object", "required": ["winner", "points", "name"],
                            "properties": {"winner": {"enum": ["on_roll", "opponent"]},
                                           "points": {"type": "integer", "minimum": 1},
                                           "name": {"type": "string"}}}),
    "move_analyses": ("list of map", {"type": "array", "items": {"type": "object"}}),
    "game_lucks": ("list of map", {"type": "array", "items": {"type": "object"}}),
    "thresholds": ("map str -> float", {"type": "object",
                                        "additionalProperties": {"type": "number"}}),
    "player_summaries": ("list of map", {"type": "array", "items": {"type": "object"}}),
    "cube_analyses": ("list of map", {"type": "array", "items": {"type": "object"}}),
    "bot_matches": ("list of map", {"type": "array", "items": {"type": "object"}}),
    "rollout_lines": ("list of map", {"type": "array", "items": {"type": "object"}}),
    "variant_rules": ("map variant -> map", {"type": "object", "additionalProperties": {
        "type": "object", "required": ["direction", "opening", "results", "cube"]}}),
    "str_map": ("map str -> str", {"type": "object",
                                   "additionalProperties": {"type": "string"}}),
    "help_arguments": ("list of map", {"type": "array", "items": {
        "type": "object", "required": ["name", "type", "required", "doc"]}}),
    "request_map": ("map", {"type": "object", "required": ["cmd"]}),
    "warnings": ("list of map", {"type": "array", "items": {
        "type": "object", "required": ["field", "message"],
        "properties": {"field": {"type": "string"}, "message": {"type": "string"}}}}),
}

#: Result field types of the match commands (part of RESULT_TYPES).
MATCH_RESULT_TYPES: dict[str, tuple[str, dict[str, Any]]] = {
    "int_or_null": ("int or null", {"type": ["integer", "null"]}),
    "int_pair": ("[int, int]", {"type": "array", "items": {"type": "integer"},
                                "minItems": 2, "maxItems": 2}),
    "int_list": ("list of int", {"type": "array", "items": {"type": "integer"}}),
    "token_pair": ("[str or null, str or null]", {
        "type": "array", "items": {"type": ["string", "null"]}, "minItems": 2, "maxItems": 2}),
    "may": ("[list of str, list of str]", {
        "type": "array", "items": {"type": "array", "items": {"type": "string"}},
        "minItems": 2, "maxItems": 2}),
    "seats": ("list of seat", {"type": "array", "items": {"type": "object"}}),
    "events": ("list of event", {"type": "array", "items": {"type": "object"}}),
    "cube_or_null": ("map or null", {"type": ["object", "null"]}),
    "resign_or_null": ("map or null", {"type": ["object", "null"]}),
    "match_summaries": ("list of map", {"type": "array", "items": {"type": "object"}}),
}


RESULT_TYPES.update(MATCH_RESULT_TYPES)

#: Records used inside results, by the name their `$defs` entry has in the schema.
RECORDS: dict[str, tuple[Field, ...]] = {
    "play": PLAY_FIELDS,
    "compact_play": COMPACT_PLAY_FIELDS,
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

STOPPED = Field("stopped", "bool", "present and true when a `cancel` stopped the search: "
                "the result is that of the deepest search finished before it (protocol 1.2)",
                required=False)
#: A result field of every command's final reply (ok or error).
WARNINGS = Field("warnings", "warnings", "present when the request gave fields its command "
                 "does not define: one map per field, `field` (its name) and `message`; the "
                 "fields were ignored (protocol 1.2)", required=False)

# -- the commands --------------------------------------------------------------------------

_COMMANDS: tuple[Command, ...] = (
    Command(
        "hello", "Negotiate the protocol version and read the server's capabilities.",
        (Param("versions", ArgType.WORDS, "protocol versions the client speaks (MAJOR.MINOR); "
               "default: the server's current one", position=0, max_len=16,
               pattern=VERSION_RE.pattern),
         Param("client", ArgType.WORD, "the client's name and version, for the server's log",
               max_len=128),
         Param("session", ArgType.WORD, "a session key this server issued earlier (the "
               "`session` of an earlier `hello`): resume that session; on a byte stream the "
               "connection's match requests are then in it (see Retries)", max_len=128,
               pattern=r"^[A-Za-z0-9_.-]+$")),
        (Field("protocol", "str", "the protocol version chosen for this session"),
         Field("engine", "str", "the server program's name (`jacquetd`)"),
         Field("version", "str", "the server program's version"),
         Field("variants", "str_list", "variant names the server plays"),
         Field("variant_rules", "variant_rules", "for each variant, what a referee or a "
               "board must know of it (protocol 1.4): `direction` (`same`, G3, or "
               "`opposite`, G4), `opening` (`play`: the opening dice are the first turn's; "
               "`reroll`: the side that won the opening rolls again), `results` (each game "
               "result before the cube, `\"1\"`..`\"3\"`, and its name) and `cube` (whether "
               "the cube is on unless a match says otherwise, C1)", required=False),
         Field("commands", "str_list", "commands this server implements"),
         Field("planned", "str_list", "command names reserved for later versions"),
         Field("encodings", "str_list", "`msgpack`, `text`, `json`"),
         Field("levels", "str_list", "bot levels for `best_move`, weakest first"),
         Field("limits", "limits", "the server's limits (see Limits)"),
         Field("session", "str", "the session key: the one given, or a new one. Only its "
               "holder can present it; retried match actions that present it get their "
               "stored replies, tokens included, even after a restart")),
    ),
    Command(
        "help", "List the commands with one line each, or describe one: its syntax, its "
        "fields and an example.",
        (Param("command", ArgType.WORD, "the command to describe; default: list them all",
               position=0, max_len=32),),
        (Field("usage", "str", "the syntax of the command described (of `help` itself "
               "when listing): positional words in order, `[...]` when optional, then "
               "`name=TYPE` fields"),
         Field("commands", "str_map", "listing: each command's name and what it does, in "
               "the order of `hello`'s `commands`", required=False),
         Field("command", "str", "the command described", required=False),
         Field("summary", "str", "what it does", required=False),
         Field("arguments", "help_arguments", "its fields: `name`, `type` (as in the "
               "field tables), `required`, `word` (its place among the text words, from 1; "
               "absent for `name=value` only), `default` (when it has one), `doc`",
               required=False),
         Field("result", "str_list", "the fields of its result", required=False),
         Field("streams", "bool", "whether it streams partial results", required=False),
         Field("example", "str", "an example request in the text encoding",
               required=False),
         Field("example_request", "request_map", "the same example as a msgpack (or JSON) "
               "request map", required=False)),
    ),
    Command("ping", "Check that the server answers; the result is empty.", (), ()),
    Command(
        "position", "Check a position and return it in both forms.",
        (_position(),),
        (Field("position_id", "str", "the compact id"),
         Field("position", "position", "the structured form"),
         Field("may_double", "bool", "whether the side on roll may double now (C2, C5): "
               "the position has no dice yet, the cube is in play, centred or its own, no "
               "double is pending and this is not the Crawford game (protocol 1.4)",
               required=False),
         *FOREIGN_ID_FIELDS),
    ),
    Command(
        "legal_moves", "Every legal play of the side on roll with its dice.",
        (_position(), _DICE,
         Param("compact", ArgType.BOOL, "list each play as a compact play record: `move`, "
               "`position_id`, `board` and, when it ends the game, `result` (protocol 1.2)",
               default=False)),
        (Field("count", "int", "number of plays (at least 1: a roll that cannot be played "
               "is one play with move `\"\"`)"),
         Field("plays", "plays_or_compact", "the plays, in the server's canonical order")),
    ),
    Command(
        "apply_move", "Play a move given as text and return the resulting position.",
        (_position(),
         Param("dice", ArgType.DICE, "the roll; overrides the position's dice (in text, "
               "the word after the position when it reads as a roll)", position=1),
         Param("move", ArgType.MOVE, "the move in any legal spelling (`24/18 18/13`, "
               "`24/13`, `13/7(2)`, `bar/22*`, `pass`)", required=True, position=2,
               max_len=256)),
        PLAY_FIELDS,
    ),
    Command(
        "best_move", "The play a bot chooses.",
        (_position(), _DICE, _LEVEL, _PLIES, _TIME_MS,
         Param("seed", ArgType.INT, "seed for levels that use chance; the same seed gives the "
               "same choice", minimum=0, maximum=MAX_ID)),
        (Field("play", "play", "the chosen play, as `legal_moves` lists it"),
         Field("level", "str", "the level that chose"),
         Field("elapsed_ms", "number", "time spent searching"),
         STOPPED),
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
         Field("elapsed_ms", "number", "time spent so far"),
         STOPPED),
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
        "luck", "How lucky a roll is for the side on roll: the equity of its best play with "
        "this roll minus the average over every roll.",
        (_position("the position before the roll (no dice): the side on roll is about to roll"),
         Param("dice", ArgType.DICE, "the roll to judge", required=True, position=1)),
        (Field("luck", "number", "the luck in equity units (cubeless, the side on roll's view; "
               "points per game at cube 1): positive is lucky"),
         Field("plies", "int", "depth of the evaluations behind it (0)")),
    ),
    Command(
        "analyze_record", "Analyse a match record move by move: each move's equity loss "
        "against the best play, and each game's luck.",
        (Param("match_id", ArgType.WORD, "a match hosted by this server (its record is "
               "read as `match_export` writes it); give this or `record`", position=0,
               max_len=16, pattern=r"^[0-9a-f]{16}$"),
         Param("record", ArgType.WORD, "the text of a match record (protocol/RECORDS.md), "
               "or of a backgammon match as `.mat` or SGF (gnubg's analysis in it is "
               "skipped); give this or `match_id`. A record has several lines: in text, "
               "give it as a quoted JSON string (`record=\"...\\n...\"`). At most "
               "20000 lines or SGF nodes (`too_large`, limit `max_record_lines`)",
               max_len=MAX_RECORD_BYTES),
         Param("game", ArgType.INT, "analyse only this game (from 1)", minimum=1,
               maximum=10_000),
         Param("luck", ArgType.BOOL, "also judge the luck of every roll", default=True),
         Param("plies", ArgType.INT, "search depth of the checker-play analysis (protocol "
               "1.3)", default=0, minimum=0, maximum=2),
         Param("doubtful", ArgType.NUMBER, "the loss from which a decision is marked "
               "`doubtful` (protocol 1.3)", default=0.04, minimum=0, maximum=10),
         Param("error", ArgType.NUMBER, "the loss from which a decision is marked `error` "
               "(protocol 1.3)", default=0.08, minimum=0, maximum=10),
         Param("blunder", ArgType.NUMBER, "the loss from which a decision is marked "
               "`blunder` (protocol 1.3)", default=0.16, minimum=0, maximum=10),
         Param("partials", ArgType.BOOL, "stream a partial result after each decision: "
               "`done`, `total` and the `moves` and `cube` entries new since the previous "
               "partial (protocol 1.3)", default=False),
         Param("annotate", ArgType.BOOL, "also return the annotated match (`annotated`): "
               "the record with the analysis (protocol/RECORDS.md), and for backgammon "
               "gnubg's SGF with its analysis properties (protocol 1.4)", default=False)),
        (Field("format", "str", "the record's format (`jacquet-match/1`, `mat` or `sgf`)"),
         Field("plies", "int", "depth of the analysis (`plies`)"),
         Field("moves", "move_analyses", "one map per move of a side that had a choice, in "
               "order: `game`, `index` (the action's number in its game, from 0), `side`, "
               "`dice`, `move` (as played, canonical), `best` (the best play's move), "
               "`equity` (of the move played), `best_equity`, `loss` (best minus played, ≥ 0), "
               "`choices` (how many legal plays), `luck` (of the roll, when judged); "
               "protocol 1.3: `forced` (one legal play), `plies` (the depth both equities "
               "are at), `units` (`money`: money equity per unit of the cube; `match`: "
               "match-winning chances at the score converted to normalised equity; "
               "cubeful where the cube is in the game), `mark` (`doubtful`, "
               "`error`, `blunder` or null); protocol 1.4: `position` (the position before the "
               "move, with its dice), `chances` (the mover's chances before its roll, "
               "cubeless, 0 plies: `evaluate`'s fields); with `annotate`, `play_chances` "
               "(the mover's chances after the play made and after the best play, at "
               "`plies`)"),
         Field("games", "game_lucks", "one map per game analysed: `game`, `moves` (analysed), "
               "`loss` (per side, summed), `luck` (per side, summed; null when not judged), "
               "`result` (the game's result line, or null if unfinished)"),
         Field("cube", "cube_analyses", "one map per cube decision where the side on turn "
               "could double (protocol 1.3), in order: `game`, `index`, `side` (who decided), "
               "`action` (`double`, `no_double`, `take` or `pass`), `best` (the right one), "
               "`no_double`, `double_take`, `double_pass` (the doubler's cubeful figures, in "
               "`units`), `loss` (what the action cost, ≥ 0), `mark`, `counted` (whether it "
               "counts in the error rate), `plies`, `units`; protocol 1.4: `position` (where "
               "it was taken), `chances` (of that position's side on roll)", required=False),
         Field("thresholds", "thresholds", "the marks' thresholds used: `doubtful`, `error`, "
               "`blunder` (protocol 1.3)", required=False),
         Field("summary", "player_summaries", "one map per side, 0 then 1 (protocol 1.3): `side`, "
               "`decisions` (non-forced moves), `forced`, `marks` (count per mark), `loss` "
               "(summed), `cube_decisions` (counted), `cube_marks`, `cube_loss`, "
               "`error_rate` (mean loss per decision, checker and cube), `pr` (500 x "
               "`error_rate`), `luck` (summed; null when not judged), `luck_per_game`",
               required=False),
         Field("done", "int", "the record's actions gone through (protocol 1.3)",
               required=False),
         Field("total", "int", "the record's actions to go through (those of `game` when "
               "given; protocol 1.3)", required=False),
         Field("stopped", "bool", "true when a `cancel` ended the analysis: the result "
               "covers the actions done (protocol 1.3)", required=False),
         Field("annotated", "str_map", "with `annotate`: `record`, the record with the "
               "analysis (protocol/RECORDS.md), and for a backgammon match with the cube "
               "`sgf`, gnubg's SGF with its analysis properties (protocol 1.4)",
               required=False)),
        streams=True,
    ),
    Command(
        "bot_match", "Play a match (or a money game) between two of the server's bot levels "
        "next to the bots, and return its record: a league's games in one request each.",
        (Param("levels", ArgType.WORDS, "two bot levels of `hello`'s `levels`, seat 0 first",
               required=True, position=0, max_len=64, pattern=r"^[a-z0-9][a-z0-9_.-]*$"),
         Param("seed", ArgType.INT, "the dice stream: `random.Random(seed)` as the league's "
               "referee draws it; bots that use chance get the referee's per-move seeds",
               required=True, position=1, minimum=0, maximum=MAX_ID),
         Param("variant", ArgType.WORD, "`jacquet`, `jacquet-be`, `backgammon` or "
               "`long-nardy`", default="jacquet", max_len=16),
         Param("length", ArgType.INT, "match length in points; 0: one money game", default=0,
               minimum=0, maximum=64),
         Param("swap", ArgType.BOOL, "also play the same dice stream with the seats swapped "
               "(the league's pair of games)", default=False),
         Param("luck", ArgType.BOOL, "judge every roll's luck (as `luck` does); in a "
               "variant without a trained network the games' `luck` is null (protocol 1.4)",
               default=True),
         _TIME_MS),
        (Field("matches", "bot_matches", "one map per match played (two with `swap`, the "
               "swapped one second): `levels` (seat 0, seat 1), `score`, `winner` (seat), "
               "`games`: per game `opening` (seat 0's die, seat 1's die), `actions` (`[seat, "
               "\"roll\", [d1, d2]]` or `[seat, \"move\", text]`, in order), `winner`, "
               "`points` (the points scored: `result` times `cube`), `result` (1, 2 or 3: "
               "what the game's end is worth before the cube, J12/B8/C4), `reason`, `name` "
               "(of `result`), `moves`, `cube` (the cube's value at the end; 1, as these "
               "games are played without it), `luck` (per seat, summed; null when not "
               "judged)"),),
    ),
    Command(
        "rollout", "Roll a position out (or compare candidate plays): full or truncated "
        "games played by the bots, seeded, variance-reduced; streams the running figures.",
        (_position("the position; without dice the side on roll is about to roll, with "
                   "dice each candidate play is rolled out"),
         _DICE,
         Param("candidates", ArgType.WORDS, "moves to compare (any legal spelling; in the "
               "text encoding write `_` for a space); default with dice: the play the "
               "rollout's bot chooses", max_len=32),
         Param("trials", ArgType.INT, "games per candidate; the first roll is rotated "
               "through the 36 outcomes in chunks of 36", default=1296, minimum=1,
               maximum=10_000_000),
         Param("plies", ArgType.INT, "search depth of the players", default=0, minimum=0,
               maximum=2),
         Param("seed", ArgType.INT, "the same seed gives the same figures, wherever the "
               "trials run", default=1, minimum=0, maximum=MAX_ID),
         Param("truncate", ArgType.INT, "stop each game after this many turns and score it "
               "by the evaluator; 0: play to the end", default=0, minimum=0, maximum=1000),
         Param("time_ms", ArgType.INT, "time budget: no new chunk of trials starts once it "
               "is spent, and the reply gives what is done (not an error)", minimum=1,
               maximum=86_400_000),
         Param("partials", ArgType.BOOL, "stream the running figures", default=True)),
        (Field("trials_done", "int", "trials finished per candidate"),
         Field("trials", "int", "trials asked for per candidate"),
         Field("lines", "rollout_lines", "one map per candidate (the position itself "
               "without dice): `move` (\"\" for the position), `win`, `win_gammon`, "
               "`win_backgammon`, `lose_gammon`, `lose_backgammon` (means), `equity` "
               "(luck-adjusted mean), `equity_raw`, `std_error` (of `equity`), "
               "`std_error_raw` (of `equity_raw`); for the side on roll of the request"),
         Field("done", "bool", "every trial asked for is done (false: stopped by `time_ms` "
               "or `cancel`, or a partial)"),
         Field("stopped", "bool", "present (true) when it ended early, by `time_ms` or "
               "`cancel`, with the figures of the chunks done", required=False),
         Field("stop_reason", "str", "with `stopped`: `time_ms` or `cancelled`",
               required=False),
         Field("where", "str", "where the trials ran: `local` (the server's worker pool) or "
               "`cluster` (Dask workers)"),
         Field("elapsed_ms", "number", "time spent so far")),
        streams=True,
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

# -- hosted matches (SPEC.md section 12) --------------------------------------------------

_ID_PATTERN = r"^[0-9a-f]{16}$"
_TOKEN_PATTERN = r"^[A-Za-z0-9_-]{8,64}$"

MATCH_ID = Param("match_id", ArgType.WORD, "the match's id (from `match_new` or `match_list`)",
                 required=True, position=0, max_len=16, pattern=_ID_PATTERN)
TOKEN = Param("token", ArgType.WORD, "a seat token of this match (the seat acts), or the "
              "owner token (only where said)", required=True, position=1, max_len=64,
              pattern=_TOKEN_PATTERN)
TOKEN_OPTIONAL = Param("token", ArgType.WORD, "a seat token or the owner token: the result "
                       "then says which seat you are (`you`); a seat's request resumes an "
                       "adjourned match", position=1, max_len=64, pattern=_TOKEN_PATTERN)

BRIEF = (
    Field("match_id", "str", "the match"),
    Field("status", "str", "`playing`, `adjourned`, `over` or `closed`"),
    Field("actions", "int", "actions accepted so far in the match (this one included)"),
    Field("events", "events", "the events this action caused, numbered (see Events)"),
    Field("phase", "str", "what the match waits for now: `opening` (a supplied opening "
          "roll), `roll`, `double` (an answer to a double), `move`, `resign` (an answer to a "
          "resignation), `over`"),
    Field("to_act", "int_or_null", "the side that must act now (null: either, or nobody)"),
    Field("may", "str_list", "what the acting seat may do now (see `match_state`)"),
    Field("score", "int_pair", "points of side 0 and side 1"),
    Field("game", "int", "number of the game in play (from 1)"),
    Field("last_event", "int", "number of the match's last event"),
    Field("replayed", "bool", "present and true when this is the stored reply to a retried "
          "request", required=False),
)

_SIMPLE = (MATCH_ID, TOKEN)

MATCH_COMMANDS: tuple[Command, ...] = (
    Command(
        "match_new", "Create a hosted match; returns its id and the secret tokens.",
        (Param("variant", ArgType.WORD, "`jacquet`, `jacquet-be`, `backgammon` or "
               "`long-nardy`", default="jacquet", position=0, max_len=32),
         Param("length", ArgType.INT, "points to win the match; 0: money play (one game); "
               "default: the variant's (7 in long-nardy, N10; 0 in the others)",
               position=1, minimum=0, maximum=99),
         Param("cube", ArgType.BOOL, "use the doubling cube; default: the variant's (off in "
               "both Jacquet variants and long-nardy, on in backgammon)"),
         Param("crawford", ArgType.BOOL, "the Crawford rule (C5), with the cube in a match",
               default=True),
         Param("seat0", ArgType.WORD, "who plays side 0: `client` (a token is returned) or a "
               "bot level (`random`, a level of `hello`'s `levels`; `bot`: the default "
               "level) played by the server", default="client", max_len=64),
         Param("seat1", ArgType.WORD, "who plays side 1, as `seat0`", default="client",
               max_len=64),
         Param("name0", ArgType.WORD, "side 0's name, shown and used by `match_list`'s "
               "`player`; default: empty for a client, `bot:LEVEL` for a bot", max_len=64),
         Param("name1", ArgType.WORD, "side 1's name", max_len=64),
         Param("dice", ArgType.WORD, "`seeded`: the server rolls from a secret seed revealed "
               "when the match ends; `supplied`: the players give every roll "
               "(`match_roll` with `dice`)", default="seeded", max_len=16,
               pattern=r"^(seeded|supplied)$"),
         Param("seed", ArgType.INT, "the dice seed (seeded dice only); default: drawn from "
               "the operating system", minimum=0, maximum=MAX_ID),
         Param("bot_time_ms", ArgType.INT, "time a bot seat may take per decision",
               default=5000, minimum=1, maximum=60_000)),
        (Field("match_id", "str", "the new match's id (16 hex digits)"),
         Field("tokens", "token_pair", "the seat tokens of side 0 and side 1 (null for a bot "
               "seat); each is the only key to its seat: give it to that player only"),
         Field("owner_token", "str", "the owner token: closes (abandons) the match, and "
               "supplies dice in a supplied-dice match"),
         Field("withheld", "bool", "present and true in a replayed reply whose tokens are "
               "not given again (null in their place): the retry did not present the "
               "session of the request that created the match", required=False),
         *[f for f in BRIEF if f.name not in ("match_id", "may")]),
    ),
    Command(
        "match_state", "The whole state of a match: position, turn, what each side may do, "
        "score, history.",
        (MATCH_ID, TOKEN_OPTIONAL),
        (Field("match_id", "str", "the match"),
         Field("status", "str", "`playing`, `adjourned`, `over` or `closed`"),
         Field("variant", "str", "the variant"),
         Field("length", "int", "points to win (0: money play)"),
         Field("cube", "bool", "whether the cube is used"),
         Field("crawford", "bool", "whether the Crawford rule is used"),
         Field("dice_mode", "str", "`seeded` or `supplied`"),
         Field("bot_time_ms", "int", "a bot seat's time per decision"),
         Field("seats", "seats", "side 0 and side 1: `player` (`client` or `bot`), `name`, "
               "and `level` for a bot"),
         Field("you", "int_or_null", "the side of the token given (null: none, or the owner)"),
         Field("owner", "bool", "the token given is the owner token"),
         Field("score", "int_pair", "points of side 0 and side 1"),
         Field("game", "int", "number of the game in play (from 1)"),
         Field("crawford_game", "bool", "this game is the Crawford game (no doubling)"),
         Field("phase", "str", "`opening`, `roll`, `double`, `move`, `resign` or `over` (see "
               "`match_roll`'s result)"),
         Field("turn", "int_or_null", "the side whose turn it is (the doubler while a double "
               "awaits its answer); null before a supplied opening roll or when over"),
         Field("to_act", "int_or_null", "the side that must act now: the side on turn, the "
               "side answering a double or a resignation"),
         Field("may", "may", "per side, what it may do now, among `roll`, `double`, `move`, "
               "`take`, `drop`, `resign`, `accept`, `reject`"),
         Field("dice", "int_list", "the dice rolled for the move due, [] when none"),
         Field("cube_state", "cube_or_null", "`value`, `owner` (0, 1 or null: centred), "
               "`pending` (a double awaits its answer); null with the cube off"),
         Field("resignation", "resign_or_null", "a resignation awaiting its answer: `side` "
               "offering, `points` (1-3, before the cube), `name`"),
         Field("position_side", "int", "the side the position is seen from (on roll)"),
         Field("position", "position", "the position, structured, seen by `position_side`, "
               "with the dice when rolled"),
         Field("position_id", "str", "the same position as an id"),
         *FOREIGN_ID_FIELDS,
         Field("legal_moves", "str_list", "every legal play's canonical text when a move is "
               "due (`\"\"` for a roll that cannot be played: the server plays it), else []"),
         Field("history", "str_list", "the match so far as the game lines of a match record "
               "(protocol/RECORDS.md): `game 1 score 0 0`, `opening 4 5`, `1 31: 24/21 "
               "21/20`, ..."),
         Field("actions", "int", "actions accepted so far"),
         Field("last_event", "int", "number of the match's last event"),
         Field("created_at", "number", "creation time, seconds since 1970 (UTC)"),
         Field("updated_at", "number", "time of the last change"),
         Field("winner", "int", "the match's winner, once over", required=False),
         Field("seed", "int", "the dice seed, once the match is over or closed (seeded "
               "dice)", required=False)),
    ),
    Command(
        "match_roll", "Roll the dice for your turn; in a supplied-dice match, enter them.",
        (MATCH_ID, TOKEN,
         Param("dice", ArgType.DICE, "supplied-dice matches only, and required there: the "
               "roll; for the opening roll, side 0's die then side 1's (different)",
               position=2)),
        BRIEF,
    ),
    Command(
        "match_move", "Play your move, given as text.",
        (MATCH_ID, TOKEN,
         Param("move", ArgType.MOVE, "the move in any legal spelling (`24/18 18/13`, "
               "`24/13`, `bar/22*`, `pass`)", required=True, position=2, max_len=256)),
        BRIEF,
    ),
    Command("match_double", "Offer a double (before rolling).", _SIMPLE, BRIEF),
    Command("match_take", "Take the double offered to you.", _SIMPLE, BRIEF),
    Command("match_drop", "Drop the double offered to you: the game ends.", _SIMPLE, BRIEF),
    Command(
        "match_resign", "Offer to resign the game, or answer the opponent's offer.",
        (MATCH_ID, TOKEN,
         Param("points", ArgType.WORD, "the offer: `1`/`single`/`oin`, `2`/`marcia`/`gammon`/"
               "`double`/`mars`, `3`/`marcia-per-punto`/`backgammon` (times the cube); the words "
               "`accept` and `reject` answer instead", position=2, max_len=20),
         Param("answer", ArgType.WORD, "`accept` or `reject` the offer made to you",
               max_len=8, pattern=r"^(accept|reject)$")),
        BRIEF,
    ),
    Command(
        "match_watch", "The match's events, in order, from a given number; streams them as "
        "they happen.",
        (MATCH_ID,
         Param("after", ArgType.INT, "send the events numbered above this (0: all; resume "
               "with the last number received)", default=0, position=1, minimum=0,
               maximum=MAX_ID),
         Param("follow", ArgType.BOOL, "stream new events as partials until the match is "
               "over or closed; false: answer at once with the events there are",
               default=True),
         Param("limit", ArgType.INT, "at most this many events per message", default=1000,
               minimum=1, maximum=1000)),
        (Field("match_id", "str", "the match"),
         Field("events", "events", "events numbered above `after` (and above those of "
               "earlier partials), in order"),
         Field("last_event", "int", "the match's last event number"),
         Field("status", "str", "the match's status"),
         Field("done", "bool", "the match is over or closed and every event has been sent")),
        streams=True,
    ),
    Command(
        "match_list", "The matches the server keeps, newest first, filtered.",
        (Param("status", ArgType.WORDS, "`playing`, `adjourned`, `over`, `closed` or `all`; "
               "default: all but `closed`", position=0, max_len=16,
               pattern=r"^(playing|adjourned|over|closed|all)$"),
         Param("variant", ArgType.WORD, "only this variant", max_len=32),
         Param("player", ArgType.WORD, "only matches where a seat has this name", max_len=64),
         Param("bots", ArgType.BOOL, "true: only matches with a bot seat; false: only "
               "matches without"),
         Param("limit", ArgType.INT, "at most this many", default=50, minimum=1, maximum=500),
         Param("offset", ArgType.INT, "skip this many (paging)", default=0, minimum=0,
               maximum=MAX_ID)),
        (Field("matches", "match_summaries", "per match: `match_id`, `status`, `variant`, "
               "`length`, `cube`, `dice_mode`, `seats`, `score`, `game`, `winner`, "
               "`actions`, `last_event`, `created_at`, `updated_at`"),
         Field("total", "int", "how many matches pass the filter (all pages)"),
         Field("offset", "int", "the offset of this page")),
    ),
    Command(
        "match_close", "Close a match: the owner token closes any (an unfinished one is "
        "abandoned, its seed revealed); a seat token closes a finished one.",
        _SIMPLE,
        (Field("match_id", "str", "the match"),
         Field("status", "str", "`closed`"),
         Field("abandoned", "bool", "the match was closed before its end"),
         Field("last_event", "int", "the number of the `closed` event"),
         Field("already", "bool", "the match was closed before this request", required=False),
         Field("replayed", "bool", "the stored reply to a retried request", required=False)),
    ),
    Command(
        "match_export", "The match record (protocol/RECORDS.md) of a match, finished or "
        "not; a backgammon match also as a Jellyfish `.mat` or a GNU Backgammon SGF file.",
        (MATCH_ID, TOKEN_OPTIONAL,
         Param("format", ArgType.WORD, "`jacquet-match` (the default: RECORDS.md), `mat` "
               "(Jellyfish, as gnubg's `import mat` reads it) or `sgf` (gnubg's `load match`); "
               "`mat` and `sgf` for backgammon matches only", max_len=16,
               pattern=r"^(jacquet-match|mat|sgf)$")),
        (Field("match_id", "str", "the match"),
         Field("format", "str", "`jacquet-match/1`, `mat` or `sgf`"),
         Field("record", "str", "the record's text (the `Seed` header once over; `.mat` and "
               "SGF have no place for the seed)")),
    ),
)

SESSION = Param("session", ArgType.WORD, "the session key from `hello`: a retry of this "
                "request gets its stored reply only in the same session (see Retries)",
                max_len=128, pattern=r"^[A-Za-z0-9_.-]+$")
#: Match commands that change a match: their replies are stored for retries.
MATCH_ACTIONS = ("match_new", "match_roll", "match_move", "match_double", "match_take",
                 "match_drop", "match_resign", "match_close")
MATCH_COMMANDS = tuple(dataclasses.replace(c, params=(*c.params, SESSION))
                       if c.name in MATCH_ACTIONS else c for c in MATCH_COMMANDS)

COMMANDS: dict[str, Command] = {c.name: c for c in (*_COMMANDS, *MATCH_COMMANDS)}
MATCH_COMMAND_NAMES: tuple[str, ...] = tuple(c.name for c in MATCH_COMMANDS)

#: Command names reserved for a later version (none at present).
PLANNED: tuple[str, ...] = ()

ENCODINGS: tuple[str, ...] = ("msgpack", "text", "json")


def describe(limits: Limits) -> dict[str, Any]:
    """The protocol's part of a `hello` result; the server adds `engine`, `version`,
    `variants` and `levels`."""
    return {"protocol": PROTOCOL_VERSION, "commands": list(COMMANDS), "planned": list(PLANNED),
            "encodings": list(ENCODINGS), "limits": limits.to_dict()}


#: An example request of each command, in the text encoding (`help COMMAND` shows it; the
#: match commands' ids and tokens stand for those `match_new` returns).
EXAMPLES: dict[str, str] = {
    "hello": "hello 1.2 client=my-board",
    "help": "help legal_moves",
    "ping": "ping",
    "position": "position start:backgammon",
    "legal_moves": "legal_moves start 65",
    "apply_move": "apply_move start 65 24/18 18/13",
    "best_move": "best_move start:backgammon 31 level=heuristic",
    "analyze": "analyze start:backgammon 31 plies=1 max_plays=3",
    "evaluate": "evaluate start:backgammon plies=1",
    "cube": "cube start:backgammon",
    "luck": "luck start:backgammon 31",
    "analyze_record": "analyze_record 5f1c0a9e3b7d2468 game=1",
    "bot_match": "bot_match random,heuristic 7 variant=backgammon length=3",
    "rollout": "rollout start:backgammon 31 trials=72 partials=false",
    "cancel": "cancel 12",
    "stats": "stats",
    "quit": "quit",
    "match_new": "match_new backgammon 3 seat1=heuristic",
    "match_state": "match_state 5f1c0a9e3b7d2468 Tk0-side0-secret",
    "match_roll": "match_roll 5f1c0a9e3b7d2468 Tk0-side0-secret",
    "match_move": "match_move 5f1c0a9e3b7d2468 Tk0-side0-secret 24/18 18/13",
    "match_double": "match_double 5f1c0a9e3b7d2468 Tk0-side0-secret",
    "match_take": "match_take 5f1c0a9e3b7d2468 Tk1-side1-secret",
    "match_drop": "match_drop 5f1c0a9e3b7d2468 Tk1-side1-secret",
    "match_resign": "match_resign 5f1c0a9e3b7d2468 Tk0-side0-secret single",
    "match_watch": "match_watch 5f1c0a9e3b7d2468 0 follow=false",
    "match_list": "match_list playing bots=true",
    "match_close": "match_close 5f1c0a9e3b7d2468 owner-token-secret",
    "match_export": "match_export 5f1c0a9e3b7d2468 format=sgf",
}

_TYPE_WORDS = {
    ArgType.INT: "INT", ArgType.NUMBER: "NUMBER", ArgType.BOOL: "BOOL", ArgType.WORD: "WORD",
    ArgType.WORDS: "A,B", ArgType.DICE: "DICE", ArgType.POSITION: "POSITION",
    ArgType.MOVE: "MOVE", ArgType.REQUEST_ID: "ID",
}


def usage(cmd: Command) -> str:
    """The command's syntax in the text encoding: its positional words in order (upper
    case, `[...]` when optional, `MOVE...` for the rest of the line), then its other
    fields as `name=TYPE` (`[...]` when optional)."""
    positional = sorted((p for p in cmd.all_params() if p.position is not None),
                        key=lambda p: p.position or 0)
    words = [cmd.name]
    for p in positional:
        word = p.name.upper() + ("..." if p.type is ArgType.MOVE else "")
        words.append(word if p.required else f"[{word}]")
    for p in cmd.all_params():
        if p.position is None:
            field = f"{p.name}={_TYPE_WORDS[p.type]}"
            words.append(field if p.required else f"[{field}]")
    return " ".join(words)


def with_usage(exc: ProtocolError, cmd: Command) -> ProtocolError:
    """`exc` (a refusal of one of `cmd`'s arguments) with the command's `usage` line."""
    if "usage" in exc.extra or exc.code not in (ErrorCode.BAD_ARGUMENT,
                                                ErrorCode.BAD_POSITION):
        return exc
    return ProtocolError(exc.code, exc.message, field=exc.field, rule=exc.rule, id=exc.id,
                         **exc.extra, usage=usage(cmd))


#: Field names people write for a field that has another name, by the name to use.
ALIASES = {
    "roll": "dice", "pos": "position", "board": "position", "depth": "plies",
    "ply": "plies", "timeout": "timeout_ms", "time": "time_ms", "play": "move",
    "moves": "move", "cmd_name": "command", "name": "command",
}
_CAMEL_RE = re.compile(r"(?<=[a-z0-9])([A-Z])")


def spelling_of(cmd: Command, name: str) -> str | None:
    """The field of `cmd` that `name` (a field it does not define) is another spelling
    of: the same words in another case or with `-` (`timeoutMs`, `max-plays`), a known
    other name (`roll` for `dice`, `depth` for `plies`), or a near miss (`dicee`); None
    when it is none of these."""
    names = [p.name for p in cmd.all_params()]
    plain = _CAMEL_RE.sub(r"_\1", name).lower().replace("-", "_")
    if plain in names:
        return plain
    alias = ALIASES.get(plain)
    if alias in names:
        return alias
    close = difflib.get_close_matches(plain, names, n=1, cutoff=0.8)
    return close[0] if close else None


def check_spellings(cmd: Command, raw: Mapping[str, Any]) -> None:
    """Refuse a field `cmd` does not take when another spelling of the request would take
    it (`bad_argument`, `field` the name given, `spelling` the field to use): a near miss
    of one of its field names, or `variant` where the variant is part of the position
    (`start:jacquet-be`). Other unknown fields are ignored (versioning rule)."""
    known = {p.name for p in cmd.all_params()}
    for name, value in raw.items():
        if value is None or name in known or not isinstance(name, str):
            continue
        if name == "variant" and "position" in known:
            variant = value if isinstance(value, str) and VARIANT_WORD_RE.match(value) \
                else "VARIANT"
            raise ProtocolError(ErrorCode.BAD_ARGUMENT, f"{cmd.name} has no field variant: "
                                f"the variant is part of the position, write "
                                f"start:{variant} (or a position of that variant)",
                                field=name, spelling="position")
        right = spelling_of(cmd, name)
        if right is not None and raw.get(right) is None:  # (with the field given: not it)
            raise ProtocolError(ErrorCode.BAD_ARGUMENT, f"{cmd.name} has no field "
                                f"{name[:40]}; it is spelled {right}", field=name[:64],
                                spelling=right)


VARIANT_WORD_RE = re.compile(r"^[a-z][a-z0-9-]{0,31}\Z")


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


def readable_id(value: Any) -> int | str | None:
    """`value` when it is a request id, else None: the id of an error reply to a message
    that is refused whole (its id is kept when it can be read)."""
    try:
        return check_id(value)
    except ProtocolError:
        return None


def lookup(name: Any, id: int | str | None = None) -> Command:
    """The command called `name`; ProtocolError(unknown_command) otherwise."""
    return find_entry(name, COMMANDS, id)


def find_entry(name: Any, table: Mapping[str, E], id: int | str | None = None) -> E:
    """The entry of `table` for command `name`; ProtocolError(unknown_command) otherwise,
    naming a close spelling or a command reserved for a later version."""
    if not isinstance(name, str):
        raise ProtocolError(ErrorCode.BAD_ARGUMENT, "cmd must be a string", field="cmd", id=id)
    entry = table.get(name)
    if entry is not None:
        return entry
    shown = name if COMMAND_RE.match(name) else repr(name[:40])
    if name in PLANNED:
        raise ProtocolError(ErrorCode.UNKNOWN_COMMAND, f"{shown} is reserved for a later "
                            f"protocol version", id=id, planned=True)
    close = difflib.get_close_matches(name.lower(), list(table), n=1, cutoff=0.8)
    if close:
        raise ProtocolError(ErrorCode.UNKNOWN_COMMAND, f"no command {shown}; it is spelled "
                            f"{close[0]} (help lists the commands)", id=id,
                            spelling=close[0])
    raise ProtocolError(ErrorCode.UNKNOWN_COMMAND, f"no command {shown} (help lists the "
                        "commands)", id=id)


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
    if param.pattern and not re.fullmatch(param.pattern, value):
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


#: At most this many ignored fields are named in one reply's `warnings`.
MAX_WARNINGS = 16


def ignored_fields(cmd: Command, raw: Mapping[str, Any]) -> tuple[str, ...]:
    """The names in `raw` (a request without `id` and `cmd`) that `cmd` does not define,
    in the order given, at most MAX_WARNINGS; nil values count as absent."""
    known = {p.name for p in cmd.all_params()}
    names = [str(k) for k, v in raw.items() if v is not None and k not in known]
    return tuple(names[:MAX_WARNINGS])


def warnings_for(req: Request) -> list[dict[str, str]]:
    """The `warnings` of the final reply to `req`: one map (`field`, `message`) per
    field the request gave that its command does not define ([] when none)."""
    return [{"field": name[:64], "message": f"{name[:64]}: {req.cmd} has no such field; "
             "ignored"} for name in req.ignored]


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
    if cmd.name in PLAYS_A_ROLL and "dice" not in out and _without_dice(out["position"]):
        raise ProtocolError(ErrorCode.BAD_ARGUMENT, "dice: the position has no dice; give "
                            "`dice`", field="dice")
    return out


#: Commands that play a roll: the dice come from the request or from the position.
PLAYS_A_ROLL = frozenset({"legal_moves", "apply_move", "best_move", "analyze"})


def _without_dice(position: Any) -> bool:
    """Whether a checked position argument surely has no dice: a start position, or a
    map without them (ids are read by the server)."""
    if isinstance(position, str):
        return start_variant(position) is not None
    return isinstance(position, Mapping) and not position.get("dice")
