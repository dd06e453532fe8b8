"""Match records: the text format of RECORDS.md, its writer and its parser.

A match record tells a whole match (or what was played of it) as lines: tag
headers `; [Key "value"]`, then per game a `game` line, the `opening` roll and
one line per action (`0 64: 24/18 24/20`, `1 double 2`, `0 take`, ...), and
the game's `wins` line. It is written by the daemon for hosted matches and by
any client that plays games itself, and read back for analysis.

This module knows the format only. It does not check that the moves are legal
(that needs the rules core, see `jacquetd.matches.records`), only that every
line is well formed and that the record hangs together (sides 0 or 1, dice
1-6, a game's actions after its `game` line, nothing after its result).

    >>> rec = parse_record(text)
    >>> format_record(rec) == text      # for a record in canonical form
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

FORMAT = "jacquet-match/1"
"""The value of the `Format` header this module writes and understands."""

#: Headers in the order the writer puts them (any others follow, in their own order).
KNOWN_HEADERS: tuple[str, ...] = (
    "Format", "Match", "Variant", "Length", "Cube", "Crawford", "Dice", "Seed",
    "Player0", "Player1", "Created", "Ended", "Status", "Result", "Score",
)

#: What each kind of action line carries (see RECORDS.md, "Action lines").
ACTION_KINDS: tuple[str, ...] = (
    "roll", "move", "double", "take", "drop", "resign", "accept", "reject",
)
REASONS: tuple[str, ...] = ("bear-off", "drop", "resign")

#: The values the headers that a reader acts on may take (RECORDS.md, "Headers"); the
#: others (`Dice`, `Status`, names, dates, ...) are told as written.
HEADER_VALUES: dict[str, tuple[str, str]] = {
    "Variant": (r"jacquet|jacquet-be|backgammon|long-nardy",
                "jacquet, jacquet-be, backgammon or long-nardy"),
    "Length": (r"0|[1-9][0-9]{0,3}", "a number of points below 10000"),
    "Cube": (r"on|off", "on or off"),
    "Crawford": (r"on|off", "on or off"),
    "Seed": (r"0|[1-9][0-9]{0,18}", "a number"),
    "Result": (r"0|1|\*", "0, 1 or *"),
    "Score": (r"(0|[1-9][0-9]{0,8}) (0|[1-9][0-9]{0,8})", "two numbers, side 0's first"),
}
_HEADER_VALUE_RES = {k: re.compile(rf"(?:{v[0]})\Z") for k, v in HEADER_VALUES.items()}

_HEADER_RE = re.compile(r'^;\s*\[([A-Za-z][A-Za-z0-9_]*)\s+"((?:[^"\\]|\\.)*)"\]\s*\Z')
_KEY_RE = re.compile(r"^[A-Za-z][A-Za-z0-9_]*\Z")
_DICE_RE = re.compile(r"^([1-6])-?([1-6])\Z")
_INT_RE = re.compile(r"^(0|[1-9][0-9]{0,8})\Z")
_MOVE_RE = re.compile(r"^[\x21-\x7e]+(?: [\x21-\x7e]+)*\Z")


class RecordError(ValueError):
    """A record that does not follow RECORDS.md; `line` is the 1-based line number (0: the
    record as a whole); `header` names the header at fault, if one is."""

    def __init__(self, message: str, line: int = 0, header: str | None = None) -> None:
        self.line = line
        self.message = message
        self.header = header
        super().__init__(f"line {line}: {message}" if line else message)


def check_header(key: str, value: str, line: int = 0) -> None:
    """Refuse a known header whose value is not one RECORDS.md allows (RecordError
    naming the header)."""
    pattern = _HEADER_VALUE_RES.get(key)
    if pattern is not None and not pattern.match(value):
        raise RecordError(f"header {key}: {value!r} is not {HEADER_VALUES[key][1]}", line,
                          header=key)


def check_games(record: MatchRecord) -> None:
    """The checks that need no rules: every game but the last is finished, each game
    starts at the score the games before it add up to, none starts with the match won,
    and the `Score` header (when given) is where the finished games end (RecordError
    naming the game)."""
    score = [0, 0]
    length = record.length
    for game in record.games:
        where = f"game {game.number}"
        if list(game.score) != score:
            raise RecordError(f"{where} starts at {game.score[0]}-{game.score[1]}; the games "
                              f"before it add up to {score[0]}-{score[1]}")
        if length and max(score) >= length:
            raise RecordError(f"{where} is played after the match was won")
        if game.result is None:
            if game is not record.games[-1]:
                raise RecordError(f"{where} has no result, yet another game follows")
        else:
            score[game.result.winner] += game.result.points
    given = record.headers.get("Score")
    finished = bool(record.games) and record.games[-1].result is not None
    if given is not None and finished and given != f"{score[0]} {score[1]}":
        raise RecordError(f"header Score: {given!r}, but the games add up to "
                              f"{score[0]} {score[1]}", header="Score")


@dataclass(frozen=True)
class Action:
    """One action of a game, by `side` (0 or 1).

    `kind` is one of ACTION_KINDS. `dice` is set for `roll` (in the order rolled),
    `move` for `move` (the move text; `""` for a roll that cannot be played),
    `value` for `double` (the cube's new value) and `resign` (1, 2 or 3: single/oin,
    gammon/marcia/mars, backgammon/marcia per punto, before the cube).
    """

    side: int
    kind: str
    dice: tuple[int, int] | None = None
    move: str | None = None
    value: int | None = None

    def __post_init__(self) -> None:
        if self.side not in (0, 1):
            raise RecordError(f"side must be 0 or 1, not {self.side!r}")
        if self.kind not in ACTION_KINDS:
            raise RecordError(f"unknown action {self.kind!r}")
        if (self.kind == "roll") != (self.dice is not None):
            raise RecordError("a roll, and only a roll, carries dice")
        if self.dice is not None and (len(self.dice) != 2
                                      or not all(1 <= d <= 6 for d in self.dice)):
            raise RecordError(f"dice must be two numbers 1-6, not {self.dice!r}")
        if (self.kind == "move") != (self.move is not None):
            raise RecordError("a move, and only a move, carries move text")
        if self.move is not None and self.move and not _MOVE_RE.match(self.move):
            raise RecordError(f"move text must be printable words, not {self.move!r}")
        valued = self.kind in ("double", "resign")
        if valued != (self.value is not None):
            raise RecordError(f"{self.kind} {'needs a' if valued else 'takes no'} value")
        if self.kind == "double" and (self.value is None or self.value < 2):
            raise RecordError("a double raises the cube to 2 or more")
        if self.kind == "resign" and self.value not in (1, 2, 3):
            raise RecordError("a resignation is worth 1, 2 or 3")


@dataclass(frozen=True)
class GameResult:
    """How a game ended: `points` scored by `winner` (the cube included), `reason`
    (`bear-off`, `drop` or `resign`) and the result's name (`single`, `marcia`, ...)."""

    winner: int
    points: int
    reason: str
    name: str = ""

    def __post_init__(self) -> None:
        if self.winner not in (0, 1):
            raise RecordError(f"winner must be 0 or 1, not {self.winner!r}")
        if self.points < 1:
            raise RecordError("a game scores at least 1 point")
        if self.reason not in REASONS:
            raise RecordError(f"reason must be one of {', '.join(REASONS)}")
        if self.name != " ".join(self.name.split()):
            raise RecordError("a result name is words separated by single spaces")


@dataclass
class GameRecord:
    """One game: its number (from 1), the score before it (side 0, side 1), whether it is
    the Crawford game, the opening roll (side 0's die, side 1's die; None if not rolled
    yet), the actions in order, and the result once the game is over."""

    number: int
    score: tuple[int, int] = (0, 0)
    crawford: bool = False
    opening: tuple[int, int] | None = None
    actions: list[Action] = field(default_factory=list)
    result: GameResult | None = None


@dataclass
class MatchRecord:
    """A match: its headers (insertion order kept) and its games."""

    headers: dict[str, str] = field(default_factory=dict)
    games: list[GameRecord] = field(default_factory=list)

    # -- typed views of the main headers -----------------------------------------------

    @property
    def variant(self) -> str:
        return self.headers.get("Variant", "jacquet")

    @property
    def length(self) -> int:
        """Points to win the match; 0 for money play (one game)."""
        return int(self.headers.get("Length", "0"))

    @property
    def cube(self) -> bool | None:
        """Whether the cube is in use; None when the header is absent (variant default)."""
        value = self.headers.get("Cube")
        return None if value is None else value == "on"

    @property
    def crawford(self) -> bool:
        return self.headers.get("Crawford", "on") == "on"

    @property
    def seed(self) -> int | None:
        value = self.headers.get("Seed")
        return int(value) if value is not None else None

    @property
    def players(self) -> tuple[str, str]:
        return (self.headers.get("Player0", ""), self.headers.get("Player1", ""))

    @property
    def winner(self) -> int | None:
        value = self.headers.get("Result")
        return int(value) if value in ("0", "1") else None

    @property
    def score(self) -> tuple[int, int]:
        """The final score from the `Score` header, else summed from the games."""
        value = self.headers.get("Score")
        if value is not None:
            a, b = value.split()
            return int(a), int(b)
        score = [0, 0]
        for game in self.games:
            if game.result is not None:
                score[game.result.winner] += game.result.points
        return score[0], score[1]


# -- writing ---------------------------------------------------------------------------


def _quote(value: str) -> str:
    return value.replace("\\", "\\\\").replace('"', '\\"')


def _unquote(value: str) -> str:
    return re.sub(r"\\(.)", r"\1", value)


def _dice(d: tuple[int, int]) -> str:
    return f"{d[0]}{d[1]}"


def _move(text: str) -> str:
    return text if text else "pass"


def format_header(key: str, value: str) -> str:
    """One header line; refuses keys that are not words and values with line ends."""
    if not _KEY_RE.match(key):
        raise RecordError(f"header key {key!r} is not a word")
    if "\n" in value or "\r" in value:
        raise RecordError(f"header {key} has a line end in its value")
    return f'; [{key} "{_quote(value)}"]'


def _action_lines(actions: list[Action]) -> Iterator[str]:
    i = 0
    while i < len(actions):
        a = actions[i]
        nxt = actions[i + 1] if i + 1 < len(actions) else None
        if a.kind == "roll" and nxt is not None and nxt.kind == "move" and nxt.side == a.side:
            assert a.dice is not None and nxt.move is not None
            yield f"{a.side} {_dice(a.dice)}: {_move(nxt.move)}"
            i += 2
            continue
        if a.kind == "roll":
            assert a.dice is not None
            yield f"{a.side} roll {_dice(a.dice)}"
        elif a.kind == "move":
            assert a.move is not None
            yield f"{a.side} move {_move(a.move)}"
        elif a.value is not None:
            yield f"{a.side} {a.kind} {a.value}"
        else:
            yield f"{a.side} {a.kind}"
        i += 1


def format_game(game: GameRecord) -> list[str]:
    """The lines of one game (no blank line around them)."""
    head = f"game {game.number} score {game.score[0]} {game.score[1]}"
    lines = [head + (" crawford" if game.crawford else "")]
    if game.opening is not None:
        lines.append(f"opening {game.opening[0]} {game.opening[1]}")
    lines.extend(_action_lines(game.actions))
    if game.result is not None:
        r = game.result
        lines.append(f"{r.winner} wins {r.points} {r.reason}" + (f" {r.name}" if r.name else ""))
    return lines


def ordered_headers(headers: dict[str, str]) -> list[tuple[str, str]]:
    """The headers in writing order: `Format` first, then KNOWN_HEADERS, then the rest."""
    merged = {"Format": headers.get("Format", FORMAT), **headers}
    known = [(k, merged[k]) for k in KNOWN_HEADERS if k in merged]
    return known + [(k, v) for k, v in merged.items() if k not in KNOWN_HEADERS]


def format_record(record: MatchRecord) -> str:
    """The record as text in canonical form: headers, then each game after a blank line;
    `\\n` line ends and a final line end."""
    lines = [format_header(k, v) for k, v in ordered_headers(record.headers)]
    for game in record.games:
        lines.append("")
        lines.extend(format_game(game))
    return "\n".join(lines) + "\n"


def body_lines(games: Iterable[GameRecord]) -> list[str]:
    """The game lines of a record without headers or blank lines (a move history)."""
    out: list[str] = []
    for game in games:
        out.extend(format_game(game))
    return out


# -- reading ---------------------------------------------------------------------------


def _side(word: str, n: int) -> int:
    if word not in ("0", "1"):
        raise RecordError(f"expected a side (0 or 1), found {word!r}", n)
    return int(word)


def _int(word: str, n: int, what: str) -> int:
    if not _INT_RE.match(word):
        raise RecordError(f"expected {what} (a number), found {word!r}", n)
    return int(word)


def _parse_dice(word: str, n: int) -> tuple[int, int]:
    m = _DICE_RE.match(word)
    if not m:
        raise RecordError(f"expected dice such as 64 or 6-4, found {word!r}", n)
    return int(m.group(1)), int(m.group(2))


def _parse_move(words: list[str], n: int) -> str:
    if not words:
        raise RecordError("a move needs its text (or 'pass')", n)
    text = " ".join(words)
    return "" if text == "pass" else text


def _make(n: int, **kw: object) -> Action:
    try:
        return Action(**kw)  # type: ignore[arg-type]
    except RecordError as exc:
        raise RecordError(exc.message, n) from None


def _parse_action(words: list[str], n: int) -> list[Action]:
    side = _side(words[0], n)
    if len(words) < 2:
        raise RecordError("a side number must be followed by an action", n)
    verb, rest = words[1], words[2:]
    if verb.endswith(":"):
        dice = _parse_dice(verb[:-1], n)
        return [_make(n, side=side, kind="roll", dice=dice),
                _make(n, side=side, kind="move", move=_parse_move(rest, n))]
    if verb == "roll":
        if len(rest) != 1:
            raise RecordError("roll takes the dice only", n)
        return [_make(n, side=side, kind="roll", dice=_parse_dice(rest[0], n))]
    if verb == "move":
        return [_make(n, side=side, kind="move", move=_parse_move(rest, n))]
    if verb in ("double", "resign"):
        if len(rest) != 1:
            raise RecordError(f"{verb} takes one number", n)
        return [_make(n, side=side, kind=verb, value=_int(rest[0], n, "a value"))]
    if verb in ("take", "drop", "accept", "reject"):
        if rest:
            raise RecordError(f"{verb} takes nothing after it", n)
        return [_make(n, side=side, kind=verb)]
    raise RecordError(f"unknown action {verb!r}", n)


def _parse_result(words: list[str], n: int) -> GameResult:
    if len(words) < 4:
        raise RecordError("a result is: SIDE wins POINTS REASON [NAME]", n)
    try:
        return GameResult(_side(words[0], n), _int(words[2], n, "points"), words[3],
                          " ".join(words[4:]))
    except RecordError as exc:
        raise RecordError(exc.message, n) from None


def parse_record(text: str) -> MatchRecord:
    """Read a record. Blank lines and `;` comment lines are skipped; headers may only
    precede the first game. Raises RecordError with the line number of the first fault."""
    record = MatchRecord()
    game: GameRecord | None = None
    for n, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line:
            continue
        if line.startswith(";"):
            m = _HEADER_RE.match(line)
            if m is None:
                if line.startswith("; ["):
                    raise RecordError("malformed header; expected ; [Key \"value\"]", n)
                continue  # a comment
            if record.games:
                raise RecordError("headers must come before the first game", n)
            key = m.group(1)
            if key in record.headers:
                raise RecordError(f"header {key} given twice", n, header=key)
            record.headers[key] = _unquote(m.group(2))
            check_header(key, record.headers[key], n)
            continue
        words = line.split()
        if words[0] == "game":
            if len(words) not in (5, 6) or words[2] != "score" or (
                    len(words) == 6 and words[5] != "crawford"):
                raise RecordError("a game line is: game N score A B [crawford]", n)
            number = _int(words[1], n, "a game number")
            if number != len(record.games) + 1:
                raise RecordError(f"game {number} follows game {len(record.games)}", n)
            game = GameRecord(number, (_int(words[3], n, "a score"), _int(words[4], n, "a score")),
                              crawford=len(words) == 6)
            record.games.append(game)
            continue
        if game is None:
            raise RecordError("expected a header or a game line", n)
        if game.result is not None:
            raise RecordError(f"game {game.number} is over; expected the next game line", n)
        if words[0] == "opening":
            if len(words) != 3:
                raise RecordError("an opening line is: opening DIE0 DIE1", n)
            if game.opening is not None or game.actions:
                raise RecordError("the opening comes once, before the actions", n)
            d0, d1 = (_int(w, n, "a die") for w in words[1:])
            if not (1 <= d0 <= 6 and 1 <= d1 <= 6) or d0 == d1:
                raise RecordError("opening dice are two different numbers 1-6", n)
            game.opening = (d0, d1)
            continue
        if len(words) >= 2 and words[1] == "wins":
            game.result = _parse_result(words, n)
            continue
        if game.opening is None:
            raise RecordError("actions follow the opening roll", n)
        game.actions.extend(_parse_action(words, n))
    fmt = record.headers.get("Format")
    if fmt is not None and fmt != FORMAT and not fmt.startswith(FORMAT + "."):
        raise RecordError(f"unknown record format {fmt!r} (this reader: {FORMAT}, {FORMAT}.x)")
    return record
