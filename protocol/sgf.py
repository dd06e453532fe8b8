"""Backgammon matches as GNU Backgammon's SGF (`GM[6]`): `format_sgf` and `parse_sgf`.

A match is one game tree per game. The root node carries
`FF[4]GM[6]CA[UTF-8]AP[...]`, `MI[length:L][game:K][ws:A][bs:B]` (length, game
number from 0, the scores of White and Black before it), `PW`/`PB` (the names
as gnubg writes them, `mat.gnubg_name`), `DT` (date, first game), `GC` (first
game: the full names as `[Player0 "..."]` lines, read back by `parse_sgf`;
gnubg keeps the comment through its own load and save), `RU[Crawford]` or
`RU[Crawford:CrawfordGame]` under the Crawford rule, and `RE[W+N]` / `RE[B+N]`
(`R` appended for a resignation).
Then one node per action: `;B[63aggj]` (the roll, then a letter pair per step),
`;W[double]`, `;B[take]`, `;B[drop]`. Properties the reader does not use (gnubg's
analysis: `A`, `DA`, `GS`, `LU`, comments, ...) are skipped.

White is gnubg's player 0 (side 0 of a record), Black player 1 (side 1). A
point is a letter `a`-`x`: White's point p is the (p-1)th letter, Black's point
p the (24-p)th; `y` is the bar and `z` off. As in gnubg's own files, a
resignation leaves no node: the result (`RE`, with `R`) ends the game.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from .mat import (
    MatchFileError,
    RawGame,
    check_backgammon,
    gnubg_names,
    move_steps,
    name_tag_lines,
    read_name_tag,
    record_from_games,
    turns,
)
from .records import MatchRecord

APP = "jacquetd"
SETUP_PROPERTIES = frozenset({"AE", "AW", "AB", "CV", "CP"})
"""gnubg's properties that set the board or the cube (`set board`, `set cube`): a game
with one did not start from the starting position, and is refused rather than misread.
Every other property a node carries besides `W` and `B` (analysis, luck, comments,
`PL`, `DI`) is skipped."""


def _escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace("]", "\\]")


def _letter(side: int, point: int) -> str:
    if point == 25:
        return "y"
    if point == 0:
        return "z"
    return chr(ord("a") + (point - 1 if side == 0 else 24 - point))


def _point(side: int, letter: str) -> int:
    if letter == "y":
        return 25
    if letter == "z":
        return 0
    i = ord(letter) - ord("a")
    return i + 1 if side == 0 else 24 - i


def _colour(side: int) -> str:
    return "B" if side else "W"


def format_sgf(record: MatchRecord, *, date: str | None = None,
               annotations: Mapping[tuple[int, int], str] | None = None) -> str:
    """The record as gnubg's SGF; MatchFileError for a non-backgammon record. `date`
    (`YYYY-MM-DD`) defaults to the day of the record's `Created` header. `annotations`
    maps (game number, node number in the game from 0, as `mat.turns` counts them) to
    properties written after that node's move (`protocol.annotate`)."""
    check_backgammon(record, "an SGF file")
    names = gnubg_names(record)
    if date is None:
        created = record.headers.get("Created", "")
        date = created[:10] if re.match(r"^\d{4}-\d\d-\d\d", created) else None
    out: list[str] = []
    for game in record.games:
        head = [f"(;FF[4]GM[6]CA[UTF-8]AP[{APP}]",
                f"MI[length:{record.length}][game:{game.number - 1}]"
                f"[ws:{game.score[0]}][bs:{game.score[1]}]",
                f"PW[{_escape(names[0])}]PB[{_escape(names[1])}]"]
        if game.number == 1 and date:
            head.append(f"DT[{date}]")
        if game.number == 1:
            head.append(f"GC[{_escape(chr(10).join(name_tag_lines(record)))}]")
        if record.crawford and record.length > 1:
            head.append("RU[Crawford:CrawfordGame]" if game.crawford else "RU[Crawford]")
        if game.result is not None:
            r = game.result
            head.append(f"RE[{_colour(r.winner)}+{r.points}"
                        f"{'R' if r.reason == 'resign' else ''}]")
        lines = ["".join(head)]
        for node, act in enumerate(turns(game)):
            side = int(str(act[1]))
            if act[0] == "move":
                dice = act[2]
                assert isinstance(dice, tuple)
                steps = "".join(_letter(side, a) + _letter(side, b)
                                for a, b, _ in move_steps(str(act[3])))
                lines.append(f";{_colour(side)}[{dice[0]}{dice[1]}{steps}]")
            else:
                lines.append(f";{_colour(side)}[{act[0]}]")
            if annotations and (game.number, node) in annotations:
                lines[-1] += annotations[(game.number, node)]
        out.append("\n".join(lines) + ")\n")
    return "".join(out)


# -- reading ------------------------------------------------------------------------------

Node = list[tuple[str, list[str]]]


_PROP_RE = re.compile(r"\s*([A-Z]+)\s*\[")


_VALUE_RE = re.compile(r"\[([^\]\\]*(?:\\.[^\]\\]*)*)\]\s*", re.S)
_UNESCAPE_RE = re.compile(r"\\(.)", re.S)


def _values(text: str, i: int, name: str) -> tuple[list[str], int]:
    """The bracketed values of a property from offset `i` (at its first `[`), each found
    by one regular-expression match (gnubg's analysis makes values of kilobytes)."""
    values: list[str] = []
    while (m := _VALUE_RE.match(text, i)) is not None:
        raw = m.group(1)
        values.append(_UNESCAPE_RE.sub(r"\1", raw) if "\\" in raw else raw)
        i = m.end()
    if i < len(text) and text[i] == "[":
        raise MatchFileError(f"an SGF value of {name} is not closed")
    return values, i


def _trees(text: str) -> list[list[Node]]:
    """The main line of every game tree: its nodes, each a list of (property, values).
    Of several variations only the first is read."""
    trees: list[list[Node]] = []
    children: list[int] = []  # per open parenthesis: how many variations it has had
    skip_below: int | None = None  # depth from which a later variation is skipped
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c == "(":
            if children:
                children[-1] += 1
                if skip_below is None and children[-1] > 1:
                    skip_below = len(children) + 1
            else:
                trees.append([])
            children.append(0)
            i += 1
        elif c == ")":
            if not children:
                raise MatchFileError("an SGF ')' closes nothing")
            if skip_below is not None and len(children) == skip_below:
                skip_below = None
            children.pop()
            i += 1
        elif c == ";":
            if not children:
                raise MatchFileError("an SGF node outside a game tree")
            node: Node = []
            i += 1
            while (m := _PROP_RE.match(text, i)) is not None:
                values, i = _values(text, m.end() - 1, m.group(1))
                node.append((m.group(1), values))
            if skip_below is None:
                trees[-1].append(node)
        elif c.isspace():
            i += 1
        else:
            raise MatchFileError(f"unexpected {c!r} in SGF at offset {i}")
    if children:
        raise MatchFileError("an SGF game tree is not closed")
    return trees


def _prop(node: Node, name: str) -> list[str] | None:
    return next((v for k, v in node if k == name), None)


def parse_sgf(text: str) -> MatchRecord:
    """Read a gnubg SGF match into a backgammon `MatchRecord`; MatchFileError says what
    is wrong."""
    trees = _trees(text)
    if not trees or not trees[0]:
        raise MatchFileError("no SGF game tree")
    headers: dict[str, str] = {}
    length = 0
    crawford_rule = False
    games: list[RawGame] = []
    for number, nodes in enumerate(trees, start=1):
        root = nodes[0]
        gm = _prop(root, "GM")
        if gm != ["6"]:
            raise MatchFileError(f"game {number}: GM[{(gm or [''])[0]}] is not backgammon "
                                 "(GM[6])")
        mi = dict(v.split(":", 1) for v in (_prop(root, "MI") or []) if ":" in v)
        try:
            length = int(mi.get("length", "0"))
            score = (int(mi.get("ws", "0")), int(mi.get("bs", "0")))
        except ValueError:
            raise MatchFileError(f"game {number}: MI holds a non-number") from None
        ru = (_prop(root, "RU") or [""])[0]
        crawford_rule = crawford_rule or ru.startswith("Crawford")
        if number == 1:
            for key, prop in (("Player0", "PW"), ("Player1", "PB")):
                value = _prop(root, prop)
                if value:
                    headers[key] = value[0]
            for comment in _prop(root, "GC") or []:  # the full names a name tag kept
                for line in comment.splitlines():
                    named = read_name_tag(line)
                    if named is not None:
                        headers[named[0]] = named[1]
        raw = RawGame(score)
        for node in nodes:
            setup = [k for k, _ in node if k in SETUP_PROPERTIES]
            if setup:
                raise MatchFileError(f"game {number} sets up a position or a cube "
                                     f"({', '.join(setup)}): only games played from the "
                                     "start are read")
        for node in nodes[1:]:
            for colour in ("W", "B"):
                value = _prop(node, colour)
                if value is None:
                    continue
                side = 0 if colour == "W" else 1
                raw.actions.append(_action(value[0], side, number))
        re_ = _prop(root, "RE")
        if re_:
            m = re.match(r"^([WB])\+(\d+)", re_[0])
            if m is None:
                raise MatchFileError(f"game {number}: cannot read RE[{re_[0]}]")
            raw.winner, raw.points = (0 if m.group(1) == "W" else 1), int(m.group(2))
        games.append(raw)
    return record_from_games(headers, length, crawford_rule or not games, games)


def _action(value: str, side: int, number: int) -> tuple[object, ...]:
    if value in ("double", "take", "drop"):
        return ("double", side, 0) if value == "double" else (value, side)
    if value in ("beaver", "raccoon"):
        raise MatchFileError(f"game {number}: beavers have no place in these rules")
    m = re.fullmatch(r"([1-6])([1-6])((?:[a-z][a-z]){0,4})", value)
    if m is None:
        raise MatchFileError(f"game {number}: cannot read the move {value!r}")
    letters = m.group(3)
    steps = []
    for k in range(0, len(letters), 2):
        a, b = _point(side, letters[k]), _point(side, letters[k + 1])
        steps.append(f"{a}/{b}")
    return ("move", side, (int(m.group(1)), int(m.group(2))), " ".join(steps))
