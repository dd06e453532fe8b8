"""The `match_*` commands in the form of `protocol.commands`: arguments and result fields.

This table is written in the protocol's own types so that it can be merged into
`protocol.commands._COMMANDS` (and from there into the text syntax, the schemas
and SPEC.md) as it is; until then `docs/spec-matches.md` is generated from it
(`render_params`, `render_result`), and a test keeps the two equal. Result
field types that `protocol.commands.RESULT_TYPES` lacks are in
`MATCH_RESULT_TYPES`, in the same form.
"""

from __future__ import annotations

from typing import Any

from protocol.commands import COMMON_PARAMS, MAX_ID, ArgType, Command, Field, Param

from .errors import MATCH_ERROR_CODES

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
        (Param("variant", ArgType.WORD, "`jacquet`, `jacquet-be` or `backgammon`",
               default="jacquet", position=0, max_len=32),
         Param("length", ArgType.INT, "points to win the match; 0: money play (one game)",
               default=0, position=1, minimum=0, maximum=99),
         Param("cube", ArgType.BOOL, "use the doubling cube; default: the variant's (off in "
               "both Jacquet variants, on in backgammon)"),
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
         Param("points", ArgType.WORD, "the offer: `1`/`single`, `2`/`marcia`/`gammon`/"
               "`double`, `3`/`marcia-per-punto`/`backgammon` (times the cube); the words "
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
               "default: all but `closed`", position=0, max_len=5),
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
        "not.",
        (MATCH_ID, TOKEN_OPTIONAL),
        (Field("match_id", "str", "the match"),
         Field("format", "str", "`jacquet-match/1`"),
         Field("record", "str", "the record's text (the `Seed` header once over)")),
    ),
)

MATCH_COMMAND_TABLE: dict[str, Command] = {c.name: c for c in MATCH_COMMANDS}

#: Result field types to add to `protocol.commands.RESULT_TYPES`.
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


def _type_label(t: str) -> str:
    from protocol.commands import RESULT_TYPES

    if t in RESULT_TYPES:
        return RESULT_TYPES[t][0]
    return MATCH_RESULT_TYPES[t][0]


_ARG_LABELS = {ArgType.INT: "int", ArgType.NUMBER: "float", ArgType.BOOL: "bool",
               ArgType.WORD: "str", ArgType.WORDS: "list of str", ArgType.DICE: "dice",
               ArgType.POSITION: "position", ArgType.MOVE: "str (move)",
               ArgType.REQUEST_ID: "int or str"}


def _default(v: Any) -> str:
    if v is None:
        return ""
    if isinstance(v, bool):
        return "true" if v else "false"
    return f"`{v}`" if isinstance(v, str) else str(v)


def render_params(name: str) -> str:
    """The argument table of a command, in SPEC.md's layout."""
    cmd = MATCH_COMMAND_TABLE[name]
    lines = ["| field | type | required | default | range | text word | meaning |",
             "|---|---|---|---|---|---|---|"]
    for p in (*cmd.params, *COMMON_PARAMS):
        rng = ""
        if p.minimum is not None or p.maximum is not None:
            rng = f"{p.minimum if p.minimum is not None else ''}..{p.maximum or ''}"
        elif p.type is ArgType.MOVE:
            rng = f"≤ {p.max_len} chars"
        word = ("rest of line" if p.type is ArgType.MOVE and p.position is not None
                else str(p.position + 1) if p.position is not None else "—")
        lines.append(f"| `{p.name}` | {_ARG_LABELS[p.type]} | "
                     f"{'required' if p.required else 'optional'} | {_default(p.default)} | "
                     f"{rng} | {word} | {p.doc} |")
    return "\n".join(lines)


def render_result(name: str) -> str:
    """The result table of a command, in SPEC.md's layout."""
    cmd = MATCH_COMMAND_TABLE[name]
    lines = ["| field | type | meaning |", "|---|---|---|"]
    for f in cmd.result:
        opt = "" if f.required else " (optional)"
        lines.append(f"| `{f.name}` | {_type_label(f.type)}{opt} | {f.doc} |")
    return "\n".join(lines)


def render_errors() -> str:
    lines = ["| code | when |", "|---|---|"]
    lines += [f"| `{code}` | {doc} |" for code, doc in MATCH_ERROR_CODES.items()]
    return "\n".join(lines)
