"""The annotated match: a record with the analysis of `analyze_record` written into it.

Two writers, both pure functions of a record and the result map `analyze_record`
returned for it (protocol/SPEC.md):

* `annotated_record`: RECORDS.md's format for every variant. The record is written as
  `format_record` writes it, with the analysis in lines a reader takes as comments:
  headers `Annotator`, `Analysis` (depth and thresholds) and `Summary0`/`Summary1` (each
  player's summary), and after each analysed action a line `;@ move ...` or
  `;@ cube ...` of `key=value` words (RECORDS.md, "Analysis annotations").
* `annotated_sgf`: GNU Backgammon's SGF for backgammon, with gnubg's analysis properties
  on the nodes: `A[i][best][played]` (the candidate plays, `i` the one played), `BM[1]`,
  `BM[2]`, `DO[]` (error, blunder, doubtful move), `BC`/`DC` the same for cube actions,
  `LU[+0.123]` (the roll's luck), `DA[...]` (money play only: the cube decision as gnubg
  stores it, the doubler's chances before the roll with its no-double and double/take
  cubeful equities), and `C[...]` (a comment with the figures). A candidate play has
  its evaluation (`E ver 3`: its chances, cubeless, and its equity) when the move
  entry has `play_chances` (`analyze_record annotate=true` gives them), else its move
  alone.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterable, Mapping
from typing import Any

from .mat import MatchFileError, move_steps
from .records import (
    FORMAT,
    GameRecord,
    MatchRecord,
    _action_lines,
    format_game,
    format_header,
    ordered_headers,
)
from .sgf import _escape, _letter, format_sgf

MARK_WORDS = {"doubtful": "?!", "error": "?", "blunder": "??"}
_SGF_MARK = {"doubtful": "DO[]", "error": "BM[1]", "blunder": "BM[2]"}
_SGF_CUBE_MARK = {"doubtful": "DC[]", "error": "BC[1]", "blunder": "BC[2]"}


def _word(value: Any) -> str:
    """A value as one word: numbers as written, None as `-`, text with spaces quoted."""
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    text = str(value)
    return text if text and " " not in text and '"' not in text else json.dumps(text)


def _pairs(entry: Mapping[str, Any], keys: Iterable[str]) -> str:
    return " ".join(f"{k}={_word(entry[k])}" for k in keys if k in entry)


MOVE_KEYS = ("side", "dice", "move", "best", "equity", "best_equity", "loss", "mark",
             "choices", "forced", "plies", "units", "luck")
CUBE_KEYS = ("side", "action", "best", "no_double", "double_take", "double_pass", "loss",
             "mark", "counted", "plies", "units")
SUMMARY_KEYS = ("decisions", "forced", "loss", "cube_decisions", "cube_loss", "error_rate",
                "pr", "luck")


def annotation_line(entry: Mapping[str, Any], kind: str) -> str:
    """`;@ move side=0 dice=64 ...` or `;@ cube side=1 action=take ...`."""
    if kind == "move":
        shown = {**entry, "dice": "".join(str(d) for d in entry.get("dice") or [])}
        return f";@ move {_pairs(shown, MOVE_KEYS)}"
    return f";@ cube {_pairs(entry, CUBE_KEYS)}"


def summary_value(summary: Mapping[str, Any]) -> str:
    marks = summary.get("marks", {})
    cube_marks = summary.get("cube_marks", {})
    words = [_pairs(summary, SUMMARY_KEYS)]
    words += [f"{k}={marks.get(k, 0)}" for k in MARK_WORDS]
    words += [f"cube_{k}={cube_marks.get(k, 0)}" for k in MARK_WORDS]
    return " ".join(w for w in words if w)


Entries = dict[tuple[int, int], list[tuple[str, dict[str, Any]]]]


def _by_action(analysis: Mapping[str, Any]) -> Entries:
    """The analysis entries by (game, action index): cube ones first."""
    out: Entries = {}
    for entry in analysis.get("cube") or []:
        out.setdefault((entry["game"], entry["index"]), []).append(("cube", entry))
    for entry in analysis.get("moves") or []:
        out.setdefault((entry["game"], entry["index"]), []).append(("move", entry))
    return out


def _headers(analysis: Mapping[str, Any]) -> list[tuple[str, str]]:
    limits = analysis.get("thresholds") or {}
    head = [("Annotator", "jacquetd analyze_record"),
            ("Analysis", " ".join([f"plies={analysis.get('plies', 0)}"]
                                  + [f"{k}={_word(v)}" for k, v in limits.items()]))]
    for summary in analysis.get("summary") or []:
        head.append((f"Summary{summary['side']}", summary_value(summary)))
    return head


def annotated_record(record: MatchRecord, analysis: Mapping[str, Any]) -> str:
    """The record in RECORDS.md's format (whatever it was read from) with the analysis as
    annotation lines, its headers `Annotator`, `Analysis` and `Summary0`/`Summary1`
    replacing any it had; a reader that skips comments reads the same match back."""
    headers = {**record.headers, "Format": FORMAT, **dict(_headers(analysis))}
    out = [format_header(k, v) for k, v in ordered_headers(headers)]
    entries = _by_action(analysis)
    for game in record.games:
        out.append("")
        out.extend(_game_lines(game, entries))
    return "\n".join(out) + "\n"


def _game_lines(game: GameRecord,
                entries: Entries) -> list[str]:
    """A game's lines as `format_game` writes them, each action's annotations after it."""
    lines = format_game(GameRecord(game.number, game.score, game.crawford, game.opening))
    acts = game.actions
    i = 0
    while i < len(acts):
        group = [i]
        if (acts[i].kind == "roll" and i + 1 < len(acts) and acts[i + 1].kind == "move"
                and acts[i + 1].side == acts[i].side):
            group.append(i + 1)  # written as one line `S DD: MOVE`, as `format_game` does
        lines.extend(_action_lines([acts[j] for j in group]))
        for j in group:
            lines.extend(annotation_line(entry, kind)
                         for kind, entry in entries.get((game.number, j), []))
        i = group[-1] + 1
    if game.result is not None:
        lines.append(format_game(game)[-1])
    return lines


# -- SGF ----------------------------------------------------------------------------------


def _nodes(game: GameRecord) -> dict[int, int]:
    """Action index -> node number, as `mat.turns` makes nodes: a roll belongs to the node
    of its side's next move, the opening roll to the first move, resignations make none."""
    out: dict[int, int] = {}
    node = 0
    waiting: list[int] = []
    for i, a in enumerate(game.actions):
        if a.kind == "roll":
            waiting.append(i)
        elif a.kind == "move":
            for j in waiting:
                out[j] = node
            waiting = []
            out[i] = node
            node += 1
        elif a.kind in ("double", "take", "drop"):
            out[i] = node
            node += 1
    return out


def _sgf_move(side: int, move: str) -> str:
    return "".join(_letter(side, a) + _letter(side, b) for a, b, _ in move_steps(move))


def _fmt(x: float) -> str:
    return f"{x:.6f}"


_PROBS = ("win", "win_gammon", "win_backgammon", "lose_gammon", "lose_backgammon")


def _evaluation(chances: Mapping[str, float] | None, equity: float, plies: int) -> str:
    """A candidate play's evaluation as gnubg writes it (cubeless at `plies`), or nothing
    when its chances are unknown."""
    if not chances:
        return ""
    probs = " ".join(_fmt(chances[k]) for k in _PROBS)
    return f"E ver 3 {probs} {_fmt(equity)} {plies} 0 1 0.000000 1"


def _move_props(entry: Mapping[str, Any]) -> str:
    side = entry["side"]
    played = entry.get("move") or ""
    best = entry.get("best") or ""
    chances = entry.get("play_chances") or [None, None]
    plays = [(best, chances[1], entry["best_equity"])]
    if best != played:
        plays.append((played, chances[0], entry["equity"]))
    index = len(plays) - 1
    props = f"A[{index}]" + "".join(
        f"[{_sgf_move(side, p)} {_evaluation(c, e, entry['plies'])}]" for p, c, e in plays)
    if entry.get("luck") is not None:
        props += f"LU[{entry['luck']:+.3f}]"
    if entry.get("mark"):
        props += _SGF_MARK[entry["mark"]]
    return props


def _cube_props(entry: Mapping[str, Any]) -> str:
    props = ""
    chances = entry.get("chances")
    if entry.get("units") == "money" and chances and entry["action"] in ("double", "no_double"):
        probs = " ".join(_fmt(chances[k]) for k in _PROBS)
        cubeless = _fmt(chances["equity"])
        props += (f"DA[E ver 3 {entry['plies']}C 1 0.000000 1 {probs} {cubeless} "
                  f"{_fmt(entry['no_double'])} {probs} {cubeless} {_fmt(entry['double_take'])}]")
    if entry.get("mark"):
        props += _SGF_CUBE_MARK[entry["mark"]]
    return props


def _comment(parts: list[str]) -> str:
    return f"C[{_escape(chr(10).join(parts))}]" if parts else ""


def _describe(kind: str, entry: Mapping[str, Any]) -> str:
    mark = f" {MARK_WORDS[entry['mark']]} ({entry['mark']})" if entry.get("mark") else ""
    if kind == "cube":
        return (f"jacquetd {entry['plies']}-ply cube ({entry['units']}): {entry['action']}, "
                f"right {entry['best']}; no double {entry['no_double']:+.3f}, "
                f"double/take {entry['double_take']:+.3f}, double/pass "
                f"{entry['double_pass']:+.3f}; cost {entry['loss']:.3f}{mark}")
    text = (f"jacquetd {entry['plies']}-ply ({entry['units']}): played "
            f"{entry.get('move') or 'no play'} {entry['equity']:+.3f}")
    if entry.get("loss", 0) > 0:
        text += f"; best {entry['best']} {entry['best_equity']:+.3f}; cost {entry['loss']:.3f}"
    return text + mark


def annotated_sgf(record: MatchRecord, analysis: Mapping[str, Any], *,
                  date: str | None = None) -> str:
    """The backgammon record as gnubg's SGF with the analysis on its nodes (see the
    module); MatchFileError for another variant or a match without the cube."""
    entries = _by_action(analysis)
    notes: Entries = {}
    for game in record.games:
        nodes = _nodes(game)
        for (number, index), found in entries.items():
            if number == game.number and index in nodes:
                notes.setdefault((number, nodes[index]), []).extend(found)
    annotations: dict[tuple[int, int], str] = {}
    for key, found in notes.items():
        props = ""
        for kind, entry in found:
            props += _move_props(entry) if kind == "move" else _cube_props(entry)
        props += _comment([_describe(kind, entry) for kind, entry in found])
        annotations[key] = props
    return format_sgf(record, date=date, annotations=annotations)


def annotated(record: MatchRecord, analysis: Mapping[str, Any]) -> dict[str, str]:
    """`analyze_record`'s `annotated` map: `record` always, `sgf` for a backgammon match
    played with the cube (what gnubg's SGF can hold)."""
    out = {"record": annotated_record(record, analysis)}
    if record.variant == "backgammon" and record.cube is not False:
        with contextlib.suppress(MatchFileError):  # one SGF has no form for: no `sgf`
            out["sgf"] = annotated_sgf(record, analysis)
    return out
