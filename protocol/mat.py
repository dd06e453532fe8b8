"""Backgammon matches as Jellyfish `.mat` text, laid out as GNU Backgammon writes it.

`format_mat(record)` writes a `backgammon` match record (RECORDS.md) in the layout
of gnubg's own `export match mat`, which its `import mat` reads back; `parse_mat`
reads that layout (and the close variants other programs write) into a
`MatchRecord`. Only backgammon has a `.mat` form: the Jacquet variants keep the
project's own record format (RECORDS.md says why).

The layout, per game:

     Game 1
     ann : 0                        bob : 0
      1)                             42: 8/4 6/4
      2) 32: 24/22 13/10             61: 13/7 8/7
      3)  Doubles => 2                Takes
      4) 54: 24/20* 20/15            66:
                                      Wins 1 point

Side 0 is the left column (gnubg's player 0, SGF's White), side 1 the right.
Names are written as gnubg writes them (`gnubg_name`: no `:`, no spaces, at most
31 bytes); the full names are kept in comment lines, `; [Player0 "bot:neural"]`,
which `parse_mat` reads back and gnubg keeps as a comment.
Each numbered row holds an action of side 0 then one of side 1; the sides
alternate, so a row starts empty on the left when side 1 acts first. A move
cell is the roll, `:`, and one `from/to` per die in the mover's numbering
(25 the bar, 0 off, `*` after a hit); a roll that cannot be played has no
steps. The opening roll is the first mover's move cell: which die was whose is
not written, so a reader gives the higher die to the side that moved first.
A `Wins` cell on a row of its own, without a number, ends a game that was not
ended by a drop. Resignation offers are not written: a game that ends neither
by a drop nor by bearing off was resigned, and a reader writes the
resignation (`resign`, `accept`) back into the record.
"""

from __future__ import annotations

import datetime as _dt
import functools
import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from .records import FORMAT, Action, GameRecord, GameResult, MatchRecord

CELL = 28
"""Width of the left cell after the row number, as gnubg writes it."""
RESULT_NAMES = {1: "single", 2: "gammon", 3: "backgammon"}


class MatchFileError(ValueError):
    """A match file that cannot be read or a record that cannot be written in a format;
    `line` is the 1-based line (0: the file as a whole)."""

    def __init__(self, message: str, line: int = 0) -> None:
        self.line = line
        self.message = message
        super().__init__(f"line {line}: {message}" if line else message)


# -- moves ------------------------------------------------------------------------------

_STEP_RE = re.compile(r"^(bar|off|\d{1,2})((?:/(?:bar|off|\d{1,2})\*?)+)(?:\((\d)\))?\Z")


def move_steps(move: str) -> list[tuple[int, int, bool]]:
    """The `(from, to, hit)` steps of move text (`24/18 18/13*`, `bar/22`, `6/off`,
    `13/7(2)`, `24/18/13`), points in the mover's numbering, 25 the bar, 0 off."""
    return list(_steps(move))


@functools.lru_cache(maxsize=4096)
def _steps(move: str) -> tuple[tuple[int, int, bool], ...]:
    """`move_steps`, remembered: a match repeats its moves (a long file is read at the
    speed of its distinct moves)."""
    steps: list[tuple[int, int, bool]] = []
    for token in move.split():
        m = _STEP_RE.match(token)
        if m is None:
            raise MatchFileError(f"{token!r} is not a from/to move")
        points = [m.group(1), *m.group(2).split("/")[1:]]
        values: list[tuple[int, bool]] = []
        for p in points:
            hit = p.endswith("*")
            word = p.rstrip("*")
            value = 25 if word == "bar" else 0 if word == "off" else int(word)
            if value > 25:
                raise MatchFileError(f"{token!r}: {value} is not a point (0-25)")
            values.append((value, hit))
        chain = [(values[i][0], values[i + 1][0], values[i + 1][1])
                 for i in range(len(values) - 1)]
        steps.extend(chain * int(m.group(3) or 1))
    return tuple(steps)


def mat_move(move: str) -> str:
    """Move text as `.mat` writes it: numbers only (25 the bar, 0 off)."""
    return " ".join(f"{a}/{b}{'*' if hit else ''}" for a, b, hit in move_steps(move))


@dataclass
class Tracker:
    """Both sides' checkers through a game, just enough to tell how it ended: applies
    move steps (hitting a lone opposing checker whether or not marked) and counts
    checkers borne off."""

    sides: list[list[int]] = field(default_factory=lambda: [
        [0, 0, 0, 0, 0, 0, 5, 0, 3, 0, 0, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0]
        for _ in range(2)])

    def play(self, side: int, move: str) -> str:
        """Apply `move` for `side`; return it spelt as the protocol does (`bar`, `off`,
        `*` after each hit)."""
        me, opp = self.sides[side], self.sides[1 - side]
        words = []
        for src, dst, _ in move_steps(move):
            if me[src] <= 0:
                raise MatchFileError(f"side {side} has no checker on {src} to move")
            me[src] -= 1
            me[dst] += 1
            hit = 1 <= dst <= 24 and opp[25 - dst] == 1
            if hit:
                opp[25 - dst] = 0
                opp[25] += 1
            words.append(f"{'bar' if src == 25 else src}/{'off' if dst == 0 else dst}"
                         + ("*" if hit else ""))
        return " ".join(words)

    def borne_off(self, side: int) -> int:
        return self.sides[side][0]

    def result_of(self, winner: int) -> int:
        """1, 2 or 3: single, gammon or backgammon, for a finished game."""
        loser = self.sides[1 - winner]
        if loser[0]:
            return 1
        if loser[25] or any(loser[19:25]):
            return 3
        return 2


# -- the record of a foreign file -------------------------------------------------------


@dataclass
class RawGame:
    """One game as a foreign file tells it: the score before it, actions in order
    (`("move", side, dice, text[, line])`, `("double", side, value)`, `("take"|"drop", side)`)
    and the winner and points once it is over."""

    score: tuple[int, int]
    actions: list[tuple[object, ...]] = field(default_factory=list)
    winner: int | None = None
    points: int = 0
    line: int = 0


def record_from_games(headers: dict[str, str], length: int, crawford_rule: bool,
                      games: Iterable[RawGame]) -> MatchRecord:
    """A `MatchRecord` of games read from a `.mat` or `.sgf` file: the opening roll given
    to the first mover, each result's reason (drop, bear-off, else resignation, which is
    written back as `resign` and `accept`) and the Crawford game marked (C5)."""
    out = MatchRecord(headers=dict(headers))
    out.headers.setdefault("Format", FORMAT)
    out.headers["Variant"] = "backgammon"
    out.headers["Length"] = str(length)
    out.headers["Cube"] = "on"
    out.headers["Crawford"] = "on" if crawford_rule else "off"
    score = [0, 0]
    crawford_done = False
    for number, raw in enumerate(games, start=1):
        if tuple(raw.score) != tuple(score) and number > 1:
            raise MatchFileError(f"game {number} starts at {raw.score[0]}-{raw.score[1]}, "
                                 f"the games before it add up to {score[0]}-{score[1]}",
                                 raw.line)
        score = list(raw.score)
        crawford = (crawford_rule and length > 0 and not crawford_done
                    and length - 1 in score)
        crawford_done = crawford_done or crawford
        game = GameRecord(number, (score[0], score[1]), crawford)
        out.games.append(game)
        tracker = Tracker()
        cube = 1
        last = ""
        for i, act in enumerate(raw.actions):
            kind, side = str(act[0]), int(str(act[1]))
            if kind == "move":
                dice = act[2]
                assert isinstance(dice, tuple)
                d = (int(dice[0]), int(dice[1]))
                text = str(act[3])
                if i == 0:
                    if d[0] == d[1]:
                        raise MatchFileError(f"game {number} opens with a double roll {d}",
                                             raw.line)
                    hi, lo = max(d), min(d)
                    game.opening = (hi, lo) if side == 0 else (lo, hi)
                else:
                    game.actions.append(Action(side, "roll", dice=d))
                try:
                    text = tracker.play(side, text)
                except MatchFileError as exc:
                    line = int(str(act[4])) if len(act) > 4 else raw.line  # .mat: its line
                    raise MatchFileError(f"game {number}: {exc.message}", line) from None
                game.actions.append(Action(side, "move", move=text))
            elif kind == "double":
                cube = int(str(act[2])) or cube * 2  # SGF does not write the value
                game.actions.append(Action(side, "double", value=cube))
            else:
                game.actions.append(Action(side, kind))
                if kind == "drop":
                    cube //= 2
            last = kind
        if raw.winner is None:
            break
        w = raw.winner
        if last == "drop":
            result = GameResult(w, raw.points, "drop", "drop")
        elif tracker.borne_off(w) == 15:
            result = GameResult(w, raw.points, "bear-off", RESULT_NAMES[tracker.result_of(w)])
        else:
            value = raw.points // cube
            if value * cube != raw.points or value not in RESULT_NAMES:
                raise MatchFileError(f"game {number}: {raw.points} points at cube {cube} "
                                     "is no resignation", raw.line)
            game.actions.append(Action(1 - w, "resign", value=value))
            game.actions.append(Action(w, "accept"))
            result = GameResult(w, raw.points, "resign", RESULT_NAMES[value])
        game.result = result
        score[w] += raw.points
    out.headers["Score"] = f"{score[0]} {score[1]}"
    if length and max(score) >= length:
        out.headers["Result"] = "0" if score[0] >= length else "1"
    else:
        out.headers["Result"] = "*"
    return out


def turns(game: GameRecord) -> list[tuple[object, ...]]:
    """A record's game as foreign files tell it: the opening roll folded into the first
    move, every roll into its move, resignation offers and answers left out."""
    out: list[tuple[object, ...]] = []
    rolled: dict[int, tuple[int, int]] = {}
    first = True
    for a in game.actions:
        if a.kind == "roll":
            assert a.dice is not None
            rolled[a.side] = a.dice
        elif a.kind == "move":
            assert a.move is not None
            if a.side in rolled:
                dice = rolled.pop(a.side)
            elif first and game.opening is not None:
                dice = (max(game.opening), min(game.opening))
            else:
                raise MatchFileError(f"game {game.number}: a move without its roll")
            out.append(("move", a.side, dice, a.move))
        elif a.kind == "double":
            out.append(("double", a.side, a.value))
        elif a.kind in ("take", "drop"):
            out.append((a.kind, a.side))
        first = first and a.kind not in ("move",)
    return out


def check_backgammon(record: MatchRecord, what: str) -> None:
    if record.variant != "backgammon":
        raise MatchFileError(f"{what} holds backgammon matches only; {record.variant} keeps "
                             "the jacquet-match/1 format (RECORDS.md)")
    if record.cube is False:
        raise MatchFileError(f"{what} has no form for a match played without the cube")


# -- players' names ----------------------------------------------------------------------

GNUBG_NAME_BYTES = 31
"""The longest name gnubg keeps (its buffers hold 32 bytes with the terminating NUL)."""
_NAME_KEEP_RE = re.compile(r"[^\w.+-]+")
NAME_TAGS = ("Player0", "Player1")
"""The tags that keep the full names, in a `.mat` comment line (`; [Player0 "bot:neural"]`)
and in the lines of an SGF's game comment (`GC`): gnubg keeps comments it does not
know, so the full names survive its import and re-export."""
_NAME_TAG_RE = re.compile(r'^\s*;?\s*\[(Player[01])\s+"((?:[^"\\]|\\.)*)"\]\s*\Z')


def gnubg_name(name: str, side: int) -> str:
    """A player's name as gnubg writes one: word characters, `.`, `+` and `-` kept,
    every other run (`:`, spaces, `,`, quotes, brackets) made one `_`, at most
    GNUBG_NAME_BYTES bytes of UTF-8 (whole characters); `Player0`/`Player1` for a name
    that keeps nothing. gnubg's `.mat` reader splits the names line at the first `:`
    and reads a `,` as the start of a rating: such a name would be read wrong or
    overflow its buffer."""
    out = _NAME_KEEP_RE.sub("_", name).strip("_")
    while len(out.encode("utf-8")) > GNUBG_NAME_BYTES:
        out = out[:-1]
    return out or NAME_TAGS[side]


def gnubg_names(record: MatchRecord) -> tuple[str, str]:
    """Both players' names as `gnubg_name` writes them, told apart when they would be
    the same (gnubg refuses two players of one name): `_0` and `_1` appended."""
    a, b = (gnubg_name(n, i) for i, n in enumerate(record.players))
    if a.lower() == b.lower():
        base = a
        while len(base.encode("utf-8")) > GNUBG_NAME_BYTES - 2:
            base = base[:-1]
        a, b = base + "_0", base + "_1"
    return a, b


def name_tag_lines(record: MatchRecord) -> list[str]:
    """`[Player0 "..."]` and `[Player1 "..."]`: the players' full names, quoted as record
    headers are (RECORDS.md), line ends made spaces."""
    out = []
    for tag, name in zip(NAME_TAGS, record.players, strict=True):
        value = " ".join(name.splitlines()).replace("\\", "\\\\").replace('"', '\\"')
        out.append(f'[{tag} "{value}"]')
    return out


def read_name_tag(line: str) -> tuple[str, str] | None:
    """(`Player0` or `Player1`, the full name) of a name tag line, else None."""
    m = _NAME_TAG_RE.match(line)
    return None if m is None else (m.group(1), re.sub(r"\\(.)", r"\1", m.group(2)))


# -- writing ------------------------------------------------------------------------------


def _cell(act: tuple[object, ...]) -> str:
    kind = act[0]
    if kind == "move":
        dice = act[2]
        assert isinstance(dice, tuple)
        steps = mat_move(str(act[3]))
        # gnubg ends each step with a space, except the fourth of a double on the right
        tail = " " if steps and (len(steps.split()) < 4 or act[1] == 0) else ""
        return f"{dice[0]}{dice[1]}: " + steps + tail
    if kind == "double":
        return f" Doubles => {act[2]}"
    return " Takes" if kind == "take" else " Drops"


def _wins(points: int) -> str:
    return f" Wins {points} point{'s' if points != 1 else ''}"


def format_mat(record: MatchRecord, *, date: str | None = None) -> str:
    """The record as gnubg's `.mat` layout; MatchFileError for a non-backgammon record.
    `date` (`YYYY.MM.DD`) defaults to the record's `Created` header."""
    check_backgammon(record, "a .mat file")
    names = gnubg_names(record)
    created = record.headers.get("Created", "")
    if date is None and created:
        try:
            date = _dt.datetime.fromisoformat(created.replace("Z", "+00:00")).strftime(
                "%Y.%m.%d")
        except ValueError:
            date = None
    lines = ['; [Site "jacquetd"]']
    if record.headers.get("Match"):
        lines.append(f'; [Match ID "{record.headers["Match"]}"]')
    lines += [f"; {tag}" for tag in name_tag_lines(record)]
    if date:
        lines.append(f'; [EventDate "{date}"]')
    if not record.crawford:
        lines.append('; [Crawford "Off"]')
    lines += ["", f" {record.length} point match", ""]
    for game in record.games:
        lines.append(f" Game {game.number}")
        left = f" {names[0]} : {game.score[0]}"
        lines.append(f"{left:<31} {names[1]} : {game.score[1]}")
        rows: list[list[str | None]] = []
        for act in turns(game):
            side = int(str(act[1]))
            text = _cell(act)
            if side == 0 or not rows or rows[-1][1] is not None:
                rows.append([None, None])
            rows[-1][side] = text
        result = game.result
        wins_row: list[str | None] | None = None
        if result is not None:
            if (result.reason == "drop" and result.winner == 1 and rows
                    and rows[-1][1] is None):
                rows[-1][1] = _wins(result.points) + " "
            else:
                wins_row = [None, None]
                wins_row[result.winner] = _wins(result.points)
        for n, (a, b) in enumerate(rows, start=1):
            lines.append(_row(f"{n:3d}) ", a, b or ""))
        if wins_row is not None:
            lines.append(_row("     ", wins_row[0], wins_row[1]))
        lines.append("")
    return "\n".join(lines) + "\n"


def _row(head: str, left: str | None, right: str | None) -> str:
    if right is None:
        return head + (left or "")
    return head + f"{left or '':<{CELL}}" + right


# -- reading ------------------------------------------------------------------------------

_LENGTH_RE = re.compile(r"^\s*(\d+)\s+point\s+match\s*\Z", re.I)
_GAME_RE = re.compile(r"^\s*Game\s+(\d+)\s*\Z", re.I)
_NAMES_RE = re.compile(r"^\s*(.*?)\s*:\s*(\d+)\s+(.*?)\s*:\s*(\d+)\s*\Z")
_ROW_RE = re.compile(r"^(\s*\d+\))(.*)\Z")
_TAG_RE = re.compile(r'^;\s*\[(.+?)\s+"(.*)"\]\s*\Z')
_CELL_START_RE = re.compile(r"(\d\d:|Doubles|Takes|Drops|Wins|Beavers|Raccoons|Accepts|"
                            r"Rejects|Passes)", re.I)
_RIGHT_AT = 18
"""A cell starting further than this after the row number is in the right column."""


def _split_cells(rest: str) -> list[tuple[int, str]]:
    """(column offset, text) of each cell in a row after its number."""
    starts = [m.start() for m in _CELL_START_RE.finditer(rest)
              if m.start() == 0 or rest[m.start() - 1] == " "]
    # `Doubles => 2` holds no further starts; a move's steps never match
    cells = []
    for i, s in enumerate(starts):
        end = starts[i + 1] if i + 1 < len(starts) else len(rest)
        cells.append((s, rest[s:end].strip()))
    return cells


def _parse_cell(text: str, side: int, n: int) -> tuple[object, ...] | tuple[str, int, int]:
    m = re.match(r"^(\d)(\d):\s*(.*)\Z", text)
    if m:
        d1, d2 = int(m.group(1)), int(m.group(2))
        if not (1 <= d1 <= 6 and 1 <= d2 <= 6):
            raise MatchFileError(f"dice {d1}{d2} are not two dice 1-6", n)
        # the steps are read when the move is played (record_from_games), which names
        # this line if they cannot be
        return ("move", side, (d1, d2), m.group(3).strip(), n)
    m = re.match(r"^Doubles\s*=>\s*(\d+)\Z", text, re.I)
    if m:
        return ("double", side, int(m.group(1)))
    low = text.lower()
    if low.startswith(("takes", "accepts")):
        return ("take", side)
    if low.startswith(("drops", "passes", "rejects")):
        return ("drop", side)
    m = re.match(r"^Wins\s+(\d+)\s+points?", text, re.I)
    if m:
        return ("wins", side, int(m.group(1)))
    if low.startswith(("beavers", "raccoons")):
        raise MatchFileError("beavers have no place in these rules (no beaver, no raccoon)", n)
    raise MatchFileError(f"cannot read {text!r}", n)


def parse_mat(text: str) -> MatchRecord:
    """Read a `.mat` match into a backgammon `MatchRecord`; MatchFileError names the line."""
    headers: dict[str, str] = {}
    length: int | None = None
    crawford_rule = True
    games: list[RawGame] = []
    names: tuple[str, str] | None = None
    game: RawGame | None = None
    full: dict[str, str] = {}
    for n, raw in enumerate(text.splitlines(), start=1):
        line = raw.rstrip()
        if not line.strip():
            continue
        if line.lstrip().startswith(";"):
            named = read_name_tag(line)
            if named is not None:
                full[named[0]] = named[1]
                continue
            m = _TAG_RE.match(line.strip())
            if m:
                key, value = m.group(1), m.group(2)
                if key.lower() == "crawford" and value.lower() == "off":
                    crawford_rule = False
                elif key.lower() == "match id":
                    headers["Match"] = value
            continue
        m = _LENGTH_RE.match(line)
        if m:
            length = int(m.group(1))
            continue
        m = _GAME_RE.match(line)
        if m:
            if length is None:
                raise MatchFileError("a game before the 'N point match' line", n)
            if int(m.group(1)) != len(games) + 1:
                raise MatchFileError(f"game {m.group(1)} follows game {len(games)}", n)
            game = None
            games.append(RawGame((0, 0), line=n))
            continue
        if games and game is None:
            m = _NAMES_RE.match(line)
            if m is None:
                raise MatchFileError("expected the players' names and scores", n)
            games[-1].score = (int(m.group(2)), int(m.group(4)))
            names = names or (m.group(1), m.group(3))
            game = games[-1]
            continue
        if game is None:
            raise MatchFileError(f"cannot read {line.strip()!r}", n)
        if game.winner is not None:
            raise MatchFileError(f"game {len(games)} is over; expected the next game", n)
        m = _ROW_RE.match(line)
        head, rest = (m.group(1), m.group(2)) if m else ("", line)
        for offset, cell in _split_cells(rest):
            # the right column starts about 28 characters after the row number
            column = offset if head else offset - len("     ")
            side = 1 if column > _RIGHT_AT else 0
            act = _parse_cell(cell, side, n)
            if act[0] == "wins":
                game.winner, game.points = side, int(str(act[2]))
            else:
                game.actions.append(act)
    if length is None:
        raise MatchFileError("no 'N point match' line: not a .mat file")
    if names is not None:
        headers["Player0"], headers["Player1"] = names
    headers.update(full)  # the full names a name tag kept
    return record_from_games(headers, length, crawford_rule, games)
